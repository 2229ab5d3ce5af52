#!/usr/bin/env bash
# An MCP server's resources and prompts read through apidex (docs/MCP-SOURCES.md "Calling a
# tool"): server-everything from npm (tools/node) over stdio, `apidex call
# SERVER:resource:NAME` (resources/read, a template's variables filled and percent-encoded)
# and `apidex call SERVER:prompt:NAME -p arg=...` (prompts/get), their arguments checked
# against what the index holds (a missing required one, an undeclared one, an unknown
# resource refused, nothing started for them); the same through `apidex mcp`'s call_endpoint
# (tests/e2e/mcp/check_reads.mjs, which also shows the session kept open) and POST /v1/call;
# and over Streamable HTTP.
. "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
mcp_need @modelcontextprotocol/server-everything/dist/index.js
cat >"$T/claude.json" <<JSON
{"mcpServers": {"everything": {"command": "$NODE", "args": ["$M/server-everything/dist/index.js"]}}}
JSON
"$BIN" index --mcp-config "$T/claude.json" --db "$T/a.db" >"$T/index.txt" 2>&1 || fail "index: $(cat "$T/index.txt")"
call() { "$BIN" call --db "$T/a.db" "$@"; }

# 1. resources: a static one, a template filled, binary contents not shown
call everything:resource:architecture.md >"$T/r1.txt" || fail "resource: $(cat "$T/r1.txt")"
head -1 "$T/r1.txt" | grep -q "^resource everything:resource:architecture.md$" || fail "resource head: $(head -3 "$T/r1.txt")"
grep -q "Architecture" "$T/r1.txt" || fail "resource text: $(head -5 "$T/r1.txt")"
call "everything:resource:Dynamic Text Resource" -p resourceId=7 --json >"$T/r2.json" || fail "template: $(cat "$T/r2.json")"
jq -e '.uri == "demo://resource/dynamic/text/7" and (.body | startswith("Resource 7: "))' "$T/r2.json" >/dev/null ||
  fail "template read: $(cat "$T/r2.json")"
call "everything:resource:Dynamic Blob Resource" -p resourceId=3 --json >"$T/r3.json" || fail "blob: $(cat "$T/r3.json")"
jq -e '.body[0].blob == "(base64 data not shown)" and .body[0].bytes > 0' "$T/r3.json" >/dev/null ||
  fail "blob hidden: $(cat "$T/r3.json")"
# a variable's value is encoded: it cannot leave its place in the URI
call "everything:resource:Dynamic Text Resource" -p resourceId='1/../../x?y' --dry-run --json >"$T/r4.json" || fail "dry run"
jq -e '.uri == "demo://resource/dynamic/text/1%2F..%2F..%2Fx%3Fy" and .dry_run' "$T/r4.json" >/dev/null ||
  fail "encoded variable: $(cat "$T/r4.json")"

# 2. prompts: arguments as declared
call everything:prompt:args-prompt -p city=Oslo -p state=Viken --json >"$T/p1.json" || fail "prompt: $(cat "$T/p1.json")"
jq -e '.prompt == "everything:prompt:args-prompt" and .body.messages[0].content.text == "What'"'"'s weather in Oslo, Viken?"' \
  "$T/p1.json" >/dev/null || fail "prompt result: $(cat "$T/p1.json")"
call everything:prompt:args-prompt --body '{"city": "Bergen"}' --json >"$T/p2.json" || fail "prompt body"
jq -e '.body.messages[0].content.text == "What'"'"'s weather in Bergen?"' "$T/p2.json" >/dev/null || fail "prompt body: $(cat "$T/p2.json")"

# 3. refusals, no server started for them (the server is found by its process group)
rc=0
call everything:prompt:args-prompt -p state=Viken >"$T/e1.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "prompt everything:prompt:args-prompt: missing required argument 'city'" "$T/e1.txt" ||
  fail "missing required argument: $rc $(cat "$T/e1.txt")"
rc=0
call everything:prompt:args-prompt -p cty=Oslo >"$T/e2.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "unknown argument 'cty' for prompt everything:prompt:args-prompt (did you mean 'city'?)" "$T/e2.txt" ||
  fail "undeclared argument: $rc $(cat "$T/e2.txt")"
