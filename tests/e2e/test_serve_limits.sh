#!/usr/bin/env bash
# `apidex serve` against a hostile client, all on 127.0.0.0/8: connections that trickle
# their headers a byte at a time are closed at the header deadline while others are
# served; one address flooding connections leaves room for another (127.0.0.2); an MCP
# session survives 1,100 initialize calls from another address.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
tmp="$(mktemp -d)"
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_LLM_TIMEOUT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
mkdir -p "$HOME"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet || exit 1
server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"

start_server() {
  rm -f "$tmp/port"
  ASAN_OPTIONS="$server_asan" timeout 300 "$bin" serve --db "$db" --listen 127.0.0.1:0 \
    --port-file "$tmp/port" --access-log none --reload-interval 0 "$@" 2>>"$tmp/serve.err" &
  server_pid=$!
  for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
  [ -s "$tmp/port" ] || { echo "FAIL: the server did not start"; cat "$tmp/serve.err"; exit 1; }
  port=$(cat "$tmp/port")
}
stop_server() {
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null
  server_pid=""
}
fail=0

echo "== slow headers and a connection flood from one address"
# 80 trickling connections from 127.0.0.1 against a cap of 64: without a per-client
# limit they would hold every slot, and without an absolute deadline they would hold
# them for as long as they keep trickling (--timeout is only the inactivity timeout).
start_server --max-connections 64 --max-conns-per-client 16 --header-timeout 2 --timeout 30
python3 - "$port" <<'PY' || fail=1
import http.client, socket, sys, time

port = int(sys.argv[1])
HEADER_TIMEOUT = 2.0
request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
slow = []  # [socket, opened at, closed at or None, bytes sent]
for _ in range(80):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    s.setblocking(False)
    slow.append([s, time.monotonic(), None, 0])

def trickle():
    """One byte on every open slow connection; notes the ones the server closed."""
    now = time.monotonic()
    for c in slow:
        if c[2] is not None:
            continue
        try:
            if c[0].recv(1024) == b"":
                c[2] = now
                continue
        except BlockingIOError:
            pass
        except OSError:
            c[2] = now
            continue
        try:
            c[0].send(request[c[3] % len(request):][:1])
            c[3] += 1
        except OSError:
            c[2] = now

def ask(path, source):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
    t0 = time.monotonic()
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    conn.close()
    return r.status, time.monotonic() - t0

ok = True
trickle()
time.sleep(0.5)
trickle()
# meanwhile another address is served, and quickly (the flood holds at most 16 of 64)
for path in ("/healthz", "/v1/search?q=weather%20forecast&k=3"):
    try:
        status, took = ask(path, "127.0.0.2")
    except OSError as e:
        print(f"FAIL: {path} from 127.0.0.2 during the flood: {e}")
        ok = False
        continue
    if status != 200:
        print(f"FAIL: {path} from 127.0.0.2 answered {status}")
        ok = False
held = sum(1 for c in slow if c[2] is None)
if not 1 <= held <= 16:
    print(f"FAIL: the flooding address holds {held} connections (per-client limit 16)")
    ok = False
# a byte a second on each: still all cut at the deadline (plus a generous margin)
deadline = time.monotonic() + HEADER_TIMEOUT + 6
while time.monotonic() < deadline and any(c[2] is None for c in slow):
    time.sleep(1.0)
    trickle()
still = [c for c in slow if c[2] is None]
if still:
    print(f"FAIL: {len(still)} trickling connections still open "
          f"{time.monotonic() - still[0][1]:.1f} s after they opened (header timeout 2 s)")
    ok = False
early = [c for c in slow if c[2] is not None and c[3] > 2 and c[2] - c[1] < HEADER_TIMEOUT - 0.5]
if early:
    print(f"FAIL: {len(early)} connections closed before their header deadline")
    ok = False
for c in slow:
    c[0].close()
# the flooding address itself is served again once its connections are gone
try:
    status, _ = ask("/healthz", "127.0.0.1")
    if status != 200:
        print(f"FAIL: /healthz from 127.0.0.1 afterwards answered {status}")
        ok = False
except OSError as e:
    print(f"FAIL: /healthz from 127.0.0.1 afterwards: {e}")
    ok = False
print("slow headers:", "ok" if ok else "failed")
sys.exit(0 if ok else 1)
PY
stop_server
# the library's message for each refused or cut connection is rate-limited
lines=$(grep -c "^apidex serve: " "$tmp/serve.err")
if [ "$lines" -gt 50 ]; then
  echo "FAIL: the flood wrote $lines lines to the server's log"; fail=1
fi

echo "== an MCP session survives 1,100 initialize calls from another address"
start_server
python3 - "$port" <<'PY' || fail=1
import http.client, json, sys

port = int(sys.argv[1])
init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "limits", "version": "1"}}})
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

def post(conn, body, extra=None):
    conn.request("POST", "/mcp", body, {**headers, **(extra or {})})
    r = conn.getresponse()
    r.read()
    return r.status, r.getheader("Mcp-Session-Id")

victim = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.2", 0))
status, sid = post(victim, init)
assert status == 200 and sid, (status, sid)
flood = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.1", 0))
opened = 0
for _ in range(1100):
    status, fsid = post(flood, init)
    opened += status == 200 and fsid is not None
ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
status, _ = post(victim, ping, {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
ok = True
if opened != 1100:
    print(f"FAIL: {opened} of 1100 initialize calls opened a session (the oldest go instead)")
    ok = False
if status != 200:
    print(f"FAIL: the other address's session is gone after the flood (tools/list: {status})")
    ok = False
print("sessions:", "ok" if ok else "failed")
sys.exit(0 if ok else 1)
PY
stop_server

[ $fail -eq 0 ] && echo "all serve limit checks passed"
exit $fail
