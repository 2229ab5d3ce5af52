#!/usr/bin/env bash
# Memory while loading and indexing, against the file size: peak RSS of `apidex inspect` and
# `apidex index` (/usr/bin/time -f %M) minus that of a tiny document (the baseline, measured
# in the same run), and what the loader's budget accounting charged (inspect --json
# load_memory.peak), each divided by the file size. Synthetic specs (bench/load_memory_gen.py:
# indented JSON, compact JSON, YAML) of a few sizes, the largest corpus specs, and a small
# spec whose schemas fan out through $refs. docs/INDEX.md, "Load limits", quotes the result.
#
#   bash bench/bench_load_memory.sh [BUILD_DIR] [MB...]     (default sizes: 2 10 40)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2 10 40)
bin="$build/apidex"
[ -x "$bin" ] || { echo "bench_load_memory: $bin not built" >&2; exit 1; }
shared=${APIDEX_SHARED_DIR:-$here/../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rss() { # command... -> peak RSS in bytes
  /usr/bin/time -o "$tmp/time" -f "%M" "$@" >/dev/null 2>&1 || true
  awk '{print $1 * 1024}' "$tmp/time"
}
printf 'openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths: {}\n' >"$tmp/tiny.yaml"
base_inspect=$(rss "$bin" inspect "$tmp/tiny.yaml")
base_index=$(rss "$bin" index "$tmp/tiny.yaml" --db "$tmp/base.db" --jobs 1)
echo "== baseline (a tiny document): inspect $((base_inspect >> 20)) MB, index $((base_index >> 20)) MB"
printf '%-34s %9s %11s %11s %13s %11s\n' document "size MB" "inspect/sz" "charged/sz" "budget MB" "index/sz"

measure() { # file
  local f=$1 size peak budget ri rx
  size=$(stat -c %s "$f")
  read -r peak budget < <("$bin" inspect "$f" --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["documents"][0]["load_memory"]; print(d["peak"], d["budget"])')
  ri=$(rss "$bin" inspect "$f")
  rm -f "$tmp"/x.db*
  rx=$(rss "$bin" index "$f" --db "$tmp/x.db" --jobs 1)
  awk -v n="$(basename "$f")" -v s="$size" -v ri="$ri" -v bi="$base_inspect" -v p="$peak" \
      -v b="$budget" -v rx="$rx" -v bx="$base_index" 'BEGIN {
    printf "%-34s %9.1f %11.1f %11.1f %13.0f %11.1f\n", n, s / 1048576, (ri - bi) / s, p / s,
           b / 1048576, (rx - bx) / s }'
}

for mb in "${sizes[@]}"; do
  for fmt in json json-compact yaml; do
    ext=${fmt%-compact}
    f="$tmp/synthetic-${mb}mb-$fmt.$ext"
    python3 "$here/bench/load_memory_gen.py" --mb "$mb" --format "$fmt" --out "$f"
    measure "$f"
    rm -f "$f"
  done
done
for f in stripe__spec3/spec3.json apisguru2020__amazonaws.com_ec2_2016-11-15/openapi.yaml \
         twilio__spec_json_twilio_api_v2010/twilio_api_v2010.json discord__specs_openapi/openapi.json; do
  [ -f "$shared/corpus/specs/$f" ] && measure "$shared/corpus/specs/$f"
done
# $ref fan-out: 12 levels of 10 properties, each a $ref to the next level, under 2,000
# operations (the data-flow analysis walks each operation's schemas)
python3 - "$tmp/fanout.json" <<'PY'
import json, sys
L, W = 12, 10
s = {f"S{l}": {"type": "object", "properties": {f"p{i}": ({"type": "string"} if l == L - 1 else
     {"$ref": f"#/components/schemas/S{l + 1}"}) for i in range(W)}} for l in range(L)}
body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}
paths = {f"/r{k}": {"post": {"operationId": f"op{k}", "requestBody": body,
         "responses": {"200": dict(description="ok", **body)}}} for k in range(2000)}
json.dump({"openapi": "3.0.0", "info": {"title": "fan", "version": "1"}, "paths": paths,
           "components": {"schemas": s}}, open(sys.argv[1], "w"))
PY
measure "$tmp/fanout.json"
