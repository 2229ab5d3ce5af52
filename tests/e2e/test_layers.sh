#!/usr/bin/env bash
# The stage graph is enforced by the build: CMakeLists.txt's apidex_stage() table is written
# to the build folder and tools/check_layers.sh holds every #include to it before anything
# compiles. Here: the real tree passes; a copy of the project with one include that breaks
# the layers (a library stage including a face's header) fails its build at that step,
# naming the file, the line and the rule; and each rule of the checker refuses its fault.
set -euo pipefail
src=${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${APIDEX_BIN:?APIDEX_BIN must point to the apidex binary}
build=${APIDEX_BUILD_DIR:-$(dirname "$bin")}
name=test_layers
check=$src/tools/check_layers.sh
table=$build/apidex_layers.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }

[ -f "$table" ] || fail "$table missing (the build writes it from CMakeLists.txt)"
grep -q '^exec library ' "$table" || fail "the table has no library stage exec: $(cat "$table")"
grep -q '^agent product .*exec' "$table" || fail "agent does not stand above exec in the table"
sh "$check" "$table" "$src" 2>"$tmp/real.err" || fail "the real tree breaks the table: $(cat "$tmp/real.err")"
# docs/ARCHITECTURE.md draws the same graph: one row "stage -> DEPS" per stage of the table
while read -r stage layer deps; do
  case $stage in '#'* | '') continue ;; esac
  row="$stage"
  [ -z "$deps" ] || row=$(printf '%-8s -> %s' "$stage" "$deps")
  grep -qE "^(faces|products|library)? +$row\$" "$src/docs/ARCHITECTURE.md" ||
    fail "docs/ARCHITECTURE.md has no row '$row' (stage $stage, $layer, of CMakeLists.txt)"
done <"$table"

# ---- the build of a copy fails on a wrong include (CMake wiring, not only the script)
proj=$tmp/proj
mkdir "$proj"
for e in "$src"/* "$src"/.clang-format; do
  b=$(basename "$e")
  case $b in build* | src) ;; *) ln -s "$e" "$proj/$b" ;; esac
done
cp -r "$src/src" "$proj/src"
cmake -S "$proj" -B "$proj/build" -DAPIDEX_TESTS=OFF >"$tmp/configure.log" 2>&1 ||
  fail "configuring the copy: $(tail -5 "$tmp/configure.log")"
cmake --build "$proj/build" --target apidex_layers >"$tmp/good.log" 2>&1 ||
  fail "the untouched copy fails the layer check: $(tail -5 "$tmp/good.log")"
# oas (a library stage) including serve's header (a face): line 2 of src/oas/load.c
sed -i '1a #include "serve/serve.h"' "$proj/src/oas/load.c"
if cmake --build "$proj/build" --target apidex_layers >"$tmp/bad.log" 2>&1; then
  fail "the build accepted src/oas/load.c including serve/serve.h"
fi
grep -q 'src/oas/load.c:2: #include "serve/serve.h": oas (library) may not use serve (face)' \
  "$tmp/bad.log" || fail "the failed build does not say why: $(tail -5 "$tmp/bad.log")"
# the whole build stops there too: not one stage library is built
if cmake --build "$proj/build" --target apidex_core >"$tmp/core.log" 2>&1; then
  fail "apidex_core built although the layer check fails"
fi

# ---- each rule, on a small tree of its own
fixture() { # fixture DIR: three stages, low (library) <- mid (library) <- top (product)
  rm -rf "$1"
  mkdir -p "$1/src/low" "$1/src/mid" "$1/src/top" "$1/tests/unit"
  printf '#include "low/low_int.h"\n' >"$1/src/low/low.c"
  printf '#include "low/low.h"\n' >"$1/src/low/low_int.h"
  : >"$1/src/low/low.h"
  printf '#include "mid/mid.h"\n#include <stdio.h>\n' >"$1/src/mid/mid.c"
  printf '#include "low/low.h"\n#include "apidex.h"\n' >"$1/src/mid/mid.h"
  printf '#include "top/top.h"\n' >"$1/src/top/top.c"
  printf '#include "mid/mid.h"\n' >"$1/src/top/top.h"
  printf '#include "top_testutil.h"\n#include "low/low.h"\n' >"$1/tests/unit/test_top_x.c"
  printf '#include "low/low_int.h"\n' >"$1/tests/unit/test_low_x.c"
  printf 'low library\nmid library low\ntop product mid\n' >"$1/table"
}
ok=$tmp/ok
fixture "$ok"
sh "$check" "$ok/table" "$ok" 2>"$tmp/ok.err" || fail "the fixture breaks its table: $(cat "$tmp/ok.err")"

# expect_fault WHAT MESSAGE: the checker run on $tmp/f fails with MESSAGE
expect_fault() {
  if sh "$check" "$tmp/f/table" "$tmp/f" 2>"$tmp/f.err"; then
    fail "$1: accepted"
  fi
  grep -qF -- "$2" "$tmp/f.err" || fail "$1: expected '$2', got: $(cat "$tmp/f.err")"
}
f=$tmp/f
fixture "$f"
printf '#include "top/top.h"\n' >>"$f/src/low/low.c"
expect_fault "upward include" 'src/low/low.c:2: #include "top/top.h": low (library) may not use top (product)'
fixture "$f"
printf '#include "low/low_int.h"\n' >>"$f/src/mid/mid.c"
expect_fault "private header" 'src/mid/mid.c:3: #include "low/low_int.h": low/low_int.h is private to stage low'
fixture "$f"
printf '#include "low/low.h"\n' >>"$f/src/top/top.c"
expect_fault "undeclared dependency" '#include "low/low.h": low is not in the DEPS of top'
fixture "$f"
printf 'low library\nmid library low\ntop library mid\n' >"$f/table"
printf '#include "mid/mid.h"\n' >>"$f/src/low/low.c"
expect_fault "a stage declared later" '#include "mid/mid.h": mid is declared after low'
fixture "$f"
printf '#include "../mid/mid.h"\n' >>"$f/src/top/top.c"
expect_fault "relative path" 'climbs out with ..'
fixture "$f"
printf '#define H "low/low.h"\n#include H\n' >>"$f/src/mid/mid.c"
expect_fault "include by macro" 'src/mid/mid.c:4: #include by macro'
fixture "$f"
printf '#include "mid.h"\n' >>"$f/src/mid/mid.c"
expect_fault "bare stage header" 'write a stage header as "stage/file.h"'
fixture "$f"
printf '#include "mid/mid.h"\n' >>"$f/tests/unit/test_low_x.c"
expect_fault "test beyond its stage" 'the tests of low link low and what it depends on, and low does not depend on mid'
fixture "$f"
printf 'low library\nmid library low\ntop product mid low\n' >"$f/table"
expect_fault "unused dependency" 'apidex_stage(top): DEPS names low, but no file of src/top includes a header of low'
fixture "$f"
printf 'low library mid\nmid library low\ntop product mid\n' >"$f/table"
expect_fault "cycle" 'DEPS names mid, which is not declared before it'
fixture "$f"
printf 'low library\nmid product low\ntop library mid\n' >"$f/table"
expect_fault "layer order in the table" 'stage top (library) lists mid (product) in DEPS'
fixture "$f"
mkdir "$f/src/stray"
: >"$f/src/stray/stray.c"
expect_fault "folder outside the table" 'src/stray is not a stage of the table'
fixture "$f"
printf 'low library\nmid library low\ntop product mid\ngone face top\n' >"$f/table"
expect_fault "stage without folder" 'stage gone has no folder src/gone'

echo "$name: ok"
