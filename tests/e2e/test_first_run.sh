#!/usr/bin/env bash
# A new user's first commands, without surprises: `list` shows the APIs (operations on
# request), counts in the singular, an API with no operations is indexed with a warning
# naming its file, a non-spec file and a folder without specs get the same refusal, an
# unknown endpoint and an unknown flag get the nearest one, an empty index says how to fill
# it, and an unquoted task says to quote it.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin=${APIDEX_BIN:?APIDEX_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet

# run WANT_STATUS ARGS...: the command's exit status must be WANT_STATUS; out/err in $tmp.
run() {
  local want=$1 status=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" = "$want" ] || fail "$*: exit $status, want $want ($(head -c 400 "$tmp/err"))"
}
has() { grep -qF -- "$2" "$tmp/$1" || fail "$1 of the last command lacks '$2': $(head -c 600 "$tmp/$1")"; }
lacks() { if grep -qF -- "$2" "$tmp/$1"; then fail "$1 has '$2': $(head -c 600 "$tmp/$1")"; fi; }

echo "== list: the APIs by default, the operations on request"
run 0 "$bin" list --db "$db"
has out "city-library: City Library API 1.4.0 (8 operations)"
has out "recipe-box"
has out "open-weather-station"
lacks out "GET     /books/search"
[ "$(wc -l <"$tmp/out")" -lt 15 ] || fail "list prints $(wc -l <"$tmp/out") lines for 3 APIs"
has out "--operations"
run 0 "$bin" list --operations --db "$db"
has out "GET     /books/search"
has out "GET     /stations"
run 0 "$bin" list --api city-library --db "$db"
has out "GET     /books/search"
lacks out "GET     /stations"
run 0 "$bin" list --tag loans --db "$db"
has out "borrowBook"
run 0 "$bin" list --json --db "$db"
has out '"method":"GET"'

echo "== one operation, not '1 operations'; an API without operations is named"
mkdir -p "$tmp/one"
cat >"$tmp/one/single.yaml" <<'EOF'
openapi: 3.0.3
info: {title: Single Op, version: "1.0"}
paths:
  /ping:
    get:
      operationId: ping
      responses: {"200": {description: ok}}
EOF
cat >"$tmp/one/empty.yaml" <<'EOF'
openapi: 3.0.3
info: {title: No Paths Yet, version: "0.1"}
paths: {}
EOF
run 0 "$bin" index "$tmp/one" --db "$tmp/one.db"
has err "empty.yaml"
has err "no operations"
run 0 "$bin" list --db "$tmp/one.db"
has out "(1 operation)"
lacks out "(1 operations)"
has out "(0 operations)"
run 0 "$bin" index "$tmp/one" --db "$tmp/one.db" --quiet
lacks err "no operations"

echo "== a non-spec file and a folder without specs: the same refusal, nothing written"
echo "just some notes" >"$tmp/notes.txt"
mkdir -p "$tmp/nospecs"
echo "# readme" >"$tmp/nospecs/README.md"
run 4 "$bin" index "$tmp/notes.txt" --db "$tmp/n1.db"
has err "no OpenAPI documents in the given paths"
has err "notes.txt"
[ ! -e "$tmp/n1.db" ] || fail "a refused build wrote $tmp/n1.db"
run 4 "$bin" index "$tmp/nospecs" --db "$tmp/n2.db"
has err "no OpenAPI documents in the given paths"
[ ! -e "$tmp/n2.db" ] || fail "a refused build wrote $tmp/n2.db"
# a non-spec file beside a good spec still fails alone (exit 1), the spec is indexed
run 1 "$bin" index "$tmp/notes.txt" "$tmp/one/single.yaml" --db "$tmp/n3.db"
[ -e "$tmp/n3.db" ] || fail "the good spec beside a bad file was not indexed"

echo "== show: an unknown endpoint names the nearest"
run 1 "$bin" show city-library:getBok --db "$db"
has err "city-library:getBook"
has err "did you mean"
run 1 "$bin" show "GET /book/{id}" --db "$db"
has err "GET /books/{book_id}"

echo "== call, snippet and tools: an unknown endpoint names the nearest too"
run 1 "$bin" call city-library:getBok --dry-run --db "$db"
has err "did you mean"
has err "city-library:getBook"
run 1 "$bin" snippet city-library:getBok --db "$db"
has err "did you mean"
has err "city-library:getBook"
status=0
"$bin" tools city-library:getBok --db "$db" >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" != 0 ] || fail "tools of an unknown id: exit 0"
has err "did you mean"
has err "city-library:getBook"

echo "== search on an empty index says so and how to fill it"
run 0 "$bin" index "$tmp/nospecs" --db "$tmp/empty.db" --prune --quiet
run 1 "$bin" search "refund a charge" --db "$tmp/empty.db"
has err "is empty"
has err "apidex index"
lacks out "no endpoint matches"

echo "== --top suggests -k; an unquoted task says to quote it"
run 2 "$bin" search "list the loans" --top 5 --db "$db"
has err "unknown option '--top'; did you mean '-k'?"
run 2 "$bin" search refund a charge --db "$db"
has err "unexpected argument 'a'"
has err "apidex search \"refund a charge\""
run 2 "$bin" search "list the loans" -n 5 --db "$db"
has err "did you mean '-k'?"

echo "== unknown flags: the nearest one everywhere"
run 2 "$bin" mock "$src/examples/weather.json" --listn
has err "did you mean '--listen'?"
run 2 "$bin" --versoin
has err "did you mean '--version'?"
run 2 "$bin" --hepl
has err "did you mean '--help'?"
echo "== the README's quickstart runs as printed (its make and claude lines aside)"
mkdir -p "$tmp/qs"
cp -r "$src/examples" "$tmp/qs/examples"
sed -n '/^## Quickstart/,/^```$/p' "$src/README.md" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d' |
  grep -vE '^(make|claude) ' >"$tmp/qs/lines"
[ "$(wc -l <"$tmp/qs/lines")" -ge 4 ] || fail "README quickstart: $(cat "$tmp/qs/lines")"
while IFS= read -r line; do
  (cd "$tmp/qs" && apidex() { "$bin" "$@"; } && eval "$line") >"$tmp/out" 2>"$tmp/err" ||
    fail "README quickstart line failed: $line: $(cat "$tmp/err")"
  case "$line" in
  *search*) has out "recipe-box:addRecipeToCookbook" ;;
  *show*) has out "POST https://recipes.example.com/v2/cookbooks/{cookbook_id}/recipes" ;;
  esac
done <"$tmp/qs/lines"
echo ok
