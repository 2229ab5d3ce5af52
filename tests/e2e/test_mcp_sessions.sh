#!/usr/bin/env bash
# Gateway sessions kept open between calls (docs/MCP-SOURCES.md "Sessions"): apidex serve
# --allow-calls calls server-everything (tools/node) over one session, so the state the
# server keeps per session carries from one call to the next (toggle-simulated-logging says
# "Started" then "Stopped"; apidex call, a session per call, says "Started" twice) through
# one process; the bound (APIDEX_MCP_SESSIONS) ends the idle session for another server's;
# an idle session ends after APIDEX_MCP_IDLE_MS; over Streamable HTTP one session serves two
# calls, and a restarted server (which forgot the session) gets a new one, the call made.
. "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
mcp_need @modelcontextprotocol/server-everything/dist/index.js
cat >"$T/claude.json" <<JSON
{"mcpServers": {
  "everything": {"command": "$NODE", "args": ["$M/server-everything/dist/index.js"]},
  "memory": {"command": "$NODE", "args": ["$M/server-memory/dist/index.js"],
             "env": {"MEMORY_FILE_PATH": "$T/memory.jsonl"}}
}}
JSON
"$BIN" index --mcp-config "$T/claude.json" --db "$T/a.db" >"$T/index.txt" 2>&1 || fail "index: $(cat "$T/index.txt")"
TOGGLE='{"endpoint": "everything:toggle-simulated-logging"}'

# without a session kept open (apidex call): each call is a new server, "Started" each time
"$BIN" call everything:toggle-simulated-logging --allow-write --db "$T/a.db" >"$T/c1.txt" || fail "call: $(cat "$T/c1.txt")"
"$BIN" call everything:toggle-simulated-logging --allow-write --db "$T/a.db" >"$T/c2.txt" || fail "call: $(cat "$T/c2.txt")"
grep -q "^Started" "$T/c1.txt" && grep -q "^Started" "$T/c2.txt" || fail "apidex call: $(cat "$T/c1.txt" "$T/c2.txt")"

start_serve() { # DB [ENV=VALUE...]
  local db=$1
  shift
  rm -f "$T/port"
  env "$@" "$BIN" serve --db "$db" --listen 127.0.0.1:0 --port-file "$T/port" --allow-calls --allow-write >"$T/serve.log" 2>&1 &
  SERVE_PID=$!
  mcp_track "$SERVE_PID"
  for _ in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.1; done
  [ -s "$T/port" ] || fail "serve did not start: $(cat "$T/serve.log")"
  U="http://127.0.0.1:$(cat "$T/port")/v1/call"
}
stop_serve() {
  kill "$SERVE_PID"
  wait "$SERVE_PID" 2>/dev/null || true
  SERVE_PID=
}
post() { # BODY OUT
  local code
  code=$(curl -s -o "$2" -w '%{http_code}' -X POST "$U" -H 'Content-Type: application/json' -d "$1")
  [ "$code" = 200 ] || fail "POST $1: $code $(cat "$2")"
}
kids() { ps --ppid "$SERVE_PID" -o pid= | tr -d ' ' | sort; }

# 1. serve: one session, its state carried, one process
start_serve "$T/a.db" APIDEX_MCP_SESSIONS=1
post "$TOGGLE" "$T/s1.json"
jq -e '.body | startswith("Started")' "$T/s1.json" >/dev/null || fail "first toggle: $(cat "$T/s1.json")"
P1=$(kids)
[ "$(echo "$P1" | grep -c .)" = 1 ] || fail "one server process after a call: $P1"
post "$TOGGLE" "$T/s2.json"
jq -e '.body | startswith("Stopped")' "$T/s2.json" >/dev/null || fail "the second call went over the same session: $(cat "$T/s2.json")"
[ "$(kids)" = "$P1" ] || fail "the same process served both calls: $P1 then $(kids)"
# 2. the bound: with one session allowed, memory's call ends everything's idle session
post '{"endpoint": "memory:read_graph"}' "$T/m.json"
jq -e '.body.entities == []' "$T/m.json" >/dev/null || fail "memory: $(cat "$T/m.json")"
for _ in $(seq 1 30); do [ "$(kids | grep -c .)" = 1 ] && break; sleep 0.1; done
[ "$(kids | grep -c .)" = 1 ] && [ "$(kids)" != "$P1" ] || fail "one session kept (memory's): $P1 then $(kids)"
post "$TOGGLE" "$T/s3.json"
jq -e '.body | startswith("Started")' "$T/s3.json" >/dev/null || fail "a new session of everything: $(cat "$T/s3.json")"
stop_serve
[ -z "$(ps -o pid= -p "$P1" 2>/dev/null)" ] || fail "the server ended with serve"

# 3. idle: the session ends after APIDEX_MCP_IDLE_MS
start_serve "$T/a.db" APIDEX_MCP_IDLE_MS=1000
post '{"endpoint": "everything:echo", "params": {"message": "idle"}}' "$T/i.json"
[ "$(kids | grep -c .)" = 1 ] || fail "a server process after the call"
for _ in $(seq 1 60); do [ -z "$(kids)" ] && break; sleep 0.1; done
[ -z "$(kids)" ] || fail "the idle session was not ended: $(kids)"
post '{"endpoint": "everything:echo", "params": {"message": "again"}}' "$T/i2.json"
jq -e '.body == "Echo: again"' "$T/i2.json" >/dev/null || fail "a call after the idle end: $(cat "$T/i2.json")"
stop_serve

# 4. Streamable HTTP: one session for two calls; a restarted server's new session
PORT=$(mcp_free_port)
http_up() { # on the same port each time: the restarted server is the same source
  PORT=$PORT "$NODE" "$M/server-everything/dist/index.js" streamableHttp >"$T/http.log" 2>&1 &
  HTTP_PID=$!
  mcp_track "$HTTP_PID"
  mcp_wait_for "server-everything to listen on $PORT" grep -q "listening" "$T/http.log"
}
http_up
"$BIN" index "mcp+http://127.0.0.1:$PORT/mcp" --db "$T/h.db" >"$T/index2.txt" 2>&1 || fail "http source: $(cat "$T/index2.txt")"
start_serve "$T/h.db"
HTOGGLE='{"endpoint": "everything-server:toggle-simulated-logging"}'
post "$HTOGGLE" "$T/h1.json"
post "$HTOGGLE" "$T/h2.json"
jq -e '.body | startswith("Started")' "$T/h1.json" >/dev/null && jq -e '.body | startswith("Stopped")' "$T/h2.json" >/dev/null ||
  fail "one HTTP session for two calls: $(cat "$T/h1.json" "$T/h2.json")"
kill "$HTTP_PID"
wait "$HTTP_PID" 2>/dev/null || true
http_up
post '{"endpoint": "everything-server:echo", "params": {"message": "restarted"}}' "$T/h3.json"
jq -e '.body == "Echo: restarted"' "$T/h3.json" >/dev/null || fail "after the restart: $(cat "$T/h3.json")"
stop_serve
echo "ok"
