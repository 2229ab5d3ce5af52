#!/usr/bin/env bash
# What opening a big index costs: a one-shot `apidex search` end to end (wall, peak RSS),
# `apidex serve` until its port is bound and a first /v1/search answered (ready), serve RSS
# after the run, and /v1/search latency p50/p99 over a task list (sequential, loopback).
# The answers are written to OUT/answers.jsonl (one line per task) so two binaries can be
# compared byte for byte on the same index (without their elapsed_ms). CPU seconds are
# printed beside wall times: on a shared machine they are the steadier number.
#
#   bash bench/bench_open.sh BIN DB OUT [TASKS_JSON] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$1 db=$2 out=$3
tasks=${4:-$here/bench/queries/everyday_tasks.json}
rounds=${5:-5}
mkdir -p "$out"
/usr/bin/python3 - "$tasks" "$out/tasks.txt" <<'PY'
import json, sys
qs = [q["query"].replace("\n", " ") for q in json.load(open(sys.argv[1]))]
open(sys.argv[2], "w").write("\n".join(qs) + "\n")
PY
first=$(head -1 "$out/tasks.txt")
/usr/bin/time -f '%e %U %S %M' -o "$out/oneshot.time" "$bin" search --db "$db" --json "$first" \
  >"$out/oneshot.json"
read -r wall user sys rss <"$out/oneshot.time"
echo "one-shot search: ${wall} s wall (${user} s user, ${sys} s sys), $((rss / 1024)) MB peak RSS"

rm -f "$out/port"
t0=$(date +%s.%N)
"$bin" serve --db "$db" --listen 127.0.0.1:0 --port-file "$out/port" --access-log none \
  2>"$out/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 6000); do [ -s "$out/port" ] && break; sleep 0.01; done
url="http://127.0.0.1:$(cat "$out/port")"
until curl -sf "$url/v1/search?k=10&q=warmup" >/dev/null; do sleep 0.01; done
t1=$(date +%s.%N)
echo "serve ready: $(echo "$t1 - $t0" | bc) s ($(ps -o times= -p $pid | tr -d ' ') s CPU)"
/usr/bin/python3 - "$url" "$out/tasks.txt" "$out/answers.jsonl" "$rounds" <<'PY'
import sys, time, urllib.parse, urllib.request
url, tasks, answers, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
qs = [l.rstrip("\n") for l in open(tasks) if l.strip()]
lat = []
with open(answers, "w") as f:
    for r in range(rounds):
        for q in qs:
            u = url + "/v1/search?k=10&q=" + urllib.parse.quote(q, safe="")
            t = time.perf_counter()
            body = urllib.request.urlopen(u).read()
            lat.append((time.perf_counter() - t) * 1000)
            if r == 0:
                f.write(body.decode().replace("\n", " ") + "\n")
lat.sort()
p = lambda x: lat[min(len(lat) - 1, int(x * len(lat)))]
print(f"search latency over {len(lat)} requests: p50 {p(0.50):.1f} ms, p99 {p(0.99):.1f} ms")
PY
echo "serve RSS: $(($(awk '/VmRSS/ {print $2}' /proc/$pid/status) / 1024)) MB"
