#!/usr/bin/env bash
# The cl100k size of each output an agent reads, on the 40-spec corpus: the capability
# manifest (whole and with a budget), MCP list_apis (first page), search (default and with
# a budget), show and MCP get_endpoint for a few big endpoints, and tool definitions for a
# search's top 5. One column per apidex binary given (e.g. this build and main's), each
# with an index it built itself; tokens are counted by the first binary's `apidex tokens`.
# MCP sizes are the text block of the tool result (what a model reads).
#
#   bash bench/agent_tokens.sh BUILD/apidex [OTHER/apidex ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${APIDEX_SHARED_DIR:-$here/../../shared}
[ $# -ge 1 ] || { echo "usage: bash bench/agent_tokens.sh APIDEX_BIN [APIDEX_BIN...]" >&2; exit 2; }
[ -d "$shared/corpus/specs" ] || { echo "no corpus at $shared/corpus/specs (APIDEX_SHARED_DIR)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
counter=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
count() { "$counter" tokens "$1"; }

# MCP: initialize, then one tools/call; prints the result's first text block, or with a
# fifth argument "whole" the whole JSON-RPC response (text block and structuredContent).
mcp_call() { # bin db tool json-args [whole]
  python3 - "$@" <<'PY'
import json, subprocess, sys
bin, db, tool, args = sys.argv[1:5]
whole = len(sys.argv) > 5 and sys.argv[5] == "whole"
msgs = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
     "capabilities": {}, "clientInfo": {"name": "agent_tokens", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": json.loads(args)}},
]
p = subprocess.run([bin, "mcp", "--db", db], input="".join(json.dumps(m) + "\n" for m in msgs),
                   capture_output=True, text=True, timeout=120)
for line in p.stdout.splitlines():
    m = json.loads(line)
    if m.get("id") == 2 and whole:
        sys.stdout.write(line)
    elif m.get("id") == 2:
        r = m.get("result") or {}
        sys.stdout.write((r.get("content") or [{}])[0].get("text", json.dumps(m)))
PY
}

task="Create a new customer and charge their card"
big_ids=(spec3:PostCustomers DigitalOcean-public.v2:dropletActions_post
  "apisguru2020__amazonaws.com_ec2_2016-11-15/openapi:POST_CreateCustomerGateway"
  twilio_api_v2010:CreateMessage)
kinds=("list --manifest" "list --manifest --budget 4000" "MCP list_apis (first page)"
  "MCP list_apis (first page, whole response)"
  "search (default, k 10)" "search --budget 1500")
for id in "${big_ids[@]}"; do kinds+=("show ${id##*:}" "MCP get_endpoint ${id##*:}"); done
kinds+=("tools --search -k 5")

col=0
for bin in "$@"; do
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  db="$tmp/corpus$col.db"
  "$bin" index "$shared/corpus/specs" "$shared/benchmarks/restbench/specs" --db "$db" --quiet >/dev/null 2>&1 || true
  out="$tmp/col$col"
  : > "$out"
  run() { "$@" > "$tmp/o" 2>/dev/null || true; count "$tmp/o" >> "$out"; }
  run "$bin" list --manifest --db "$db"
  if grep -q -- --budget <<<"$("$bin" list --help 2>&1 || true)"; then run "$bin" list --manifest --budget 4000 --db "$db"; else echo "n/a" >> "$out"; fi
  mcp_call "$bin" "$db" list_apis '{}' > "$tmp/o"; count "$tmp/o" >> "$out"
  mcp_call "$bin" "$db" list_apis '{}' whole > "$tmp/o"; count "$tmp/o" >> "$out"
  run "$bin" search "$task" --db "$db"
  run "$bin" search "$task" --budget 1500 --db "$db"
  for id in "${big_ids[@]}"; do
    run "$bin" show "$id" --db "$db"
    mcp_call "$bin" "$db" get_endpoint "{\"id\": \"$id\"}" > "$tmp/o"; count "$tmp/o" >> "$out"
  done
  run "$bin" tools --search "$task" -k 5 --db "$db"
  col=$((col + 1))
done

printf '| output (cl100k tokens) |'
for bin in "$@"; do printf ' %s |' "$(basename "$(dirname "$(dirname "$bin")")")/$(basename "$(dirname "$bin")")"; done
printf '\n|---|'; for _ in "$@"; do printf -- '---:|'; done; printf '\n'
for i in "${!kinds[@]}"; do
  printf '| %s |' "${kinds[$i]}"
  for ((c = 0; c < col; c++)); do printf ' %s |' "$(sed -n "$((i + 1))p" "$tmp/col$c")"; done
  printf '\n'
done
echo
echo "task: \"$task\"; corpus: $shared/corpus/specs + restbench specs"
