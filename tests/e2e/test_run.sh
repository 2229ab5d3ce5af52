#!/usr/bin/env bash
# `apidex run` end to end: an index of the RestBench TMDB and Spotify specs, `apidex mock`
# serving both, and the scripted OpenAI-compatible model (tests/agent/mock_openai.py)
# playing RestGPT's planner, caller and parser. Six multi-step RestBench-style tasks
# (tests/e2e/run_tasks.py): the endpoints called in order, their statuses, the selections,
# the second call carrying the first result, and the final answer read from the mock
# directly. Also: no model configured (exit 2 naming the variables), a call refused by the
# safety rules shown to the model (the loopback address without --allow-address).
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
specs="$shared/benchmarks/restbench/specs"
if [ ! -f "$specs/tmdb_oas.json" ]; then
  echo "skipped: $specs not found"
  exit 0
fi
tmp="$(mktemp -d)"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_LLM_TIMEOUT
unset APIDEX_CREDENTIALS XDG_CACHE_HOME
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
export APIDEX_SOURCE_DIR="$src"
mkdir -p "$HOME"
py=/usr/bin/python3
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }

db="$tmp/rb.db"
"$bin" index "$specs" --db "$db" --quiet || exit 1
"$bin" list --json --db "$db" >"$tmp/list.json" || exit 1

echo "== no model configured"
st=0
"$bin" run "Who directed the top-1 rated movie?" --db "$db" >"$tmp/out" 2>"$tmp/err" || st=$?
if [ "$st" = 2 ] && grep -q APIDEX_LLM_BASE_URL "$tmp/err" && grep -q APIDEX_LLM_MODEL "$tmp/err"; then
  ok "exit 2 naming the variables"
else
  bad "no model: exit $st"; cat "$tmp/err"
fi
st=0
"$bin" run "x" --server "nosuchapi=http://127.0.0.1:1" --db "$db" >"$tmp/out" 2>"$tmp/err" || st=$?
[ "$st" = 2 ] && ok "--server for an unknown API (exit 2)" || bad "--server unknown API: exit $st"

server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"
ASAN_OPTIONS="$server_asan" timeout 600 "$bin" mock "$specs/tmdb_oas.json" "$specs/spotify_oas.json" \
  --listen 127.0.0.1:0 --port-file "$tmp/port" >"$tmp/mock.out" 2>"$tmp/mock.err" &
pids="$pids $!"
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "FAIL: the mock did not start"; cat "$tmp/mock.err"; exit 1; }
url="http://127.0.0.1:$(cat "$tmp/port")"

echo "== six tasks, end to end"
mkdir -p "$tmp/work"
"$py" "$src/tests/e2e/run_tasks.py" "$bin" "$db" "$url" "$tmp/list.json" "$tmp/work" || fail=1

echo "== a refused call goes back to the model"
tmdb=$("$py" -c "import json; print(next(a['id'] for a in json.load(open('$tmp/list.json'))['apis'] if any(o['path'] == '/movie/top_rated' for t in a['tags'] for o in t['operations'])))")
cat >"$tmp/refused.json" <<'JSON'
{"steps": [{"content": "Plan step 1: get the top rated movies"},
           {"tool_calls": [{"name": "call_endpoint", "arguments": {"endpoint": "GET /movie/top_rated", "params": {}}}]}],
 "rules": [{"when": "Your line for step 2", "content": "Final Answer: the API could not be reached"},
           {"when": "The call was not sent", "tool_calls": [{"name": "call_endpoint", "arguments": {"endpoint": "GET /movie/top_rated", "params": {}}}]}]}
JSON
"$py" "$src/tests/agent/mock_openai.py" --script "$tmp/refused.json" --port-file "$tmp/llm.port" \
  --log "$tmp/llm.log" --lifetime 120 &
pids="$pids $!"
for _ in $(seq 200); do [ -s "$tmp/llm.port" ] && break; sleep 0.05; done
st=0
APIDEX_LLM_BASE_URL="http://127.0.0.1:$(cat "$tmp/llm.port")/v1" APIDEX_LLM_MODEL=mock-model \
  "$bin" run "Who directed the top-1 rated movie?" --json --db "$db" --server "$tmdb=$url/3" \
  >"$tmp/out" 2>"$tmp/err" || st=$?
if "$py" - "$tmp/out" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
s = t["steps"][0]
assert not s["status"] and "loopback" in s["error"] and "--allow-private" in s["error"], s
assert s["attempts"] == 2, s
assert t["answer"] == "the API could not be reached", t["answer"]
PY
then
  ok "the refusal is in the transcript, the caller tried twice (exit $st)"
else
  bad "refused call: exit $st"; head -c 3000 "$tmp/out"; cat "$tmp/err"
fi
grep -q "The call was not sent: .*loopback" "$tmp/llm.log" && ok "the model saw why" || bad "the model was not told"
exit $fail
