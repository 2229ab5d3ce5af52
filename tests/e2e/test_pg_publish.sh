#!/usr/bin/env bash
# Publishing to PostgreSQL is atomic and serialised: a builder killed (-9) after writing
# its staging schema leaves the previous generation current and served, and the next
# publish drops the orphan; a second builder waits for the first (and says for whom) or,
# with --no-wait, fails at once with exit 5 and a clear message; no build is lost.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
tmp="$(mktemp -d)"
. "$src/tests/e2e/pg_start.sh"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
export APIDEX_NO_REEXEC=1 HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
unset APIDEX_DB APIDEX_TEST_PUBLISH_DELAY_MS
mkdir -p "$HOME"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
py=/usr/bin/python3

rc=0
pg_start "$tmp" || rc=$?
if [ "$rc" = 1 ]; then echo "test_pg_publish: skipped (PostgreSQL binaries not found)"; exit 0; fi
[ "$rc" = 0 ] || { echo "FAIL: PostgreSQL did not start" >&2; exit 1; }

mkdir -p "$tmp/specs"
cp "$src/tests/data/store/petstore.yaml" "$src/tests/data/store/notes.json" "$tmp/specs/"
"$bin" index "$tmp/specs" --db "$PG_URL" --quiet || { echo "FAIL: first publish" >&2; exit 1; }
current() { pg_sql "SELECT generation FROM apidex.current"; }
schemas() { pg_sql "SELECT string_agg(nspname, ' ' ORDER BY nspname) FROM pg_namespace WHERE nspname LIKE 'apidex_g%'"; }
ids() { "$bin" list --db "$PG_URL" --json | $py -c 'import json,sys; print(" ".join(sorted(a["id"] for a in json.load(sys.stdin)["apis"])))'; }
g1=$(current)
[ "$g1" = 1 ] || fail "first generation is $g1"

"$bin" serve --db "$PG_URL" --listen 127.0.0.1:0 --port-file "$tmp/port" 2>>"$tmp/serve.err" &
pids+=($!)
for _ in $(seq 600); do [ -s "$tmp/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$tmp/port")"

# kill -9 after the staging schema is written, before the flip
sed 's/title: Pet Store/title: Zoo Store/; s/List all pets/List all animals/' \
  "$src/tests/data/store/petstore.yaml" >"$tmp/specs/zoo.yaml"
APIDEX_TEST_PUBLISH_DELAY_MS=60000 "$bin" index "$tmp/specs" --db "$PG_URL" --quiet 2>"$tmp/killed.err" &
victim=$!
pids+=("$victim")
for _ in $(seq 600); do [ "$(schemas)" = "apidex_g1 apidex_g2" ] && break; sleep 0.1; done
[ "$(schemas)" = "apidex_g1 apidex_g2" ] || fail "no staging schema: $(schemas)"
sleep 0.3
kill -9 "$victim"
wait "$victim" 2>/dev/null
[ "$(current)" = "$g1" ] || fail "a killed build changed the current generation to $(current)"
[ "$(ids)" = "notes pet-store" ] || fail "after the kill the index holds $(ids)"
code=$(curl -s -o "$tmp/apis" -w '%{http_code}' "$base/v1/apis")
[ "$code" = 200 ] && ! grep -q zoo-store "$tmp/apis" || fail "the replica serves $code $(cat "$tmp/apis")"

# Two builders: A holds the lock (slow publish); B --no-wait fails at once; C waits.
APIDEX_TEST_PUBLISH_DELAY_MS=4000 "$bin" index "$tmp/specs" --db "$PG_URL" --quiet 2>"$tmp/a.err" &
a=$!
pids+=("$a")
for _ in $(seq 600); do
  [ "$(pg_sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" = 1 ] && break
  sleep 0.05
done
rc=0
"$bin" index "$tmp/specs" --db "$PG_URL" --no-wait --quiet 2>"$tmp/b.err" || rc=$?
[ "$rc" = 5 ] || fail "--no-wait exit $rc: $(cat "$tmp/b.err")"
grep -q "another apidex (pid $a) is publishing to postgres://apidex:\*\*\*@127.0.0.1" "$tmp/b.err" ||
  fail "--no-wait message: $(cat "$tmp/b.err")"
echo "  owner: $(cat "$tmp/b.err")"
rm "$tmp/specs/notes.json" # C's build differs from A's: both must land, C last
rc=0
"$bin" index "$tmp/specs" --db "$PG_URL" --prune 2>"$tmp/c.err" || rc=$?
[ "$rc" = 0 ] || fail "the waiting builder: exit $rc: $(cat "$tmp/c.err")"
grep -q "another apidex (pid $a) is writing postgres://apidex:\*\*\*@.*waiting" "$tmp/c.err" ||
  fail "the waiting builder did not say for whom: $(cat "$tmp/c.err")"
wait "$a" || fail "builder A failed: $(cat "$tmp/a.err")"
gen=$(current)
[ "$gen" -ge 4 ] || fail "two publishes after the kill should give generation >= 4, got $gen"
[ "$(ids)" = "pet-store zoo-store" ] || fail "after both builds the index holds $(ids)"
prev=$(pg_sql "SELECT previous FROM apidex.current")
[ "$(schemas)" = "$(printf 'apidex_g%s\napidex_g%s\n' "$prev" "$gen" | sort | tr '\n' ' ' | sed 's/ $//')" ] ||
  fail "the orphan was not dropped: $(schemas) (current $gen, previous $prev)"
for _ in $(seq 100); do grep -q zoo-store <(curl -s "$base/v1/apis") && break; sleep 0.1; done
grep -q zoo-store <(curl -s "$base/v1/apis") || fail "the replica did not follow"

cat "$tmp"/*.err | grep -q "$PG_PASSWORD" && fail "the password was printed"
[ "$fails" = 0 ] || exit 1
echo "test_pg_publish: ok"
