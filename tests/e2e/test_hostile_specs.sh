#!/usr/bin/env bash
# Hostile documents beside a good one: a 1 MiB path key, a FIFO, deep nesting, invalid UTF-8,
# a document over its node budget, one (and one through a $ref) past its memory budget. Each is that document's error (file, pointer, the limit
# named) or warning; the good document is still indexed; nothing hangs (every command under
# a timeout). Files are generated here, in a temp dir.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
py=/usr/bin/python3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }
run() { # name, timeout, command... -> $tmp/out, $tmp/err, $st
  local name=$1 t=$2
  shift 2
  st=0
  timeout "$t" "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  [ "$st" != 124 ] || bad "$name: hung (killed after ${t}s)"
}
has() { # name, file, fixed string
  grep -qF -- "$3" "$2" && ok "$1" || { bad "$1: no '$3' in $2"; head -c 800 "$2"; echo; }
}

good="$src/examples/weather.json"
mkdir -p "$tmp/specs"
cp "$good" "$tmp/specs/weather.json"

echo "== a 1 MiB path key"
"$py" - "$tmp/specs/bigkey.json" <<'PY'
import json, sys
p = "/" + "a" * (1 << 20)
json.dump({"openapi": "3.0.3", "info": {"title": "Big Key", "version": "1"},
           "paths": {p: {"get": {"responses": {"200": {"description": "ok"}}}}}}, open(sys.argv[1], "w"))
PY
run "inspect bigkey" 60 "$bin" inspect "$tmp/specs/bigkey.json" "$tmp/specs/weather.json"
[ "$st" = 1 ] && ok "inspect: exit 1 (a document failed)" || { bad "inspect bigkey: exit $st"; head -c 400 "$tmp/err"; }
cat "$tmp/out" "$tmp/err" >"$tmp/all"
has "the file named" "$tmp/all" "bigkey.json"
has "the limit named" "$tmp/all" "is 1048577 bytes, over the limit of"
has "the good one reported" "$tmp/all" "weather.json"
run "index bigkey" 60 "$bin" index "$tmp/specs/bigkey.json" "$tmp/specs/weather.json" --db "$tmp/a.db"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
[ "$st" != 3 ] && ok "index: not exit 3 (exit $st)" || { bad "index bigkey: exit 3"; cat "$tmp/all"; }
has "index: the good one added" "$tmp/all" "1 added"
has "index: the failure names the file" "$tmp/all" "bigkey.json"
run "list" 30 "$bin" list --db "$tmp/a.db" --json
has "the good one is in the index" "$tmp/out" "open-weather-station"
rm "$tmp/specs/bigkey.json"

echo "== a FIFO"
mkfifo "$tmp/specs/fifo.json"
run "inspect fifo" 10 "$bin" inspect "$tmp/specs/fifo.json" "$tmp/specs/weather.json"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
has "inspect: the FIFO refused" "$tmp/all" "not a regular file"
has "inspect: the good one reported" "$tmp/all" "weather.json"
run "index fifo" 10 "$bin" index "$tmp/specs/fifo.json" "$tmp/specs/weather.json" --db "$tmp/b.db"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
has "index: the FIFO refused" "$tmp/all" "not a regular file"
has "index: the good one added" "$tmp/all" "1 added"
run "index folder with fifo" 10 "$bin" index "$tmp/specs" --db "$tmp/c.db"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
has "folder: the good one added" "$tmp/all" "1 added"
run "add fifo" 10 "$bin" add "$tmp/specs/fifo.json" --db "$tmp/c.db"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
[ "$st" != 0 ] && ok "add fifo: fails (exit $st)" || bad "add fifo: exit 0"
has "add: the FIFO refused" "$tmp/all" "not a regular file"
rm "$tmp/specs/fifo.json"

echo "== deep nesting"
"$py" - "$tmp/specs/deep.json" <<'PY'
import sys
d = 100000
open(sys.argv[1], "w").write('{"openapi":"3.0.3","info":{"title":"Deep","version":"1"},"paths":{},"x-deep":'
                             + "[" * d + "]" * d + "}")
PY
run "inspect deep" 30 "$bin" inspect "$tmp/specs/deep.json" "$tmp/specs/weather.json"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
[ "$st" = 1 ] && ok "deep: exit 1" || bad "deep: exit $st"
has "deep: the file named" "$tmp/all" "deep.json"
has "deep: the limit named" "$tmp/all" "nesting deeper than the limit of 512 levels"
run "index deep" 30 "$bin" index "$tmp/specs" --db "$tmp/d.db"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
has "deep: the good one added" "$tmp/all" "1 added"
rm "$tmp/specs/deep.json"

echo "== past the memory budget (64 MiB + 1 x the file size: --max-load-memory 1)"
# 1,200,000 empty objects: 3.6 MB of JSON that takes ~90 MB to parse; under the default
# 32 x (json-c's tree, 270 bytes per byte, is gone: the parse takes ~25)
"$py" - "$tmp/specs/memory.json" "$tmp/refs" <<'PY'
import json, os, sys
pad = "[" + ",".join(["{}"] * 1200000) + "]"
open(sys.argv[1], "w").write('{"openapi":"3.0.3","info":{"title":"Memory","version":"1"},'
                             '"paths":{},"x-pad":' + pad + "}")
