#!/usr/bin/env bash
# One version number in one place (include/apidex.h's APIDEX_VERSION_MAJOR/MINOR/PATCH; the
# CMake project and apidex.pc read it from there), shown the same by `apidex --version`,
# `apidex version`, MCP serverInfo.version, GET /healthz and the man page, and the newest
# entry of CHANGELOG.md.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin=${APIDEX_BIN:?APIDEX_BIN not set}
build=$(cd "$(dirname "$bin")" && pwd)
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

part() { sed -n "s/^#define APIDEX_VERSION_$1 *\([0-9][0-9]*\)\$/\1/p" "$src/include/apidex.h"; }
want="$(part MAJOR).$(part MINOR).$(part PATCH)"
[[ "$want" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "include/apidex.h: no MAJOR/MINOR/PATCH ($want)"
echo "== the version is $want"

# The one place: no other file spells the number out.
if grep -nE '^#define APIDEX_VERSION_STRING +"' "$src/include/apidex.h"; then
  fail "APIDEX_VERSION_STRING is a second copy of the number: derive it from MAJOR/MINOR/PATCH"
fi
if grep -nE 'project\(apidex +VERSION +[0-9]' "$src/CMakeLists.txt"; then
  fail "CMakeLists.txt spells the version: read it from include/apidex.h"
fi

[ "$("$bin" --version)" = "apidex $want" ] || fail "--version: $("$bin" --version)"
[ "$("$bin" version)" = "apidex $want" ] || fail "version: $("$bin" version)"
grep -q "^Version: $want\$" "$build/apidex.pc" || fail "apidex.pc: $(grep Version "$build/apidex.pc")"
"$bin" man >"$tmp/man.1"
grep -q "apidex $want" "$tmp/man.1" || fail "the man page does not say $want"

# CHANGELOG.md: Keep a Changelog, the newest entry is this version.
newest=$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' "$src/CHANGELOG.md" | head -1)
[ "$newest" = "$want" ] || fail "CHANGELOG.md's newest entry is '$newest', not $want"

echo "== make dist names the tarball and its folder by the version"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  make --no-print-directory -s -C "$src" dist BUILD="$tmp/dist" >"$tmp/dist.out" 2>&1 ||
    fail "make dist: $(cat "$tmp/dist.out")"
  [ -f "$tmp/dist/apidex-$want.tar.gz" ] || fail "make dist made $(ls "$tmp/dist"), not apidex-$want.tar.gz"
  tar -tzf "$tmp/dist/apidex-$want.tar.gz" | grep -x "apidex-$want/include/apidex.h" >/dev/null ||
    fail "the tarball's files are not under apidex-$want/"
else
  echo "note: $src is not a git checkout: make dist (git ls-files) not checked"
fi

db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet

echo "== MCP serverInfo.version"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}'
printf '%s\n' "$init" | timeout 30 "$bin" mcp --db "$db" >"$tmp/mcp.json" 2>"$tmp/mcp.err" || true
python3 - "$tmp/mcp.json" "$want" <<'EOF' || fail "MCP: $(head -c 400 "$tmp/mcp.json") $(cat "$tmp/mcp.err")"
import json, sys
reply = json.loads(open(sys.argv[1]).readline())
info = reply["result"]["serverInfo"]
assert info["name"] == "apidex" and info["version"] == sys.argv[2], info
EOF

echo "== GET /healthz"
timeout 120 "$bin" serve --db "$db" --listen 127.0.0.1:0 --port-file "$tmp/port" \
  --reload-interval 0 2>"$tmp/serve.err" &
server=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || fail "serve did not start: $(cat "$tmp/serve.err")"
curl -s --max-time 10 "http://127.0.0.1:$(cat "$tmp/port")/healthz" >"$tmp/health.json"
python3 - "$tmp/health.json" "$want" <<'EOF' || fail "/healthz: $(head -c 400 "$tmp/health.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["version"] == sys.argv[2], d
EOF
echo ok
