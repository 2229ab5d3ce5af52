#!/usr/bin/env bash
# --color auto|always|never on search results and show: always paints, never and pipes do
# not, auto paints on a terminal (a real pty from script(1)) unless NO_COLOR is set or TERM
# is dumb, and JSON never gets escape codes.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin=${APIDEX_BIN:?APIDEX_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet
esc=$'\033['
has_color() { grep -qF "$esc" "$1"; }
unset NO_COLOR
export TERM=xterm

for cmd in "search storm-alerts --db $db" "show open-weather-station:listAlerts --db $db"; do
  # shellcheck disable=SC2086
  "$bin" $cmd --color always >"$tmp/always"
  has_color "$tmp/always" || fail "$cmd --color always: no colour"
  # shellcheck disable=SC2086
  "$bin" $cmd --color never >"$tmp/never"
  if has_color "$tmp/never"; then fail "$cmd --color never: colour"; fi
  # shellcheck disable=SC2086
  "$bin" $cmd >"$tmp/pipe"
  if has_color "$tmp/pipe"; then fail "$cmd into a pipe (auto): colour"; fi
  # The words are the same, only painted: strip the escapes and compare.
  sed 's/\x1b\[[0-9;]*m//g' "$tmp/always" >"$tmp/stripped"
  cmp -s "$tmp/stripped" "$tmp/never" || fail "$cmd: --color always changes the text: $(diff "$tmp/stripped" "$tmp/never")"
  # always wins over NO_COLOR (it is asked for)
  # shellcheck disable=SC2086
  NO_COLOR=1 "$bin" $cmd --color always >"$tmp/always2"
  has_color "$tmp/always2" || fail "$cmd --color always with NO_COLOR: no colour"
  # auto on a terminal: colour, unless NO_COLOR or TERM=dumb
  script -qec "$bin $cmd" /dev/null >"$tmp/tty"
  has_color "$tmp/tty" || fail "$cmd on a terminal (auto): no colour"
  NO_COLOR=1 script -qec "$bin $cmd" /dev/null >"$tmp/tty_nc"
  if has_color "$tmp/tty_nc"; then fail "$cmd on a terminal with NO_COLOR: colour"; fi
  TERM=dumb script -qec "$bin $cmd" /dev/null >"$tmp/tty_dumb"
  if has_color "$tmp/tty_dumb"; then fail "$cmd on a dumb terminal: colour"; fi
  script -qec "$bin $cmd --color never" /dev/null >"$tmp/tty_never"
  if has_color "$tmp/tty_never"; then fail "$cmd --color never on a terminal: colour"; fi
  # shellcheck disable=SC2086
  "$bin" $cmd --json --color always >"$tmp/json"
  if has_color "$tmp/json"; then fail "$cmd --json --color always: escape codes in JSON"; fi
done
# the method and the path of a result are what gets painted
"$bin" search storm-alerts --db "$db" --color always | grep -qF "${esc}1;36mGET${esc}0m" ||
  fail "search: the method is not painted"
echo "ok"
