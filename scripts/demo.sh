#!/usr/bin/env bash
# `make demo`: index the example specs (plus the RestBench specs when ../shared is there)
# and answer sample tasks.
set -euo pipefail
bin=${1:-build/apidex}
cd "$(dirname "$0")/.."
db=build/demo.db
inputs=(examples)
shared=${APIDEX_SHARED_DIR:-../shared}
[ -d "$shared/benchmarks/restbench/specs" ] && inputs+=("$shared/benchmarks/restbench/specs")

echo "== apidex inspect ${inputs[*]}"
"$bin" inspect "${inputs[@]}" || true
echo
echo "== apidex index ${inputs[*]} --db $db"
"$bin" index "${inputs[@]}" --db "$db"
ask() {
  echo
  echo "== apidex search \"$1\" --adaptive"
  "$bin" search "$1" --db "$db" --adaptive
}
ask "Create a new cookbook for me and add the lasagna recipe to it"
ask "Is there a storm warning near Hamburg and what is the wind there right now?"
if [ -d "$shared/benchmarks/restbench/specs" ]; then
  ask "Who directed the top-1 rated movie?"
fi