# the same through a $ref: a small root, the big file beside it
os.makedirs(sys.argv[2], exist_ok=True)
open(os.path.join(sys.argv[2], "pad.json"), "w").write('{"x":' + pad + "}")
json.dump({"openapi": "3.0.3", "info": {"title": "Ref Pad", "version": "1"},
           "paths": {"/p": {"get": {"responses": {"200": {"description": "ok", "content": {
               "application/json": {"schema": {"$ref": "pad.json#/x"}}}}}}}}},
          open(os.path.join(sys.argv[2], "root.json"), "w"))
PY
msize=$(stat -c %s "$tmp/specs/memory.json")
run "inspect memory" 60 "$bin" inspect "$tmp/specs/memory.json" "$tmp/specs/weather.json" --max-load-memory 1
cat "$tmp/out" "$tmp/err" >"$tmp/all"
[ "$st" = 1 ] && ok "memory: exit 1" || bad "memory: exit $st"
has "memory: the file and line:col named" "$tmp/all" "memory.json:1:"
has "memory: the budget named" "$tmp/all" "loading needs more memory than its budget of 68 MiB (64 MiB + 1 x the $msize bytes of its files; --max-load-memory)"
has "memory: the good one reported" "$tmp/all" "open-weather-station"
run "index memory" 60 "$bin" index "$tmp/specs" --db "$tmp/m.db" --max-load-memory 1
cat "$tmp/out" "$tmp/err" >"$tmp/all"
[ "$st" = 1 ] && ok "index memory: exit 1 (one failed)" || bad "index memory: exit $st"
has "index memory: the good one added" "$tmp/all" "1 added"
has "index memory: the failure named" "$tmp/all" "memory.json:1:"
has "index memory: 1 failed" "$tmp/all" "1 failed"
run "list memory" 30 "$bin" list --db "$tmp/m.db" --json
has "index memory: the good one is in the index" "$tmp/out" "open-weather-station"
run "index memory, 2 jobs" 60 "$bin" index "$tmp/specs" --db "$tmp/m2.db" --jobs 2 --max-load-memory 1
cat "$tmp/out" "$tmp/err" >"$tmp/all"
has "index memory --jobs 2: the good one added" "$tmp/all" "1 added"
has "index memory --jobs 2: the failure named" "$tmp/all" "memory.json:1:"
run "inspect ref pad" 60 "$bin" inspect "$tmp/refs/root.json" --json --max-load-memory 1
[ "$st" = 1 ] && ok "ref pad: exit 1" || bad "ref pad: exit $st"
has "ref pad: the referenced file named" "$tmp/out" "pad.json"
has "ref pad: the budget counts both files" "$tmp/out" "x the $(( $(stat -c %s "$tmp/refs/root.json") + $(stat -c %s "$tmp/refs/pad.json") )) bytes"
has "ref pad: the API failed" "$tmp/out" '"failed":true'
run "inspect memory, a larger budget" 60 "$bin" inspect "$tmp/specs/memory.json" --max-load-memory 400 --json
[ "$st" = 0 ] && ok "--max-load-memory 400: loads" || { bad "--max-load-memory 400: exit $st"; head -c 600 "$tmp/out" "$tmp/err"; }
has "--max-load-memory 400: the budget shown" "$tmp/out" '"budget":'"$(( (64 << 20) + 400 * msize ))"
APIDEX_MAX_LOAD_MEMORY=400 run "APIDEX_MAX_LOAD_MEMORY=400" 60 "$bin" inspect "$tmp/specs/memory.json"
[ "$st" = 0 ] && ok "APIDEX_MAX_LOAD_MEMORY=400: loads" || bad "APIDEX_MAX_LOAD_MEMORY=400: exit $st"
run "bad --max-load-memory" 10 "$bin" index "$tmp/specs" --db "$tmp/m3.db" --max-load-memory 0
[ "$st" = 2 ] && ok "--max-load-memory 0: a usage error" || bad "--max-load-memory 0: exit $st"
rm -rf "$tmp/specs/memory.json" "$tmp/refs"

echo "== invalid UTF-8"
"$py" - "$tmp/specs/utf8.yaml" <<'PY'
import sys
open(sys.argv[1], "wb").write(b"openapi: 3.0.3\ninfo:\n  title: Bad Bytes\n  version: '1'\npaths:\n"
    b"  /x:\n    get:\n      summary: caf\xe9 \xff ok\n      responses:\n        '200':\n          description: ok\n")
PY
run "inspect utf8" 30 "$bin" inspect "$tmp/specs/utf8.yaml"
cat "$tmp/out" "$tmp/err" >"$tmp/all"
[ "$st" = 0 ] && ok "utf8: loads (exit 0)" || bad "utf8: exit $st"
has "utf8: the warning" "$tmp/all" "invalid UTF-8"
has "utf8: line:col" "$tmp/all" "utf8.yaml:8:"
[ "$(grep -c 'invalid UTF-8' "$tmp/all")" = 1 ] && ok "utf8: warned once" || bad "utf8: warned $(grep -c 'invalid UTF-8' "$tmp/all") times"
run "inspect utf8 --json" 30 "$bin" inspect "$tmp/specs/utf8.yaml" --json
has "utf8: the warning in --json" "$tmp/out" "invalid UTF-8"
rm "$tmp/specs/utf8.yaml"
exit $fail
