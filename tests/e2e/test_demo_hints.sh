#!/usr/bin/env bash
# `make demo`'s closing hints run as printed: scripts/demo.sh with the apidex already built
# (DEMO_BIN: no apt, no build) prints its story and three "Next" lines; each runs, from the
# folder make demo runs in, with exit 0: `show` of the endpoint id it names prints that
# endpoint, `list` the APIs, `--help` and the man page it names.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin=${APIDEX_BIN:?APIDEX_BIN not set}
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
export HOME="$tmp/home"
mkdir -p "$HOME"
DEMO_BIN="$bin" BUILD="$tmp/demo" bash "$src/scripts/demo.sh" >"$tmp/story" 2>&1 ||
  fail "demo.sh: $(tail -n 30 "$tmp/story")"
cat "$tmp/story"
grep -q '^Next, as printed' "$tmp/story" || fail "no 'Next, as printed' lines"
sed -n '/^Next, as printed/,$p' "$tmp/story" | sed -n 's/^   //p' | sed 's/  *# .*$//' >"$tmp/hints"
[ "$(wc -l <"$tmp/hints")" -ge 3 ] || fail "the hints: $(cat "$tmp/hints")"
grep -q ' show [a-z0-9_.-]*:[^ ]* ' "$tmp/hints" || fail "the show hint names no endpoint id: $(cat "$tmp/hints")"
n=0
while IFS= read -r line; do
  (cd "$src" && MANPAGER=cat PAGER=cat eval "$line") >"$tmp/out" 2>"$tmp/err" </dev/null ||
    fail "the hint '$line' failed: $(head -c 600 "$tmp/err")"
  case "$line" in
  *" show "*)
    id=$(printf '%s\n' "$line" | sed -n 's/.* show \([^ ]*\) .*/\1/p')
    grep -qF "${id#*:}" "$tmp/out" || fail "show $id printed: $(head -c 400 "$tmp/out")"
    ;;
  *" list "*) grep -q 'recipe-box' "$tmp/out" || fail "list printed: $(head -c 400 "$tmp/out")" ;;
  *man*) grep -qi 'apidex' "$tmp/out" || fail "the man page hint printed: $(head -c 400 "$tmp/out")" ;;
  esac
  n=$((n + 1))
done <"$tmp/hints"
echo "ok: $n hints ran as printed"
