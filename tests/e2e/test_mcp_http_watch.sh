#!/usr/bin/env bash
# serve --watch follows Streamable HTTP MCP servers (docs/MCP-SOURCES.md, "Refresh"): each
# is kept open with the GET event stream of its session, and a
# notifications/tools/list_changed sent there re-reads its tools and re-indexes it; a server
# that forgets the session gets a new one; a server that answers the GET 405 is said once and
# polled ($APIDEX_MCP_POLL_MS); a hostile stream (garbage, an event over the limit, a line
# that never ends) costs bounded memory and the notification after the garbage still counts;
# serve stops promptly with its streams open. Servers: tests/data/mcp_sources/listed_server.mjs
# (the official SDK's Streamable HTTP transport) and hostile_stream_server.py.
. "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
mcp_need @modelcontextprotocol/sdk/package.json
LISTED="$SRC/tests/data/mcp_sources/listed_server.mjs"
HOSTILE="$SRC/tests/data/mcp_sources/hostile_stream_server.py"

mcp_write "$T/gamma.json" '{"name":"gamma","tools":[{"name":"send_fax","description":"Send a fax to a phone number","inputSchema":{"type":"object","properties":{"number":{"type":"string"}}}}]}'
mcp_write "$T/delta.json" '{"name":"delta","tools":[{"name":"water_plants","description":"Water the plants in the garden","inputSchema":{"type":"object"}}]}'
"$NODE" "$LISTED" "$NODE_DIR" "$T/gamma.json" "http:$T/gamma.port" >"$T/gamma.out" 2>&1 &
GAMMA=$!
mcp_track "$GAMMA"
"$NODE" "$LISTED" "$NODE_DIR" "$T/delta.json" "http-nostream:$T/delta.port" >"$T/delta.out" 2>&1 &
mcp_track $!
"$PY" "$HOSTILE" "$T/hostile.port" "$T/hostile.log" >"$T/hostile.out" 2>&1 &
mcp_track $!
mcp_wait_for "the HTTP servers to listen" test -s "$T/gamma.port" -a -s "$T/delta.port" -a -s "$T/hostile.port"
cat >"$T/mcp.json" <<JSON
{"mcpServers": {
  "gamma": {"url": "http://127.0.0.1:$(cat "$T/gamma.port")/mcp"},
  "delta": {"url": "http://127.0.0.1:$(cat "$T/delta.port")/mcp"},
  "hostile": {"url": "http://127.0.0.1:$(cat "$T/hostile.port")/mcp"}
}}
JSON
mkdir -p "$T/reg"
printf 'db: w.db\nsources: ["mcp+config:%s/mcp.json"]\n' "$T" >"$T/reg/apidex.yaml"
MCP_WAIT_LOG="$T/serve.log"
APIDEX_MCP_POLL_MS=500 mcp_serve_watch "$T/reg/apidex.yaml" "$T/serve.log"
mcp_wait_for "serve answers" mcp_is_top "send+a+fax" "gamma:send_fax"
for s in gamma delta hostile; do
  grep -q "server '$s' kept open for tools/list_changed" "$T/serve.log" || fail "$s kept open: $(cat "$T/serve.log")"
done
mcp_wait_for "gamma's event stream" grep -q "server 'gamma': event stream open" "$T/serve.log"

# 1. a tool added to gamma: list_changed on its GET stream, its tools read again, re-indexed
mcp_write "$T/gamma.json" '{"name":"gamma","tools":[{"name":"send_fax","description":"Send a fax to a phone number","inputSchema":{"type":"object","properties":{"number":{"type":"string"}}}},{"name":"order_pizza","description":"Order a pizza for delivery","inputSchema":{"type":"object"}}]}'
MCP_WAIT_LIMIT=20 mcp_wait_for "the tool added to gamma" mcp_is_top "order+a+pizza" "gamma:order_pizza"
grep -q "the tools of MCP server 'gamma' changed: re-indexing" "$T/serve.log" || fail "gamma list_changed: $(cat "$T/serve.log")"
# a tool the running process alone holds: only a read over the open session sees it
kill -USR1 "$GAMMA"
MCP_WAIT_LIMIT=20 mcp_wait_for "the tool added in the running gamma" mcp_is_top "ring+the+bell" "gamma:ring_bell"

# 2. delta offers no stream (405): said once, then its tools are polled
grep -q "server 'delta' offers no event stream (HTTP 405)" "$T/serve.log" || fail "delta 405: $(cat "$T/serve.log")"
[ "$(grep -c "server 'delta' offers no event stream" "$T/serve.log")" = 1 ] || fail "405 said once: $(cat "$T/serve.log")"
mcp_write "$T/delta.json" '{"name":"delta","tools":[{"name":"water_plants","description":"Water the plants in the garden","inputSchema":{"type":"object"}},{"name":"prune_roses","description":"Prune the rose bushes","inputSchema":{"type":"object"}}]}'
MCP_WAIT_LIMIT=20 mcp_wait_for "delta polled" mcp_is_top "prune+the+rose+bushes" "delta:prune_roses"

# 3. gamma forgets its sessions (as a restarted server): a new session, then list_changed again
kill -USR2 "$GAMMA"
MCP_WAIT_LIMIT=30 mcp_wait_for "gamma's new session" grep -q "server 'gamma' ended its session" "$T/serve.log"
mcp_wait_for "gamma's stream on the new session" sh -c "[ \$(grep -c \"server 'gamma': event stream open\" '$T/serve.log') -ge 2 ]"
mcp_write "$T/gamma.json" '{"name":"gamma","tools":[{"name":"send_fax","description":"Send a fax to a phone number","inputSchema":{"type":"object","properties":{"number":{"type":"string"}}}},{"name":"book_taxi","description":"Book a taxi to the airport","inputSchema":{"type":"object"}}]}'
MCP_WAIT_LIMIT=20 mcp_wait_for "the tool added after the new session" mcp_is_top "book+a+taxi+to+the+airport" "gamma:book_taxi"

# 4. the hostile stream: the notification after the garbage counts; serve lives, its memory
#    stays bounded while the server sends lines that never end (each connection cut at the
#    size limit, opened again with backoff)
MCP_WAIT_LIMIT=30 mcp_wait_for "the hostile server's notification" mcp_is_top "seas+calm+for+sailing" "hostile:calm_seas"
mcp_wait_for "the hostile stream to be opened again" sh -c "[ \$(wc -l <'$T/hostile.log') -ge 3 ]"
kill -0 "$SERVE" || fail "serve died: $(cat "$T/serve.log")"
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$SERVE/status")
[ "$HWM" -lt 262144 ] || fail "serve's peak memory ${HWM} kB under a hostile stream"
grep -q "server 'hostile': event stream closed (size limit)" "$T/serve.log" || fail "hostile cut: $(cat "$T/serve.log")"
mcp_is_top "send+a+fax" "gamma:send_fax" || fail "serve still answers"

# 5. stop: serve ends promptly with its streams open
START=$SECONDS
kill -TERM "$SERVE"
wait "$SERVE" || fail "serve --watch exit: $(cat "$T/serve.log")"
[ $((SECONDS - START)) -le 10 ] || fail "serve took $((SECONDS - START)) s to stop"
grep -q "stopped watching" "$T/serve.log" || fail "watcher not stopped: $(cat "$T/serve.log")"
if grep -qi "bearer\|authorization" "$T/serve.log"; then fail "a header in the log"; fi
echo "ok"
