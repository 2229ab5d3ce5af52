#!/usr/bin/env bash
# The usage prior's check on the dev suites (`apidex eval --usage-check`, src/eval/usage_check.c):
# per task, the ranked top 20 without the prior is the baseline; then
#   adversarial  every non-gold endpoint of that top 20 gets 1000 reported uses: a pair
#                (gold above non-gold in the baseline) is inverted when the non-gold one
#                comes first afterwards (or the gold one left the top 20);
#   honest       the task's gold endpoints get one use each.
# Printed per set and weight: tasks, pairs, inversions (and their share), gold endpoints
# that left the top 20, R@5 / R@10 without the prior, adversarial and honest.
#
#   bash bench/bench_usage.sh [BUILD_DIR] [--weights 0.001,0.005,0.01,0.02,0.05]
#
# Uses the indexes bench_retrieval.sh keeps in BUILD_DIR/bench-indexes (run it first: it
# builds them, and its table is the prior-off baseline, which the prior must leave alone).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=$repo/build weights=0.001,0.005,0.01,0.02,0.05
while (($#)); do
  case $1 in
    --weights) weights=${2:?--weights needs a list}; shift 2 ;;
    -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) build=$1; shift ;;
  esac
done
bin=$build/apidex idx=$build/bench-indexes
[ -x "$bin" ] || { echo "bench_usage.sh: no apidex at $bin" >&2; exit 2; }
[ -f "$idx/restbench.db" ] || { echo "bench_usage.sh: no $idx/restbench.db: run bash bench/bench_retrieval.sh $build first" >&2; exit 2; }
shared=${APIDEX_SHARED:-$repo/../shared}
rb=$shared/benchmarks/restbench/pesl_socbench_cleaned/datasets sb=$shared/benchmarks/socbenchd_dev
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { # set db queries...
  local set=$1 db=$2; shift 2
  "$bin" eval --db "$db" --queries "$@" --usage-check "$weights" | sed "s/^{/{\"set\":\"$set\",/" >>"$tmp/lines"
}
run restbench "$idx/restbench.db" "$rb/tmdb.json" "$rb/spotify.json"
for d in "$sb"/*/; do
  d=${d%/}; dn=$(basename "$d")
  [ -f "$idx/socbench-$dn.db" ] && run socbench "$idx/socbench-$dn.db" "$d/queries.json"
done
run heldout1 "$idx/heldout1.db" "$here/queries/corpus_tasks.json"
run heldout2 "$idx/heldout2.db" "$here/queries/corpus_tasks_2.json"
[ -f "$here/queries/everyday_tasks.json" ] && run everyday "$idx/everyday.db" "$here/queries/everyday_tasks.json"
python3 - "$tmp/lines" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    k = (r["set"], r["usage_weight"])
    a = rows.setdefault(k, {"queries": 0, "pairs": 0, "inversions": 0, "gold_dropped": 0,
                            "r5": 0, "r10": 0, "r5_adversarial": 0, "r10_adversarial": 0,
                            "r5_honest": 0, "r10_honest": 0})
    n = r["queries"]
    for f in ("queries", "pairs", "inversions", "gold_dropped"):
        a[f] += r[f]
    for f in ("r5", "r10", "r5_adversarial", "r10_adversarial", "r5_honest", "r10_honest"):
        a[f] += r[f] * n  # socbench: a mean over all its tasks
print("| set | W | tasks | pairs | inverted | share | gold out | R@5 | R@10 | adv R@5 | adv R@10 | honest R@5 | honest R@10 |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for (s, w), a in rows.items():
    n = a["queries"] or 1
    print(f"| {s} | {w:g} | {a['queries']} | {a['pairs']} | {a['inversions']} | "
          f"{a['inversions'] / max(a['pairs'], 1):.3f} | {a['gold_dropped']} | "
          f"{a['r5'] / n:.3f} | {a['r10'] / n:.3f} | {a['r5_adversarial'] / n:.3f} | "
          f"{a['r10_adversarial'] / n:.3f} | {a['r5_honest'] / n:.3f} | {a['r10_honest'] / n:.3f} |")
PY
