#!/usr/bin/env bash
# An MCP source's tools are shown and defined from the index alone (docs/MCP-SOURCES.md,
# "What is stored"): the servers of a registry are indexed, then their commands deleted;
# show, show --detail full, tool definitions, the HTTP API and `apidex mcp` still answer, and
# a tool's definition is its own inputSchema (title, annotations, outputSchema) exactly as
# the server's tools/list gives it, read here straight from the server. A registry file's
# mcp+config: path is relative to the registry file.
. "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
mcp_need @modelcontextprotocol/server-memory/dist/index.js
mkdir -p "$T/files" "$T/bin"
echo "hello" >"$T/files/a.txt"
export MEMORY_FILE_PATH="$T/memory.jsonl"

# 1. three servers started by scripts the registry names
for s in everything memory filesystem; do
  extra=
  [ "$s" = filesystem ] && extra="\"$T/files\""
  printf '#!/bin/sh\nexec "%s" "%s" %s\n' "$NODE" "$M/server-$s/dist/index.js" "$extra" >"$T/bin/$s.sh"
  chmod +x "$T/bin/$s.sh"
done
cat >"$T/apidex.yaml" <<YAML
sources:
  - "mcp+stdio:$T/bin/everything.sh"
  - "mcp+stdio:$T/bin/memory.sh"
  - "mcp+stdio:$T/bin/filesystem.sh"
YAML
"$BIN" index --registry "$T/apidex.yaml" --db "$T/a.db" >"$T/index.txt" 2>&1 || fail "index: $(cat "$T/index.txt")"
"$BIN" list --db "$T/a.db" --json | jq -r '.apis[].id' | sort >"$T/ids.txt"
[ "$(tr '\n' ' ' <"$T/ids.txt")" = "everything-server memory-server secure-filesystem-server " ] ||
  fail "ids: $(cat "$T/ids.txt")"

# what each server lists, asked directly (initialize, initialized, tools/list)
for s in everything memory filesystem; do
  { printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
      '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
      '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
    sleep 3; } | timeout 30 "$T/bin/$s.sh" 2>/dev/null |
    jq -c 'select(.id == 2) | .result.tools' >"$T/listed-$s.json"
  [ "$(jq length "$T/listed-$s.json")" -gt 0 ] || fail "$s listed no tools"
done

# 2. the servers are gone: everything below reads the index alone
rm -rf "$T/bin"
"$BIN" show memory-server:create_entities --db "$T/a.db" >"$T/show.txt" 2>&1 || fail "show: $(cat "$T/show.txt")"
grep -q "^  - entities (array of object, required)" "$T/show.txt" || fail "show: $(cat "$T/show.txt")"
grep -q "^MCP tool memory-server:create_entities - Create Entities$" "$T/show.txt" || fail "show: $(cat "$T/show.txt")"
grep -q "^Annotations: readOnlyHint: false, destructiveHint: false" "$T/show.txt" || fail "show: $(cat "$T/show.txt")"
"$BIN" show secure-filesystem-server:edit_file --db "$T/a.db" --detail full >"$T/full.txt" 2>&1 ||
  fail "show --detail full: $(cat "$T/full.txt")"
grep -q "could not be read again" "$T/full.txt" && fail "full detail fell back to the stored text: $(cat "$T/full.txt")"
grep -q "oldText" "$T/full.txt" || fail "full detail has the nested schema: $(cat "$T/full.txt")"
"$BIN" show everything-server:get-sum --db "$T/a.db" --json --detail full >"$T/full.json" ||
  fail "show --json"
jq -e '.note == null and .parameters != null' "$T/full.json" >/dev/null || fail "show --json: $(head -c 600 "$T/full.json")"

# server-everything's resources, resource templates and prompts are read-only operations
"$BIN" show everything-server:prompt:args-prompt --db "$T/a.db" >"$T/prompt.txt" 2>&1 || fail "show prompt: $(cat "$T/prompt.txt")"
grep -q "^MCP prompt everything-server:prompt:args-prompt - Arguments Prompt" "$T/prompt.txt" &&
  grep -q "city (string, required)" "$T/prompt.txt" ||
  fail "prompt: $(cat "$T/prompt.txt")"
