#!/usr/bin/env bash
# Runs every benchmark script in bench/ (bench_*.sh) against one build: `make bench`.
# Benchmarks print medians and ratios against their baseline; they never pass or fail.
#
#   bash bench/run.sh [BUILD_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
status=0
for script in "$here"/bench_*.sh; do
  [ -f "$script" ] || continue
  # the registry at scale installs 400 MB and takes about 15 minutes: run it by name
  [ "$(basename "$script")" = bench_scale.sh ] && continue
  echo "### $(basename "$script")"
  bash "$script" "$build" || { echo "($(basename "$script") failed)"; status=1; }
  echo
done
exit $status
