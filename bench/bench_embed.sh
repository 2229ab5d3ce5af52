#!/usr/bin/env bash
# Local encoder speed against PyTorch CPU (Debian python3-torch, the baseline) on the same
# random-weight model of the bge-small shape (hidden 384, 12 layers, 12 heads, ffn 1536, the
# real bge vocab), the same token ids, the same thread count, in the same run.
#
#   bash bench/bench_embed.sh [BUILD_DIR] [REPS] [THREADS] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
reps=${2:-5}
threads=${3:-2}
rounds=${4:-3}
shared=${APIDEX_SHARED_DIR:-$here/../shared}
PY=/usr/bin/python3
bin="$build/bench/bench_embed"
[ -x "$bin" ] || { echo "bench_embed: $bin not built (cmake --build $build --target bench_embed)" >&2; exit 1; }
# OpenBLAS's own CPU detection, or the core the environment names (never forced here:
# an AVX-512 core on a CPU without AVX-512 dies with SIGILL).

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vocab=()
[ -f "$shared/models/bge-small-en-v1.5/vocab.txt" ] &&
  vocab=(--vocab-file "$shared/models/bge-small-en-v1.5/vocab.txt")
"$PY" "$here/tests/embed/gen_bert.py" --out "$tmp/bge-small-shape-en" --hidden 384 --layers 12 \
  --heads 12 --intermediate 1536 --vocab 30522 --max-pos 512 --pooling cls --normalize 1 \
  --scale 0.05 "${vocab[@]}"

echo "== encoder: batch 32x128 throughput and single-query latency ($threads threads, $rounds rounds)"
# Rounds alternate apidex and PyTorch so that both see the same machine load; the ratio
# reported is the median of the per-round ratios.
have_torch=0
"$PY" -c 'import torch' 2>/dev/null && have_torch=1
# bf16 too when the CPU has AVX-512 BF16 (apidex --precision bf16 against PyTorch's bf16
# autocast, and against its f32 baseline)
bf16=0
grep -q avx512_bf16 /proc/cpuinfo && bf16=1
ratios=() ratios_bf=() ratios_bf_f32=()
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
tps() { sed -n "s/^$1 batch.* \\([0-9]*\\) tokens\\/s.*/\\1/p" | sort -n | tail -1; }
for round in $(seq 1 "$rounds"); do
  echo "  -- round $round (load $(cut -d' ' -f1-3 /proc/loadavg))"
  ours=$("$bin" "$tmp/bge-small-shape-en" "$tmp" 32 128 "$reps" "$threads")
  [ $bf16 -eq 0 ] || ours+=$'\n'$("$bin" "$tmp/bge-small-shape-en" "$tmp" 32 128 "$reps" "$threads" bf16)
  echo "$ours" | sed 's/^/  /'
  [ $have_torch -eq 1 ] || continue
  # The baseline gets OpenBLAS's own CPU detection (Cooperlake here): forcing SkylakeX
  # makes PyTorch's transposed-weight products ~25% slower.
  theirs=$(env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$threads" BENCH_BF16=$bf16 "$PY" \
    "$here/bench/bench_embed_torch.py" "$tmp/bge-small-shape-en" "$tmp" "$reps" "$threads")
  echo "$theirs" | sed 's/^/  /'
  a=$(tps apidex <<<"$ours")
  b=$(grep -v autocast <<<"$theirs" | tps pytorch)
  ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')")
  if [ $bf16 -eq 1 ]; then
    abf=$(tps apidex-bf16 <<<"$ours")
    tbf=$(grep autocast <<<"$theirs" | tps pytorch)
    ratios_bf+=("$(awk -v a="$abf" -v b="$tbf" 'BEGIN { printf "%.2f", a / b }')")
    ratios_bf_f32+=("$(awk -v a="$abf" -v b="$b" 'BEGIN { printf "%.2f", a / b }')")
  fi
done
if [ $have_torch -eq 1 ]; then
  echo "  ratio apidex/pytorch (tokens/s, batch 32x128, best pytorch setting) per round: ${ratios[*]}"
  echo "  median ratio, f32: $(printf '%s\n' "${ratios[@]}" | median)x (aim >= 1.5x)"
  if [ $bf16 -eq 1 ]; then
    echo "  bf16 per round: apidex-bf16/pytorch-bf16 ${ratios_bf[*]}; apidex-bf16/pytorch-f32 ${ratios_bf_f32[*]}"
    echo "  median ratio, apidex bf16 / pytorch bf16 autocast: $(printf '%s\n' "${ratios_bf[@]}" | median)x"
    echo "  median ratio, apidex bf16 / pytorch f32: $(printf '%s\n' "${ratios_bf_f32[@]}" | median)x"
  fi
else
  echo "  (baseline skipped: python3-torch is not installed; make bench installs it)"
fi
