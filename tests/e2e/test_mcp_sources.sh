#!/usr/bin/env bash
# MCP servers as sources (docs/MCP-SOURCES.md): the official servers from npm (tools/node)
# started over stdio from a client config, indexed, searched, shown and turned into tool
# definitions; one over Streamable HTTP; re-indexing keeps unchanged servers; a server that
# is missing, exits, never answers or sends too much is that source's error and the rest is
# indexed; scripted servers page their tool lists and talk out of turn.
. "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
mcp_need @modelcontextprotocol/server-memory/dist/index.js
mkdir -p "$T/files"
echo "hello" >"$T/files/a.txt"

# 1. a client config: four real servers, and four that fail in different ways
cat >"$T/claude.json" <<JSON
{"mcpServers": {
  "filesystem": {"command": "$NODE", "args": ["$M/server-filesystem/dist/index.js", "$T/files"]},
  "memory": {"command": "$NODE", "args": ["$M/server-memory/dist/index.js"],
             "env": {"MEMORY_FILE_PATH": "\${MCP_TEST_DIR}/memory.jsonl"}},
  "everything": {"command": "$NODE", "args": ["$M/server-everything/dist/index.js"]},
  "Sequential Thinking": {"command": "$NODE", "args": ["$M/server-sequential-thinking/dist/index.js"]},
  "missing": {"command": "$T/no-such-program"},
  "dies": {"command": "sh", "args": ["-c", "echo cannot find my settings >&2; exit 3"]},
  "huge": {"command": "$PY", "args": ["$SCRIPTED", "huge"]},
  "flood": {"command": "$PY", "args": ["$SCRIPTED", "flood"]}
}}
JSON
export MCP_TEST_DIR="$T"
rc=0
"$BIN" index --mcp-config "$T/claude.json" --db "$T/a.db" >"$T/index.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "index exits 1 when some sources failed, got $rc: $(cat "$T/index.txt")"
grep -q "4 added" "$T/index.txt" || fail "four servers indexed: $(cat "$T/index.txt")"
grep -q "4 failed" "$T/index.txt" || fail "five failed: $(cat "$T/index.txt")"
grep -q "#missing: error: server 'missing': cannot start '$T/no-such-program': No such file" "$T/index.txt" ||
  fail "missing program: $(cat "$T/index.txt")"
grep -q "#dies: error: server 'dies' exited with status 3 before answering: cannot find my settings" "$T/index.txt" ||
  fail "exit status and stderr: $(cat "$T/index.txt")"
grep -q "#huge: error: server 'huge' sent a message over 16777216 bytes" "$T/index.txt" ||
  fail "message size limit: $(cat "$T/index.txt")"
grep -q "#flood: error: server 'flood' sent a message over 16777216 bytes" "$T/index.txt" ||
  fail "line without end: $(cat "$T/index.txt")"
"$BIN" list --db "$T/a.db" --json >"$T/list.json"
jq -e '[.apis[].id] | sort == ["everything","filesystem","memory","sequential-thinking"]' "$T/list.json" >/dev/null ||
  fail "ids are the config's names: $(jq -c '[.apis[].id]' "$T/list.json")"

# 2. search, show and tool definitions work on tools as on endpoints
"$BIN" search "create entities in the knowledge graph" --db "$T/a.db" --json -k 3 >"$T/s1.json"
jq -e '.results[0].id == "memory:create_entities"' "$T/s1.json" >/dev/null ||
  fail "search memory: $(jq -c '[.results[].id]' "$T/s1.json")"
"$BIN" search "list the files in a directory" --db "$T/a.db" --json -k 3 >"$T/s2.json"
jq -e '[.results[].id] | index("filesystem:list_directory") != null' "$T/s2.json" >/dev/null ||
  fail "search filesystem: $(jq -c '[.results[].id]' "$T/s2.json")"
"$BIN" show filesystem:read_text_file --db "$T/a.db" >"$T/show.txt"
grep -q "^MCP tool filesystem:read_text_file - Read Text File$" "$T/show.txt" || fail "a tool by its id: $(cat "$T/show.txt")"
grep -q "^Annotations: readOnlyHint: true" "$T/show.txt" || fail "annotations: $(cat "$T/show.txt")"
grep -q "^  - path (string, required)" "$T/show.txt" || fail "arguments: $(cat "$T/show.txt")"
"$BIN" show filesystem:read_text_file --db "$T/a.db" --json >"$T/show.json"
jq -e '.method == "GET" and .mcp.kind == "tool" and .mcp.server == "filesystem" and
  .mcp.name == "read_text_file" and .mcp.annotations.readOnlyHint == true' "$T/show.json" >/dev/null ||
  fail "read-only tool is GET, mcp in the JSON: $(head -c 600 "$T/show.json")"
