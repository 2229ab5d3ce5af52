#!/usr/bin/env bash
# `make lint`: fails when any C file drifts from .clang-format (`--fix` rewrites them), or when
# libcurl transfers appear outside src/net (tests/e2e/test_net_guard.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.c' '*.h')
[ ${#files[@]} -gt 0 ] || exit 0
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "lint: $f is not formatted (run: make format)" >&2
    bad=1
  fi
done
[ $bad -eq 0 ] && echo "lint: ${#files[@]} files formatted"
# one outbound HTTP layer: libcurl transfers only in src/net (tests/e2e/test_net_guard.sh)
bash tests/e2e/test_net_guard.sh >/dev/null || { bash tests/e2e/test_net_guard.sh >&2; bad=1; }
exit $bad
