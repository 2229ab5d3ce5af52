#!/usr/bin/env bash
# The cl100k_base ranks the build embeds come from tools/cl100k/cl100k_base.json.zst (no npm):
# the file decompresses to the pinned JSON (tiktoken 1.0.22's encoders/cl100k_base.json,
# byte for byte when the npm package is installed for the tests), and tools/gen_cl100k
# refuses a damaged copy instead of embedding wrong ranks.
set -euo pipefail
src=${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${APIDEX_BIN:?APIDEX_BIN must point to the apidex binary}
build=${APIDEX_BUILD_DIR:-$(dirname "$bin")}
name=test_cl100k_source
zst=$src/tools/cl100k/cl100k_base.json.zst
json_sha=49a4e05dea02c8fafbd50cc4725c4aab8f39386c0afedef118e0dfebc2fe523a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }

[ -f "$zst" ] || fail "$zst missing"
zstd -q -dc "$zst" >"$tmp/cl100k_base.json" || fail "$zst does not decompress"
got=$(sha256sum "$tmp/cl100k_base.json" | cut -d' ' -f1)
[ "$got" = "$json_sha" ] || fail "decompressed ranks have sha256 $got, expected $json_sha"

npm_json=$src/tools/node/node_modules/tiktoken/encoders/cl100k_base.json
if [ -f "$npm_json" ]; then
  cmp -s "$npm_json" "$tmp/cl100k_base.json" || fail "differs from the npm package's $npm_json"
fi

# the converter gives the same C source from the plain JSON and from the compressed file
gen=$build/gen_cl100k
[ -x "$gen" ] || fail "$gen not built"
"$gen" "$zst" "$tmp/from_zst.c" || fail "gen_cl100k on $zst"
"$gen" "$tmp/cl100k_base.json" "$tmp/from_json.c" || fail "gen_cl100k on the JSON"
cmp -s "$tmp/from_zst.c" "$tmp/from_json.c" || fail "gen_cl100k output differs between .zst and .json"
cmp -s "$tmp/from_zst.c" "$build/generated/cl100k_data.c" || fail "the build's cl100k_data.c is not from $zst"

# a damaged copy: one byte flipped in the middle of the frame
cp "$zst" "$tmp/bad.json.zst"
size=$(stat -c %s "$tmp/bad.json.zst")
printf '\377' | dd of="$tmp/bad.json.zst" bs=1 seek=$((size / 2)) conv=notrunc status=none
if "$gen" "$tmp/bad.json.zst" "$tmp/bad.c" 2>"$tmp/bad.err"; then
  fail "gen_cl100k accepted a damaged .zst"
fi
grep -q "cannot read or decompress" "$tmp/bad.err" || fail "unexpected error: $(cat "$tmp/bad.err")"
echo "$name: ok (ranks from the compressed file, pinned, damaged copy refused)"
