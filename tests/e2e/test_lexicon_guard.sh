#!/usr/bin/env bash
# One lexicon: every English word list of the search engine and of the index's reading of
# specs lives in src/text/lexicon.h, with a line on where each is used. Fails when a list of
# lower-case word literals is written anywhere else in src/search, src/flow (the data flow
# and operation facts), src/view/describe.c or src/text/actions.c. Lists of HTTP methods, of
# OpenAPI keywords (oneOf, anyOf) and of a match's feature names are no English and stay.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$src" || exit 1
found=$(perl -0777 -ne '
  while (/const char \*const (\w+)((?:\[\w*\])+) = \{\s*\{?\s*"([a-z][^"]*)"/g) {
    my ($name, $first) = ($1, $3);
    next if $first =~ /^(get|post|put|patch|delete|head|options)$/ && $name =~ /^(m|methods?)$/;
    next if $name eq "alts" || $name eq "sim_names";
    print "$ARGV: $name (\"$first\" ...)\n";
  }' src/search/*.c src/flow/*.c src/view/describe.c \
      src/text/actions.c)
if [ -n "$found" ]; then
  echo "FAIL: English word lists outside src/text/lexicon.h (move them there, with where they are used):"
  echo "$found"
  exit 1
fi
n=$(grep -c '^#define TEXT_LEX_' src/text/lexicon.h)
used=$(grep -rhoE 'TEXT_LEX_[A-Z_]+' src --include='*.c' | sort -u | wc -l)
[ "$n" -ge 20 ] || { echo "FAIL: only $n lists in src/text/lexicon.h: is the guard looking at the right place?"; exit 1; }
[ "$n" = "$used" ] || { echo "FAIL: src/text/lexicon.h defines $n lists, the sources use $used: remove the unused"; exit 1; }
echo "ok English word lists in src/text/lexicon.h ($n lists)"
