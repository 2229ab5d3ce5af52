#!/usr/bin/env bash
# Refreshing MCP sources (docs/MCP-SOURCES.md, "Refresh"): re-indexing re-reads every server
# and rebuilds only those whose tool list changed (the hash of its canonical JSON: the order
# of keys or tools is no change); `apidex add` of the same servers re-uses them too. An
# mcp+http source whose server answers with a redirect to another origin is refused, and
# nothing reaches that origin. `serve --watch` and `index --watch` keep the stdio servers
# open and follow notifications/tools/list_changed.
. "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
mcp_need @modelcontextprotocol/sdk/package.json
LISTED="$SRC/tests/data/mcp_sources/listed_server.mjs"

# two servers whose tool lists are files the test edits between indexings
weather() { # $1: the description of get_weather
  mcp_write "$T/alpha.json" "$(printf '{"name":"alpha","tools":[{"name":"get_weather","description":"%s","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}},{"name":"list_cities","description":"List the cities with a forecast","inputSchema":{"type":"object"}}]}' "$1")"
}
weather "Get the weather forecast for a city"
echo '{"name":"beta","tools":[{"name":"send_email","description":"Send an email message to a recipient","inputSchema":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}}]}' >"$T/beta.json"
cat >"$T/mcp.json" <<JSON
{"mcpServers": {
  "alpha": {"command": "$NODE", "args": ["$LISTED", "$NODE_DIR", "$T/alpha.json"]},
  "beta": {"command": "$NODE", "args": ["$LISTED", "$NODE_DIR", "$T/beta.json"]}
}}
JSON
idx() { "$BIN" index --mcp-config "$T/mcp.json" --db "$T/a.db" >"$T/$1.txt" 2>&1 || fail "index $1: $(cat "$T/$1.txt")"; }

# 1. first indexing, then again: nothing rebuilt
idx first
grep -q "2 added, 0 updated, 0 removed, 0 unchanged, 0 failed" "$T/first.txt" || fail "first: $(cat "$T/first.txt")"
idx again
grep -q "0 added, 0 updated, 0 removed, 2 unchanged, 0 failed" "$T/again.txt" || fail "again: $(cat "$T/again.txt")"

# 2. the same tools in another order, their keys in another order: no change
printf '{"name":"alpha","tools":[{"inputSchema":{"type":"object"},"description":"List the cities with a forecast","name":"list_cities"},{"name":"get_weather","inputSchema":{"required":["city"],"properties":{"city":{"type":"string"},"days":{"type":"integer"}},"type":"object"},"description":"Get the weather forecast for a city"}]}\n' >"$T/alpha.json"
idx reordered
grep -q "0 added, 0 updated, 0 removed, 2 unchanged, 0 failed" "$T/reordered.txt" ||
  fail "order of tools and keys is no change: $(cat "$T/reordered.txt")"

# 3. one server's tool list changes: it alone is rebuilt, and search sees the change
weather "Get the weather forecast and the pollen count for a city"
idx changed
grep -q "0 added, 1 updated, 0 removed, 1 unchanged, 0 failed" "$T/changed.txt" ||
  fail "one server changed: $(cat "$T/changed.txt")"
grep -q "updated: alpha$" "$T/changed.txt" || fail "alpha is the one rebuilt: $(cat "$T/changed.txt")"
"$BIN" search "pollen count" --db "$T/a.db" --json -k 1 >"$T/s1.json"
jq -e '.results[0].id == "alpha:get_weather"' "$T/s1.json" >/dev/null || fail "new description searched: $(cat "$T/s1.json")"

# 4. a tool added: the server is rebuilt with it; `apidex add` of the same config re-uses both
echo '{"name":"beta","tools":[{"name":"send_email","description":"Send an email message to a recipient","inputSchema":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}},{"name":"archive_thread","description":"Archive a mail thread","inputSchema":{"type":"object","properties":{"thread":{"type":"string"}}}}]}' >"$T/beta.json"
idx added
grep -q "0 added, 1 updated, 0 removed, 1 unchanged" "$T/added.txt" || fail "a tool added: $(cat "$T/added.txt")"
"$BIN" show beta:archive_thread --db "$T/a.db" >"$T/show.txt" || fail "the new tool: $(cat "$T/show.txt")"
"$BIN" add --mcp-config "$T/mcp.json" --db "$T/a.db" >"$T/add.txt" 2>&1 || fail "add: $(cat "$T/add.txt")"
grep -q "0 added, 0 updated, 0 removed, 2 unchanged" "$T/add.txt" || fail "add again: $(cat "$T/add.txt")"

