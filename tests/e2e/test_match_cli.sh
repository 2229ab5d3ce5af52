#!/usr/bin/env bash
# apidex match (spec-as-query) end to end: a document matches itself at rank 1, a renamed one
# still matches, an unrelated one has no match, a bad file is exit 2 with file:line:col; the
# same through POST /v1/match (curl) and the MCP tool match_spec (the official SDK).
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
tmp="$(mktemp -d)"
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_LLM_TIMEOUT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
mkdir -p "$HOME"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet || exit 1
py=/usr/bin/python3
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 1. each example matches itself: every operation's first candidate is itself
for f in weather.json library.yaml recipes.yaml; do
  "$bin" match "$src/examples/$f" --db "$db" --json > "$tmp/self.json" || bad "match $f: exit $?"
  $py - "$tmp/self.json" <<'PY' || bad "$f does not match itself"
import json, sys
d = json.load(open(sys.argv[1]))
for op in d["operations"]:
    if op["path"] == "/loans/{loan_id}/renewal":
        continue  # deprecated: never a candidate (as in search)
    c = op["candidates"][0]
    assert (c["method"], c["path"]) == (op["method"], op["path"]), (op["path"], c)
    assert op["match"] and c["score"] >= d["threshold"], op
assert d["apis"][0]["covered"] == d["matched"]
PY
done
echo "ok every example matches itself at rank 1"

# 2. renamed: other casing, names, version prefix, no descriptions
cat > "$tmp/renamed.yaml" <<'YAML'
openapi: 3.0.0
info: {title: Weather, version: '1'}
paths:
  /v2/stations/{stationId}/forecast:
    get:
      parameters: [{name: stationId, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok}}
  /v2/weather-stations:
    get:
      operationId: find_stations
      responses: {'200': {description: ok}}
YAML
"$bin" match "$tmp/renamed.yaml" --db "$db" --json > "$tmp/ren.json" || bad "renamed: exit $?"
$py -c "
import json; d = json.load(open('$tmp/ren.json'))
assert [o['candidates'][0]['id'] for o in d['operations']] == ['open-weather-station:getForecast', 'open-weather-station:findStations'], d
assert all(o['match'] for o in d['operations'])
assert d['apis'][0]['api'] == 'open-weather-station' and d['apis'][0]['covered'] == 2
" || bad "the renamed document"
"$bin" match "$tmp/renamed.yaml" --db "$db" > "$tmp/ren.txt" || bad "renamed text: exit $?"
grep -q "open-weather-station  GET /stations/{station_id}/forecast" "$tmp/ren.txt" || bad "text: $(cat "$tmp/ren.txt")"
grep -q "2 of 2 operations matched" "$tmp/ren.txt" || bad "text summary: $(cat "$tmp/ren.txt")"
echo "ok a renamed document still matches"

# 3. unrelated: no match (exit 0: an answer), JSON says so per operation
cat > "$tmp/pizza.json" <<'JSON'
{"swagger":"2.0","info":{"title":"Pizza","version":"1"},"paths":{"/pizzas/{pizzaId}/toppings":{"put":{"parameters":[{"name":"pizzaId","in":"path","required":true,"type":"string"}],"responses":{"204":{"description":"done"}}}}}}
JSON
"$bin" match "$tmp/pizza.json" --db "$db" --json > "$tmp/pizza.out" || bad "pizza: exit $?"
$py -c "
import json; d = json.load(open('$tmp/pizza.out'))
assert d['matched'] == 0 and d['unmatched'] == 1 and not d['operations'][0]['match'], d
assert all(a['covered'] == 0 for a in d['apis'])
" || bad "the unrelated document matched"
"$bin" match "$tmp/pizza.json" --db "$db" | grep -q "no match (best" || bad "text: no 'no match'"
# candidates come from the search, which lists only endpoints with evidence in the text (no
# fill from the data-flow graph): an operation that shares no word with the index has no
# candidate, so even a threshold of 0 matches nothing
"$bin" match "$tmp/pizza.json" --db "$db" --json --threshold 0 | $py -c "import json,sys; d = json.load(sys.stdin); assert d['matched'] == 0 and d['operations'][0]['candidates'] == [], d" || bad "--threshold 0"
echo "ok an unrelated document has no match"