rc=0
call everything:resource:architecture.md -p uri=file:///etc/passwd >"$T/e3.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "unknown argument 'uri' for resource everything:resource:architecture.md; it takes: no arguments" "$T/e3.txt" ||
  fail "a URI the caller names: $rc $(cat "$T/e3.txt")"
rc=0
call everything:resource:passwd >"$T/e4.txt" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "no operation 'everything:resource:passwd'" "$T/e4.txt" || fail "unknown resource: $rc $(cat "$T/e4.txt")"
rc=0
call "everything:resource:Dynamic Text Resource" >"$T/e5.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "missing required argument 'resourceId'" "$T/e5.txt" || fail "template variable: $rc $(cat "$T/e5.txt")"
# the server's own error (a variable it does not accept) names the server
rc=0
call "everything:resource:Dynamic Text Resource" -p resourceId=abc >"$T/e6.txt" 2>&1 || rc=$?
[ "$rc" = 3 ] && grep -q "server 'everything' answered resources/read with error" "$T/e6.txt" ||
  fail "server error: $rc $(cat "$T/e6.txt")"
# never an HTTP request
rc=0
"$BIN" snippet --db "$T/a.db" everything:prompt:args-prompt -p city=x >"$T/e7.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "is an MCP prompt: there is no HTTP request" "$T/e7.txt" || fail "snippet of a prompt: $rc $(cat "$T/e7.txt")"

# 4. apidex mcp: call_endpoint (the official SDK client), the session kept open
timeout 300 "$NODE" "$SRC/tests/e2e/mcp/check_reads.mjs" "$SRC/tools/node" "$BIN" "$T/a.db" || fail "apidex mcp call_endpoint"

# 5. POST /v1/call of apidex serve
"$BIN" serve --db "$T/a.db" --listen 127.0.0.1:0 --port-file "$T/port" --allow-calls >"$T/serve.log" 2>&1 &
SERVE_PID=$!
mcp_track "$SERVE_PID"
for _ in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.1; done
[ -s "$T/port" ] || fail "serve did not start: $(cat "$T/serve.log")"
U="http://127.0.0.1:$(cat "$T/port")/v1/call"
post() { curl -s -o "$T/out.json" -w '%{http_code}' -X POST "$U" -H 'Content-Type: application/json' -d "$1"; }
[ "$(post '{"endpoint": "everything:prompt:args-prompt", "params": {"city": "Tromso"}}')" = 200 ] || fail "POST prompt: $(cat "$T/out.json")"
jq -e '.body.messages[0].content.text == "What'"'"'s weather in Tromso?"' "$T/out.json" >/dev/null || fail "POST prompt: $(cat "$T/out.json")"
[ "$(post '{"endpoint": "everything:resource:features.md"}')" = 200 ] || fail "POST resource: $(cat "$T/out.json")"
jq -e '.uri == "demo://resource/static/document/features.md" and (.body | length > 100)' "$T/out.json" >/dev/null ||
  fail "POST resource: $(cat "$T/out.json")"
[ "$(post '{"endpoint": "everything:prompt:args-prompt", "params": {}}')" = 400 ] || fail "POST missing: $(cat "$T/out.json")"
grep -q "missing required argument 'city'" "$T/out.json" || fail "POST missing: $(cat "$T/out.json")"
kill "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
SERVE_PID=

# 6. Streamable HTTP: server-everything on a free loopback port
mcp_everything_http "$T/http.log"
"$BIN" index "mcp+http://127.0.0.1:$PORT/mcp" --db "$T/h.db" >"$T/index2.txt" 2>&1 || fail "http source: $(cat "$T/index2.txt")"
"$BIN" call everything-server:prompt:args-prompt -p city=Paris --db "$T/h.db" --json >"$T/hp.json" || fail "http prompt: $(cat "$T/hp.json")"
jq -e '.body.messages[0].content.text == "What'"'"'s weather in Paris?"' "$T/hp.json" >/dev/null || fail "http prompt: $(cat "$T/hp.json")"
"$BIN" call everything-server:resource:startup.md --db "$T/h.db" >"$T/hr.txt" || fail "http resource: $(cat "$T/hr.txt")"
grep -qi "startup" "$T/hr.txt" || fail "http resource: $(head -5 "$T/hr.txt")"
echo "ok"
