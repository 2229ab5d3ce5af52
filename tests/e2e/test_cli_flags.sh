#!/usr/bin/env bash
# Every command's flags come from its flag table (src/cli/flags.c): its --help names exactly
# the flags the table declares (completion offers the table's flags, so a flag parsed by
# hand outside the table and documented in --help fails here), and misspelt flags of every
# command are refused (exit 2) with the table's flag as "did you mean".
set -euo pipefail
bin=${APIDEX_BIN:?APIDEX_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
export APIDEX_DB="$tmp/none.db" APIDEX_REGISTRY="$tmp/none.yaml"
"$bin" completion bash >"$tmp/c.bash"

# Flags a --help mentions that belong to something else: search's --usage-prior (feedback
# says where the uses it records count), embed's --model (model path resolves it) and
# man(1)'s -l (man shows how to read its output).
mentions=" feedback:--usage-prior model:--model man:-l "

# swap FLAG: FLAG with its first two different neighbouring letters after the dashes swapped
# (a Damerau distance of 1: --rdy-run for --dry-run); a one-letter --k gets a letter more
swap() {
  local f=$1 p=2
  while [ $((p + 1)) -lt ${#f} ] && { [ "${f:p:1}" = "${f:p+1:1}" ] || [ "${f:p+1:1}" = - ]; }; do
    p=$((p + 1))
  done
  if [ $((p + 1)) -ge ${#f} ]; then echo "${f}x"; else echo "${f:0:p}${f:p+1:1}${f:p:1}${f:p+2}"; fi
}

commands=$("$bin" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ "$(wc -w <<<"$commands")" -ge 26 ] || fail "too few commands in --help: $commands"
checked=0
for cmd in $commands; do
  [ "$cmd" = version ] && continue
  help=$("$bin" "$cmd" --help | grep -oE '(^|[][ |(/,])--?[a-zA-Z][a-zA-Z0-9-]*' |
    sed 's/^[][ |(/,]//' | grep -vE '^-[a-zA-Z0-9][a-zA-Z0-9]' | sort -u || true)
  help=$( (
    for f in $help; do case "$mentions" in *" $cmd:$f "*) ;; *) echo "$f" ;; esac; done
    echo --help
  ) | sort -u)
  table=$(grep "^    $cmd) opts=" "$tmp/c.bash" | sed 's/.*opts="//; s/".*//' | tr ' ' '\n' | sort -u)
  [ -n "$table" ] || fail "completion has no flags for $cmd"
  if [ "$help" != "$table" ]; then
    fail "$cmd: --help and the flag table differ (< help only, > table only):
$(diff <(echo "$help") <(echo "$table") | grep '^[<>]')"
  fi
  # a misspelling of its first, middle and last long flag (each process costs ~0.1 s)
  long=($(grep -x -- '--.*' <<<"$table" | grep -vx -- --help || true))
  n=${#long[@]}
  picks=()
  [ "$n" -gt 0 ] && picks=("${long[0]}" "${long[$((n / 2))]}" "${long[$((n - 1))]}")
  [ "$n" -gt 0 ] || picks=(--help)
  for flag in $(printf '%s\n' "${picks[@]}" | sort -u); do
    typo=$(swap "$flag")
    set +e
    timeout 20 "$bin" "$cmd" "$typo" </dev/null >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "apidex $cmd $typo: exit $rc, not 2: $(cat "$tmp/err")"
    grep -qF "apidex $cmd: unknown option '$typo'; did you mean '$flag'?" "$tmp/err" ||
      fail "apidex $cmd $typo: no 'did you mean $flag': $(cat "$tmp/err")"
    checked=$((checked + 1))
  done
done
[ "$checked" -ge 60 ] || fail "only $checked flags checked"

echo "== --name=value takes the value as the next word does"
usage() { # WANT ARGS...: exit 2 and WANT on stderr
  local want=$1 rc
  shift
  set +e
  "$bin" "$@" </dev/null >/dev/null 2>"$tmp/err"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "apidex $*: exit $rc, not 2"
  grep -qF -- "$want" "$tmp/err" || fail "apidex $*: $(cat "$tmp/err")"
}
usage "apidex match: --k takes a whole number from 1 to 100, got '0'" match x --k=0
usage "apidex serve: --threads takes a whole number from 1 to 64, got '0'" serve --threads=0
usage "apidex tokens: --tokenizer takes cl100k or wordpiece, got 'x'" tokens --tokenizer=x -
usage "unknown option '--json=1'" stats --json=1 x
echo "ok ($checked misspelt flags)"
