#!/usr/bin/env bash
# Postman collections in, checked with a tool nobody here wrote: every corpus spec is
# converted to a Postman Collection v2.1 by Postman's own converter (npm
# openapi-to-postmanv2, bench/postman_convert.mjs), the collection is loaded by apidex, and
# its operations (METHOD + path, parameter names ignored: /pets/{}) are compared with the
# original spec's. Prints per spec and overall (micro) precision and recall.
#
#   bash bench/bench_postman.sh [BUILD_DIR] [OUT_DIR]       (about 15 min on 2 cores)
#   REUSE=1 bash bench/bench_postman.sh BUILD_DIR OUT_DIR   (compare again, no conversion)
#
# OUT_DIR (default a temporary folder) keeps the collections and the operation lists.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
out=${2:-$(mktemp -d /tmp/apidex-bench-postman.XXXXXX)}
ops="$build/bench/bench_postman_ops"
[ -x "$ops" ] || { echo "bench_postman: $ops not built (cmake --build $build --target bench_postman_ops)" >&2; exit 1; }
shared=${APIDEX_SHARED_DIR:-$here/../shared}
mkdir -p "$out/collections"

# the root documents apidex finds in the corpus (one per API)
nice "$ops" "$shared/corpus/specs" "$shared/benchmarks/restbench/specs" >"$out/orig.tsv"
cut -f1 "$out/orig.tsv" | sort -u >"$out/roots.txt"
mapfile -t roots <"$out/roots.txt"
echo "== Postman round trip: ${#roots[@]} specs -> openapi-to-postmanv2 -> apidex"

# convert one spec per node process (a huge spec cannot take the others down);
# REUSE=1 with the OUT_DIR of an earlier run keeps its collections (the importer changed)
[ "${REUSE:-0}" = 1 ] && [ -s "$out/convert.tsv" ] && reuse=1 || reuse=0
[ $reuse = 1 ] || : >"$out/convert.tsv"
for i in "${!roots[@]}"; do
  [ $reuse = 0 ] || continue
  rm -rf "$out/one" && mkdir -p "$out/one"
  line=$(timeout 600 nice node --max-old-space-size=4096 \
    "$here/bench/postman_convert.mjs" "$out/one" "${roots[$i]}" 2>/dev/null | head -1 || true)
  [ -n "$line" ] || line=$'0\terror\tconverter crashed or timed out'
  if [ "${line#*$'\t'}" = ok ]; then mv "$out/one/0.postman_collection.json" "$out/collections/$i.postman_collection.json"; fi
  printf '%s\t%s\n' "$i" "${line#*$'\t'}" >>"$out/convert.tsv"
done

norm() { sed -E 's/\{[^}/]*\}/{}/g' | sort -u; }
printf '  %-58s %6s %6s %6s %6s %6s\n' spec orig coll match prec recall
tot_o=0 tot_c=0 tot_m=0 conv_fail=0 load_fail=0
for i in "${!roots[@]}"; do
  r=${roots[$i]}
  name=${r#"$shared/"}
  awk -F'\t' -v f="$r" '$1 == f && $2 != "!failed" {print $2 " " $3}' "$out/orig.tsv" | norm >"$out/$i.orig"
  status=$(awk -F'\t' -v i="$i" '$1 == i {print $2}' "$out/convert.tsv")
  n_o=$(wc -l <"$out/$i.orig")
  if [ "$status" != ok ]; then
    conv_fail=$((conv_fail + 1))
    printf '  %-58s %6s %6s %6s  converter failed: %s\n' "${name:0:58}" "$n_o" - - \
      "$(awk -F'\t' -v i="$i" '$1 == i {print $3}' "$out/convert.tsv" | cut -c1-60)"
    continue
  fi
  "$ops" "$out/collections/$i.postman_collection.json" >"$out/$i.coll.tsv" || true
  if grep -q $'\t!failed' "$out/$i.coll.tsv"; then load_fail=$((load_fail + 1)); fi
  awk -F'\t' '$2 != "!failed" {print $2 " " $3}' "$out/$i.coll.tsv" | norm >"$out/$i.coll"
  n_c=$(wc -l <"$out/$i.coll")
  n_m=$(comm -12 "$out/$i.orig" "$out/$i.coll" | wc -l)
  tot_o=$((tot_o + n_o)) tot_c=$((tot_c + n_c)) tot_m=$((tot_m + n_m))
  awk -v s="${name:0:58}" -v o="$n_o" -v c="$n_c" -v m="$n_m" 'BEGIN {
    printf "  %-58s %6d %6d %6d %6.3f %6.3f\n", s, o, c, m, c ? m / c : 0, o ? m / o : 0 }'
done
awk -v o="$tot_o" -v c="$tot_c" -v m="$tot_m" -v cf="$conv_fail" -v lf="$load_fail" -v n="${#roots[@]}" 'BEGIN {
  printf "overall (converted specs, micro): %d original ops, %d imported, %d matched: precision %.3f recall %.3f\n",
    o, c, m, c ? m / c : 0, o ? m / o : 0
  printf "specs: %d, converter failed on %d, apidex failed to load %d collections\n", n, cf, lf }'
echo "files: $out"