(cd / && "$BIN" show filesystem:write_file --db "$T/a.db" --detail full) >"$T/full.txt"
grep -q "content: string" "$T/full.txt" || fail "show --detail full reads the server again: $(cat "$T/full.txt")"
grep -q "could not be read again" "$T/full.txt" && fail "full detail fell back: $(cat "$T/full.txt")"
(cd / && "$BIN" tools --format mcp memory:create_entities --db "$T/a.db") >"$T/tools.json"
jq -e '.tools[0].name == "memory__create_entities"' "$T/tools.json" >/dev/null || fail "tool definition: $(head -c 600 "$T/tools.json")"

# the MCP face searches the same index: tools come back as endpoints do
{ printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_endpoints","arguments":{"task":"delete entities from the knowledge graph","k":3}}}'
} | "$BIN" mcp --db "$T/a.db" 2>/dev/null >"$T/mcp.jsonl"
jq -s -e '.[] | select(.id == 2) | .result.content[0].text | fromjson | .results[0].id == "memory:delete_entities"' \
  "$T/mcp.jsonl" >/dev/null || fail "apidex mcp search_endpoints: $(tail -c 800 "$T/mcp.jsonl")"

# 3. re-indexing reuses every server whose tool list did not change
"$BIN" index --mcp-config "$T/claude.json" --db "$T/a.db" >"$T/index2.txt" 2>&1 || true
grep -q "0 added, 0 updated, 0 removed, 4 unchanged" "$T/index2.txt" || fail "unchanged servers: $(cat "$T/index2.txt")"

# 4. one server as a source string: split like a shell, the id from the server's name
"$BIN" index "mcp+stdio:$PY '$SCRIPTED' \"garbage\"" --db "$T/b.db" >"$T/index3.txt" 2>&1 ||
  fail "stdio source: $(cat "$T/index3.txt")"
"$BIN" list --db "$T/b.db" --json >"$T/list2.json"
jq -e '.apis[0].id == "scripted-garbage" and .apis[0].operations == 6' "$T/list2.json" >/dev/null ||
  fail "three pages of tools, noise skipped: $(cat "$T/list2.json")"
"$BIN" add --db "$T/b.db" "mcp+stdio:$PY $SCRIPTED pages" >"$T/add.txt" 2>&1 || fail "add: $(cat "$T/add.txt")"
grep -q "added: scripted-pages" "$T/add.txt" || fail "add a server: $(cat "$T/add.txt")"
start=$(date +%s)
rc=0
APIDEX_MCP_TIMEOUT_MS=1500 "$BIN" index "mcp+stdio:$PY $SCRIPTED silent" --db "$T/d.db" >"$T/silent.txt" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a silent server is an error"
grep -q "error: server '.*python3' did not answer within 1500 ms" "$T/silent.txt" ||
  fail "time limit: $(cat "$T/silent.txt")"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "the time limit did not hold"
"$BIN" index "mcp+stdio:python3 'unterminated" --db "$T/c.db" >"$T/bad.txt" 2>&1 && fail "a bad source string is an error"
grep -q "unterminated ' quote" "$T/bad.txt" || fail "quote error: $(cat "$T/bad.txt")"

# 5. Streamable HTTP: server-everything on a free loopback port. The URL named by the user
#    is the one origin allowed (loopback included), as for URL sources.
mcp_everything_http "$T/http.log"
"$BIN" index "mcp+http://127.0.0.1:$PORT/mcp" --db "$T/h.db" >"$T/index4.txt" 2>&1 || fail "http source: $(cat "$T/index4.txt")"
"$BIN" search "add two numbers" --db "$T/h.db" --json -k 3 >"$T/s3.json"
jq -e '.results[0].id | startswith("everything-server:")' "$T/s3.json" >/dev/null || fail "http tools: $(cat "$T/s3.json")"
cmp <("$BIN" list --db "$T/h.db" --json | jq '.apis[0].operations') \
    <("$BIN" list --db "$T/a.db" --json | jq '.apis[] | select(.id == "everything") | .operations') ||
  fail "the same tools over HTTP and stdio"
echo "ok"
