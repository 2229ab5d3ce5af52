#!/usr/bin/env bash
# `make demo`: install what is missing, build, index the example specs (plus the RestBench
# specs when ../shared is there) and answer sample tasks, as a short story. Everything the
# tools print (apt, cmake, the compiler) goes to the log file named at the start.
# DEMO_BIN=path: use that apidex as built (no apt, no build; tests/e2e/test_demo_hints.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
bin=${DEMO_BIN:-$build/apidex}
db=$build/demo.db
shared=${APIDEX_SHARED_DIR:-${SHARED:-../shared}}
mkdir -p "$build"
log=$build/demo.log
: >"$log"

say() { printf '%s\n' "$*"; }
# Runs a step with its output in the log; on failure shows the log's end and stops.
quietly() {
  if ! "$@" >>"$log" 2>&1; then
    say "   failed: $*"
    say "   the last lines of $log:"
    tail -n 25 "$log" | sed 's/^/   | /'
    exit 1
  fi
}

say "apidex demo (full log: $log)"
say
if [ -n "${DEMO_BIN:-}" ]; then
  say "1-2. Dependencies and build: skipped, $bin as built (DEMO_BIN)"
else
  say "1. Dependencies: the Debian packages building and running need (scripts/deps.sh --build)"
  # deps.sh says "deps: ..." before anything slow (apt-get): show those lines only.
  if ! bash scripts/deps.sh --build 2>&1 | tee -a "$log" | { grep '^deps:' || say "   all installed"; } |
    sed 's/^deps: /   /'; then
    say "   failed; the last lines of $log:"
    tail -n 25 "$log" | sed 's/^/   | /'
    exit 1
  fi

  say "2. Build: cmake release build of apidex in $build/ (not the tests: make test builds them)"
  quietly make --no-print-directory build BUILD="$build" SHARED="$shared" \
    TARGETS="apidex apidex_help_files"
fi
say "   $("$bin" version)"

inputs=(examples)
[ -d "$shared/benchmarks/restbench/specs" ] && inputs+=("$shared/benchmarks/restbench/specs")
say "3. Index: ${inputs[*]} -> $db"
quietly "$bin" index "${inputs[@]}" --db "$db"
# The two summary lines of `apidex index` ("indexed into ...", "N APIs, ...").
grep -E '^(indexed into|  [0-9]+ APIs)' "$log" | tail -n 2 | sed 's/^ */   /'

say "4. Answers: apidex search TASK --adaptive (the endpoints a task needs, in call order),"
say "   each checked against its complete answer (scripts/demo_answers.txt)"
answers=(bash scripts/demo_answers.sh "$bin" "$db" --log "$log")
[ -d "$shared/benchmarks/restbench/specs" ] && answers+=(--restbench)
right=1
"${answers[@]}" || right=0
# The hint names a real endpoint: the last one the last answer needs (its id: line).
id=$(grep -oE '^    id: [^ ]+' "$log" | tail -n 1 | sed 's/^    id: //')
say
say "Next, as printed (the binary is $bin; make install puts it on PATH):"
say "   $bin show ${id:-ID} --db $db      # one endpoint in full"
say "   $bin list --db $db                # the APIs indexed"
# the man page beside the binary (apidex_help_files), a path man reads as a file
man_page=$(dirname "$bin")/share/apidex.1
case "$man_page" in /* | ./*) ;; *) man_page=./$man_page ;; esac
say "   $bin --help; man $man_page"
if [ "$right" = 0 ]; then
  say
  say "The demo ends with a wrong answer above (exit 1)."
  exit 1
fi
