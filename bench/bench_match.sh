#!/usr/bin/env bash
# Spec-as-query (`apidex match`, docs/MATCH.md): accuracy on documents derived from the corpus.
#
#   bash bench/bench_match.sh BUILD_DIR [OUT_DIR] [SEED]
#
# 1. bench/match_gen.py (seed SEED, default 7) derives query documents from the 40 corpus
#    specs (shared/corpus/specs + the two RestBench specs) the way an agent's would differ:
#    descriptions dropped, summaries and operationIds often dropped or reworded, paths and
#    parameters renamed (synonyms, camelCase/snake_case/kebab-case), another version prefix,
#    1-8 operations in another order, request and response fields by name and type. 8 specs
#    are held out of the index: their documents are real services the index does not hold
#    (the right answer is "no match"). Specs are split into dev and test, whole.
# 2. The index holds every spec but the held-out ones (OUT_DIR/match.db).
# 3. The threshold is chosen on dev (bench/match_eval.py --choose: most right decisions) and
#    both splits are reported at it; the test split is never used to choose anything.
# 4. Speed: one 50-operation document matched against the index of all 40 specs, 5 runs:
#    the median of match_run's own time (elapsed_ms; the registry's features, built on an
#    engine's first match, are features_ms) and of the whole process (CPU user+sys).
# Deterministic for a seed (documents, index and scores); the timings are the machine's.
set -euo pipefail
build="${1:?usage: bench_match.sh BUILD_DIR [OUT_DIR] [SEED]}"
out="${2:-$build/bench-match}"
seed="${3:-7}"
src="$(cd "$(dirname "$0")/.." && pwd)"
shared="${APIDEX_SHARED_DIR:-/work/shared}"
bin="$(cd "$build" && pwd)/apidex"
tool="$(cd "$build" && pwd)/bench/bench_match_json"
[ -x "$bin" ] && [ -x "$tool" ] || { echo "bench_match: build apidex and bench_match_json in $build first" >&2; exit 2; }
specs=("$shared/corpus/specs" "$shared/benchmarks/restbench/specs")
rm -rf "$out/gen"
mkdir -p "$out"
python3 "$src/bench/match_gen.py" --tool "$tool" --out "$out/gen" --seed "$seed" "${specs[@]}"
mapfile -t indexed < "$out/gen/index.txt"
"$bin" index "${indexed[@]}" --db "$out/match.db" --full --quiet
chosen=$(python3 "$src/bench/match_eval.py" --bin "$bin" --db "$out/match.db" --gen "$out/gen" --split dev --choose)
echo "$chosen"
t=$(echo "$chosen" | awk '/^chosen threshold/ {print $3}')
python3 "$src/bench/match_eval.py" --bin "$bin" --db "$out/match.db" --gen "$out/gen" --split test --threshold "$t"

"$bin" index "${specs[@]}" --db "$out/all.db" --quiet
ops=$(python3 -c "import json,sys; print(sum(len(v) for v in json.load(open(sys.argv[1]))['paths'].values()))" "$out/gen/speed.json")
for i in 1 2 3 4 5; do
  /usr/bin/time -f "%U %S" -o "$out/time.$i" "$bin" match --json "$out/gen/speed.json" --db "$out/all.db" > "$out/speed.$i.json"
done
python3 - "$out" "$ops" <<'PY'
import json, statistics, sys
out, ops = sys.argv[1], int(sys.argv[2])
el = [json.load(open("%s/speed.%d.json" % (out, i)))["elapsed_ms"] for i in range(1, 6)]
fe = [json.load(open("%s/speed.%d.json" % (out, i)))["features_ms"] for i in range(1, 6)]
cpu = [sum(map(float, open("%s/time.%d" % (out, i)).read().split())) for i in range(1, 6)]
print("speed: %d-operation document vs 40 specs: match %.0f ms median (%.1f ms per operation), "
      "features %.0f ms once per engine, whole process %.2f s CPU median" % (
          ops, statistics.median(el), statistics.median(el) / ops, statistics.median(fe),
          statistics.median(cpu)))
PY
