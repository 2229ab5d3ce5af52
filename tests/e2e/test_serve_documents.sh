#!/usr/bin/env bash
# The operation behind an index row, served (src/store/opdoc.c): `apidex serve` on a free
# loopback port over an index of examples/ (three APIs). Endpoint details at every level,
# snippets in every language and tool definitions of one API, asked many times and by
# many clients at once, load each document once (/metrics apidex_documents_loaded), and every
# concurrent answer equals the answer asked alone; a rebuild (hot reload: a new snapshot)
# starts with a new cache.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
tmp="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
unset APIDEX_TOKEN
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }

mkdir -p "$tmp/specs"
cp "$src/examples/"* "$tmp/specs/"
"$bin" index "$tmp/specs" --db "$tmp/e.db" --quiet || exit 1
server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"
ASAN_OPTIONS="$server_asan" timeout 300 "$bin" serve --db "$tmp/e.db" --listen 127.0.0.1:0 \
  --port-file "$tmp/port" --access-log none >"$tmp/serve.out" 2>&1 &
pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "FAIL: serve did not start"; cat "$tmp/serve.out"; exit 1; }
base="http://127.0.0.1:$(cat "$tmp/port")"
loaded() { curl -s "$base/metrics" | awk '$1 == "apidex_documents_loaded" {print $2}'; }

[ "$(loaded)" = 0 ] && ok "nothing loaded at start" || bad "loaded at start: $(loaded)"

# the requests: one API's endpoints at every detail level, snippets in every language, tools
urls=()
for idp in city-library:getBook:book_id city-library:searchBooks:q \
  city-library:listLoans:member_id; do
  id=${idp%:*} p=${idp##*:}
  for d in summary call full; do urls+=("/v1/endpoints/$id?detail=$d"); done
  for l in curl python javascript go; do urls+=("/v1/snippet?id=$id&lang=$l&p=$p%3Dx1"); done
done
urls+=("/v1/tools?id=city-library:getBook&id=city-library:renewLoan")
urls+=("/v1/tools?id=city-library:reserveBook&format=anthropic")

# alone, one after the other
i=0
for u in "${urls[@]}"; do
  code=$(curl -s -o "$tmp/alone.$i" -w '%{http_code}' "$base$u")
  [ "$code" = 200 ] || bad "$u is $code: $(head -c 300 "$tmp/alone.$i")"
  i=$((i + 1))
done
[ "$(loaded)" = 1 ] && ok "${#urls[@]} requests of one API loaded its document once" \
  || bad "loaded $(loaded) times for one API"

# at once: every request 4 times, 8 clients at a time
i=0
for u in "${urls[@]}"; do
  for r in 1 2 3 4; do echo "$i $r $u"; done
  i=$((i + 1))
done >"$tmp/jobs"
xargs -P 8 -L 1 sh -c 'curl -s -o "$0/at.$1.$2" "$4$3"' "$tmp" <<<"$(sed "s|\$| $base|" "$tmp/jobs")"
same=1
while read -r i r u; do
  cmp -s "$tmp/alone.$i" "$tmp/at.$i.$r" || { same=0; bad "$u at once differs from alone"; }
done <"$tmp/jobs"
[ "$same" = 1 ] && ok "$(wc -l <"$tmp/jobs") concurrent answers equal the answers alone"
[ "$(loaded)" = 1 ] && ok "still loaded once after the concurrent requests" \
  || bad "loaded $(loaded) times after the concurrent requests"

# another API: one more load
curl -s -o /dev/null "$base/v1/snippet?id=recipe-box:getRecipe&p=recipe_id%3Dr1"
curl -s -o /dev/null "$base/v1/endpoints/recipe-box:getRecipe?detail=full"
[ "$(loaded)" = 2 ] && ok "another API loads its own document once" || bad "loaded $(loaded)"

# a rebuild: the new snapshot has a cache of its own
build_before=$(curl -s "$base/metrics" | awk -F'"' '/^apidex_index_info/ {print $2}')
sed -i 's/Borrow a book/Borrow one book/' "$tmp/specs/library.yaml"
"$bin" index "$tmp/specs" --db "$tmp/e.db" --quiet || exit 1
for _ in $(seq 100); do
  b=$(curl -s "$base/metrics" | awk -F'"' '/^apidex_index_info/ {print $2}')
  [ -n "$b" ] && [ "$b" != "$build_before" ] && break
  sleep 0.1
done
[ "$b" != "$build_before" ] && ok "the rebuild is served" || bad "no reload after the rebuild"
[ "$(loaded)" = 0 ] && ok "the new snapshot starts with no document loaded" || bad "loaded $(loaded)"
curl -s -o "$tmp/new" "$base/v1/endpoints/city-library:borrowBook?detail=full"
curl -s -o /dev/null "$base/v1/snippet?id=city-library:borrowBook"
[ "$(loaded)" = 1 ] && ok "and loads it once" || bad "loaded $(loaded)"

[ "$fail" = 0 ] && echo "all ok"
exit "$fail"
