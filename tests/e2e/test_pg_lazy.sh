#!/usr/bin/env bash
# A PostgreSQL replica reads what opening needs and the rest on demand (src/store/pg_lazy.c):
#   - open + search read meta, documents, apis, aliases, the image and _sqlite, and no row
#     of operations, schemas, chunks, edges, inputs or vectors (the server's own counts,
#     pg_stat_user_tables, after the client is gone), and the rows /healthz says a replica
#     read at open are exactly those tables' rows, in bytes a fraction of the generation;
#   - search answers are the file index's; show, `call --dry-run` and GET /v1/endpoints/{id}
#     (the lazy path: a table copied light on first use, the content read by row) are too;
#   - an index held open while two newer generations are published still answers from the
#     generation it opened (its search context, with operation and schema texts read on
#     demand, equals the file of that generation), also after its connection was killed;
#     closing it lets the next publish drop that generation.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
build_dir="${APIDEX_BUILD_DIR:-$(dirname "$bin")}"
tmp="$(mktemp -d)"
. "$src/tests/e2e/pg_start.sh"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
export APIDEX_NO_REEXEC=1
unset APIDEX_DB
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
py=/usr/bin/python3

rc=0
pg_start "$tmp" || rc=$?
if [ "$rc" = 1 ]; then echo "test_pg_lazy: skipped (PostgreSQL binaries not found)"; exit 0; fi
[ "$rc" = 0 ] || { echo "FAIL: PostgreSQL did not start" >&2; exit 1; }
q() { pg_sql "$1"; }

rb="$shared/benchmarks/restbench/specs"
corpus="$shared/corpus/specs"
[ -d "$rb" ] && [ -d "$corpus" ] || { echo "FAIL: $rb or $corpus missing" >&2; exit 1; }
file="$tmp/idx.db"
"$bin" index "$corpus" "$rb" --db "$file" --quiet || { echo "FAIL: file build" >&2; exit 1; }
"$bin" index "$corpus" "$rb" --db "$PG_URL" --quiet || { echo "FAIL: publish" >&2; exit 1; }
g1=$(q "SELECT generation FROM apidex.current")
ns="apidex_g$g1"

# rows read per table of the generation, as the server counts them (flushed when the
# reader's session ends: wait until the open's meta read shows)
reads() {
  local t
  for t in 1 2 3 4 5 6 7 8 9 10; do
    [ "$(q "SELECT coalesce(sum(seq_tup_read), 0) FROM pg_stat_user_tables WHERE schemaname = '$ns' AND relname = 'meta'")" -gt 0 ] && break
    sleep 0.5
  done
  q "SELECT relname || '=' || coalesce(seq_tup_read, 0) || ' ' || relname || '_by_id=' || coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE schemaname = '$ns' ORDER BY relname" | tr '\n' ' '
}
read_of() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
lazy_tables="operations schemas chunks edges inputs vectors"

# 1. open and search: nothing of the lazy tables is read
q "SELECT pg_stat_reset()" >/dev/null
strip='
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if not (k.endswith("_ms") or k in ("db", "seconds", "elapsed"))}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o
print(json.dumps(strip(json.load(sys.stdin)), sort_keys=True))'
n=0
for query in "create a playlist and add tracks" "refund the last payment of a customer" \
  "get the weather forecast for a city" "find movies by an actor" "send an sms message"; do
  a=$("$bin" search "$query" --json -k 10 --db "$file" | $py -c "$strip")
  b=$("$bin" search "$query" --json -k 10 --db "$PG_URL" | $py -c "$strip")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "search '$query' differs from the file's"
  n=$((n + 1))
done
r=$(reads)
# no table scanned; an operation's summary read by id for the hits shown (5 x 10 at most)
for t in $lazy_tables; do
  [ "$(read_of "$r" "$t")" = 0 ] || fail "open + search scanned $t: $r"
done
[ "$(read_of "$r" operations_by_id)" -le 50 ] || fail "search read too many operations by id: $r"
for t in schemas chunks edges inputs; do
  [ "$(read_of "$r" "${t}_by_id")" = 0 ] || fail "open + search read $t rows: $r"
done
[ "$(read_of "$r" image)" -gt 0 ] || fail "open did not read the image: $r"

