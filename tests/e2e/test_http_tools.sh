#!/usr/bin/env bash
# GET /v1/tools: the tool definitions `apidex tools` prints, served over HTTP by the same code
# (same names, schemas and calling details for ids or a task, each format), and its errors.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet || exit 1
server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"
ASAN_OPTIONS="$server_asan" timeout 120 "$bin" serve --db "$db" --listen 127.0.0.1:0 \
  --port-file "$tmp/port" --reload-interval 0 2>>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$tmp/port")"
get() { # STATUS URL OUTFILE
  local code
  code=$(curl -s -o "$3" -w '%{http_code}' "$base$2")
  [ "$code" = "$1" ] || bad "GET $2: $code, expected $1: $(head -c 300 "$3")"
}
# ids: the same JSON as the CLI, in each format
"$bin" tools --db "$db" --compact open-weather-station:getForecast open-weather-station:findStations > "$tmp/cli_openai.json"
"$bin" tools --db "$db" --compact --format anthropic open-weather-station:getForecast > "$tmp/cli_anthropic.json"
"$bin" tools --db "$db" --compact --format mcp --search "Get the weather forecast for a city" -k 2 \
  > "$tmp/cli_mcp.json"
get 200 "/v1/tools?id=open-weather-station%3AgetForecast&id=open-weather-station%3AfindStations" "$tmp/http_openai.json"
get 200 "/v1/tools?id=open-weather-station:getForecast&format=anthropic" "$tmp/http_anthropic.json"
get 200 "/v1/tools?q=Get+the+weather+forecast+for+a+city&k=2&format=mcp" "$tmp/http_mcp.json"
for f in openai anthropic mcp; do
  /usr/bin/python3 -c "
import json, sys
a, b = json.load(open('$tmp/cli_$f.json')), json.load(open('$tmp/http_$f.json'))
assert a == b, (a, b)
assert b['tools'] and set(b['calls']) == {t.get('name') or t['function']['name'] for t in b['tools']}
" || bad "$f: HTTP and CLI differ"
done
# errors: neither ids nor a task, both, an unknown id, a bad format, a bad k, an unknown key
get 400 "/v1/tools" "$tmp/e1.json"
get 400 "/v1/tools?id=open-weather-station:getForecast&q=forecast" "$tmp/e2.json"
get 404 "/v1/tools?id=nope:nothing" "$tmp/e3.json"
grep -q "nope:nothing" "$tmp/e3.json" || bad "the 404 does not name the id"
get 400 "/v1/tools?id=open-weather-station:getForecast&format=xml" "$tmp/e4.json"
grep -q "openai, anthropic or mcp" "$tmp/e4.json" || bad "the bad format is not explained"
get 400 "/v1/tools?q=forecast&k=0" "$tmp/e5.json"
get 400 "/v1/tools?ids=open-weather-station:getForecast" "$tmp/e6.json"
get 400 "/v1/tools?q=%20%20" "$tmp/e7.json"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/v1/tools")
[ "$code" = 405 ] || bad "POST /v1/tools: $code"
kill "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=""
[ $fail = 0 ] && echo "ok /v1/tools"
exit $fail
