#!/usr/bin/env bash
# The PostgreSQL backend answers as the SQLite file does: the same corpus and RestBench
# specs built into both give identical `eval` results (RestBench and the everyday tasks,
# every query's ranking) and identical `search`, `show` and `list` output; a second publish
# reuses every unchanged document; APIDEX_DB takes a URL; the password never appears in
# any output; a generation of another schema version and an empty database are refused
# with a clear message.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
tmp="$(mktemp -d)"
. "$src/tests/e2e/pg_start.sh"
cleanup() { pg_stop; rm -rf "$tmp"; }
trap cleanup EXIT
export APIDEX_NO_REEXEC=1
unset APIDEX_DB
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
py=/usr/bin/python3

rc=0
pg_start "$tmp" || rc=$?
if [ "$rc" = 1 ]; then echo "test_pg_search: skipped (PostgreSQL binaries not found)"; exit 0; fi
[ "$rc" = 0 ] || { echo "FAIL: PostgreSQL did not start" >&2; exit 1; }

rb="$shared/benchmarks/restbench"
specs=("$shared/corpus/specs" "$rb/specs")
for d in "${specs[@]}"; do [ -d "$d" ] || { echo "FAIL: $d missing" >&2; exit 1; }; done
file="$tmp/idx.db"
out="$tmp/out.log" # every command's stdout and stderr, searched for the password at the end
"$bin" index "${specs[@]}" --db "$file" --quiet || { echo "FAIL: sqlite build" >&2; exit 1; }
"$bin" index "${specs[@]}" --db "$PG_URL" --json >"$tmp/pub1.json" 2>>"$out" || fail "first publish"
cat "$tmp/pub1.json" >>"$out"
"$bin" index "${specs[@]}" --db "$PG_URL" --json >"$tmp/pub2.json" 2>>"$out" || fail "second publish"
cat "$tmp/pub2.json" >>"$out"
$py - "$tmp/pub1.json" "$tmp/pub2.json" <<'PYEOF' || fail "second publish did not reuse every document"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["added"] >= 40 and a["failed"] == 0, a
assert b["unchanged"] == a["added"] and b["added"] == b["updated"] == 0, b
assert "***" in b["db"] and b["db"].startswith("postgres://apidex:"), b["db"]
PYEOF

# eval: every query of RestBench (TMDB, Spotify) and the everyday tasks, ranked the same.
strip='
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if not (k.endswith("_ms") or k in ("db", "seconds", "elapsed"))}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o
print(json.dumps(strip(json.load(sys.stdin)), sort_keys=True, indent=1))'
queries=("$rb/datasets/tmdb.json" "$rb/datasets/spotify.json" "$src/bench/queries/everyday_tasks.json")
"$bin" eval --db "$file" --queries "${queries[@]}" --json --per-query | $py -c "$strip" >"$tmp/eval.file"
"$bin" eval --db "$PG_URL" --queries "${queries[@]}" --json --per-query 2>>"$out" |
  $py -c "$strip" >"$tmp/eval.pg"
[ -s "$tmp/eval.file" ] && grep -q '"per_query"' "$tmp/eval.file" || fail "eval on the file gave nothing"
cmp -s "$tmp/eval.file" "$tmp/eval.pg" || {
  fail "eval differs between the backends"
  diff "$tmp/eval.file" "$tmp/eval.pg" | head -20
}

# search --json for the everyday tasks' queries, through --db and through APIDEX_DB
$py -c 'import json,sys; [print(t["query"]) for t in json.load(open(sys.argv[1]))[:12]]' \
  "$src/bench/queries/everyday_tasks.json" >"$tmp/queries.txt"
n=0
while IFS= read -r q; do
  a=$("$bin" search "$q" --json -k 10 --db "$file" | $py -c "$strip")
  b=$(APIDEX_DB="$PG_URL" "$bin" search "$q" --json -k 10 2>>"$out" | $py -c "$strip")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "search '$q' differs"
  n=$((n + 1))
done <"$tmp/queries.txt"
[ "$n" -ge 12 ] || fail "only $n queries"
# the generation carries the search image: the replica's file opens from it (no fallback note)
! grep -q "search image is not used" "$out" || fail "a PostgreSQL reader did not open from the search image"

# show (the rendered, packed text) and list
"$bin" search "create a playlist" --json -k 5 --db "$file" |
  $py -c 'import json,sys; print("\n".join(r["id"] for r in json.load(sys.stdin)["results"]))' >"$tmp/ids"
