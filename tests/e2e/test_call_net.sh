#!/usr/bin/env bash
# The outbound layer (src/net) from the command line, against a local Python server:
#   - IPv6-literal servers (http://[::1]:PORT) are reached with --allow-address ::1 or
#     --allow-private, and refused like IPv4 loopback without (or with 127.0.0.1 only);
#   - --allow-address takes IP addresses only: anything else is exit 2 naming the value
#     (call, run, serve, mcp, inspect);
#   - schemes are case-insensitive (--server HTTP://...);
#   - "(after redirects: URL)" is printed only when a redirect was followed;
#   - a server URL with a query or a fragment is refused (exit 2), never swallowing the path;
#   - remote $refs keep the private-address rule: with --allow-remote-refs --allow-host '*' a
#     ref to 127.0.0.1 is refused until --allow-address 127.0.0.1 allows it.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
py=/usr/bin/python3
tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
unset APIDEX_CREDENTIALS XDG_CONFIG_HOME XDG_CACHE_HOME
export HOME="$tmp/home" APIDEX_DB="$tmp/net.db"
mkdir -p "$HOME"
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }
status() { # name, want, command...
  local name=$1 want=$2 st=0
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  if [ "$st" = "$want" ]; then ok "$name (exit $st)"; else bad "$name: exit $st, want $want"; cat "$tmp/err" "$tmp/out"; fi
}
has() { # name, file, fixed string
  if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in:"; cat "$2"; fi
}
hasnt() { # name, file, fixed string
  if grep -qF -- "$3" "$2"; then bad "$1: '$3' in:"; cat "$2"; else ok "$1"; fi
}

cat >"$tmp/server.py" <<'PY'
import http.server, socket, sys
host, portfile = sys.argv[1], sys.argv[2]
class S(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6 if ':' in host else socket.AF_INET
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == '/moved':
            self.send_response(302); self.send_header('Location', '/hello'); self.end_headers(); return
        body = {'/hello': b'{"ok": 1}', '/refs/thing.json': b'{"type": "object", "title": "Thing"}'}.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header('Content-Type', 'application/json')
        self.end_headers()
        self.wfile.write(body or b'{}')
    def log_message(self, *a): pass
s = S((host, 0), H)
open(portfile + '.tmp', 'w').write(str(s.server_address[1]))
__import__('os').rename(portfile + '.tmp', portfile)
s.serve_forever()
PY
start() { # host, port file
  "$py" "$tmp/server.py" "$1" "$2" 2>"$2.err" &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$2" ] && return 0; sleep 0.05; done
  return 1
}
start 127.0.0.1 "$tmp/port4" || { echo "FAIL: the IPv4 server did not start"; cat "$tmp/port4.err"; exit 1; }
p4=$(cat "$tmp/port4")

cat >"$tmp/net.yaml" <<'YAML'
openapi: 3.0.0
info: {title: Net, version: '1'}
servers: [{url: 'https://api.example.com'}]
paths:
  /hello:
    get: {operationId: hello, responses: {'200': {description: ok}}}
  /moved:
    get: {operationId: moved, responses: {'200': {description: ok}}}
  /keyed:
    get: {operationId: keyed, security: [{key: []}], responses: {'200': {description: ok}}}
components:
  securitySchemes:
    key: {type: apiKey, in: query, name: api_key}
YAML
"$bin" index "$tmp/net.yaml" --quiet || { echo "FAIL: index"; exit 1; }

echo "== schemes are case-insensitive; the redirect note only after a redirect"
status "HTTP:// server" 0 "$bin" call hello --server "HTTP://127.0.0.1:$p4" --allow-address 127.0.0.1
has "answered" "$tmp/out" '"ok":1'
hasnt "no redirect note without a redirect" "$tmp/out" "after redirects"
# (a key in the query is masked in the URL shown: not a redirect either)
APIDEX_AUTH_NET_KEY=s3cret-net status "masked key, no redirect" 6 "$bin" call keyed --server "http://127.0.0.1:$p4" --allow-host "http://127.0.0.1:$p4" --allow-address 127.0.0.1
has "the key masked" "$tmp/out" "api_key=****"
hasnt "no redirect note for a masked URL" "$tmp/out" "after redirects"
status "redirected call" 0 "$bin" call moved --server "http://127.0.0.1:$p4" --allow-address 127.0.0.1
has "the redirect note" "$tmp/out" "(after redirects: http://127.0.0.1:$p4/hello)"

echo "== a server URL with a query or a fragment is refused"
status "query" 2 "$bin" call hello --server "http://127.0.0.1:$p4/v1?key=1" --dry-run
has "names the query" "$tmp/err" "it has a query"
status "fragment" 2 "$bin" call hello --server "http://127.0.0.1:$p4/v1#top" --dry-run
has "names the fragment" "$tmp/err" "it has a fragment"

echo "== --allow-address takes IP addresses only"
status "call" 2 "$bin" call hello --server "http://127.0.0.1:$p4" --allow-address localhost
has "call names the value" "$tmp/err" "not 'localhost'"
status "run" 2 "$bin" run "say hello" --allow-address 10.0.0.256
has "run names the value" "$tmp/err" "not '10.0.0.256'"
status "serve" 2 "$bin" serve --allow-calls --allow-address bogus --listen 127.0.0.1:0
has "serve names the value" "$tmp/err" "not 'bogus'"
status "mcp" 2 "$bin" mcp --allow-calls --allow-address '[127.0.0.1]'
has "mcp names the value" "$tmp/err" "not '[127.0.0.1]'"
status "inspect" 2 "$bin" inspect "$tmp/net.yaml" --allow-address example.com
has "inspect names the value" "$tmp/err" "not 'example.com'"

echo "== IPv6-literal servers"
if start ::1 "$tmp/port6"; then
  p6=$(cat "$tmp/port6")
  status "[::1] without an allowance" 4 "$bin" call hello --server "http://[::1]:$p6"
  has "refused as loopback" "$tmp/err" "::1, a loopback address"
  status "[::1] with --allow-address 127.0.0.1 only" 4 "$bin" call hello --server "http://[::1]:$p6" --allow-address 127.0.0.1
  status "[::1] with --allow-address ::1" 0 "$bin" call hello --server "http://[::1]:$p6" --allow-address ::1
  has "answered over IPv6" "$tmp/out" '"ok":1'
  status "[::1] with --allow-private" 0 "$bin" call hello --server "http://[::1]:$p6" --allow-private
else
  echo "skipped: no IPv6 loopback here"
fi

echo "== remote \$refs keep the private-address rule"
cat >"$tmp/refs.yaml" <<YAML
openapi: 3.0.0
info: {title: Refs, version: '1'}
paths: {}
components:
  schemas:
    Thing: {\$ref: 'http://127.0.0.1:$p4/refs/thing.json'}
YAML
status "any host, loopback refused" 1 "$bin" inspect "$tmp/refs.yaml" --allow-remote-refs --allow-host '*'
has "the refusal names loopback and the flag" "$tmp/out" "127.0.0.1, a loopback address (rule: no private addresses; --allow-address IP to allow)"
status "allowed by address" 0 "$bin" inspect "$tmp/refs.yaml" --allow-remote-refs --allow-host '*' --allow-address 127.0.0.1
hasnt "nothing refused" "$tmp/out" "loopback"
exit $fail
