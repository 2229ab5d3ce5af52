#!/usr/bin/env bash
# apidex mock under load: the TMDB and Spotify specs served at once, then every GET
# operation (required parameters filled, as tests/e2e/mock_sweep.py does) called round-robin
# by 4 keep-alive client threads for N requests (default 4000); prints the start time,
# requests per second and the p50/p99 latency. docs/MOCK.md quotes the numbers.
#
#   bash bench/bench_mock.sh [BUILD_DIR] [N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
n=${2:-4000}
shared=${APIDEX_SHARED_DIR:-$here/../../shared}
specs="$shared/benchmarks/restbench/specs"
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
t0=$(date +%s.%N)
"$build/apidex" mock "$specs/tmdb_oas.json" "$specs/spotify_oas.json" --listen 127.0.0.1:0 --quiet >"$tmp/out" &
pid=$!
for _ in $(seq 400); do grep -q "listening on" "$tmp/out" 2>/dev/null && break; sleep 0.01; done
t1=$(date +%s.%N)
echo "start: $(echo "($t1 - $t0) * 1000" | bc | cut -d. -f1) ms (load 2 specs, listen)"
/usr/bin/python3 - "$tmp/out" "$n" "$specs/tmdb_oas.json" "$specs/spotify_oas.json" <<'PY'
import http.client, json, re, sys, threading, time, urllib.parse
sys.argv = [sys.argv[0]] + sys.argv[1:]
out, n, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
mounts = re.findall(r"^  \S+ (http\S+) \(", open(out).read(), re.M)  # in the order given
def deref(doc, node):
    while isinstance(node, dict) and "$ref" in node:
        cur = doc
        for p in node["$ref"].lstrip("#/").split("/"): cur = cur[p]
        node = cur
    return node
def val(doc, s):
    s = deref(doc, s or {})
    if "enum" in s: return str(s["enum"][0])
    if s.get("type") == "array": return val(doc, s.get("items"))
    return {"integer": "7", "number": "1.5", "boolean": "true"}.get(s.get("type"), "abc")
urls = []
for i, path in enumerate(paths):
    doc = json.load(open(path)); base = mounts[i]
    for p, item in doc["paths"].items():
        op = item.get("get")
        if not op: continue
        q = {}
        for prm in [deref(doc, x) for x in item.get("parameters", []) + op.get("parameters", [])]:
            if prm["in"] == "path": p = p.replace("{%s}" % prm["name"], val(doc, prm.get("schema")))
            elif prm.get("required") in (True, "true") and prm["in"] == "query": q[prm["name"]] = val(doc, prm.get("schema"))
        urls.append(base + p + ("?" + urllib.parse.urlencode(q) if q else ""))
host = urllib.parse.urlparse(urls[0]).netloc
lat, lock = [], threading.Lock()
errors = []
def worker(k):
    try:
        run(k)
    except BaseException as e:
        errors.append(str(e))
def run(k):
    c = http.client.HTTPConnection(host, timeout=30)
    mine = []
    for i in range(k, n, 4):
        u = urllib.parse.urlparse(urls[i % len(urls)])
        t = time.perf_counter()
        c.request("GET", u.path + ("?" + u.query if u.query else ""))
        r = c.getresponse(); r.read()
        if r.status >= 300: raise SystemExit("status %d for %s" % (r.status, urls[i % len(urls)]))
        mine.append(time.perf_counter() - t)
    with lock: lat.extend(mine)
t = time.perf_counter()
ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
[x.start() for x in ts]; [x.join() for x in ts]
wall = time.perf_counter() - t
if errors: raise SystemExit("failed: %s" % errors[0])
lat.sort()
print("%d requests over %d GET operations, 4 keep-alive clients: %.0f req/s, p50 %.2f ms, p99 %.2f ms"
      % (n, len(urls), n / wall, lat[len(lat) // 2] * 1000, lat[int(len(lat) * 0.99)] * 1000))
PY
