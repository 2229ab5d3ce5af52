#!/usr/bin/env bash
# HTTP throughput of `apidex serve` on GET /v1/search with wrk on loopback, at a few
# concurrency levels (each run bounded in time), next to the cost of the search alone
# measured in the same run (bench_http_search: the same queries in-process, one thread).
# Index: the RestBench specs (TMDB + Spotify); load: the RestBench query texts (as load
# only: nothing is tuned on them).
#
#   bash bench/bench_http.sh [BUILD_DIR] [SECONDS_PER_LEVEL]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
seconds=${2:-5}
shared=${APIDEX_SHARED_DIR:-$here/../shared}
bin="$build/apidex"
search_bin="$build/bench/bench_http_search"
for f in "$bin" "$search_bin"; do
  [ -x "$f" ] || { echo "bench_http: $f not built" >&2; exit 1; }
done
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "bench_http: installing wrk (apt)" >&2
    apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1; }
  fi
  command -v wrk >/dev/null || { echo "bench_http: wrk not found (apt-get install wrk)" >&2; exit 1; }
fi
rb="$shared/benchmarks/restbench"
[ -d "$rb/specs" ] || { echo "bench_http: $rb not found (APIDEX_SHARED_DIR)" >&2; exit 1; }

tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" index "$rb/specs" --db "$tmp/rb.db" --quiet
/usr/bin/python3 - "$rb/datasets" "$tmp/queries.txt" "$tmp/urls.txt" <<'PY'
import json, sys, urllib.parse, pathlib
qs = []
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    qs += [q["query"].replace("\n", " ") for q in json.load(open(f))]
open(sys.argv[2], "w").write("\n".join(qs) + "\n")
open(sys.argv[3], "w").write("\n".join(urllib.parse.quote(q, safe="") for q in qs) + "\n")
PY
cat > "$tmp/load.lua" <<LUA
local paths = {}
for line in io.lines("$tmp/urls.txt") do paths[#paths + 1] = "/v1/search?k=10&q=" .. line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA
cores=$(nproc)
echo "machine: $cores cores; $(wc -l < "$tmp/queries.txt") queries; index: RestBench TMDB + Spotify"
"$search_bin" "$tmp/rb.db" "$tmp/queries.txt" "$seconds" | tee "$tmp/alone.txt"
alone=$(sed -n 's/.* \([0-9]*\) queries\/s.*/\1/p' "$tmp/alone.txt")

timeout $((seconds * 8 + 60)) "$bin" serve --db "$tmp/rb.db" --listen 127.0.0.1:0 --port-file "$tmp/port" \
  --access-log none --threads "$cores" --max-connections 1024 2>"$tmp/serve.err" &
pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
url="http://127.0.0.1:$(cat "$tmp/port")"
curl -sf "$url/v1/search?q=warmup" >/dev/null
printf '%-12s %12s %10s %10s %10s   %s\n' concurrency "requests/s" "p50" "p99" errors "vs search alone x threads"
for c in 1 4 16 64; do
  t=$(( c < cores ? c : cores ))
  wrk -t "$t" -c "$c" -d "${seconds}s" --latency -s "$tmp/load.lua" "$url" > "$tmp/wrk.txt" 2>&1 || true
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/wrk.txt")
  p50=$(awk '$1 == "50%" {print $2}' "$tmp/wrk.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk.txt")
  errs=$(awk '/Non-2xx|Socket errors/ {e = e $0 "; "} END {print e ? e : "0"}' "$tmp/wrk.txt")
  ratio=$(awk -v r="$rps" -v a="$alone" -v t="$(( c < cores ? c : cores ))" 'BEGIN { if (a > 0) printf "%.2f", r / (a * t) }')
  printf '%-12s %12s %10s %10s %10s   %s\n' "$c" "$rps" "$p50" "$p99" "$errs" "$ratio"
done
kill $pid; wait $pid 2>/dev/null || true; pid=""
echo "(ratio: HTTP requests/s divided by search-alone queries/s times the threads the load can use;"
echo " the server and wrk share the machine's $cores cores)"
