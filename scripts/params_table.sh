#!/usr/bin/env bash
# Rewrites the parameter table of docs/SEARCH.md from the code (src/search/params.def, printed
# by `apidex eval --list-params --markdown`): the table under "## Parameters" is replaced.
# tests/e2e/test_eval_params.sh fails while the two differ.
#
#   bash scripts/params_table.sh [BUILD_DIR]     (default: build/ of this repo)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/build}/apidex
[ -x "$bin" ] || { echo "params_table.sh: no apidex binary at $bin" >&2; exit 2; }
doc=$repo/docs/SEARCH.md
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$bin" eval --list-params --markdown >"$table"
# The table is the first run of lines starting with '|' after the "## Parameters" heading.
awk -v table="$table" '
  /^## / { in_sec = ($0 == "## Parameters") }
  in_sec && !done && /^\|/ { if (!printing) { while ((getline l < table) > 0) print l; printing = 1 } next }
  printing && !/^\|/ { done = 1; printing = 0 }
  { print }
' "$doc" >"$doc.new"
mv "$doc.new" "$doc"
