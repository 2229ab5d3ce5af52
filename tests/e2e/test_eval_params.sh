#!/usr/bin/env bash
# apidex eval with search parameters: --list-params prints the table (--markdown: the one in
# docs/SEARCH.md, which must match it), --param sets one and
# changes the numbers, --sweep-param prints a row per value from one index, bad names and
# values are usage errors (exit 2), and the report counts the tasks with all gold in the top k.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" eval --list-params > "$tmp/list"
grep -q '^answer.ratio ' "$tmp/list" || fail "--list-params lacks answer.ratio"
grep -q '^intent.max ' "$tmp/list" || fail "--list-params lacks intent.max"
# docs/SEARCH.md's parameter table is the code's (src/search/params.def), line for line:
# `apidex eval --list-params --markdown` prints it, scripts/params_table.sh writes it there
"$bin" eval --list-params --markdown > "$tmp/md"
[ "$(grep -c '^| `' "$tmp/md")" = "$(wc -l < "$tmp/list")" ] || fail "--markdown: not one row per parameter"
awk '/^## / { s = ($0 == "## Parameters") } s && /^\|/ { print; t = 1; next } t { exit }' \
  "$src/docs/SEARCH.md" > "$tmp/doc"
diff "$tmp/md" "$tmp/doc" > "$tmp/diff" ||
  fail "docs/SEARCH.md's parameter table differs from the code (bash scripts/params_table.sh): $(head -c 600 "$tmp/diff")"
"$bin" eval --markdown > /dev/null 2>&1 && fail "--markdown alone is accepted"

cat > "$tmp/q.json" <<'JSON'
[{"query": "Create a new cookbook for me and add the lasagna recipe to it",
  "solution": ["POST /users/{user_id}/cookbooks", "POST /cookbooks/{cookbook_id}/recipes"]},
 {"query": "search recipes with mushrooms", "solution": ["GET /recipes"]}]
JSON
"$bin" index "$src/examples/recipes.yaml" --db "$tmp/i.db" > /dev/null 2>&1
"$bin" eval --db "$tmp/i.db" --queries "$tmp/q.json" --json > "$tmp/a.json"
grep -q '"complete_at":{"5":1.0000' "$tmp/a.json" || fail "complete_at missing or wrong: $(cat "$tmp/a.json")"
# one request with one primary and no producers: the cookbook creation is lost
"$bin" eval --db "$tmp/i.db" --queries "$tmp/q.json" --json --param intent.max=1 \
  --param answer.max_primaries=1 --param producer.depth=0 > "$tmp/b.json"
a=$(grep -o '"adaptive":{"recall":[0-9.]*' "$tmp/a.json")
b=$(grep -o '"adaptive":{"recall":[0-9.]*' "$tmp/b.json")
[ "$a" != "$b" ] || fail "--param changed nothing ($a)"

"$bin" eval --db "$tmp/i.db" --queries "$tmp/q.json" --sweep-param answer.ratio=0.5,1 > "$tmp/s"
grep -q '^| answer.ratio | R@5' "$tmp/s" || fail "sweep header: $(cat "$tmp/s")"
[ "$(grep -c '^| [01]' "$tmp/s")" = 2 ] || fail "sweep rows: $(cat "$tmp/s")"

set +e
"$bin" eval --db "$tmp/i.db" --queries "$tmp/q.json" --param nosuch=1 > /dev/null 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "unknown parameter: exit $rc"
grep -q "no search parameter 'nosuch'" "$tmp/err" || fail "unknown parameter message: $(cat "$tmp/err")"
set +e
"$bin" eval --db "$tmp/i.db" --queries "$tmp/q.json" --sweep-param answer.ratio=0.5,x > /dev/null 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad sweep value: exit $rc"
echo "eval params: ok"
