#!/usr/bin/env bash
# Publishing to PostgreSQL is atomic and serialised: a builder killed (-9) after writing
# its staging schema leaves the previous generation current and served, and the next
# publish drops the orphan; a second builder waits for the first (and says for whom) or,
# with --no-wait, fails at once with exit 5 and a clear message; no build is lost.
# A builder is held before its flip by a real lock: the test's own session holds
# apidex.current in EXCLUSIVE mode (readers go on, the flip's INSERT waits).
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
tmp="$(mktemp -d)"
. "$src/tests/e2e/pg_start.sh"
pids=()
hold=
cleanup() {
  local p
  [ -n "$hold" ] && kill "$hold" 2>/dev/null
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
export APIDEX_NO_REEXEC=1 HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
unset APIDEX_DB
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
# hold_flips: a session of the test's own takes apidex.current in EXCLUSIVE mode and keeps
# it until release_flips; a build then stops at its flip. flip_waits: builds waiting there.
hold_flips() {
  mkfifo "$tmp/hold.sql"
  PGPASSWORD=$PG_PASSWORD psql -X -q -t -A -h 127.0.0.1 -p "$PG_PORT" -U apidex -d postgres \
    <"$tmp/hold.sql" >/dev/null &
  hold=$!
  exec {hold_fd}>"$tmp/hold.sql"
  echo "BEGIN; LOCK TABLE apidex.current IN EXCLUSIVE MODE;" >&"$hold_fd"
  for _ in $(seq 600); do
    [ "$(pg_sql "SELECT count(*) FROM pg_locks WHERE relation = 'apidex.current'::regclass AND mode = 'ExclusiveLock' AND granted")" = 1 ] && return 0
    sleep 0.05
  done
  fail "the test's session did not get the lock"
}
release_flips() {
  echo "COMMIT;" >&"$hold_fd"
  exec {hold_fd}>&-
  wait "$hold"
  hold=
  rm -f "$tmp/hold.sql"
}
flip_waits() { pg_sql "SELECT count(*) FROM pg_locks WHERE relation = 'apidex.current'::regclass AND NOT granted"; }
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
hold_flips
"$bin" index "$tmp/specs" --db "$PG_URL" --quiet 2>"$tmp/killed.err" &
victim=$!
pids+=("$victim")
for _ in $(seq 600); do [ "$(flip_waits)" = 1 ] && break; sleep 0.1; done
[ "$(flip_waits)" = 1 ] || fail "the build did not reach its flip"
[ "$(schemas)" = "apidex_g1 apidex_g2" ] || fail "no staging schema: $(schemas)"
kill -9 "$victim"
wait "$victim" 2>/dev/null
release_flips # the victim's session ends without a COMMIT
for _ in $(seq 600); do
  [ "$(pg_sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")" = 0 ] && break
  sleep 0.05
done
[ "$(current)" = "$g1" ] || fail "a killed build changed the current generation to $(current)"
[ "$(ids)" = "notes pet-store" ] || fail "after the kill the index holds $(ids)"
code=$(curl -s -o "$tmp/apis" -w '%{http_code}' "$base/v1/apis")
[ "$code" = 200 ] && ! grep -q zoo-store "$tmp/apis" || fail "the replica serves $code $(cat "$tmp/apis")"

# Two builders: A holds the builders' lock (held at its flip); B --no-wait fails at once;
# C waits, and goes on when A has published.
hold_flips
"$bin" index "$tmp/specs" --db "$PG_URL" --quiet 2>"$tmp/a.err" &
a=$!
pids+=("$a")
for _ in $(seq 600); do [ "$(flip_waits)" = 1 ] && break; sleep 0.1; done
[ "$(flip_waits)" = 1 ] || fail "builder A did not reach its flip"
[ "$(pg_sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" = 1 ] ||
  fail "builder A does not hold the builders' lock"
rc=0
"$bin" index "$tmp/specs" --db "$PG_URL" --no-wait --quiet 2>"$tmp/b.err" || rc=$?
[ "$rc" = 5 ] || fail "--no-wait exit $rc: $(cat "$tmp/b.err")"
grep -q "another apidex (pid $a) is publishing to postgres://apidex:\*\*\*@127.0.0.1" "$tmp/b.err" ||
  fail "--no-wait message: $(cat "$tmp/b.err")"
echo "  owner: $(cat "$tmp/b.err")"
rm "$tmp/specs/notes.json" # C's build differs from A's: both must land, C last
"$bin" index "$tmp/specs" --db "$PG_URL" --prune 2>"$tmp/c.err" &
c=$!
pids+=("$c")
for _ in $(seq 600); do grep -q waiting "$tmp/c.err" && break; sleep 0.05; done
grep -q "another apidex (pid $a) is writing postgres://apidex:\*\*\*@.*waiting" "$tmp/c.err" ||
  fail "the waiting builder did not say for whom: $(cat "$tmp/c.err")"
[ "$(current)" = "$g1" ] || fail "a held build published: $(current)"
release_flips
wait "$a" || fail "builder A failed: $(cat "$tmp/a.err")"
rc=0
wait "$c" || rc=$?
[ "$rc" = 0 ] || fail "the waiting builder: exit $rc: $(cat "$tmp/c.err")"
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
