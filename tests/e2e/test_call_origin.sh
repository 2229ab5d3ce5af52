#!/usr/bin/env bash
# A prompt-injected model attacking the request builder: credentials must stay with the API's
# origin. Two echo servers on 127.0.0.1 record every request they get (request line and
# headers); a spec generated here names one of them (and an https origin on the same port,
# and a {sub}.example.test server) with an API key in a header. Each attack must be refused
# before anything is sent, and the key must never reach an echo server it was not meant for:
# a server variable that injects an authority (CLI -p and POST /v1/call params), an https to
# http downgrade and a port change through --server / "server", `.`/`..` path parameters,
# framing headers (Host, Transfer-Encoding) from a caller, control characters, NUL bytes.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
py=/usr/bin/python3
tmp="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
unset APIDEX_CREDENTIALS XDG_CONFIG_HOME XDG_CACHE_HOME
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home" APIDEX_DB="$tmp/o.db"
mkdir -p "$HOME"
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }

# an echo server: logs "METHOD TARGET" and each header line, answers {"ok": true}
cat >"$tmp/echo.py" <<'PY'
import http.server, sys
log, portfile = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.requestline + "\n" + str(self.headers) + "\n")
        b = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    do_POST = do_GET
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(portfile + ".tmp", "w").write(str(s.server_address[1]))
import os; os.rename(portfile + ".tmp", portfile)
s.timeout = 1
import time
end = time.time() + 300
while time.time() < end:
    s.handle_request()
PY
start_echo() { # log, portfile
  "$py" "$tmp/echo.py" "$1" "$2" &
  pids+=($!)
  for _ in $(seq 200); do [ -s "$2" ] && return 0; sleep 0.05; done
  echo "FAIL: echo server did not start"
  exit 1
}
: >"$tmp/a.log"
: >"$tmp/b.log"
start_echo "$tmp/a.log" "$tmp/a.port"
start_echo "$tmp/b.log" "$tmp/b.port"
pa=$(cat "$tmp/a.port")
pb=$(cat "$tmp/b.port")

mkdir -p "$tmp/spec"
cat >"$tmp/spec/origin.json" <<JSON
{"openapi": "3.0.3", "info": {"title": "Origin test", "version": "1"},
 "servers": [{"url": "http://127.0.0.1:$pa/v1"}],
 "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
 "security": [{"key": []}],
 "paths": {
  "/items/{id}": {"get": {"operationId": "getItem", "summary": "One item by id",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                   {"name": "q", "in": "query", "schema": {"type": "string"}},
                   {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                   {"name": "Host", "in": "header", "schema": {"type": "string"}},
                   {"name": "Transfer-Encoding", "in": "header", "schema": {"type": "string"}}],
    "responses": {"200": {"description": "the item"}}}},
  "/secure": {"get": {"operationId": "getSecure", "summary": "A secure thing",
    "servers": [{"url": "https://127.0.0.1:$pa/v1"}],
    "responses": {"200": {"description": "ok"}}}},
  "/tenant": {"get": {"operationId": "getTenant", "summary": "The tenant's things",
    "servers": [{"url": "http://{sub}.example.test/v1", "variables": {"sub": {"default": "api"}}}],
    "responses": {"200": {"description": "ok"}}}}
 }}
JSON
"$bin" index "$tmp/spec" --quiet || { echo "FAIL: index"; exit 1; }
"$bin" list --json >"$tmp/list.json" || exit 1
api=$("$py" -c "import json; print(json.load(open('$tmp/list.json'))['apis'][0]['id'])")
envname="APIDEX_AUTH_$(printf %s "$api" | tr 'a-z' 'A-Z' | tr -c 'A-Z0-9' '_')_KEY"
export "$envname=origin-s3cret-key"

status() { # name, want exit, command...
  local name=$1 want=$2 st=0
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  if [ "$st" = "$want" ]; then ok "$name (exit $st)"; else bad "$name: exit $st, want $want"; cat "$tmp/err" "$tmp/out"; fi
}
has() { # name, file, fixed string
  if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in:"; cat "$2"; fi
}
lacks() { # name, file, fixed string
  if grep -qF -- "$3" "$2"; then bad "$1: '$3' in:"; cat "$2"; else ok "$1"; fi
}
call() { "$bin" call "$@" --api "$api" --allow-address 127.0.0.1; }

echo "== the good call: the key goes to the API's own origin"
status "GET /items/{id}" 0 call "GET /items/{id}" -p id=a/b
has "the path parameter is one segment (/ encoded)" "$tmp/a.log" "GET /v1/items/a%2Fb HTTP/1.1"
has "the key went to the API's origin" "$tmp/a.log" "X-Api-Key: origin-s3cret-key"
: >"$tmp/a.log"

echo "== a server variable cannot change the authority"
status "sub=127.0.0.1:PORT/# refused" 2 call "GET /tenant" -p "sub=127.0.0.1:$pa/#"
has "the error names the variable" "$tmp/err" "server variable 'sub'"
status "sub=x@127.0.0.1:PORT/ refused" 2 call "GET /tenant" -p "sub=x@127.0.0.1:$pa/"
status "sub=127.0.0.1:PORT\\ refused" 2 call "GET /tenant" -p "sub=127.0.0.1:$pa\\"

