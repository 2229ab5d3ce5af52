#!/usr/bin/env bash
# Runs every libFuzzer target briefly (the total budget split evenly), seeded from
# tests/fuzz/corpus/<target>/ and, where the target names one, the shared corpus.
set -euo pipefail
build=${1:-build-fuzz}
total=${2:-60}
cd "$(dirname "$0")/.."
mapfile -t targets < <(find "$build" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no targets built" >&2
  exit 1
fi
per=$(( total / ${#targets[@]} ))
[ $per -ge 5 ] || per=5
for t in "${targets[@]}"; do
  name=$(basename "$t")
  seeds="tests/fuzz/corpus/$name"
  work=$(mktemp -d)
  [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/ 2>/dev/null || true
  # extra seeds named in tests/fuzz/<target>.shared: paths under the shared data dir,
  # copied (files under 64 KB) into the temporary work dir only, never into the repo
  if [ -f "tests/fuzz/$name.shared" ]; then
    shared_dir=${APIDEX_SHARED_DIR:-../shared}
    while IFS= read -r rel; do
      case "$rel" in '' | '#'*) continue ;; esac
      find "$shared_dir/$rel" -type f -size -64k 2>/dev/null | while IFS= read -r f; do
        cp "$f" "$work/shared_$(printf '%s' "$f" | md5sum | cut -c1-16)"
      done
    done <"tests/fuzz/$name.shared"
  fi
  dict=""
  [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
  echo "fuzz: $name for ${per}s"
  # leaks inside system libraries (tests/lsan.supp says which) are not ours to fix
  lsan=""
  [ -f tests/lsan.supp ] && lsan="suppressions=$PWD/tests/lsan.supp"
  LSAN_OPTIONS="$lsan" ASAN_OPTIONS=detect_leaks=1 "$t" $dict -max_total_time="$per" -rss_limit_mb=2048 \
    -timeout=10 -max_len=65536 -print_final_stats=0 "$work" >"$work.log" 2>&1 || {
    echo "fuzz: $name FAILED" >&2
    tail -60 "$work.log" >&2
    exit 1
  }
  grep -E '^#[0-9]+.*DONE' "$work.log" | tail -1 || true
  rm -rf "$work" "$work.log"
done
echo "fuzz: ${#targets[@]} targets passed"
