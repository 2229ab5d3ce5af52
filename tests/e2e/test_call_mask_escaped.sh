#!/usr/bin/env bash
# A server that echoes the credentials escaped: a Python server on a loopback port returns the
# API key and the Basic user:pass JSON-escaped (\/, \", \\, \uXXXX), percent-encoded, escaped
# twice inside a JSON string, as base64, in its JSON body, its headers and a 500 error. No
# form of either may appear in `apidex call` (text and --json), POST /v1/call or the MCP tool
# call_endpoint: each form is looked for in the raw bytes with grep -F.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
py=/usr/bin/python3
tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
unset APIDEX_CREDENTIALS XDG_CONFIG_HOME XDG_CACHE_HOME
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home"
mkdir -p "$HOME"
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }

key='k3y/S3cr"et\x'
user='ada'
pass='pa/ss"w\rd'
cat >"$tmp/spec.json" <<'JSON'
{"openapi": "3.0.3", "info": {"title": "Echo Escapes", "version": "1"},
 "servers": [{"url": "http://127.0.0.1:1"}],
 "components": {"securitySchemes": {
   "key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
   "basic": {"type": "http", "scheme": "basic"}}},
 "paths": {
  "/echo": {"get": {"operationId": "echoKey", "summary": "Echo the key", "security": [{"key": []}],
            "responses": {"200": {"description": "ok"}}}},
  "/fail": {"get": {"operationId": "failKey", "summary": "Fail with the key", "security": [{"key": []}],
            "responses": {"500": {"description": "error"}}}},
  "/whoami": {"get": {"operationId": "whoAmI", "summary": "Echo the basic credential", "security": [{"basic": []}],
            "responses": {"200": {"description": "ok"}}}}}}
JSON
cat >"$tmp/echo.py" <<'PY'
import base64, json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

def forms(s):
    """The escaped forms a server may write s in."""
    j = json.dumps(s)[1:-1]
    return {
        "json": j,
        "slash": j.replace("/", "\\/"),
        "u": "".join("\\u%04x" % ord(c) for c in s),
        "U": "".join("\\u%04X" % ord(c) for c in s),
        "pct": urllib.parse.quote(s, safe=""),
        "twice": json.dumps(json.dumps(s))[1:-1].replace("/", "\\/"),
    }

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        key = self.headers.get("X-Api-Key", "")
        auth = self.headers.get("Authorization", "")
        s = key
        if auth.startswith("Basic "):
            s = base64.b64decode(auth[6:]).decode()
        f = forms(s)
        f["b64"] = base64.b64encode(s.encode()).decode()
        body = "{" + ",".join('"%s":"%s"' % (k, v) for k, v in f.items())
        body += ',"%s":1}' % f["slash"]  # as a key too
        status = 500 if self.path.startswith("/fail") else 200
        if status == 500:
            body = '{"error":{"message":"key rejected: %s (%s)"}}' % (f["u"], f["slash"])
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Echo-Pct", f["pct"])
        self.send_header("X-Echo-B64", f["b64"])
        self.send_header("X-Echo-Json", f["slash"])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
timeout 300 "$py" "$tmp/echo.py" "$tmp/echo.port" &
pids+=($!)
for _ in $(seq 200); do [ -s "$tmp/echo.port" ] && break; sleep 0.05; done
[ -s "$tmp/echo.port" ] || { echo "FAIL: the echo server did not start"; exit 1; }
base="http://127.0.0.1:$(cat "$tmp/echo.port")"

export APIDEX_DB="$tmp/e.db"
"$bin" index "$tmp/spec.json" --quiet || { echo "FAIL: index"; exit 1; }
api=$("$bin" list --json | "$py" -c "import json,sys; print(json.load(sys.stdin)['apis'][0]['id'])")
envname() { echo "APIDEX_AUTH_$(echo "$api" | tr 'a-z' 'A-Z' | tr -c 'A-Z0-9\n' '_')_$1"; }
export "$(envname KEY)=$key" "$(envname BASIC)=$user:$pass"

