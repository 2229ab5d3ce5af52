#!/usr/bin/env bash
# Routing by name over MCP tools (route.named_damping_tools, src/search/routing.c): a task
# that names one server ("... in Warehouse") ranks that server's tool first even when another
# server's tool matches more of its words; with the parameter at route.named_damping's 0.5 the
# other tool wins, as it does for OpenAPI documents, which the parameter leaves alone.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export APIDEX_NO_REEXEC=1
unset APIDEX_DB APIDEX_REGISTRY
PY=$(command -v /usr/bin/python3 || command -v python3)

cat >"$T/warehouse.json" <<'JSON'
{"mcp": {"server": "warehouse", "protocolVersion": "2025-06-18",
         "serverInfo": {"name": "warehouse-server", "version": "1.0.0"}},
 "tools": [
  {"name": "query", "description": "Run a read-only SQL query",
   "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}},
  {"name": "list_schemas", "description": "List the schemas of the server",
   "inputSchema": {"type": "object"}}]}
JSON
cat >"$T/notes.json" <<'JSON'
{"mcp": {"server": "notes", "protocolVersion": "2025-06-18",
         "serverInfo": {"name": "notes-server", "version": "1.0.0"}},
 "tools": [
  {"name": "retrieve_database", "description": "Retrieve a database of notes",
   "inputSchema": {"type": "object", "properties": {"database_id": {"type": "string"}}}},
  {"name": "query_table", "description": "Query the rows of a table of notes",
   "inputSchema": {"type": "object", "properties": {"table": {"type": "string"}}}},
  {"name": "create_page", "description": "Create a page", "inputSchema": {"type": "object"}}]}
JSON
# the same two services as OpenAPI documents
for s in warehouse notes; do
  "$PY" - "$T/$s.json" "$T/$s.openapi.json" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))
paths = {"/" + t["name"]: {"post": {"operationId": t["name"], "summary": t["name"].replace("_", " "),
                                    "description": t["description"],
                                    "responses": {"200": {"description": "ok"}}}}
         for t in src["tools"]}
json.dump({"openapi": "3.0.3", "info": {"title": src["mcp"]["serverInfo"]["name"], "version": "1"},
           "paths": paths}, open(sys.argv[2], "w"))
PY
done
cat >"$T/tasks.json" <<'JSON'
[{"query": "Query the orders table in Warehouse: how many came in yesterday?",
  "solution": ["warehouse-server:query"], "apis": ["warehouse-server"], "kind": "single"}]
JSON

first() {  # db [eval args...]: the first ranked id
  local db=$1; shift
  "$BIN" eval --db "$db" --queries "$T/tasks.json" --json --per-query "$@" |
    "$PY" -c 'import json, sys; print(json.load(sys.stdin)["per_query"][0]["returned"][0])'
}

"$BIN" index "$T/warehouse.json" "$T/notes.json" --db "$T/mcp.db" >/dev/null 2>&1 ||
  fail "index of the tool lists"
got=$(first "$T/mcp.db")
[ "$got" = "warehouse-server:query" ] || fail "the named server's tool is not first: $got"
got=$(first "$T/mcp.db" --param route.named_damping_tools=0.5)
[ "$got" = "notes-server:query_table" ] || fail "at 0.5 the other server's tool should win: $got"

"$BIN" index "$T/warehouse.openapi.json" "$T/notes.openapi.json" --db "$T/oas.db" >/dev/null 2>&1 ||
  fail "index of the OpenAPI documents"
a=$(first "$T/oas.db" --param route.named_damping_tools=0)
b=$(first "$T/oas.db" --param route.named_damping_tools=1)
[ "$a" = "$b" ] || fail "route.named_damping_tools changed an OpenAPI ranking: $a / $b"
echo "PASS"
