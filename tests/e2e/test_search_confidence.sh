#!/usr/bin/env bash
# The answer's match and confidence end to end, over an index of examples/: the same "match",
# "confidence", words and closest APIs through `apidex search --json`, GET /v1/search (a real
# `apidex serve` on a loopback port) and the MCP tool search_endpoints (the official SDK,
# tests/e2e/mcp/check_confidence.mjs), for a task that fits, one that fits weakly and one that
# nothing fits; and the CLI's text says in words when nothing fits or the match is weak.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
node_dir="$src/tools/node"
[ -d "$node_dir/node_modules/@modelcontextprotocol/sdk" ] || { echo "FAIL: the MCP SDK is not installed"; exit 1; }
tmp="$(mktemp -d)"
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_TOKEN
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
mkdir -p "$HOME"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet || exit 1

# 1. the CLI's text
none_task="check the status of my flight"
weak_task="find hotels in Lisbon for next weekend"
strong_task="get the weather forecast for a station"
out=$("$bin" search "$none_task" --db "$db" -k 5) || bad "search exit $?"
head -n 1 <<<"$out" | grep -q '^Nothing in this registry fits the task\. Closest APIs: city-library\.$' \
  || bad "no words for nothing fits: $out"
out=$("$bin" search "$weak_task" --db "$db" -k 5) || bad "search exit $?"
head -n 1 <<<"$out" | grep -q '^Weak match (confidence 0\.[0-9][0-9]): ' || bad "no weak marker: $out"
out=$("$bin" search "$strong_task" --db "$db" -k 5) || bad "search exit $?"
grep -q 'Weak match\|Nothing in this registry' <<<"$out" && bad "a strong answer warns: $out"
grep -q 'confidence: 0\.[0-9][0-9]$' <<<"$out" || bad "no confidence per endpoint: $out"
[ "$fail" = 0 ] && echo "ok the CLI says in words when nothing fits and when the match is weak"

# 2. the same match and confidence through the CLI, HTTP and MCP
timeout 300 "$bin" serve --db "$db" --listen 127.0.0.1:0 --port-file "$tmp/port" --reload-interval 0 \
  --access-log none 2>>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { cat "$tmp/serve.err"; echo "FAIL: the server did not start"; exit 1; }
cat >"$tmp/expect.json" <<JSON
[{"task": "$strong_task", "match": "strong"},
 {"task": "$weak_task", "match": "weak"},
 {"task": "$none_task", "match": "none"}]
JSON
timeout 240 node "$src/tests/e2e/mcp/check_confidence.mjs" "$node_dir" "$bin" "$db" \
  "http://127.0.0.1:$(cat "$tmp/port")" "$tmp/expect.json" || fail=1
[ "$fail" = 0 ] && echo "PASS"
exit $fail
