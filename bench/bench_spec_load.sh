#!/usr/bin/env bash
# Spec loading speed: load + resolve + model of every spec in ../shared/corpus against
# parsing the same files with the raw libraries alone (json-c trees and libfyaml
# documents; libfyaml events as a second baseline), medians of the same run.
#
#   bash bench/bench_spec_load.sh [BUILD_DIR] [REPETITIONS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
reps=${2:-7}
bin="$build/bench/bench_spec_load"
[ -x "$bin" ] || { echo "bench_spec_load: $bin not built (cmake --build $build --target bench_spec_load)" >&2; exit 1; }
shared=${APIDEX_SHARED_DIR:-$here/../shared}
echo "== spec loading: the shared corpus, $reps repetitions"
"$bin" "$shared" "$reps" | sed 's/^/  /'