# 4. bad input: exit 2 with file:line:col
printf 'openapi: 3.0.0\ninfo: {title: x, version: "1"}\npaths:\n  /a: [\n' > "$tmp/broken.yaml"
"$bin" match "$tmp/broken.yaml" --db "$db" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || bad "broken: exit $rc"
grep -qE "broken.yaml:[0-9]+:[0-9]+: " "$tmp/err" || bad "broken: no file:line:col in $(cat "$tmp/err")"
printf '{"openapi": "3.0.0", "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}' > "$tmp/trunc.json"
"$bin" match "$tmp/trunc.json" --db "$db" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || bad "truncated JSON: exit $rc"
grep -qE "trunc.json:[0-9]+:[0-9]+: " "$tmp/err" || bad "truncated JSON: $(cat "$tmp/err")"
echo 'just words' > "$tmp/words.txt"
"$bin" match "$tmp/words.txt" --db "$db" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || bad "not a document: exit $rc ($(cat "$tmp/err"))"
"$bin" match "$tmp/nope.yaml" --db "$db" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no such file" "$tmp/err" || bad "missing file: exit $rc $(cat "$tmp/err")"
"$bin" match "$src/examples" --db "$db" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || bad "a directory: exit $rc"
"$bin" match --db "$db" 2> /dev/null; rc=$?
[ $rc -eq 2 ] || bad "no FILE: exit $rc"
"$bin" match "$tmp/renamed.yaml" --db "$db" --threshold 1.5 2> /dev/null; rc=$?
[ $rc -eq 2 ] || bad "--threshold 1.5: exit $rc"
"$bin" match "$tmp/renamed.yaml" --db "$db" --param match.nosuch=1 2> /dev/null; rc=$?
[ $rc -eq 2 ] || bad "--param unknown: exit $rc"
"$bin" match "$tmp/renamed.yaml" --db "$tmp/none.db" 2> "$tmp/err"; rc=$?
[ $rc -eq 3 ] || bad "missing index: exit $rc"
grep -q "file:" "$tmp/err" && bad "an SQLite URI leaked: $(cat "$tmp/err")"
echo "ok bad input"

# 5. HTTP: POST /v1/match
rm -f "$tmp/port"
timeout 120 "$bin" serve --db "$db" --listen 127.0.0.1:0 --port-file "$tmp/port" --reload-interval 0 \
  --access-log none 2>>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$tmp/port")"
code=$(curl -s -o "$tmp/h.json" -w '%{http_code}' -X POST -H 'Content-Type: application/yaml' --data-binary @"$tmp/renamed.yaml" "$base/v1/match?k=2")
[ "$code" = 200 ] || bad "POST /v1/match: $code $(cat "$tmp/h.json")"
$py -c "
import json; h = json.load(open('$tmp/h.json')); c = json.load(open('$tmp/ren.json'))
for d in (h, c): d.pop('elapsed_ms'); d.pop('features_ms')
for o in c['operations']: o['candidates'] = o['candidates'][:2]
assert h == c, (h, c)
" || bad "POST /v1/match differs from apidex match --json"
code=$(curl -s -o "$tmp/h.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/pizza.json" "$base/v1/match")
[ "$code" = 200 ] && $py -c "import json; assert json.load(open('$tmp/h.json'))['matched'] == 0" || bad "POST pizza: $code"
code=$(curl -s -o "$tmp/h.json" -w '%{http_code}' -X POST --data-binary @"$tmp/broken.yaml" "$base/v1/match")
[ "$code" = 400 ] && grep -qE '"document:[0-9]+:[0-9]+: ' "$tmp/h.json" || bad "POST broken: $code $(cat "$tmp/h.json")"
code=$(curl -s -o "$tmp/h.json" -w '%{http_code}' -X POST "$base/v1/match")
[ "$code" = 400 ] || bad "POST empty: $code"
code=$(curl -s -o "$tmp/h.json" -w '%{http_code}' -X POST --data-binary @"$tmp/renamed.yaml" "$base/v1/match?threshold=2")
[ "$code" = 400 ] || bad "POST threshold=2: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/match")
[ "$code" = 405 ] || bad "GET /v1/match: $code"
curl -s "$base/openapi.json" | $py -c "import json,sys; assert 'post' in json.load(sys.stdin)['paths']['/v1/match']" || bad "/v1/match not in /openapi.json"
kill "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=""
[ $fail -eq 0 ] && echo "ok POST /v1/match"

# 6. MCP: match_spec through the SDK
node_dir="$src/tools/node"
if [ -d "$node_dir/node_modules/@modelcontextprotocol/sdk" ]; then
  timeout 120 node "$src/tests/e2e/mcp/check_match.mjs" "$node_dir" "$bin" "$db" "$src/examples/weather.json" "$tmp/renamed.yaml" || bad "MCP match_spec"
else
  bad "@modelcontextprotocol/sdk is not installed (run make deps)"
fi
exit $fail