# every form of both secrets, one a line, for grep -F -f
"$py" - "$key" "$user:$pass" "$pass" >"$tmp/forms" <<'PY'
import base64, json, sys, urllib.parse
for s in sys.argv[1:]:
    j = json.dumps(s)[1:-1]
    for f in (s, j, j.replace("/", "\\/"), "".join("\\u%04x" % ord(c) for c in s),
              "".join("\\u%04X" % ord(c) for c in s), urllib.parse.quote(s, safe=""),
              json.dumps(json.dumps(s))[1:-1], json.dumps(json.dumps(s))[1:-1].replace("/", "\\/")):
        print(f)
print(base64.b64encode(sys.argv[2].encode()).decode())
PY
clean() { # name, file: no form of a secret in its bytes
  if grep -F -f "$tmp/forms" "$2" >"$tmp/hits"; then
    bad "$1 shows a secret: $(head -c 300 "$tmp/hits")"
  else ok "$1: no form of a secret"; fi
}
shown() { # name, file, fixed string that must be there (the call really echoed)
  grep -qF -- "$3" "$2" && ok "$1" || { bad "$1: no '$3'"; head -c 600 "$2"; echo; }
}

echo "== apidex call"
for op in echo fail whoami; do
  "$bin" call "GET /$op" --api "$api" --server "$base" --allow-host "$base" --allow-address 127.0.0.1 --json \
    >"$tmp/$op.json" 2>"$tmp/$op.err"
  cat "$tmp/$op.err" >>"$tmp/$op.json"
  shown "$op --json answered" "$tmp/$op.json" '****'
  clean "call $op --json" "$tmp/$op.json"
  "$bin" call "GET /$op" --api "$api" --server "$base" --allow-host "$base" --allow-address 127.0.0.1 \
    >"$tmp/$op.txt" 2>&1
  clean "call $op (text)" "$tmp/$op.txt"
done
shown "the 500 answered" "$tmp/fail.json" '500'

echo "== POST /v1/call"
timeout 300 "$bin" serve --access-log stderr --allow-calls --allow-address 127.0.0.1 --allow-host "$base" \
  --listen 127.0.0.1:0 --port-file "$tmp/serve.port" >"$tmp/serve.out" 2>"$tmp/serve.err" &
pids+=($!)
for _ in $(seq 200); do [ -s "$tmp/serve.port" ] && break; sleep 0.05; done
[ -s "$tmp/serve.port" ] || { echo "FAIL: serve did not start"; cat "$tmp/serve.err"; exit 1; }
for op in echo fail whoami; do
  curl -s -m 30 -H 'Content-Type: application/json' \
    -d "{\"endpoint\":\"GET /$op\",\"api\":\"$api\",\"server\":\"$base\"}" \
    "http://127.0.0.1:$(cat "$tmp/serve.port")/v1/call" >"$tmp/http_$op.json"
  shown "POST /v1/call $op answered" "$tmp/http_$op.json" '****'
  clean "POST /v1/call $op" "$tmp/http_$op.json"
done
clean "serve's log" "$tmp/serve.err"

echo "== MCP call_endpoint"
"$py" - "$api" "$base" >"$tmp/mcp.in" <<'PY'
import json, sys
api, base = sys.argv[1:]
msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
for i, op in enumerate(("echo", "fail", "whoami")):
    msgs.append({"jsonrpc": "2.0", "id": 2 + i, "method": "tools/call",
                 "params": {"name": "call_endpoint",
                            "arguments": {"endpoint": "GET /" + op, "api": api, "server": base}}})
for m in msgs:
    print(json.dumps(m))
PY
timeout 120 "$bin" mcp --allow-calls --allow-address 127.0.0.1 --allow-host "$base" \
  <"$tmp/mcp.in" >"$tmp/mcp.out" 2>"$tmp/mcp.err"
[ "$(grep -c '"id":[234]' "$tmp/mcp.out")" = 3 ] && ok "MCP answered three calls" || { bad "MCP answers"; head -c 600 "$tmp/mcp.out"; cat "$tmp/mcp.err"; }
shown "MCP shows the masked echo" "$tmp/mcp.out" '****'
clean "MCP call_endpoint" "$tmp/mcp.out"
clean "MCP log" "$tmp/mcp.err"
exit $fail
