#!/usr/bin/env bash
# `apidex chunk` options and exit codes: usage errors are 2, a document that fails to load
# is 1 with the others still chunked, and the outputs agree with each other.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
pet="$src/tests/golden/hybrid_petstore/petstore.yaml"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect CODE ARGS...
  local want=$1; shift
  "$bin" "$@" > "$tmp/out" 2> "$tmp/err"; local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL: apidex $* exited $got, expected $want"; cat "$tmp/err"; fail=1; fi
}
expect 2 chunk
expect 2 chunk "$pet" --strategy bogus
expect 2 chunk "$pet" --size 10 --overlap 10
expect 2 chunk "$pet" --size 0
expect 2 chunk "$pet" --filters html,nope
expect 2 chunk "$pet" --depth 9
expect 2 chunk "$tmp/does-not-exist.yaml"
expect 2 stats "$tmp/does-not-exist.yaml"
expect 0 chunk --help
printf 'openapi: 3.0.0\ninfo: [broken\n' > "$tmp/bad.yaml"
expect 1 chunk "$tmp/bad.yaml" "$pet" --strategy endpoint-rf --json
grep -q '"pet-store:listPets"' "$tmp/out" || { echo "FAIL: the good document was not chunked"; fail=1; }
# Every strategy: valid JSON, chunk count equal in both output forms.
for s in nosplit endpoint endpoint-re endpoint-rf json summary query hybrid; do
  "$bin" chunk "$pet" --strategy "$s" --size 64 --overlap 8 --json > "$tmp/$s.json" || fail=1
  "$bin" chunk "$pet" --strategy "$s" --size 64 --overlap 8 > "$tmp/$s.txt" || fail=1
  n_json=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["chunks"]))' "$tmp/$s.json")
  n_txt=$(grep -c '^=== ' "$tmp/$s.txt")
  [ "$n_json" = "$n_txt" ] && [ "$n_json" -gt 0 ] || { echo "FAIL: $s: $n_json JSON chunks, $n_txt text chunks"; fail=1; }
done
[ $fail -eq 0 ] && echo "chunk cli: ok"
exit $fail