"$BIN" show "everything-server:resource:Dynamic Text Resource" --db "$T/a.db" >"$T/tmpl.txt" 2>&1 || fail "show template: $(cat "$T/tmpl.txt")"
grep -q "^MCP resource everything-server:resource:Dynamic Text Resource" "$T/tmpl.txt" &&
  grep -q "resourceId (string, required)" "$T/tmpl.txt" || fail "template: $(cat "$T/tmpl.txt")"
"$BIN" search "architecture document" --db "$T/a.db" --json -k 3 >"$T/s-res.json"
jq -e '[.results[].id] | index("everything-server:resource:architecture.md") != null' "$T/s-res.json" >/dev/null ||
  fail "search finds a resource: $(jq -c '[.results[].id]' "$T/s-res.json")"
# a resource is read over MCP on its registry server: never an HTTP request, not even to a named --server
rc=0
"$BIN" call everything-server:resource:architecture.md --server http://127.0.0.1:9 --db "$T/a.db" >"$T/call-res.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "is an MCP resource" "$T/call-res.txt" ||
  fail "call of a resource (rc $rc): $(cat "$T/call-res.txt")"

# 3. tool definitions: the tool's own schema, faithfully, for every tool of the three servers
for s in everything memory filesystem; do
  api=$(grep -- "${s:0:6}" "$T/ids.txt")
  ids=$(jq -r --arg a "$api" '.[] | "\($a):\(.name)"' "$T/listed-$s.json")
  # shellcheck disable=SC2086
  "$BIN" tools --format mcp --db "$T/a.db" $ids >"$T/mcp-$s.json" || fail "tools --format mcp $s"
  jq -e --slurpfile l "$T/listed-$s.json" '
    [.tools[] | del(.name)] as $got |
    [$l[0][] | {description, inputSchema} + (if .title then {title} else {} end)
      + (if .annotations then {annotations} else {} end)
      + (if .outputSchema then {outputSchema} else {} end)] as $want |
    $got == $want' "$T/mcp-$s.json" >/dev/null ||
    fail "$s: MCP definitions differ from tools/list: $(jq -c '.tools[0]' "$T/mcp-$s.json" | head -c 800) vs $(jq -c '.[0]' "$T/listed-$s.json" | head -c 800)"
  # shellcheck disable=SC2086
  "$BIN" tools --format anthropic --db "$T/a.db" $ids >"$T/anth-$s.json"
  jq -e --slurpfile l "$T/listed-$s.json" '[.tools[].input_schema] == [$l[0][].inputSchema]' \
    "$T/anth-$s.json" >/dev/null || fail "$s: anthropic input_schema differs"
  jq -e --arg a "$api" '[.calls[] | .mcp.server == $a and (.method == null)] | all' "$T/mcp-$s.json" >/dev/null ||
    fail "$s: calls name the server: $(jq -c '.calls' "$T/mcp-$s.json" | head -c 400)"
done
# OpenAI (strict): the tool's arguments at the top, nested objects kept, not under "query"
"$BIN" tools --db "$T/a.db" memory-server:create_entities >"$T/openai.json"
jq -e '.tools[0].function.parameters | (.properties.query == null) and
  (.properties.entities.items.properties.observations.items.type == "string") and
  (.required == ["entities"])' "$T/openai.json" >/dev/null ||
  fail "openai parameters: $(jq -c '.tools[0].function.parameters' "$T/openai.json")"

