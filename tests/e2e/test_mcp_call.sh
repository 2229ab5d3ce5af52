#!/usr/bin/env bash
# The MCP tool call_endpoint through the official TypeScript SDK (tests/e2e/mcp/check_call.mjs):
# `apidex mock` serves the RestBench TMDB and Spotify specs on a loopback port and `apidex mcp`
# calls it under the rules of `apidex call` (--allow-calls, --allow-write, --allow-host,
# --allow-address).
set -euo pipefail
. "$(dirname "$0")/restbench_mock.sh"
node_dir="$src/tools/node"
[ -d "$node_dir/node_modules/@modelcontextprotocol/sdk" ] || { echo "FAIL: the MCP SDK is not installed"; exit 1; }
rb_index
rb_start mock "$tmp/mock.port" "$bin" mock "$specs/tmdb_oas.json" "$specs/spotify_oas.json"
timeout 240 node "$src/tests/e2e/mcp/check_call.mjs" "$node_dir" "$bin" "$tmp/rb.db" \
  "http://127.0.0.1:$(cat "$tmp/mock.port")" "$tmdb" "$spotify"
