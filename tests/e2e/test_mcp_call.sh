#!/usr/bin/env bash
# The MCP tool call_endpoint through the official TypeScript SDK (tests/e2e/mcp/check_call.mjs):
# `apidex mock` serves the RestBench TMDB and Spotify specs on a loopback port and `apidex mcp`
# calls it under the rules of `apidex call` (--allow-calls, --allow-write, --allow-host,
# --allow-address).
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
specs="$shared/benchmarks/restbench/specs"
node_dir="$src/tools/node"
if [ ! -f "$specs/tmdb_oas.json" ]; then
  echo "skipped: $specs not found"
  exit 0
fi
[ -d "$node_dir/node_modules/@modelcontextprotocol/sdk" ] || { echo "FAIL: the MCP SDK is not installed"; exit 1; }
tmp="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
unset APIDEX_CREDENTIALS XDG_CONFIG_HOME XDG_CACHE_HOME
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home"
mkdir -p "$HOME"
db="$tmp/rb.db"
"$bin" index "$specs" --db "$db" --quiet
"$bin" list --db "$db" --json >"$tmp/list.json"
api_of() { # a path only that API has -> the id the index gave it
  /usr/bin/python3 -c "import json,sys; print(next(a['id'] for a in json.load(open('$tmp/list.json'))['apis'] if any(o['path'] == sys.argv[1] for t in a['tags'] for o in t['operations'])))" "$1"
}
tmdb=$(api_of "/movie/top_rated")
spotify=$(api_of "/users/{user_id}/playlists")
server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"
ASAN_OPTIONS="$server_asan" timeout 300 "$bin" mock "$specs/tmdb_oas.json" "$specs/spotify_oas.json" \
  --listen 127.0.0.1:0 --port-file "$tmp/port" >"$tmp/mock.out" 2>"$tmp/mock.err" &
pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "FAIL: the mock did not start"; cat "$tmp/mock.err"; exit 1; }
timeout 240 node "$src/tests/e2e/mcp/check_call.mjs" "$node_dir" "$bin" "$db" \
  "http://127.0.0.1:$(cat "$tmp/port")" "$tmdb" "$spotify"
