#!/usr/bin/env bash
# `make demo`'s answers are right: the index the demo builds (examples/, plus the RestBench
# specs when ../shared has them), every showcase task of scripts/demo_answers.txt answered
# with exactly its gold endpoints by scripts/demo_answers.sh (the demo's own check); and
# the check itself fails, saying so, on an answer that lacks an endpoint or has one too many.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home"
mkdir -p "$HOME"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
check=("$src/scripts/demo_answers.sh" "$bin" "$tmp/demo.db")

# the demo's index (scripts/demo.sh step 3)
inputs=("$src/examples")
sets='examples'
if [ -d "$shared/benchmarks/restbench/specs" ]; then
  inputs+=("$shared/benchmarks/restbench/specs")
  check+=(--restbench)
  sets='examples|restbench'
else
  echo "note: $shared/benchmarks/restbench/specs not found: the RestBench showcase task is not checked"
fi
"$bin" index "${inputs[@]}" --db "$tmp/demo.db" --quiet || exit 1

# 1. every showcase answer is right
bash "${check[@]}" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" = 0 ] || bad "a showcase answer is wrong (exit $rc)"
n_tasks=$(grep -cE "^($sets)	" "$src/scripts/demo_answers.txt")
n_right=$(grep -c '^   right: ' "$tmp/out")
[ "$n_right" = "$n_tasks" ] || bad "$n_right of $n_tasks answers said right"
grep -q 'WRONG' "$tmp/out" && bad "a wrong answer was printed"

# 2. the check fails on a wrong answer, and prints it as wrong, never as right: gold that
#    wants an endpoint the answer lacks (a step missing), and gold without one it gives
#    (a step not needed); a right task beside them stays right
first=$(grep -m1 '^examples	' "$src/scripts/demo_answers.txt")
task=$(printf '%s' "$first" | cut -f2)
ids=$(printf '%s' "$first" | cut -f3)
{
  printf 'examples\t%s\t%s recipe-box:getRecipe\n' "$task" "$ids"
  printf 'examples\t%s\t%s\n' "$task" "${ids#* }"
  printf 'examples\t%s\t%s\n' "$task" "$ids"
} >"$tmp/gold"
bash "$src/scripts/demo_answers.sh" "$bin" "$tmp/demo.db" --gold "$tmp/gold" >"$tmp/bad" 2>&1
rc=$?
cat "$tmp/bad"
[ "$rc" = 1 ] || bad "a wrong answer did not fail the check (exit $rc)"
grep -q '^   WRONG: missing recipe-box:getRecipe;$' "$tmp/bad" || bad "the missing step is not named"
grep -q "^   WRONG: not needed ${ids%% *};\$" "$tmp/bad" || bad "the step not needed is not named"
[ "$(grep -c '^   right: ' "$tmp/bad")" = 1 ] || bad "a wrong answer was printed as right"
grep -q '^   2 of 3 answers are wrong' "$tmp/bad" || bad "the count of wrong answers is not said"

# 3. a failing search is a wrong answer, not a success
bash "$src/scripts/demo_answers.sh" "$bin" "$tmp/missing.db" >"$tmp/nodb" 2>&1
rc=$?
[ "$rc" = 1 ] || bad "a failing search did not fail the check (exit $rc)"
grep -q '^   right: ' "$tmp/nodb" && bad "a failing search was printed as right"

[ "$fail" = 0 ] && echo "ok the demo's answers are right, and a wrong one fails"
exit "$fail"
