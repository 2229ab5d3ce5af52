#!/usr/bin/env bash
# apidex tokens: counts and ids with cl100k (expected ids from the npm tiktoken 1.0.22)
# and WordPiece (bge-small-en-v1.5 from ../shared), stdin and files, usage errors.
set -euo pipefail
bin=${APIDEX_BIN:?APIDEX_BIN not set}
shared=${APIDEX_SHARED_DIR:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
expect() { # expect NAME WANT GOT
  [ "$2" = "$3" ] || fail "$1: want '$2', got '$3'"
}

expect "ids, specials on" "15339 1917 220 100257" \
  "$(printf 'hello world <|endoftext|>' | "$bin" tokens --ids --special -)"
expect "ids, specials as text" "15339 1917 83739 8862 728 428 91 29" \
  "$(printf 'hello world <|endoftext|>' | "$bin" tokens --ids -)"
expect "count from stdin" "2" "$(printf 'hello world' | "$bin" tokens -)"
printf "I'm here, they'LL go; it's 1234567 o'clock!" >"$tmp/a.txt"
expect "ids from a file" "40 2846 1618 11 814 6 4178 733 26 433 596 220 4513 10961 22 297 63510 0" \
  "$("$bin" tokens --tokenizer cl100k --ids "$tmp/a.txt")"
expect "count from a file" "18" "$("$bin" tokens "$tmp/a.txt")"
expect "empty input" "0" "$(printf '' | "$bin" tokens -)"
expect "empty input, ids" "" "$(printf '' | "$bin" tokens --ids -)"
expect "invalid UTF-8 reads as U+FFFD" "370 5809" "$(printf 'ab\xff' | "$bin" tokens --ids -)"

status=0
"$bin" tokens "$tmp/missing.txt" 2>/dev/null || status=$?
expect "missing file exits 3" "3" "$status"
status=0
"$bin" tokens --tokenizer bogus "$tmp/a.txt" 2>/dev/null || status=$?
expect "unknown tokenizer exits 2" "2" "$status"
status=0
"$bin" tokens 2>/dev/null || status=$?
expect "no input exits 2" "2" "$status"
"$bin" tokens --help | grep -q "tokenizer cl100k" || fail "--help does not describe --tokenizer"

vocab="$shared/models/bge-small-en-v1.5/vocab.txt"
if [ -n "$shared" ] && [ -f "$vocab" ]; then
  expect "wordpiece ids" "7592 1010 2088 999" \
    "$(printf 'Hello, World!' | "$bin" tokens --tokenizer wordpiece --vocab "$vocab" --ids -)"
  expect "wordpiece with [CLS]/[SEP]" "101 7592 1010 2088 999 102" \
    "$(printf 'Hello, World!' | "$bin" tokens --tokenizer wordpiece --vocab "$vocab" --special --ids -)"
  expect "wordpiece via APIDEX_MODEL" "4" \
    "$(printf 'Hello, World!' | APIDEX_MODEL="$(dirname "$vocab")" "$bin" tokens --tokenizer wordpiece -)"
  status=0
  "$bin" tokens --tokenizer wordpiece --vocab "$tmp/none.txt" "$tmp/a.txt" 2>/dev/null || status=$?
  expect "missing vocab exits 3" "3" "$status"
fi
echo "test_cli_tokens: ok"
