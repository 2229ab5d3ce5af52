#!/usr/bin/env bash
# Replicas on one PostgreSQL: two `apidex serve --db postgres://...` serve the published
# generation; a publish of a changed registry reaches both (LISTEN/NOTIFY) while a loopback
# client keeps querying them, and no request fails. When the database goes away they keep
# serving what they hold, say so in /healthz and /metrics, and reconnect when it is back
# (then a publish reaches them again). `apidex mcp --db URL` answers from the same index.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
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
export APIDEX_NO_REEXEC=1 HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
unset APIDEX_DB APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG
mkdir -p "$HOME"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
py=/usr/bin/python3

rc=0
pg_start "$tmp" || rc=$?
if [ "$rc" = 1 ]; then echo "test_pg_serve: skipped (PostgreSQL binaries not found)"; exit 0; fi
[ "$rc" = 0 ] || { echo "FAIL: PostgreSQL did not start" >&2; exit 1; }

mkdir -p "$tmp/specs"
cp "$src/tests/data/store/petstore.yaml" "$src/tests/data/store/notes.json" "$tmp/specs/"
"$bin" index "$tmp/specs" --db "$PG_URL" --quiet || { echo "FAIL: first publish" >&2; exit 1; }

start_replica() { # N
  "$bin" serve --db "$PG_URL" --listen 127.0.0.1:0 --port-file "$tmp/port$1" \
    --reload-interval 1 2>>"$tmp/serve$1.err" &
  pids+=($!)
  for _ in $(seq 600); do [ -s "$tmp/port$1" ] && break; sleep 0.05; done
  [ -s "$tmp/port$1" ] || { echo "FAIL: replica $1 did not start" >&2; cat "$tmp/serve$1.err"; exit 1; }
}
start_replica 1
start_replica 2
base1="http://127.0.0.1:$(cat "$tmp/port1")"
base2="http://127.0.0.1:$(cat "$tmp/port2")"
apis() { curl -sS "$1/v1/apis" | $py -c 'import json,sys; print(" ".join(sorted(a["id"] for a in json.load(sys.stdin)["apis"])))'; }
health() { curl -sS "$1/healthz" | $py -c "import json,sys; print(json.load(sys.stdin)['store'].get('$2'))"; }
[ "$(apis "$base1")" = "notes pet-store" ] || fail "replica 1 serves $(apis "$base1")"
[ "$(apis "$base2")" = "notes pet-store" ] || fail "replica 2 serves $(apis "$base2")"
[ "$(health "$base1" connected)" = True ] || fail "replica 1 not connected"
gen1=$(health "$base1" generation)
# The web page's index view names the registry by its masked URL and no file size.
idx=$(curl -sS "$base1/v1/index")
echo "$idx" | grep -q "$PG_PASSWORD" && fail "/v1/index shows the password"
echo "$idx" | grep -q '"size_bytes":-1' || fail "/v1/index: $idx"

# Load on both replicas while a changed registry is published.
load() { # BASE OUT
  while [ ! -e "$tmp/stop" ]; do
    curl -s -o /dev/null -w '%{http_code}\n' "$1/v1/search?q=list%20animals&k=3" >>"$2"
    curl -s -o /dev/null -w '%{http_code}\n' "$1/v1/apis" >>"$2"
  done
}
load "$base1" "$tmp/status1" &
load1=$!
load "$base2" "$tmp/status2" &
load2=$!
sleep 1
sed 's/title: Pet Store/title: Zoo Store/; s/List all pets/List all animals/' \
  "$src/tests/data/store/petstore.yaml" >"$tmp/specs/zoo.yaml"
"$bin" index "$tmp/specs" --db "$PG_URL" --quiet || fail "second publish"
for _ in $(seq 300); do
  [ "$(apis "$base1")" = "notes pet-store zoo-store" ] && [ "$(apis "$base2")" = "notes pet-store zoo-store" ] && break
  sleep 0.1
done
[ "$(apis "$base1")" = "notes pet-store zoo-store" ] || fail "replica 1 did not switch: $(apis "$base1")"
[ "$(apis "$base2")" = "notes pet-store zoo-store" ] || fail "replica 2 did not switch: $(apis "$base2")"
sleep 0.5
touch "$tmp/stop"
wait "$load1" "$load2"
total=$(cat "$tmp/status1" "$tmp/status2" | wc -l)
bad=$(cat "$tmp/status1" "$tmp/status2" | grep -vc '^200$')
[ "$total" -ge 20 ] || fail "only $total requests under load"
[ "$bad" = 0 ] || fail "$bad of $total requests failed during the switch"
gen2=$(health "$base1" generation)
[ "$gen2" -gt "$gen1" ] || fail "generation $gen1 -> $gen2"
[ "$(health "$base2" generation)" = "$gen2" ] || fail "replica 2 on another generation"
curl -sS "$base1/metrics" | grep -q "^apidex_store_generation $gen2$" || fail "metrics: generation"
curl -sS "$base1/metrics" | grep -q "^apidex_store_connected 1$" || fail "metrics: connected"
top=$(curl -sS "$base2/v1/search?q=list%20all%20animals&k=1" | $py -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["api"])')
[ "$top" = zoo-store ] || fail "replica 2 search after the switch: $top"

# The database goes away: both keep serving generation gen2, and say they are cut off.
pg_down || fail "pg_ctl stop"
for _ in $(seq 100); do [ "$(health "$base1" connected)" = False ] && break; sleep 0.1; done
[ "$(health "$base1" connected)" = False ] || fail "replica 1 does not report the lost connection"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base1/v1/search?q=pets&k=3")
[ "$code" = 200 ] || fail "search while the database is down: $code"
curl -sS "$base1/healthz" | grep -q '"status":"ok"' || fail "healthz while the database is down"
curl -sS "$base1/metrics" | grep -q "^apidex_store_connected 0$" || fail "metrics: not connected"
[ "$(apis "$base2")" = "notes pet-store zoo-store" ] || fail "replica 2 lost its index"
pg_up || fail "pg_ctl start"
for _ in $(seq 300); do [ "$(health "$base1" connected)" = True ] && [ "$(health "$base2" connected)" = True ] && break; sleep 0.1; done
[ "$(health "$base1" connected)" = True ] || fail "replica 1 did not reconnect"
[ "$(health "$base1" reconnects)" -ge 1 ] || fail "replica 1 counts no reconnect"
rm "$tmp/specs/zoo.yaml"
"$bin" index "$tmp/specs" --db "$PG_URL" --quiet || fail "third publish"
for _ in $(seq 300); do [ "$(apis "$base2")" = "notes pet-store" ] && break; sleep 0.1; done
[ "$(apis "$base2")" = "notes pet-store" ] || fail "replica 2 missed the publish after reconnecting"

# MCP over stdio on the same database
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_endpoints","arguments":{"task":"list all pets"}}}' |
  timeout 60 "$bin" mcp --db "$PG_URL" >"$tmp/mcp.out" 2>"$tmp/mcp.err"
grep -q 'listPets' "$tmp/mcp.out" || fail "mcp search: $(head -c 300 "$tmp/mcp.out") $(cat "$tmp/mcp.err")"

cat "$tmp"/serve*.err "$tmp/mcp.err" | grep -q "$PG_PASSWORD" && fail "a server printed the password"
[ "$fails" = 0 ] || { cat "$tmp"/serve*.err >&2; exit 1; }
echo "test_pg_serve: ok ($total requests during the switch, none failed)"
