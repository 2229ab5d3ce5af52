#!/usr/bin/env bash
# Dense search speed against FAISS (Debian python3-faiss, IndexFlatIP, the baseline): exact
# top-10 over 100,000 random unit vectors of 384-d, 1,000 queries, same threads, same run.
#
#   bash bench/bench_vecscan.sh [BUILD_DIR] [THREADS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
threads=${2:-2}
PY=/usr/bin/python3
bin="$build/bench/bench_vecscan"
[ -x "$bin" ] || { echo "bench_vecscan: $bin not built (cmake --build $build --target bench_vecscan)" >&2; exit 1; }
# OpenBLAS's own CPU detection, or the core the environment names (never forced here:
# an AVX-512 core on a CPU without AVX-512 dies with SIGILL).
n=${BENCH_N:-100000} dim=384 nq=${BENCH_NQ:-1000} k=10
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" - "$tmp" $n $dim $nq <<'PYEOF'
import sys
import numpy as np
out, n, dim, nq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(7)
for name, rows in (("mat", n), ("q", nq)):
    v = rng.standard_normal((rows, dim)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    v.tofile("%s/%s.f32" % (out, name))
PYEOF

echo "== dense search: $n x $dim, top-$k, $nq queries ($threads threads)"
ours=$("$bin" "$tmp/mat.f32" "$tmp/q.f32" $n $dim $nq $k "$threads" "$tmp/hits.u32")
echo "$ours" | sed 's/^/  /'
if "$PY" -c 'import faiss' 2>/dev/null; then
  theirs=$(env -u OPENBLAS_CORETYPE "$PY" "$here/bench/bench_vecscan_faiss.py" "$tmp/mat.f32" "$tmp/q.f32" $n $dim $nq $k \
    "$threads" "$tmp/hits.u32")
  echo "$theirs" | sed 's/^/  /'
  a1=$(sed -n 's/^apidex vecscan one query per call: \([0-9]*\).*/\1/p' <<<"$ours")
  b1=$(sed -n 's/^faiss IndexFlatIP one query per call: \([0-9]*\).*/\1/p' <<<"$theirs")
  a2=$(sed -n 's/^apidex vecscan [0-9]* queries per call: \([0-9]*\).*/\1/p' <<<"$ours")
  b2=$(sed -n 's/^faiss IndexFlatIP [0-9]* queries per call: \([0-9]*\).*/\1/p' <<<"$theirs")
  awk -v a="$a1" -v b="$b1" 'BEGIN { printf "  ratio apidex/faiss, one query per call: %.2fx (aim >= 1x)\n", a / b }'
  awk -v a="$a2" -v b="$b2" 'BEGIN { printf "  ratio apidex/faiss, batched queries:    %.2fx\n", a / b }'
else
  echo "  (baseline skipped: python3-faiss is not installed; make bench installs it)"
fi
