#!/usr/bin/env bash
# apidex as the gateway to MCP servers (docs/MCP-SOURCES.md "Calling a tool"): the official
# servers from npm (tools/node) started over stdio from a client config and called through
# `apidex call SERVER:TOOL` and through `apidex mcp`'s call_endpoint (the official SDK client,
# tests/e2e/mcp/check_gateway.mjs): real results of read-only tools, a write refused without
# --allow-write and made with it, arguments checked against the inputSchema with no call
# made, calls off without --allow-calls, the config's secret masked; one call over
# Streamable HTTP.
. "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
mcp_need @modelcontextprotocol/server-memory/dist/index.js
mkdir -p "$T/files"
echo "hello gateway" >"$T/files/a.txt"
SECRET=tok-s3cret-of-the-config
export CALL_LOG="$T/calls.log" MCP_TEST_SECRET=$SECRET
: >"$CALL_LOG"
cat >"$T/claude.json" <<JSON
{"mcpServers": {
  "filesystem": {"command": "$NODE", "args": ["$M/server-filesystem/dist/index.js", "$T/files"]},
  "memory": {"command": "$NODE", "args": ["$M/server-memory/dist/index.js"],
             "env": {"MEMORY_FILE_PATH": "$T/memory.jsonl"}},
  "everything": {"command": "$NODE", "args": ["$M/server-everything/dist/index.js"]},
  "calls": {"command": "$PY", "args": ["$SCRIPTED", "calls"],
            "env": {"MY_API_TOKEN": "\${MCP_TEST_SECRET}"}}
}}
JSON
"$BIN" index --mcp-config "$T/claude.json" --db "$T/a.db" >"$T/index.txt" 2>&1 || fail "index: $(cat "$T/index.txt")"
call() { "$BIN" call --db "$T/a.db" "$@"; }

# 1. read-only tools: the servers' real results
call everything:echo -p message="hi there" >"$T/echo.txt" || fail "echo: $(cat "$T/echo.txt")"
grep -q "^Echo: hi there$" "$T/echo.txt" || fail "echo result: $(cat "$T/echo.txt")"
call filesystem:read_text_file -p path="$T/files/a.txt" --json >"$T/read.json" || fail "read_text_file"
jq -e '.body.content == "hello gateway\n" and .is_error == false and .tool == "filesystem:read_text_file"' \
  "$T/read.json" >/dev/null || fail "read_text_file result: $(cat "$T/read.json")"
jq -e '.schema.checked == true and .schema.valid == true' "$T/read.json" >/dev/null ||
  fail "structuredContent checked against the outputSchema: $(cat "$T/read.json")"
call filesystem:list_directory --body "{\"path\": \"$T/files\"}" --json >"$T/ls.json" || fail "list_directory"
jq -e '.body.content | test("\\[FILE\\] a.txt")' "$T/ls.json" >/dev/null || fail "list_directory result: $(cat "$T/ls.json")"
# a failing tool (isError) is an answer, exit 6 like an HTTP 4xx/5xx
rc=0
call filesystem:read_text_file -p path="$T/files/none.txt" --json >"$T/err.json" || rc=$?
[ "$rc" = 6 ] || fail "a tool's isError exits 6, got $rc"
jq -e '.is_error == true' "$T/err.json" >/dev/null || fail "is_error: $(cat "$T/err.json")"

# 2. writes: refused without --allow-write (nothing made), made with it
ENT='{"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}]}'
rc=0
call memory:create_entities --body "$ENT" >"$T/w1.txt" 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "create_entities without --allow-write exits 4, got $rc: $(cat "$T/w1.txt")"
grep -q "refused: tool memory:create_entities refused (rule: read-only; .*--allow-write to allow)" "$T/w1.txt" ||
  fail "read-only rule named: $(cat "$T/w1.txt")"
