#!/usr/bin/env bash
# The PostgreSQL backend against the SQLite file, in one run (docs/SCALE.md quotes it):
#   - index build time: a full build and a rebuild with nothing changed (40 specs: the
#     corpus and RestBench), into a file and published to a throwaway PostgreSQL 15;
#   - open time: `apidex list` (the whole index loaded: a file opened, or a generation
#     copied from the server);
#   - query throughput: wrk on loopback (GET /v1/search, the RestBench query texts), 1 and 2
#     `apidex serve` replicas of one thread each, on the file and on PostgreSQL;
#   - switch time: from the end of a publish until both replicas serve the new generation.
#
#   bash bench/bench_pg.sh [BUILD_DIR] [SECONDS_PER_RUN]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
seconds=${2:-5}
shared=${APIDEX_SHARED_DIR:-$here/../shared}
bin="$build/apidex"
[ -x "$bin" ] || { echo "bench_pg: $bin not built" >&2; exit 1; }
command -v wrk >/dev/null || { echo "bench_pg: wrk not found (apt-get install wrk)" >&2; exit 1; }
rb="$shared/benchmarks/restbench"
specs=("$shared/corpus/specs" "$rb/specs")
tmp=$(mktemp -d)
. "$here/tests/e2e/pg_start.sh"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pg_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
export APIDEX_NO_REEXEC=1
rc=0
pg_start "$tmp" || rc=$?
[ "$rc" = 0 ] || { echo "bench_pg: PostgreSQL did not start" >&2; exit 1; }
file="$tmp/idx.db"

now() { date +%s.%N; }
timed() { # prints the seconds "$@" took
  local t0 t1
  t0=$(now)
  "$@" >/dev/null 2>&1
  t1=$(now)
  echo "$t1 - $t0" | bc -l | xargs printf '%.2f'
}
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); specs: corpus + RestBench (40)"
f_full=$(timed "$bin" index "${specs[@]}" --db "$file" --quiet)
p_full=$(timed "$bin" index "${specs[@]}" --db "$PG_URL" --quiet)
f_same=$(timed "$bin" index "${specs[@]}" --db "$file" --quiet)
p_same=$(timed "$bin" index "${specs[@]}" --db "$PG_URL" --quiet)
f_open=$(timed "$bin" list --db "$file")
p_open=$(timed "$bin" list --db "$PG_URL")
printf '%-28s %10s %12s %8s\n' "" "SQLite" "PostgreSQL" "ratio"
printf '%-28s %9ss %11ss %8s\n' "index, full build" "$f_full" "$p_full" "$(ratio "$p_full" "$f_full")"
printf '%-28s %9ss %11ss %8s\n' "index, nothing changed" "$f_same" "$p_same" "$(ratio "$p_same" "$f_same")"
printf '%-28s %9ss %11ss %8s\n' "open (apidex list)" "$f_open" "$p_open" "$(ratio "$p_open" "$f_open")"

/usr/bin/python3 - "$rb/datasets" "$tmp/urls.txt" <<'PY'
import json, sys, urllib.parse, pathlib
qs = []
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    qs += [q["query"].replace("\n", " ") for q in json.load(open(f))]
open(sys.argv[2], "w").write("\n".join(urllib.parse.quote(q, safe="") for q in qs) + "\n")
PY
cat >"$tmp/load.lua" <<LUA
local paths = {}
for line in io.lines("$tmp/urls.txt") do paths[#paths + 1] = "/v1/search?k=10&q=" .. line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA

start_replicas() { # DB N: sets urls
  urls=()
  local i
  for i in $(seq "$2"); do
    rm -f "$tmp/port$i"
    "$bin" serve --db "$1" --listen 127.0.0.1:0 --port-file "$tmp/port$i" --threads 1 \
      --access-log none --reload-interval 1 2>>"$tmp/serve.err" &
    pids+=($!)
    for _ in $(seq 600); do [ -s "$tmp/port$i" ] && break; sleep 0.05; done
    urls+=("http://127.0.0.1:$(cat "$tmp/port$i")")
    curl -sf "${urls[-1]}/v1/search?q=warmup" >/dev/null
  done
}
stop_replicas() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
  pids=()
}
throughput() { # sum of requests/s over the replicas in urls, loaded at once
  local i=0 u w=()
  for u in "${urls[@]}"; do
    wrk -t 1 -c 8 -d "${seconds}s" -s "$tmp/load.lua" "$u" >"$tmp/wrk$i.txt" 2>&1 &
    w+=($!)
    i=$((i + 1))
  done
  wait "${w[@]}" || true
  awk '/^Requests\/sec:/ {s += $2} END {printf "%.0f", s}' "$tmp"/wrk*.txt
  rm -f "$tmp"/wrk*.txt
}
declare -A rps
for backend in file pg; do
  db=$file
  [ "$backend" = pg ] && db=$PG_URL
  for n in 1 2; do
    start_replicas "$db" "$n"
    rps[$backend$n]=$(throughput)
    if [ "$backend" = pg ] && [ "$n" = 2 ]; then
      # switch time: a publish of a changed registry (full, to change every row)
      gen=$(curl -s "${urls[0]}/healthz" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["store"]["generation"])')
      "$bin" index "${specs[@]}" --db "$PG_URL" --quiet --full
      t0=$(now)
      for _ in $(seq 600); do
        g0=$(curl -s "${urls[0]}/healthz" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["store"]["generation"])')
        g1=$(curl -s "${urls[1]}/healthz" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["store"]["generation"])')
        [ "$g0" != "$gen" ] && [ "$g1" != "$gen" ] && break
        sleep 0.05
      done
      switch=$(echo "$(now) - $t0" | bc -l | xargs printf '%.2f')
    fi
    stop_replicas
  done
done
printf '%-28s %9s %12s %8s\n' "search req/s, 1 replica" "${rps[file1]}" "${rps[pg1]}" "$(ratio "${rps[pg1]}" "${rps[file1]}")"
printf '%-28s %9s %12s %8s\n' "search req/s, 2 replicas" "${rps[file2]}" "${rps[pg2]}" "$(ratio "${rps[pg2]}" "${rps[file2]}")"
printf '%-28s %9s %12s\n' "2 replicas / 1 replica" "$(ratio "${rps[file2]}" "${rps[file1]}")" "$(ratio "${rps[pg2]}" "${rps[pg1]}")"
echo "switch: both PostgreSQL replicas served the new generation ${switch}s after the publish ended"
