#!/usr/bin/env bash
# MCP over stdio with real clients: the official TypeScript SDKs (v1 @modelcontextprotocol/sdk
# and v2 @modelcontextprotocol/client, for 2025-11-25 and 2026-07-28) and the MCP Inspector
# CLI, against `apidex mcp` on an index of examples/. Answers are checked against the CLI.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
node_dir="$src/tools/node"
for pkg in @modelcontextprotocol/sdk @modelcontextprotocol/client @modelcontextprotocol/inspector; do
  [ -d "$node_dir/node_modules/$pkg" ] || { echo "FAIL: $pkg is not installed (run make deps)"; exit 1; }
done
tmp="$(mktemp -d)"
# no LLM, config or cache of the user's leaks in
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_LLM_TIMEOUT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
mkdir -p "$HOME"
trap 'rm -rf "$tmp"' EXIT
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet
task="Get the weather forecast for a city"
node "$src/tests/e2e/mcp/expect.mjs" "$bin" "$db" "$task" "$tmp/expect.json"
# the 2026-07-28 clients rebuild the index under the server and wait for the change
export APIDEX_BIN="$bin" APIDEX_E2E_SPECS="$src/examples" APIDEX_E2E_DB="$db"

echo "== TypeScript SDK clients over stdio"
timeout 180 node "$src/tests/e2e/mcp/check_clients.mjs" "$node_dir" "$tmp/expect.json" stdio "$bin" "$db"

echo "== MCP Inspector CLI over stdio"
inspector="$node_dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
export MCP_CATALOG_PATH="$tmp/inspector-catalog.json"
inspect() { timeout 60 node "$inspector" --cli "$bin" mcp --db "$db" "$@" 2>"$tmp/inspector.err"; }
fail=0
check() { # name, file, expected substring
  if ! grep -qF -- "$3" "$2"; then echo "FAIL inspector $1: no '$3' in"; head -c 2000 "$2"; cat "$tmp/inspector.err"; fail=1
  else echo "ok inspector $1"; fi
}
inspect --method tools/list > "$tmp/i_tools.json"
for t in search_endpoints get_endpoint list_apis ask_api get_tool_definitions report_usage; do check "tools/list $t" "$tmp/i_tools.json" "\"name\": \"$t\""; done
inspect --method tools/call --tool-name search_endpoints --tool-arg "task=$task" adaptive=true > "$tmp/i_search.json"
check "search_endpoints" "$tmp/i_search.json" '"id": "open-weather-station:getForecast"'
inspect --method tools/call --tool-name get_endpoint --tool-arg id=open-weather-station:getForecast > "$tmp/i_endpoint.json"
check "get_endpoint" "$tmp/i_endpoint.json" '"path": "/stations/{station_id}/forecast"'
inspect --method tools/call --tool-name list_apis > "$tmp/i_apis.json"
check "list_apis" "$tmp/i_apis.json" '"id": "recipe-box"'
inspect --method tools/call --tool-name ask_api --tool-arg "task=$task" budget=2000 > "$tmp/i_ask.json"
check "ask_api" "$tmp/i_ask.json" '"context_tokens"'
inspect --method resources/list > "$tmp/i_res.json"
check "resources/list" "$tmp/i_res.json" '"uri": "apidex://apis/open-weather-station"'
inspect --method resources/templates/list > "$tmp/i_tpl.json"
check "resources/templates/list" "$tmp/i_tpl.json" '"uriTemplate": "apidex://endpoints/{id}"'
inspect --method resources/read --uri apidex://apis/city-library > "$tmp/i_read.json"
check "resources/read" "$tmp/i_read.json" 'city-library:searchBooks'
if inspect --method tools/call --tool-name no_such_tool > "$tmp/i_bad.json" 2>&1; then
  echo "FAIL inspector: an unknown tool succeeded"; fail=1
else
  cat "$tmp/inspector.err" >> "$tmp/i_bad.json"
  check "unknown tool" "$tmp/i_bad.json" "not found"
fi

echo "== raw protocol over stdio: malformed lines get JSON-RPC errors, the server goes on"
printf '%s\n' 'not json' '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
  '[]' '{"jsonrpc":"2.0","id":2}' '{"jsonrpc":"2.0","id":3,"method":"nope","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
  | timeout 30 "$bin" mcp --db "$db" 2>/dev/null > "$tmp/raw.out"
expected=('"code":-32700' '"id":1,"result":{"tools"' '"code":-32600' '"id":2,"error":{"code":-32600' '"id":3,"error":{"code":-32601')
for i in 0 1 2 3 4; do
  line="$(sed -n "$((i + 1))p" "$tmp/raw.out")"
  if [[ "$line" != *"${expected[$i]}"* ]]; then echo "FAIL raw line $((i + 1)): $line"; fail=1; fi
done
[ "$(wc -l < "$tmp/raw.out")" -eq 5 ] || { echo "FAIL raw: $(wc -l < "$tmp/raw.out") lines"; fail=1; }
if [ $fail -eq 0 ]; then echo "ok raw stdio"; fi
exit $fail
