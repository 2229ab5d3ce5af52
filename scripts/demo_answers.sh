#!/usr/bin/env bash
# The answers of `make demo`, checked: asks apidex each showcase task of a gold file
# (scripts/demo_answers.txt: NEEDS<TAB>TASK<TAB>ids), prints the answer as the demo shows it
# and says whether it is right (every endpoint the task needs, nothing else) or wrong (what
# is missing, what is not needed). Exit 0 when every answer is right, 1 when one is wrong,
# 2 on a usage error.
#   scripts/demo_answers.sh BIN DB [--restbench] [--gold FILE] [--log FILE]
# --restbench: also the tasks that need the RestBench specs (the index holds them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BIN DB [--restbench] [--gold FILE] [--log FILE]" >&2; exit 2; }
bin=$1 db=$2
shift 2
gold=$here/demo_answers.txt restbench=0 log=/dev/null
while [ $# -gt 0 ]; do
  case $1 in
    --restbench) restbench=1 ;;
    --gold) gold=$2; shift ;;
    --log) log=$2; shift ;;
    *) echo "$0: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -r "$gold" ] || { echo "$0: cannot read $gold" >&2; exit 2; }

say() { printf '%s\n' "$*"; }
wrong=0 asked=0
while IFS=$'\t' read -r needs task ids; do
  case $needs in '' | '#'*) continue ;; esac
  [ "$needs" = restbench ] && [ "$restbench" = 0 ] && continue
  asked=$((asked + 1))
  say
  say "   \$ apidex search \"$task\" --adaptive"
  text=$("$bin" search "$task" --db "$db" --adaptive --color never) || {
    say "   WRONG: apidex search failed (exit $?)"
    wrong=$((wrong + 1))
    continue
  }
  printf '%s\n' "$text" >>"$log"
  printf '%s\n' "$text" | grep -E '^ *[0-9]+\. |^    needs ' | sed 's/^/   /' || true
  got=$(printf '%s\n' "$text" | sed -n 's/^    id: \([^ ]*\).*/\1/p' | sort -u)
  want=$(printf '%s\n' $ids | sort -u)
  missing=$(comm -13 <(printf '%s\n' "$got") <(printf '%s\n' "$want") | paste -sd' ' -)
  extra=$(comm -23 <(printf '%s\n' "$got") <(printf '%s\n' "$want") | paste -sd' ' -)
  if [ -z "$missing$extra" ]; then
    say "   right: the $(printf '%s\n' "$want" | wc -l) endpoints this task needs, nothing else"
  else
    say "   WRONG:${missing:+ missing $missing;}${extra:+ not needed $extra;}"
    wrong=$((wrong + 1))
  fi
done <"$gold"
[ "$asked" -gt 0 ] || { echo "$0: no task in $gold" >&2; exit 2; }
if [ "$wrong" -gt 0 ]; then
  say
  say "   $wrong of $asked answers are wrong (the gold: $gold)"
  exit 1
fi
exit 0