call memory:read_graph --json >"$T/g0.json" || fail "read_graph"
jq -e '.body.entities == []' "$T/g0.json" >/dev/null || fail "nothing was created: $(cat "$T/g0.json")"
call memory:create_entities --body "$ENT" --allow-write >"$T/w2.txt" || fail "create_entities: $(cat "$T/w2.txt")"
call memory:read_graph --json >"$T/g1.json" || fail "read_graph"
jq -e '.body.entities[0].name == "Ada"' "$T/g1.json" >/dev/null || fail "created: $(cat "$T/g1.json")"
rc=0
call memory:delete_entities -p entityNames='["Ada"]' >"$T/d.txt" 2>&1 || rc=$?
[ "$rc" = 4 ] && grep -q "destructiveHint: true" "$T/d.txt" || fail "destructive tool refused: $rc $(cat "$T/d.txt")"

# 3. arguments checked against the inputSchema before the server is called
rc=0
call calls:reveal >"$T/v1.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "tool calls:reveal: missing required argument 'n'" "$T/v1.txt" ||
  fail "missing argument: $rc $(cat "$T/v1.txt")"
rc=0
call calls:reveal -p n=three >"$T/v2.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "argument 'n': expected integer, got string" "$T/v2.txt" ||
  fail "wrong type: $rc $(cat "$T/v2.txt")"
rc=0
call calls:reveal -p m=3 >"$T/v3.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "unknown argument 'm' for tool calls:reveal" "$T/v3.txt" || fail "unknown: $rc $(cat "$T/v3.txt")"
rc=0
call calls:erase >"$T/v4.txt" 2>&1 || rc=$?
[ "$rc" = 4 ] && grep -q "it has no annotations" "$T/v4.txt" || fail "unannotated tool refused: $rc $(cat "$T/v4.txt")"
call calls:reveal -p n=3 --dry-run >"$T/dry.txt" || fail "dry run"
[ ! -s "$CALL_LOG" ] || fail "no call was made, yet the server logged: $(cat "$CALL_LOG")"
# the call: the config's secret (an env value named like a credential) never shown
call calls:reveal -p n=3 --json >"$T/reveal.json" || fail "reveal: $(cat "$T/reveal.json")"
jq -e '.body == "token is ****, n=3"' "$T/reveal.json" >/dev/null || fail "masked: $(cat "$T/reveal.json")"
grep -q "$SECRET" "$T/reveal.json" && fail "the secret was shown"
[ "$(wc -l <"$CALL_LOG")" = 1 ] && jq -e '.arguments == {"n": 3}' "$CALL_LOG" >/dev/null ||
  fail "one call with the validated arguments: $(cat "$CALL_LOG")"
call calls:erase --allow-write >"$T/erase.txt" || fail "erase with --allow-write"
grep -q "^erased$" "$T/erase.txt" || fail "erase: $(cat "$T/erase.txt")"
# a budget cuts the body as for an HTTP response
call everything:echo -p message="$(printf 'word %.0s' $(seq 1 400))" --budget 20 --json >"$T/cut.json"
jq -e '.tokens.shown <= 20 and .tokens.full > 20' "$T/cut.json" >/dev/null || fail "budget: $(cat "$T/cut.json")"

# 4. apidex mcp: call_endpoint through the official SDK client
timeout 300 "$NODE" "$SRC/tests/e2e/mcp/check_gateway.mjs" "$SRC/tools/node" "$BIN" "$T/a.db" "$T/files/a.txt" "$SECRET" ||
  fail "apidex mcp call_endpoint"

# 5. Streamable HTTP: server-everything on a free loopback port
mcp_everything_http "$T/http.log"
"$BIN" index "mcp+http://127.0.0.1:$PORT/mcp" --db "$T/h.db" >"$T/index2.txt" 2>&1 || fail "http source: $(cat "$T/index2.txt")"
"$BIN" call everything-server:echo -p message="over http" --db "$T/h.db" >"$T/hecho.txt" || fail "http call: $(cat "$T/hecho.txt")"
grep -q "^Echo: over http$" "$T/hecho.txt" || fail "http echo: $(cat "$T/hecho.txt")"
echo "ok"
