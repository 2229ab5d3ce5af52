#!/usr/bin/env bash
# Detail levels (summary, call, full) of `apidex show`, HTTP /v1/endpoints and MCP
# get_endpoint (official SDK client) on tests/data/detail: the three faces give the same
# JSON, nothing is cut (a 20-value enum, every form field, server variables), bad levels
# are usage errors.
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
db="$tmp/d.db"
"$bin" index "$src/tests/data/detail" --db "$db" --quiet || exit 1
id="detail-levels-fixture:sendMessage"
fail=0
has() { # name, file, fixed string
  if grep -qF -- "$3" "$2"; then echo "ok $1"; else echo "FAIL $1: no '$3' in"; cat "$2"; fail=1; fi
}
py() { python3 -c "$1" || { echo "FAIL: $2"; fail=1; }; }

echo "== show"
"$bin" show "$id" --db "$db" > "$tmp/call.txt" || { echo "FAIL show"; fail=1; }
has "call: whole enum" "$tmp/call.txt" "enum: sms|mms|whatsapp|messenger|rcs|email|voice|fax|push|chat|telegram|signal|line|viber|wechat|kakao|zalo|apple|google|slack"
has "call: server variables" "$tmp/call.txt" "{region} default: eu-west, one of: eu-west|us-east|ap-south"
has "call: form body" "$tmp/call.txt" "Request body (application/x-www-form-urlencoded, required)"
has "call: required body input" "$tmp/call.txt" "Required inputs: account_id (path), To (body), Channel (body)"
has "call: auth" "$tmp/call.txt" "apiKey (apiKey: header X-Api-Key)"
has "call: cycle" "$tmp/call.txt" "(circular: the fields of Node"
has "call: depth cut says how to get the rest" "$tmp/call.txt" "past the depth limit: detail=full lists them"
"$bin" show "$id" --db "$db" --detail summary > "$tmp/summary.txt"
[ "$(wc -l < "$tmp/summary.txt")" = 1 ] && echo "ok summary: one line" || { echo "FAIL summary"; cat "$tmp/summary.txt"; fail=1; }
"$bin" show "$id" --db "$db" --detail full > "$tmp/full.txt"
has "full: schemas" "$tmp/full.txt" "Schemas:"
has "full: every response" "$tmp/full.txt" "  400: Bad request."
[ "$(grep -c '^  Node: ' "$tmp/full.txt")" = 1 ] && echo "ok full: Node once" || { echo "FAIL full: Node not once"; fail=1; }
if "$bin" show "$id" --db "$db" --detail everything 2> "$tmp/err"; then echo "FAIL: bad level accepted"; fail=1
else rc=$?; [ $rc = 2 ] && grep -q "summary, call or full" "$tmp/err" && echo "ok bad level: exit 2" || { echo "FAIL bad level: exit $rc"; cat "$tmp/err"; fail=1; }; fi
for l in summary call full; do "$bin" show "$id" --db "$db" --json --detail $l > "$tmp/$l.json"; done
py "
import json
d = json.load(open('$tmp/call.json'))
assert d['detail'] == 'call' and d['url'] == 'https://{region}.api.example.com/v1/accounts/{account_id}/messages', d['url']
assert len(d['request_body']['schema']['properties']['Channel']['enum']) == 20
assert sorted(d['request_body']['schema']['properties']) == ['Body', 'Channel', 'Thread', 'To']
assert {'name': 'To', 'in': 'body', 'required': True} in d['inputs']
assert d['auth'] == [[{'name': 'apiKey', 'type': 'apiKey', 'in': 'header', 'param': 'X-Api-Key'}]]
s = json.load(open('$tmp/summary.json'))
assert 'parameters' not in s and s['summary'] == 'Send a message'
f = json.load(open('$tmp/full.json'))
assert len(f['responses']) == 2 and '#/components/schemas/Node' in f['schemas']
print('ok show --json: body schema, auth, inputs')
" "show --json"

echo "== HTTP /v1/endpoints"
timeout 120 "$bin" serve --db "$db" --listen 127.0.0.1:0 --port-file "$tmp/port" 2>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$tmp/port")"
for l in summary call full; do
  curl -sS -o "$tmp/h_$l.json" "$base/v1/endpoints/detail-levels-fixture%3AsendMessage?detail=$l"
  py "import json; assert json.load(open('$tmp/h_$l.json')) == json.load(open('$tmp/$l.json'))" "HTTP detail=$l differs from show --json"
done
curl -sS -o "$tmp/h_default.json" "$base/v1/endpoints/detail-levels-fixture%3AsendMessage"
py "import json; assert json.load(open('$tmp/h_default.json')) == json.load(open('$tmp/call.json'))" "HTTP default is not call"
curl -sS -o "$tmp/h_route.json" "$base/v1/endpoints?method=POST&path=/accounts/%7Baccount_id%7D/messages&detail=summary"
py "import json; assert json.load(open('$tmp/h_route.json')) == json.load(open('$tmp/summary.json'))" "HTTP by route"
code=$(curl -sS -o "$tmp/h_bad.json" -w '%{http_code}' "$base/v1/endpoints/detail-levels-fixture%3AsendMessage?detail=everything")
[ "$code" = 400 ] && grep -q "summary, call or full" "$tmp/h_bad.json" && echo "ok HTTP bad level: 400" || { echo "FAIL HTTP bad level: $code"; cat "$tmp/h_bad.json"; fail=1; }
echo "ok HTTP levels = show --json"
kill "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=""

echo "== a document changed or gone since the build: the index's own rendering, said so"
mkdir "$tmp/moved"
cp "$src/tests/data/detail/detail.yaml" "$tmp/moved/detail.yaml"
"$bin" index "$tmp/moved" --db "$tmp/m.db" --quiet || { echo "FAIL index copy"; fail=1; }
sed -i 's/Send a message/Send a text/' "$tmp/moved/detail.yaml"
"$bin" show "$id" --db "$tmp/m.db" --json > "$tmp/changed.json" || { echo "FAIL show changed"; fail=1; }
py "
import json
d = json.load(open('$tmp/changed.json'))
assert d['summary'] == 'Send a message' and 'changed since it was indexed' in d['note'] and d['content'], d
print('ok changed document: stored rendering with a note')
" "changed document"
rm "$tmp/moved/detail.yaml"
"$bin" show "$id" --db "$tmp/m.db" > "$tmp/gone.txt" || { echo "FAIL show gone"; fail=1; }
has "gone document: note" "$tmp/gone.txt" "could not be read again"

echo "== MCP get_endpoint (SDK client)"
timeout 120 node "$src/tests/e2e/mcp/check_detail.mjs" "$src/tools/node" "$bin" "$db" "$id" || { echo "FAIL MCP"; fail=1; }
exit $fail
