#!/usr/bin/env bash
# Response shaping on realistic bodies: the JSON response examples of the RestBench specs
# (TMDB's and Spotify's are recorded API responses) shaped with the defaults of
# `apidex call` (2,000 cl100k tokens, 10 items per array): tokens before and after, and how
# many examples match their own response schema. Deterministic.
#
#   bash bench/bench_shape.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
bin="$build/bench/bench_shape"
[ -x "$bin" ] || { echo "bench_shape: $bin not built (cmake --build $build --target bench_shape)" >&2; exit 1; }
shared=${APIDEX_SHARED_DIR:-$here/../shared}
for spec in "$shared"/benchmarks/restbench/specs/*.json; do
  echo "== $(basename "$spec")"
  "$bin" "$spec" | sed 's/^/  /'
done
