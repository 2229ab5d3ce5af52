#!/usr/bin/env bash
# Token budgets where an agent reads, on the 40-spec corpus (skipped without ../shared):
# `list --manifest --budget N` and `search --budget N` never print more than N cl100k tokens
# (counted with `apidex tokens` on the output), strip HTML and markdown, and say what was left
# out; show and tools strip HTML; MCP list_apis pages through the catalog with the official
# SDK client.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
if [ ! -d "$shared/corpus/specs" ]; then echo "skip: no $shared/corpus/specs"; exit 0; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
db="$tmp/corpus.db"
"$bin" index "$shared/corpus/specs" "$shared/benchmarks/restbench/specs" --db "$db" --quiet 2>/dev/null || true
[ -s "$db" ] || { echo "FAIL: the corpus did not index"; exit 1; }
fail=0
ok() { echo "ok $*"; }
bad() { echo "FAIL $*"; fail=1; }

# The manifest without a budget: plain text, every API, no cut-off words.
"$bin" list --manifest --db "$db" > "$tmp/full.txt"
if grep -qE '<p>|</p>|<a href|\]\(http' "$tmp/full.txt"; then bad "manifest has HTML or markdown links"; else ok "manifest is plain"; fi
if grep -q 'Successf' "$tmp/full.txt"; then bad "manifest has cut words"; else ok "manifest cuts no word"; fi
full=$("$bin" tokens "$tmp/full.txt")
for n in 150 500 2000 8000 30000; do
  "$bin" list --manifest --budget $n --db "$db" > "$tmp/m$n.txt"
  t=$("$bin" tokens "$tmp/m$n.txt")
  if [ "$t" -le "$n" ]; then ok "manifest --budget $n: $t tokens"; else bad "manifest --budget $n printed $t tokens"; fi
  if [ "$t" -lt "$full" ] && ! grep -q '^Left out to stay within '"$n"' tokens' "$tmp/m$n.txt"; then
    bad "manifest --budget $n does not say what it left out"
  fi
done
# a larger budget shows at least as much, and the most general endpoint of a tag comes first
[ "$(wc -l < "$tmp/m8000.txt")" -gt "$(wc -l < "$tmp/m2000.txt")" ] && ok "more budget, more lines" || bad "more budget, no more lines"
grep -q '^- Droplets: Query: List All Droplets' "$tmp/m30000.txt" && ok "general endpoints first" || bad "Droplets does not start with List All Droplets"
# every API is named under a moderate budget (breadth first)
apis=$("$bin" list --json --db "$db" | grep -o '"operations":[1-9]' | wc -l)
shown=$(grep -c '^## ' "$tmp/m8000.txt")
[ "$shown" -eq "$apis" ] && ok "every API with operations under --budget 8000 ($shown)" || bad "--budget 8000 shows $shown of $apis APIs"
if "$bin" list --manifest --budget 20 --db "$db" > /dev/null 2> "$tmp/err"; then bad "a 20-token manifest"; else
  [ $? -eq 2 ] && grep -q 'too small' "$tmp/err" && ok "tiny budget: exit 2" || bad "tiny budget: $(cat "$tmp/err")"
fi
"$bin" list --manifest --budget abc --db "$db" > /dev/null 2>&1 && bad "--budget abc accepted" || ok "--budget abc refused"
"$bin" list --manifest --api stripe --budget 400 --db "$db" > "$tmp/stripe.txt"
[ "$("$bin" tokens "$tmp/stripe.txt")" -le 400 ] && grep -q '(api stripe' "$tmp/stripe.txt" && ok "--api with --budget" || bad "--api stripe --budget 400"

# search --budget counts everything it prints, text and JSON.
for task in "create a customer" "Accept a VPC peering connection request"; do
  for n in 100 1500 4000; do
    "$bin" search "$task" --budget $n --db "$db" > "$tmp/s.txt"
    t=$("$bin" tokens "$tmp/s.txt")
    [ "$t" -le "$n" ] || bad "search '$task' --budget $n printed $t tokens"
    "$bin" search "$task" --budget $n --json --db "$db" > "$tmp/s.json"
    t=$("$bin" tokens "$tmp/s.json")
    [ "$t" -le "$n" ] || bad "search --json '$task' --budget $n printed $t tokens"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/s.json" || bad "search --json --budget $n is not JSON"
  done
done
ok "search --budget within the budget (text and JSON)"
"$bin" search "Accept a VPC peering connection request" --budget 4000 --db "$db" > "$tmp/ec2.txt"
grep -q '# Endpoints' "$tmp/ec2.txt" && ok "search --budget 4000 has context" || bad "no context at 4000"
if grep -qE '<p>|</p>|<a href|<code>' "$tmp/ec2.txt"; then bad "search context has HTML"; else ok "search context is plain"; fi
"$bin" search "Accept a VPC peering connection request" --budget 1500 --db "$db" | tail -1 | grep -q 'within --budget 1500' && ok "search says it is within the budget" || bad "search --budget trailer"

# Endpoint details and tool definitions are plain text too (the specs' descriptions hold
# <p>, <a href>, <code> and entities: Stripe, EC2, DigitalOcean).
html='<p>|</p>|<a href|</a>|<code>|<note>|&quot;|&lt;'
for op in stripe:PostCustomers amazonaws-ec2:POST_RunInstances \
  digitalocean:dropletActions_post; do
  for level in call full; do
    "$bin" show "$op" --detail $level --json --db "$db" > "$tmp/show.json"
    if grep -qE "$html" "$tmp/show.json"; then bad "show $op --detail $level has HTML"; fi
  done
  "$bin" tools "$op" --db "$db" > "$tmp/tools.json"
  if grep -qE "$html" "$tmp/tools.json"; then bad "tools $op has HTML"; fi
  "$bin" tools "$op" --format anthropic --db "$db" > "$tmp/tools.json"
  if grep -qE "$html" "$tmp/tools.json"; then bad "tools --format anthropic $op has HTML"; fi
done
ok "show and tools are plain"

# MCP list_apis, paginated, through the official SDK client.
node_dir="$src/tools/node"
if [ -d "$node_dir/node_modules/@modelcontextprotocol/sdk" ]; then
  timeout 120 node "$src/tests/e2e/mcp/list_apis_pages.mjs" "$node_dir" "$bin" "$db" || bad "list_apis pages"
else
  bad "@modelcontextprotocol/sdk is not installed (make deps)"
fi
exit $fail
