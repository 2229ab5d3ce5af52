#!/usr/bin/env bash
# Golden tests for `apidex chunk`: each folder of tests/golden/ holds an input spec,
# `args` (the chunk options, one line), `expected.json` (the pretty JSON output) and
# `expected.txt` (the readable output of the same command, for reviewers; also checked).
# UPDATE_GOLDEN=1 rewrites expected.json from the current binary (`make golden-update`);
# review the diff before committing it.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
root="$src/tests/golden"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0 count=0
for dir in "$root"/*/; do
  dir="${dir%/}"
  name="$(basename "$dir")"
  [[ "$name" == _* ]] && continue
  [ -f "$dir/args" ] || continue
  inputs=()
  for f in "$dir"/*.yaml "$dir"/*.yml "$dir"/*.json; do
    [ -e "$f" ] || continue
    [ "$(basename "$f")" = expected.json ] && continue
    inputs+=("$f")
  done
  read -r -a args < "$dir/args" || true
  out="$tmp/$name.json"
  if ! "$bin" chunk "${inputs[@]}" "${args[@]}" --json > "$out" 2> "$tmp/$name.err"; then
    echo "FAIL $name: apidex chunk exited with $?"; cat "$tmp/$name.err"; fail=1; continue
  fi
  txt="$tmp/$name.txt"
  "$bin" chunk "${inputs[@]}" "${args[@]}" > "$txt" 2>> "$tmp/$name.err" || true
  count=$((count + 1))
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$out" "$dir/expected.json"
    cp "$txt" "$dir/expected.txt"
    echo "updated $name"
  else
    for kind in json txt; do
      got="$tmp/$name.$kind"
      if ! diff -u "$dir/expected.$kind" "$got" > "$tmp/$name.diff"; then
        echo "FAIL $name: output differs from expected.$kind"
        head -n 60 "$tmp/$name.diff"
        fail=1
      fi
    done
  fi
  # The output must be valid JSON, whatever the expectation says.
  if ! /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out"; then
    echo "FAIL $name: output is not valid JSON"; fail=1
  fi
done
[ "$count" -gt 0 ] || { echo "no golden cases found in $root"; exit 1; }
[ $fail -eq 0 ] && echo "golden: $count cases passed"
exit $fail