# 5. serve --watch keeps the stdio servers open: a server's notifications/tools/list_changed
#    re-reads its tools over the open session and patches the index; the build reads the
#    servers from their sessions (each started once); the registry file lives in another
#    folder than the one serve runs in (an MCP source is not joined to the registry's folder)
mkdir -p "$T/reg" "$T/elsewhere"
printf 'db: w.db\nsources: ["mcp+config:%s/mcp.json"]\n' "$T" >"$T/reg/apidex.yaml"
MCP_WAIT_LOG="$T/serve.log"
LISTED_STARTS="$T/starts.log" mcp_serve_watch "$T/reg/apidex.yaml" "$T/serve.log" "$T/elsewhere"
mcp_wait_for "serve answers" mcp_is_top "send+an+email" "beta:send_email"
grep -q "server 'alpha' kept open for tools/list_changed" "$T/serve.log" || fail "kept open: $(cat "$T/serve.log")"
[ "$(wc -l <"$T/starts.log")" = 2 ] || fail "each server started once: $(cat "$T/starts.log")"
weather "Get the weather forecast and the tide tables for a city"
mcp_wait_for "the changed description searched" mcp_is_top "tide+tables" "alpha:get_weather"
grep -q "the tools of MCP server 'alpha' changed: re-indexing" "$T/serve.log" || fail "list_changed: $(cat "$T/serve.log")"
grep -q "0 added, 1 updated, 0 removed, 1 unchanged" "$T/serve.log" || fail "alpha alone rebuilt: $(cat "$T/serve.log")"
# a tool the running process alone holds: seen only by reading over the open session
BETA=$(pgrep -n -f -- "listed_server.mjs .*$T/beta.json") || fail "beta's process"
kill -USR1 "$BETA"
mcp_wait_for "the tool added in the running server" mcp_is_top "ring+the+bell" "beta:ring_bell"
[ "$(wc -l <"$T/starts.log")" = 2 ] || fail "no server started again: $(cat "$T/starts.log")"
kill -TERM "$SERVE"
wait "$SERVE" || fail "serve --watch exit: $(cat "$T/serve.log")"
grep -q "stopped watching" "$T/serve.log" || fail "watcher not stopped: $(cat "$T/serve.log")"
mcp_wait_for "the servers kept open to end with serve" sh -c "! pgrep -f -- '$T/(alpha|beta).json' >/dev/null"

# index --watch does the same (the server's tools into the index file, no server)
"$BIN" index --watch "mcp+stdio:$NODE $LISTED $NODE_DIR $T/alpha.json" --db "$T/iw.db" >"$T/iw.log" 2>&1 &
IW=$!
mcp_track "$IW"
has_op() { "$BIN" show "$1" --db "$T/iw.db" >/dev/null 2>&1; }
mcp_wait_for "index --watch builds" has_op alpha:get_weather
ALPHA=$(pgrep -n -f -- "listed_server.mjs .*$T/alpha.json") || fail "alpha's process"
kill -USR1 "$ALPHA"
mcp_wait_for "index --watch follows list_changed" has_op alpha:ring_bell
grep -q "the tools of MCP server '.*' changed: re-indexing" "$T/iw.log" || fail "index --watch: $(cat "$T/iw.log")"
kill -TERM "$IW"
wait "$IW" || fail "index --watch exit: $(cat "$T/iw.log")"

# 6. an mcp+http server that redirects to another origin: refused, naming the source, and
#    the other origin is never asked
P1=$(mcp_free_port)
P2=$(mcp_free_port)
cat >"$T/redirector.py" <<'PY'
import http.server, sys
port, target, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        with open(log, "a") as f: f.write(f"{self.command} {self.path}\n")
        n = int(self.headers.get("Content-Length") or 0)
        if n: self.rfile.read(n)
        if target == "-":  # the other origin: a valid-looking answer, should never be asked
            body = b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"other"}}}'
            self.send_response(200); self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
        else:
            self.send_response(307); self.send_header("Location", target)
            self.send_header("Content-Length", "0"); self.end_headers()
    do_POST = do_GET = do_DELETE = answer
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
PY
"$PY" "$T/redirector.py" "$P2" - "$T/other.log" & mcp_track $!
"$PY" "$T/redirector.py" "$P1" "http://127.0.0.1:$P2/mcp" "$T/first.log" & mcp_track $!
for _ in $(seq 1 50); do
  "$PY" -c "import socket,sys; [socket.create_connection(('127.0.0.1',p),0.2).close() for p in ($P1,$P2)]" 2>/dev/null && break
  sleep 0.1
done
rc=0
"$BIN" index "mcp+http://127.0.0.1:$P1/mcp" --db "$T/h.db" >"$T/redirect.txt" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a redirect is an error: $(cat "$T/redirect.txt")"
grep -q "mcp+http://127.0.0.1:$P1/mcp" "$T/redirect.txt" || fail "the error names the source: $(cat "$T/redirect.txt")"
grep -qi "redirect" "$T/redirect.txt" || fail "the error says redirect: $(cat "$T/redirect.txt")"
grep -q "^POST /mcp" "$T/first.log" || fail "the named server was asked: $(cat "$T/first.log" 2>&1)"
[ ! -s "$T/other.log" ] || fail "the other origin was reached: $(cat "$T/other.log")"
echo "ok"
