#!/usr/bin/env bash
# cl100k throughput: apidex's BPE against the npm package tiktoken (the baseline), on
# the same texts in the same run: all corpus descriptions, and one large raw spec.
#
#   bash bench/bench_bpe.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
repeats=${2:-7}
shared=${APIDEX_SHARED_DIR:-$here/../shared}
bin="$build/bench/bench_bpe"
[ -x "$bin" ] || { echo "bench_bpe: $bin not built (cmake --build $build --target bench_bpe)" >&2; exit 1; }
command -v node >/dev/null || { echo "bench_bpe: node not found (make deps)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
APIDEX_SOURCE_DIR="$here" node "$here/bench/bench_bpe.mjs" --dump-descriptions "$shared/corpus" "$tmp/descriptions.txt"

run_one() {
  local name=$1 file=$2
  local ours theirs
  ours=$("$bin" "$file" "$repeats")
  theirs=$(APIDEX_SOURCE_DIR="$here" node "$here/bench/bench_bpe.mjs" "$file" "$repeats")
  local a b ta tb
  a=$(sed -n 's/^apidex cl100k encode: \([0-9.]*\) MB\/s.*/\1/p' <<<"$ours")
  b=$(sed -n 's/^npm tiktoken encode: \([0-9.]*\) MB\/s.*/\1/p' <<<"$theirs")
  ta=$(sed -n 's/^apidex cl100k encode: .*, \([0-9]*\) tokens$/\1/p' <<<"$ours")
  tb=$(sed -n 's/^npm tiktoken encode: .*, \([0-9]*\) tokens$/\1/p' <<<"$theirs")
  echo "== $name ($(wc -c <"$file") bytes)"
  echo "$ours" | sed 's/^/  /'
  echo "  $theirs"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "  ratio apidex/tiktoken (encode): %.1fx\n", a / b }'
  [ "$ta" = "$tb" ] || echo "  WARNING: token counts differ ($ta vs $tb)"
}

run_one "corpus descriptions" "$tmp/descriptions.txt"
run_one "stripe spec3.json (raw)" "$shared/corpus/specs/stripe__spec3/spec3.json"