# a schema with local $refs (into its $defs, recursive) comes back with them as written
cat >"$T/reftools.json" <<'JSON'
{"tools": [{"name": "walk", "description": "Walks a tree.",
  "inputSchema": {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"},
    "depth": {"type": "integer", "default": null}}, "required": ["root"],
    "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"},
      "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}}]}
JSON
"$BIN" index "$T/reftools.json" --db "$T/ref.db" >/dev/null 2>&1 || fail "index a tools/list file"
"$BIN" tools --format mcp reftools:walk --db "$T/ref.db" >"$T/ref-mcp.json" || fail "tools for reftools:walk"
jq -e --slurpfile l "$T/reftools.json" '.tools[0].inputSchema == $l[0].tools[0].inputSchema' "$T/ref-mcp.json" >/dev/null ||
  fail "\$refs as written: $(jq -c '.tools[0].inputSchema' "$T/ref-mcp.json")"
"$BIN" tools reftools:walk --db "$T/ref.db" >"$T/ref-openai.json" || fail "openai tools for reftools:walk"
jq -e '.tools[0].function.parameters | (.properties.root.properties.name != null) and
  ([.. | objects | has("$ref")] | any | not)' \
  "$T/ref-openai.json" >/dev/null || fail "openai inlines \$refs: $(jq -c '.tools[0].function.parameters' "$T/ref-openai.json")"

# 4. the HTTP API and `apidex mcp` answer from the index too
"$BIN" serve --db "$T/a.db" --listen 127.0.0.1:0 --port-file "$T/port" >"$T/serve.log" 2>&1 &
SERVE_PID=$!
mcp_track "$SERVE_PID"
mcp_wait_for "serve to listen" test -s "$T/port"
PORT=$(cat "$T/port")
curl -sf "http://127.0.0.1:$PORT/v1/tools?id=memory-server:create_entities&format=mcp" >"$T/http-tools.json" ||
  fail "GET /v1/tools: $(cat "$T/serve.log")"
jq -e --slurpfile l "$T/listed-memory.json" \
  '.tools[0].inputSchema == ($l[0][] | select(.name == "create_entities") | .inputSchema)' \
  "$T/http-tools.json" >/dev/null || fail "GET /v1/tools: $(head -c 600 "$T/http-tools.json")"
curl -sf "http://127.0.0.1:$PORT/v1/endpoints/memory-server:create_entities?detail=full" >"$T/http-ep.json" ||
  fail "GET /v1/endpoints"
jq -e '.note == null' "$T/http-ep.json" >/dev/null || fail "GET /v1/endpoints fell back: $(head -c 600 "$T/http-ep.json")"
kill "$SERVE_PID"
{ printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_tool_definitions","arguments":{"ids":["everything-server:get-sum"],"format":"mcp"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_endpoint","arguments":{"id":"secure-filesystem-server:edit_file","detail":"full"}}}'
} | "$BIN" mcp --db "$T/a.db" 2>/dev/null >"$T/mcp.jsonl"
jq -s -e --slurpfile l "$T/listed-everything.json" '.[] | select(.id == 2) | .result.content[0].text | fromjson |
  .tools[0].inputSchema == ($l[0][] | select(.name == "get-sum") | .inputSchema)' "$T/mcp.jsonl" >/dev/null ||
  fail "MCP get_tool_definitions: $(tail -c 800 "$T/mcp.jsonl")"
jq -s -e '.[] | select(.id == 3) | .result.content[0].text | fromjson | .note == null' "$T/mcp.jsonl" >/dev/null ||
  fail "MCP get_endpoint: $(tail -c 800 "$T/mcp.jsonl")"
# 5. in a registry file, the FILE of mcp+config: is relative to the registry file's folder
mkdir -p "$T/reg/cfg"
cat >"$T/reg/cfg/servers.json" <<JSON
{"mcpServers": {"memory": {"command": "$NODE", "args": ["$M/server-memory/dist/index.js"]},
                "everything": {"command": "$NODE", "args": ["$M/server-everything/dist/index.js"]}}}
JSON
printf 'sources:\n  - "mcp+config:cfg/servers.json#memory"\n  - url: "mcp+config:cfg/servers.json"\n' >"$T/reg/apidex.yaml"
(cd / && "$BIN" index --registry "$T/reg/apidex.yaml" --db "$T/r.db") >"$T/reg.txt" 2>&1 ||
  fail "relative mcp+config: in a registry file: $(cat "$T/reg.txt")"
PY=$(command -v /usr/bin/python3 || command -v python3)
"$PY" -c 'import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT id, document FROM apis ORDER BY id")
print(json.dumps([{"id": i, "document": d} for i, d in rows]))' "$T/r.db" >"$T/reg-list.json"
jq -e --arg f "$T/reg/cfg/servers.json" '[.[].id] == ["everything", "memory"] and
  ([.[].document] | all(startswith("mcp+config:" + $f + "#")))' "$T/reg-list.json" >/dev/null ||
  fail "registry config servers: $(cat "$T/reg-list.json")"
echo "ok"
