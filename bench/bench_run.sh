#!/usr/bin/env bash
# The RestGPT loop (`apidex run`) over every RestBench task, without a language model: what can
# be measured with apidex mock as the APIs and a scripted model that plays the roles along the
# gold path (bench/restbench_model.py). A bench, never part of .ci/run.
#
#   bash bench/bench_run.sh [BUILD_DIR] [--limit N]
#
# Per set (TMDB, Spotify): tasks, tasks that ended with an answer, API calls per task (gold
# path length beside it), the share of steps whose candidates (apidex's search for the
# planner's sub-task, k = 5) held the gold endpoint, the share of tasks whose every gold
# endpoint was offered at its step (the correct path a perfect caller could take), and the
# cl100k tokens apidex sent the model per step (planner, caller and parser together; median
# and p90) and per task. The planner's
# sub-task is the gold endpoint's own summary: an upper bound for the selector, not a user's
# words. Success and correct-path rates of a real model: docs/EXECUTE.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${1:-$src/build}
[ "${1:-}" = "--limit" ] && build=$src/build
limit=0
while [ $# -gt 0 ]; do
  case "$1" in
    --limit) limit=$2; shift 2 ;;
    *) shift ;;
  esac
done
shared=${APIDEX_SHARED_DIR:-$src/../shared}
rb=$shared/benchmarks/restbench
bin=$build/apidex
py=/usr/bin/python3
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

"$bin" index "$rb/specs/tmdb_oas.json" "$rb/specs/spotify_oas.json" --db "$tmp/rb.db" >/dev/null 2>&1
api_of() { # api_of SPEC: the id the index gave it
  "$bin" inspect "$1" --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["documents"][0]["api"])'
}
tmdb=$(api_of "$rb/specs/tmdb_oas.json"); spotify=$(api_of "$rb/specs/spotify_oas.json")

"$bin" mock "$rb/specs/tmdb_oas.json" "$rb/specs/spotify_oas.json" --listen 127.0.0.1:0 \
  --port-file "$tmp/mock.port" --quiet >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/mock.port" ] && break; sleep 0.1; done
mport=$(cat "$tmp/mock.port")

for set in tmdb spotify; do
  spec=$rb/specs/${set}_oas.json
  "$py" "$here/restbench_model.py" --dataset "$rb/datasets/$set.json" --spec "$spec" \
    --port-file "$tmp/$set.port" --log "$tmp/$set.log" &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$tmp/$set.port" ] && break; sleep 0.1; done
  if [ "$set" = tmdb ]; then server="$tmdb=http://127.0.0.1:$mport/3"; api=$tmdb
  else server="$spotify=http://127.0.0.1:$mport/v1"; api=$spotify; fi
  "$py" - "$rb/datasets/$set.json" "$limit" >"$tmp/$set.tasks" <<'PY'
import json, sys
tasks = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
for t in tasks[: n or None]:
    print(t["query"].replace("\n", " "))
PY
  : >"$tmp/$set.runs"
  while IFS= read -r task; do
    APIDEX_LLM_BASE_URL="http://127.0.0.1:$(cat "$tmp/$set.port")/v1" APIDEX_LLM_MODEL=restbench-gold \
      "$bin" run "$task" --db "$tmp/rb.db" --api "$api" --server "$server" \
      --allow-address 127.0.0.1 --max-steps 12 --json >>"$tmp/$set.runs" 2>/dev/null || true
  done <"$tmp/$set.tasks"
  "$py" - "$set" "$rb/datasets/$set.json" "$tmp/$set.runs" "$tmp/$set.log" <<'PY' >>"$tmp/table"
import json, re, statistics, sys
name, dataset, runs_path, log_path = sys.argv[1:]
gold = {t["query"].strip(): t["solution"] for t in json.load(open(dataset))}
runs = []
dec = json.JSONDecoder()
text = open(runs_path).read()
i = 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    obj, i = dec.raw_decode(text, i)
    runs.append(obj)
offered = [json.loads(l)["answer"].get("_offered") for l in open(log_path)]
offered = [o for o in offered if o is not None]
turn_tokens, task_tokens, calls, path_len, correct = [], [], [], [], 0
answered = 0
for r in runs:
    g = gold.get(r["task"].strip(), [])
    path_len.append(len(g))
    calls.append(sum(1 for s in r["steps"] if s.get("endpoint")))
    answered += 1 if r.get("answer") else 0
    task_tokens.append(r["tokens"]["prompt"])
    for s in r["steps"]:
        turn_tokens.append(s["tokens"]["prompt"])
    called = [s.get("request") or "" for s in r["steps"] if s.get("endpoint")]
def med(v):
    return statistics.median(v) if v else 0
def p90(v):
    v = sorted(v)
    return v[int(0.9 * (len(v) - 1))] if v else 0
hit = sum(1 for o in offered if o) / len(offered) if offered else 0
# a task's path is offered when every one of its caller turns had the gold endpoint
per_task = {}
for l in open(log_path):
    e = json.loads(l)
    o = e["answer"].get("_offered")
    if o is None:
        continue
    m = re.search(r"^Task: (.*)$", e["request"]["messages"][-1]["content"], re.M)
    per_task.setdefault(m.group(1).strip() if m else "", []).append(o)
full = sum(1 for v in per_task.values() if v and all(v)) / len(per_task) if per_task else 0
print("| %s | %d | %d | %.2f (%.2f) | %.3f | %.3f | %d / %d | %d |" % (
    name, len(runs), answered, statistics.mean(calls) if calls else 0,
    statistics.mean(path_len) if path_len else 0, hit, full, med(turn_tokens), p90(turn_tokens),
    med(task_tokens)))
PY
done
echo "| set | tasks | answered | API calls per task (gold) | gold among the candidates, per step | every gold step offered, per task | cl100k sent per step, median / p90 | cl100k sent per task (median) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
cat "$tmp/table"