echo "== --server: no downgrade, no port change"
status "https -> http refused" 4 call "GET /secure" --server "http://127.0.0.1:$pa/v1"
has "the error says downgrade or port change" "$tmp/err" "a scheme downgrade or a port change is refused"
status "port change refused" 4 call "GET /items/{id}" -p id=1 --server "http://127.0.0.1:$pb/v1"
status "port change allowed with --allow-host ORIGIN" 0 call "GET /items/{id}" -p id=2 \
  --server "http://127.0.0.1:$pb/v1" --allow-host "http://127.0.0.1:$pb"
has "the named origin got the request" "$tmp/b.log" "GET /v1/items/2 HTTP/1.1"
has "and the key (the user named the origin)" "$tmp/b.log" "X-Api-Key: origin-s3cret-key"
: >"$tmp/b.log"
status "an --allow-host entry with a path is a usage error" 2 call "GET /items/{id}" -p id=2 \
  --server "http://127.0.0.1:$pb/v1" --allow-host "http://127.0.0.1:$pb/v1"
has "the error says what an entry is" "$tmp/err" "scheme://HOST[:PORT]"
status "an --allow-host entry with a control character is a usage error" 2 call "GET /items/{id}" \
  -p id=2 --server "http://127.0.0.1:$pb/v1" --allow-host "$(printf 'http://127.0.0.1:%s/\bx' "$pb")"
lacks "neither reached the other port" "$tmp/b.log" "GET /v1/items/2"

echo "== dot segments stay inside the operation"
status "id=.. refused" 2 call "GET /items/{id}" -p id=..
has "the error names the parameter" "$tmp/err" "'id'"
status "id=. refused" 2 call "GET /items/{id}" -p id=.

echo "== framing headers and control characters"
status "Host from a caller refused" 2 call "GET /items/{id}" -p id=1 -p Host=evil.example
has "the error names Host" "$tmp/err" "'Host'"
status "Transfer-Encoding from a caller refused" 2 call "GET /items/{id}" -p id=1 -p Transfer-Encoding=chunked
status "\\v in a header refused" 2 call "GET /items/{id}" -p id=1 -p "X-Trace=a$(printf '\v')b"
has "the error names the parameter" "$tmp/err" "'X-Trace'"
status "\\x7f in a query value refused" 2 call "GET /items/{id}" -p id=1 -p "q=a$(printf '\177')b"
status "a line break in a path value refused" 2 call "GET /items/{id}" -p "id=a$(printf '\r\n')b"

echo "== the same attacks through POST /v1/call (a model's params and server)"
"$bin" serve --access-log none --allow-calls --allow-address 127.0.0.1 --listen 127.0.0.1:0 \
  --port-file "$tmp/serve.port" >"$tmp/serve.out" 2>"$tmp/serve.err" &
pids+=($!)
for _ in $(seq 200); do [ -s "$tmp/serve.port" ] && break; sleep 0.05; done
post() { # name, want status, JSON body -> $tmp/out
  local got
  got=$(curl -s -o "$tmp/out" -w '%{http_code}' -H 'Content-Type: application/json' -d "$3" "http://127.0.0.1:$(cat "$tmp/serve.port")/v1/call")
  if [ "$got" = "$2" ]; then ok "$1 ($got)"; else bad "$1: HTTP $got, want $2"; cat "$tmp/out"; echo; fi
}
post "params sub injection refused" 400 "{\"endpoint\":\"GET /tenant\",\"api\":\"$api\",\"params\":{\"sub\":\"127.0.0.1:$pa/#\"}}"
post "server downgrade refused" 403 "{\"endpoint\":\"GET /secure\",\"api\":\"$api\",\"server\":\"http://127.0.0.1:$pa/v1\"}"
post "server port change refused" 403 "{\"endpoint\":\"GET /items/{id}\",\"api\":\"$api\",\"server\":\"http://127.0.0.1:$pb/v1\",\"params\":{\"id\":\"1\"}}"
post "NUL in a query value refused" 400 "{\"endpoint\":\"GET /items/{id}\",\"api\":\"$api\",\"params\":{\"id\":\"1\",\"q\":\"a\\u0000b\"}}"
has "the error names the parameter" "$tmp/out" "q'"
post "NUL in a path value refused" 400 "{\"endpoint\":\"GET /items/{id}\",\"api\":\"$api\",\"params\":{\"id\":\"..\\u0000x\"}}"
post "dot segment refused" 400 "{\"endpoint\":\"GET /items/{id}\",\"api\":\"$api\",\"params\":{\"id\":\"..\"}}"
post "the good call" 200 "{\"endpoint\":\"GET /items/{id}\",\"api\":\"$api\",\"params\":{\"id\":\"ok\"}}"

echo "== what the echo servers got"
lacks "no request line left the operation" "$tmp/a.log" "GET /v1/ HTTP"
lacks "no request reached / " "$tmp/a.log" "GET / HTTP"
lacks "no Host header from a caller" "$tmp/a.log" "evil.example"
lacks "no chunked framing from a caller" "$tmp/a.log" "chunked"
lacks "no cut value sent" "$tmp/a.log" "q=a "
has "the model's good call arrived" "$tmp/a.log" "GET /v1/items/ok HTTP/1.1"
lacks "the other port never saw the key" "$tmp/b.log" "origin-s3cret-key"
exit $fail