while IFS= read -r id; do
  a=$("$bin" show "$id" --db "$file")
  b=$("$bin" show "$id" --db "$PG_URL" 2>>"$out")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "show $id differs"
done <"$tmp/ids"
[ "$(wc -l <"$tmp/ids")" = 5 ] || fail "show: expected 5 ids"
cmp -s <("$bin" list --db "$file" --json) <("$bin" list --db "$PG_URL" --json 2>>"$out") ||
  fail "list differs"

# The C API: apidex_index_open takes the URL
build_dir="${APIDEX_BUILD_DIR:-$(dirname "$bin")}"
if [ -e "$build_dir/libapidex.so" ] && command -v cc >/dev/null; then
  cat >"$tmp/capi.c" <<'CEOF'
#include "apidex.h"
#include <stdio.h>
int main(int argc, char **argv)
{
    apidex_index *idx = NULL;
    apidex_results *res = NULL;
    apidex_error err;
    if (argc < 2 || apidex_index_open(argv[1], &idx, &err) ||
        apidex_search(idx, "create a playlist and add tracks", NULL, &res, &err)) {
        fprintf(stderr, "capi: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < apidex_results_count(res); i++)
        printf("%s %.4f\n", apidex_results_hit(res, i)->id, apidex_results_hit(res, i)->score);
    apidex_results_free(res);
    apidex_index_close(idx);
    return 0;
}
CEOF
  # a sanitizer build's library needs its runtime in the program too (make test-asan)
  san=()
  # (grep reads all of ldd's output: with pipefail, grep -q's early exit failed the pipe)
  if ldd "$build_dir/libapidex.so" | grep libasan >/dev/null; then san=(-fsanitize=address,undefined); fi
  if cc "${san[@]}" -I"$src/include" -o "$tmp/capi" "$tmp/capi.c" -L"$build_dir" -lapidex \
    -Wl,-rpath,"$build_dir"; then
    a=$("$tmp/capi" "$file")
    b=$("$tmp/capi" "$PG_URL" 2>>"$out")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "C API: file and URL differ: $a / $b"
  else
    fail "the C API example does not build"
  fi
else
  echo "test_pg_search: C API part skipped (no $build_dir/libapidex.so or cc)"
fi

# Refusals, with the URL shown masked.
pg_sql "CREATE DATABASE empty" >/dev/null
empty_url="postgres://apidex:$PG_PASSWORD@127.0.0.1:$PG_PORT/empty"
rc=0
"$bin" search "pets" --db "$empty_url" >>"$out" 2>"$tmp/err" || rc=$?
cat "$tmp/err" >>"$out"
[ "$rc" != 0 ] && grep -q "no index published in postgres://apidex:\*\*\*@" "$tmp/err" ||
  fail "empty database: rc $rc, $(cat "$tmp/err")"
rc=0
"$bin" search "pets" --db "postgres://apidex:wrong-$PG_PASSWORD@127.0.0.1:$PG_PORT/postgres" \
  >>"$out" 2>"$tmp/err" || rc=$?
cat "$tmp/err" >>"$out"
[ "$rc" != 0 ] && grep -q "password authentication failed" "$tmp/err" && ! grep -q "wrong-" "$tmp/err" ||
  fail "wrong password: rc $rc, $(cat "$tmp/err")"
# credentials from PG* variables: a URL without a password
PGPASSWORD=$PG_PASSWORD "$bin" list --db "postgres://apidex@127.0.0.1:$PG_PORT/postgres" >/dev/null 2>>"$out" ||
  fail "PGPASSWORD not used"
pg_sql "UPDATE apidex.current SET schema_version = schema_version + 1" >/dev/null
rc=0
"$bin" search "pets" --db "$PG_URL" >>"$out" 2>"$tmp/err" || rc=$?
cat "$tmp/err" >>"$out"
[ "$rc" != 0 ] && grep -q "schema version" "$tmp/err" || fail "newer schema: rc $rc, $(cat "$tmp/err")"
pg_sql "UPDATE apidex.current SET schema_version = schema_version - 1" >/dev/null

grep -q "$PG_PASSWORD" "$out" && fail "the password was printed: $(grep -m1 "$PG_PASSWORD" "$out")"
[ "$fails" = 0 ] || exit 1
echo "test_pg_search: ok ($n searches, eval and show identical on both backends)"
