#!/usr/bin/env bash
# Shell completion (bash, zsh, fish) and the man page, all generated from the commands' flag
# tables: every flag a --help names is completed and in the manual, values of fixed-set flags
# complete, the real shells load the scripts, and `cmake --install` puts the four files where
# the shells and man look.
set -euo pipefail
bin=${APIDEX_BIN:?APIDEX_BIN not set}
build=${APIDEX_BUILD_DIR:-$(dirname "$bin")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for sh in zsh fish; do
  command -v $sh >/dev/null || fail "$sh is not installed (run make deps)"
done
"$bin" completion bash >"$tmp/apidex.bash"
"$bin" completion zsh >"$tmp/_apidex"
"$bin" completion fish >"$tmp/apidex.fish"
"$bin" man >"$tmp/apidex.1"
bash -n "$tmp/apidex.bash" || fail "bash completion does not parse"
zsh -n "$tmp/_apidex" || fail "zsh completion does not parse"
fish -n "$tmp/apidex.fish" || fail "fish completion does not parse"

# bash_complete WORDS...: what bash's completion offers for the last word.
bash_complete() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _apidex; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$tmp/apidex.bash" "$@"
}
zsh_complete() { # CURRENT is the last word; compadd/_describe/_files print what they get
  zsh -c 'compadd() { if [[ $1 == -a ]]; then print -l -- ${(P)2}; else print -l -- "$@"; fi }
    _describe() { print -l -- ${(P)2} }; _files() { print FILES }
    source "$1" >/dev/null; shift; words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; _apidex' \
    _ "$tmp/_apidex" "$@"
}
fish_complete() { fish -c "source $tmp/apidex.fish; complete -C '$1'" | cut -f1; }

echo "== commands"
for shell in bash zsh fish; do
  case $shell in
    bash) got=$(bash_complete apidex se) ;;
    zsh) got=$(zsh_complete apidex se | cut -d: -f1) ;;
    fish) got=$(fish_complete "apidex se") ;;
  esac
  for want in search serve; do
    grep -qx "$want" <<<"$got" || fail "$shell: 'apidex se<TAB>' lacks $want: $got"
  done
done

echo "== every flag of every command's --help completes, in all three shells"
commands=$("$bin" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ "$(wc -w <<<"$commands")" -ge 17 ] || fail "too few commands in --help: $commands"
for cmd in $commands; do
  [ "$cmd" = version ] && continue
  flags=$("$bin" "$cmd" --help | grep -oE '(^|[][ |(/,])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[][ |(/,]//' |
    grep -vE '^-[a-zA-Z0-9][a-zA-Z0-9]' | sort -u || true)
  b=$(bash_complete apidex "$cmd" -)
  z=$(zsh_complete apidex "$cmd" -)
  f=$(fish_complete "apidex $cmd -")
  for flag in $flags; do
    # flags of something else a help mentions (as test_cli_flags.sh lists them)
    case " feedback:--usage-prior model:--model man:-l " in *" $cmd:$flag "*) continue ;; esac
    grep -qx -- "$flag" <<<"$b" || fail "bash: apidex $cmd $flag is not completed"
    grep -qx -- "$flag" <<<"$z" || fail "zsh: apidex $cmd $flag is not completed"
    grep -qx -- "$flag" <<<"$f" || fail "fish: apidex $cmd $flag is not completed"
    grep -qF -- "$(sed 's/-/\\-/g' <<<"$flag")" "$tmp/apidex.1" || fail "man page lacks $cmd $flag"
  done
done

echo "== values of fixed-set flags"
check_values() { # CMD FLAG WANT...
  local cmd=$1 flag=$2
  shift 2
  local b z f
  b=$(bash_complete apidex "$cmd" "$flag" "")
  z=$(zsh_complete apidex "$cmd" "$flag" "")
  f=$(fish_complete "apidex $cmd $flag ")
  for want in "$@"; do
    grep -qx "$want" <<<"$b" || fail "bash: apidex $cmd $flag lacks $want: $b"
    grep -qx "$want" <<<"$z" || fail "zsh: apidex $cmd $flag lacks $want: $z"
    grep -qx "$want" <<<"$f" || fail "fish: apidex $cmd $flag lacks $want: $f"
  done
}
check_values tools --format openai anthropic
check_values search --color auto always never
check_values search --mode lexical dense hybrid
check_values search --method GET POST DELETE
check_values tokens --tokenizer cl100k wordpiece
check_values serve --mode lexical dense hybrid
check_values mcp --duplicates prefer-newest all
check_values embed --provider local http
check_values snippet --lang curl python javascript go

echo "== the man page"
man -l "$tmp/apidex.1" >"$tmp/man.txt" 2>"$tmp/man.err" || fail "man -l: $(cat "$tmp/man.err")"
grep -q "^NAME" "$tmp/man.txt" || fail "man page has no NAME"
for cmd in $commands; do
  grep -q "apidex $cmd" "$tmp/man.txt" || [ "$cmd" = version ] || fail "man page lacks 'apidex $cmd'"
done
grep -q "NO_COLOR" "$tmp/man.txt" || fail "man page does not describe NO_COLOR"
if grep -q 'warning' "$tmp/man.err"; then fail "man warns: $(cat "$tmp/man.err")"; fi

echo "== make install puts them where the shells and man look"
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in share/man/man1/apidex.1 share/bash-completion/completions/apidex \
  share/zsh/site-functions/_apidex share/fish/vendor_completions.d/apidex.fish; do
  [ -s "$tmp/prefix/$f" ] || fail "make install: no $f"
done
cmp -s "$tmp/prefix/share/man/man1/apidex.1" "$tmp/apidex.1" || fail "installed man page differs from apidex man"
cmp -s "$tmp/prefix/share/bash-completion/completions/apidex" "$tmp/apidex.bash" ||
  fail "installed bash completion differs from apidex completion bash"
echo "ok"