# 2. /healthz: the rows read at open are those of the tables opening reads, and few bytes
port_file="$tmp/port"
"$bin" serve --db "$PG_URL" --listen 127.0.0.1:0 --port-file "$port_file" --threads 1 \
  --access-log none >"$tmp/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$port_file" ] && break; sleep 0.2; done
base="http://127.0.0.1:$(cat "$port_file" 2>/dev/null)"
health=""
for _ in $(seq 1 100); do
  health=$(curl -sf "$base/healthz") && [ -n "$health" ] && break
  sleep 0.2
done
open_rows=$($py -c 'import json,sys; print(json.load(sys.stdin)["store"]["fetched_rows"])' <<<"$health")
open_bytes=$($py -c 'import json,sys; print(json.load(sys.stdin)["store"]["fetched_bytes"])' <<<"$health")
want_rows=$(q "SELECT (SELECT count(*) FROM $ns.meta) + (SELECT count(*) FROM $ns.documents) + (SELECT count(*) FROM $ns.apis) + (SELECT count(*) FROM $ns.aliases) + (SELECT count(*) FROM $ns.image) + (SELECT count(*) FROM $ns._sqlite)")
[ "$open_rows" = "$want_rows" ] || fail "a replica read $open_rows rows at open, want $want_rows"
all_bytes=$(q "SELECT sum(octet_length(t::text)) FROM (SELECT x::text AS t FROM $ns.operations x UNION ALL SELECT x::text FROM $ns.schemas x UNION ALL SELECT x::text FROM $ns.chunks x UNION ALL SELECT x::text FROM $ns.edges x UNION ALL SELECT x::text FROM $ns.inputs x) s")
[ -n "$open_bytes" ] && [ "$open_bytes" -gt 0 ] && [ "$open_bytes" -lt $((all_bytes / 3)) ] ||
  fail "a replica read $open_bytes bytes at open (the lazy tables hold $all_bytes)"

# 3. the lazy path: show, call --dry-run, GET /v1/endpoints/{id} equal the file's
ids=$("$bin" search "create a playlist" --json -k 3 --db "$file" |
  $py -c 'import json,sys; print("\n".join(r["id"] for r in json.load(sys.stdin)["results"]))')
[ "$(wc -l <<<"$ids")" = 3 ] || fail "expected 3 ids"
q "SELECT pg_stat_reset()" >/dev/null
for id in $ids; do
  a=$("$bin" show "$id" --db "$file")
  b=$("$bin" show "$id" --db "$PG_URL")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "show $id differs"
done
r=$(reads)
[ "$(read_of "$r" chunks)" = 0 ] && [ "$(read_of "$r" chunks_by_id)" = 0 ] ||
  fail "show read chunk rows: $r"
