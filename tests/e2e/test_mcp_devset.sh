#!/usr/bin/env bash
# The MCP dev set (bench/queries/mcp_tasks.json) against its real servers: bench/mcp_tools.mjs
# starts every server of bench/queries/mcp_servers.json over stdio with the official SDK and
# lists their tools (at least 10 servers, none failing); every gold SERVER:TOOL of the set is
# one of them, the set has at least 60 distinct tasks and its kinds say what the gold holds. A
# server that cannot start is that server's error and the others are still dumped. The BM25
# baseline (bench/mcp_bm25.py) ranks a hand-made tool list as computed by hand, and the table
# (bench/retrieval_table.py) shows "-" where a baseline has no number.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
command -v node >/dev/null || { echo "FAIL: node is not on PATH"; exit 1; }
[ -d "$src/tools/node/node_modules/@modelcontextprotocol/sdk" ] ||
  { echo "FAIL: no MCP SDK in tools/node/node_modules (make deps)"; exit 1; }

# 1. every server lists its tools; the set's gold is among them
node "$src/bench/mcp_tools.mjs" --out "$tmp/tools.json" --resolved "$tmp/resolved.json" \
  2>"$tmp/tools.log" || { echo "FAIL: mcp_tools.mjs:"; cat "$tmp/tools.log"; exit 1; }
/usr/bin/python3 - "$tmp" "$src" <<'PY'
import json, os, sys
tmp, src = sys.argv[1], sys.argv[2]
dump = json.load(open(f"{tmp}/tools.json"))
cfg = json.load(open(f"{src}/bench/queries/mcp_servers.json"))["mcpServers"]
assert not dump["errors"], dump["errors"]
assert list(dump["servers"]) == list(cfg), (list(dump["servers"]), list(cfg))
assert len(cfg) >= 10, len(cfg)
ids = set()
for s, v in dump["servers"].items():
    assert v["tools"], f"{s} lists no tools"
    ids |= {f"{s}:{t['name']}" for t in v["tools"]}
# the resolved config: the repository's paths made absolute, the rest as written
res = json.load(open(f"{tmp}/resolved.json"))["mcpServers"]
for s, e in res.items():
    assert e["command"] == cfg[s]["command"] and e.get("env") == cfg[s].get("env"), s
    for a, b in zip(e["args"], cfg[s]["args"]):
        assert a == b or (os.path.isabs(a) and a == os.path.join(src, b) and os.path.exists(a)), (a, b)
tasks = json.load(open(f"{src}/bench/queries/mcp_tasks.json"))
assert len(tasks) >= 60, len(tasks)
assert len({t["query"] for t in tasks}) == len(tasks), "a task is repeated"
servers_used = set()
for i, t in enumerate(tasks):
    sol = t["solution"]
    assert sol and len(set(sol)) == len(sol), (i, sol)
    missing = [g for g in sol if g not in ids]
    assert not missing, (i, missing)
    apis = list(dict.fromkeys(g.split(":", 1)[0] for g in sol))
    assert t["apis"] == apis, (i, t["apis"], apis)
    kind = "cross" if len(apis) > 1 else "multi" if len(sol) > 1 else "single"
    assert t["kind"] == kind, (i, t["kind"], kind)
    servers_used |= set(apis)
assert len(servers_used) >= 10, servers_used
assert sum(len(t["solution"]) > 1 for t in tasks) >= 10, "too few tasks need two tools"
PY

# 2. a server that cannot start: its error, the others still listed, exit 1
cat >"$tmp/bad.json" <<EOF
{"mcpServers": {
  "nothing-here": {"command": "$tmp/no-such-server"},
  "memory": {"command": "node", "args": ["tools/node/node_modules/@modelcontextprotocol/server-memory/dist/index.js"]}
}}
EOF
rc=0
node "$src/bench/mcp_tools.mjs" --config "$tmp/bad.json" --out "$tmp/bad-out.json" \
  --timeout-ms 20000 2>"$tmp/bad.log" || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: a failing server: exit $rc (want 1)"; cat "$tmp/bad.log"; exit 1; }
/usr/bin/python3 -c "
import json, sys
d = json.load(open('$tmp/bad-out.json'))
assert list(d['errors']) == ['nothing-here'], d['errors']
assert len(d['servers']['memory']['tools']) > 3, d['servers']
"

# 3. BM25 on a hand-made list. Documents (tokens): a = {s, read, file, path, the, file},
# b = {s, write, file}; the query "read the file" matches a on read, the, file and b on file
# only, so a ranks first; "delete" matches nothing, so nothing is returned.
cat >"$tmp/mini.json" <<'EOF'
{"servers": {"s": {"tools": [
  {"name": "read", "description": "file", "inputSchema": {"properties": {"path": {"description": "the file"}}}},
  {"name": "write_file", "inputSchema": {}}]}}}
EOF
cat >"$tmp/mini-tasks.json" <<'EOF'
[{"query": "read the file", "solution": ["s:write_file"]},
 {"query": "delete", "solution": ["s:read"]}]
EOF
python3 "$src/bench/mcp_bm25.py" "$tmp/mini.json" "$tmp/mini-tasks.json" >"$tmp/mini-out.json"
/usr/bin/python3 -c "
import json
d = json.load(open('$tmp/mini-out.json'))
p = d['per_query']
assert p[0]['returned'] == ['s:read', 's:write_file'], p[0]['returned']
assert p[1]['returned'] == [], p[1]['returned']
assert d['recall_at'] == {'5': 0.5, '10': 0.5, '20': 0.5}, d['recall_at']
assert d['baseline'] == 'bm25' and d['answerable'] == 2
"
printf '\tmcp-bm25\tmcp bm25\t%s\n' "$tmp/mini-out.json" >"$tmp/manifest.tsv"
python3 "$src/bench/retrieval_table.py" "$tmp/manifest.tsv" >"$tmp/table.md"
grep -qx '| mcp-bm25 | 2 | 0.500 | 0.500 | 0.500 | 0.500 | - | - | - | - | - | - | - | - | - |' \
  "$tmp/table.md" || { echo "FAIL: table:"; cat "$tmp/table.md"; exit 1; }
echo "ok: MCP dev set, its servers' tools and the BM25 baseline"
