#!/usr/bin/env bash
# Local encoder speed against PyTorch CPU (Debian python3-torch, the baseline) on the same
# random-weight model of the bge-small shape (hidden 384, 12 layers, 12 heads, ffn 1536, the
# real bge vocab), the same token ids, the same thread count, in the same run.
#
#   bash bench/bench_embed.sh [BUILD_DIR] [REPS] [THREADS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
reps=${2:-5}
threads=${3:-2}
shared=${APIDEX_SHARED_DIR:-$here/../shared}
PY=/usr/bin/python3
bin="$build/bench/bench_embed"
[ -x "$bin" ] || { echo "bench_embed: $bin not built (cmake --build $build --target bench_embed)" >&2; exit 1; }
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vocab=()
[ -f "$shared/models/bge-small-en-v1.5/vocab.txt" ] &&
  vocab=(--vocab-file "$shared/models/bge-small-en-v1.5/vocab.txt")
"$PY" "$here/tests/embed/gen_bert.py" --out "$tmp/bge-small-shape-en" --hidden 384 --layers 12 \
  --heads 12 --intermediate 1536 --vocab 30522 --max-pos 512 --pooling cls --normalize 1 \
  --scale 0.05 "${vocab[@]}"

echo "== encoder: batch 32x128 throughput and single-query latency ($threads threads)"
ours=$("$bin" "$tmp/bge-small-shape-en" "$tmp" 32 128 "$reps" "$threads")
echo "$ours" | sed 's/^/  /'
if "$PY" -c 'import torch' 2>/dev/null; then
  # The baseline gets OpenBLAS's own CPU detection (Cooperlake here): forcing SkylakeX, as
  # apidex does, makes PyTorch's transposed-weight products ~25% slower.
  theirs=$(env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$threads" "$PY" \
    "$here/bench/bench_embed_torch.py" "$tmp/bge-small-shape-en" "$tmp" "$reps" "$threads")
  echo "$theirs" | sed 's/^/  /'
  a=$(sed -n 's/^apidex batch.* \([0-9]*\) tokens\/s.*/\1/p' <<<"$ours")
  b=$(sed -n 's/^pytorch batch.* \([0-9]*\) tokens\/s.*/\1/p' <<<"$theirs" | sort -n | tail -1)
  awk -v a="$a" -v b="$b" 'BEGIN { printf "  ratio apidex/pytorch (tokens/s, batch 32x128, best pytorch setting): %.2fx (aim >= 1.5x)\n", a / b }'
else
  echo "  (baseline skipped: python3-torch is not installed; make bench installs it)"
fi