id=$(head -1 <<<"$ids")
a=$("$bin" call "$id" --dry-run --db "$file" 2>&1)
b=$("$bin" call "$id" --dry-run --db "$PG_URL" 2>&1)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "call --dry-run $id differs: $a / $b"
enc=$($py -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$id")
detail=$(curl -sf "$base/v1/endpoints/$enc")
$py -c 'import json,sys; d=json.load(sys.stdin); assert d["id"] == sys.argv[1] and d["inputs"], d' "$id" <<<"$detail" >/dev/null ||
  fail "GET /v1/endpoints/$id through the replica: $detail"
health=$(curl -sf "$base/healthz")
rows_after=$($py -c 'import json,sys; print(json.load(sys.stdin)["store"]["fetched_rows"])' <<<"$health")
[ "$rows_after" -gt "$open_rows" ] || fail "detail read nothing on demand ($rows_after rows)"

# 4. a generation switch mid-session (the C API holds one index open)
if [ -e "$build_dir/libapidex.so" ] && command -v cc >/dev/null; then
  cat >"$tmp/hold.c" <<'CEOF'
#include "apidex.h"
#include <stdio.h>
#include <string.h>
/* Opens argv[1], then for each line on stdin searches it with a context budget and prints
   the hits and the context (operation and schema texts: read on demand from a server). */
int main(int argc, char **argv)
{
    apidex_index *idx = NULL;
    apidex_error err;
    if (argc < 2 || apidex_index_open(argv[1], &idx, &err)) {
        fprintf(stderr, "hold: %s\n", err.message);
        return 1;
    }
    printf("opened\n");
    fflush(stdout);
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        apidex_search_options opt = {.k = 5, .budget = 6000};
        apidex_results *res = NULL;
        if (apidex_search(idx, line, &opt, &res, &err)) {
            printf("error: %s\n", err.message);
        } else {
            for (size_t i = 0; i < apidex_results_count(res); i++)
                printf("%s\n", apidex_results_hit(res, i)->id);
            const char *ctx = apidex_results_context(res);
            printf("%s\n", ctx ? ctx : "(no context)");
        }
        printf("done\n");
        fflush(stdout);
        apidex_results_free(res);
    }
    apidex_index_close(idx);
    return 0;
}
CEOF
  san=()
  if ldd "$build_dir/libapidex.so" | grep libasan >/dev/null; then san=(-fsanitize=address,undefined); fi
  if cc "${san[@]}" -I"$src/include" -o "$tmp/hold" "$tmp/hold.c" -L"$build_dir" -lapidex \
    -Wl,-rpath,"$build_dir"; then
    task="create a playlist and add tracks to it"
    printf '%s\n' "$task" | "$tmp/hold" "$file" | sed '/^opened$/d; /^done$/d' >"$tmp/want"
    grep -q "playlist" "$tmp/want" || fail "the file's context names no playlist: $(head -3 "$tmp/want")"
    mkfifo "$tmp/in"
    "$tmp/hold" "$PG_URL" <"$tmp/in" >>"$tmp/got" 2>&1 &
    hold=$!
    pids+=($hold)
    exec 7>"$tmp/in"
    for _ in $(seq 1 100); do grep -q '^opened$' "$tmp/got" && break; sleep 0.2; done
    grep -q '^opened$' "$tmp/got" || fail "the C API did not open the URL: $(cat "$tmp/got")"
    # two newer generations without the RestBench APIs: the held one is neither current
    # nor previous, and its rows must still be the ones read
    "$bin" index "$corpus" --db "$PG_URL" --quiet --full || fail "publish 2"
    "$bin" index "$corpus" --db "$PG_URL" --quiet --full || fail "publish 3"
    [ "$(q "SELECT generation FROM apidex.current")" -gt $((g1 + 1)) ] || fail "no newer generation"
    [ "$(q "SELECT count(*) FROM pg_namespace WHERE nspname = '$ns'")" = 1 ] ||
      fail "generation $g1 was dropped while an index held it open"
    echo "$task" >&7
    for _ in $(seq 1 100); do grep -q '^done$' "$tmp/got" && break; sleep 0.2; done
    sed '/^opened$/d; /^done$/d' "$tmp/got" >"$tmp/got1"
    cmp -s "$tmp/want" "$tmp/got1" || {
      fail "an index held across two publishes answered from another generation"
      diff "$tmp/want" "$tmp/got1" | head -8
    }
    # its connection killed: a new one locks the same generation again and answers the same
    q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'apidex' AND state LIKE 'idle in transaction%'" >/dev/null
    sleep 0.5
    : >"$tmp/got"
    echo "show the user's playlists" >&7
    printf '%s\n' "show the user's playlists" | "$tmp/hold" "$file" | sed '/^opened$/d; /^done$/d' >"$tmp/want2"
    for _ in $(seq 1 100); do grep -q '^done$' "$tmp/got" && break; sleep 0.2; done
    sed '/^opened$/d; /^done$/d' "$tmp/got" >"$tmp/got2"
    cmp -s "$tmp/want2" "$tmp/got2" || {
      fail "after its connection was killed the index answered differently"
      diff "$tmp/want2" "$tmp/got2" | head -8
    }
    exec 7>&-
    wait "$hold" 2>/dev/null
    # closed: the next publish drops the old generation
    "$bin" index "$corpus" --db "$PG_URL" --quiet --full || fail "publish 4"
    [ "$(q "SELECT count(*) FROM pg_namespace WHERE nspname = '$ns'")" = 0 ] ||
      fail "generation $g1 was kept after its reader closed it"
  else
    fail "the C API program does not build"
  fi
else
  echo "test_pg_lazy: generation switch part skipped (no $build_dir/libapidex.so or cc)"
fi

[ "$fails" = 0 ] || exit 1
echo "test_pg_lazy: ok ($n searches equal, open read $open_rows rows / $open_bytes bytes of $all_bytes)"
