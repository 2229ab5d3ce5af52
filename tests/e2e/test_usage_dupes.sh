#!/usr/bin/env bash
# The usage prior and one entry per service on tests/data/dupes: apidex
# feedback (unknown endpoints exit 2 naming the closest), the uses surviving a rebuild and
# showing in why, POST /v1/feedback and MCP report_usage seen by a running server's
# searches, list --duplicates (text, JSON) and search preferring the newest version.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
tmp="$(mktemp -d)"
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_DB APIDEX_REGISTRY
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" APIDEX_CACHE_DIR="$tmp/cache"
mkdir -p "$HOME"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }
has() { if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in"; cat "$2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then bad "$1: '$3' in"; cat "$2"; else ok "$1"; fi; }
db="$tmp/d.db"
cp -r "$src/tests/data/dupes" "$tmp/specs"
"$bin" index "$tmp/specs" --db "$db" --quiet || exit 1

echo "== list --duplicates"
"$bin" list --duplicates --db "$db" > "$tmp/dupes.txt"
has "group newest first" "$tmp/dupes.txt" "2 APIs of one service; answers prefer animal-shelter-2"
has "older covered count" "$tmp/dupes.txt" "2 of its operations are in animal-shelter-2 too"
hasnt "same host, no shared endpoints: not grouped" "$tmp/dupes.txt" "veterinary-clinic"
"$bin" list --duplicates --json --db "$db" > "$tmp/dupes.json"
python3 - "$tmp/dupes.json" <<'PY' && ok "json groups" || bad "json groups"
import json, sys
g = json.load(open(sys.argv[1]))["groups"]
assert len(g) == 1 and g[0]["newest"] == "animal-shelter-2", g
a = g[0]["apis"]
assert [x["version"] for x in a] == ["2.0.0", "1.2.0"] and a[1]["superseded"] == 2, a
PY

echo "== search prefers the newest"
"$bin" search "get one animal by its id" --db "$db" -k 10 --json > "$tmp/s.json"
python3 - "$tmp/s.json" <<'PY' && ok "older copy left out, old-only kept" || bad "prefer-newest"
import json, sys
ids = [r["id"] for r in json.load(open(sys.argv[1]))["results"]]
assert "animal-shelter-2:getAnimal" in ids and "animal-shelter:getAnimal" not in ids, ids
PY
"$bin" search "list the kennels" --db "$db" -k 3 > "$tmp/k.txt"
has "an endpoint only the old version has" "$tmp/k.txt" "GET     /kennels  [animal-shelter]"
"$bin" search "get one animal by its id" --db "$db" -k 10 --duplicates all > "$tmp/all.txt"
has "--duplicates all" "$tmp/all.txt" "animal-shelter:getAnimal"
"$bin" search "x" --db "$db" --duplicates newest 2> "$tmp/e.txt"; [ $? = 2 ] && ok "bad --duplicates: exit 2" || bad "bad --duplicates"

echo "== apidex feedback"
"$bin" feedback --db "$db" "GET /animal/{x}" 2> "$tmp/fb.err"; rc=$?
[ $rc = 2 ] && ok "unknown endpoint: exit 2" || bad "unknown endpoint exit $rc"
has "names the closest" "$tmp/fb.err" "closest: 'animal-shelter:getAnimal' (GET /animals/{animalId})"
[ ! -e "$db.usage" ] && ok "nothing recorded" || bad "recorded after an error"
"$bin" feedback --db "$db" "GET /animals" 2> "$tmp/amb.err"; [ $? = 2 ] && ok "ambiguous: exit 2" || bad "ambiguous"
has "ambiguous says which" "$tmp/amb.err" "is in 2 APIs"
"$bin" feedback --db "$db" --task "book a visit" veterinary-clinic:listAppointments > "$tmp/fb.out" || bad "feedback"
"$bin" feedback --db "$db" --api animal-shelter-2 "get /animals/{animalId}" >> "$tmp/fb.out" || bad "feedback --api"
has "recorded" "$tmp/fb.out" "recorded 1 use in"
"$bin" search "list the animals" --db "$db" -k 5 --json > "$tmp/off.json"
hasnt "prior off by default" "$tmp/off.json" "usage("
"$bin" index "$tmp/specs" --db "$db" --quiet --full || bad "rebuild"
"$bin" search "list the animals" --db "$db" -k 5 --json --usage-prior 0.05 > "$tmp/on.json"
has "uses survive a rebuild and show in why" "$tmp/on.json" "usage(+"
"$bin" search "list the animals" --db "$db" --usage-prior 0.5 2> "$tmp/w.err"; [ $? = 2 ] && ok "weight bounded" || bad "weight 0.5 taken"

echo "== serve: POST /v1/feedback, MCP report_usage, searches see them"
rm -f "$db.usage"*
"$bin" serve --db "$db" --listen 127.0.0.1:0 --port-file "$tmp/port" --usage-prior 0.05 --access-log none 2>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
search() { curl -s "$base/v1/search?q=list+the+animals&k=5"; }
search > "$tmp/h0.json"
hasnt "no uses yet" "$tmp/h0.json" "usage("
code=$(curl -s -o "$tmp/p.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -d '{"endpoints":["veterinary-clinic:listAppointments"],"task":"vet"}' "$base/v1/feedback")
[ "$code" = 200 ] && ok "POST /v1/feedback 200" || bad "POST /v1/feedback $code"
has "recorded count" "$tmp/p.json" '"recorded":1'
search > "$tmp/h1.json"
has "the running server sees the feedback" "$tmp/h1.json" "usage(+"
code=$(curl -s -o "$tmp/p404.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -d '{"endpoints":["GET /nope"]}' "$base/v1/feedback")
[ "$code" = 404 ] && ok "unknown endpoint 404" || bad "unknown endpoint $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -d '{"endpoints":[]}' "$base/v1/feedback")
[ "$code" = 400 ] && ok "empty endpoints 400" || bad "empty endpoints $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/feedback")
[ "$code" = 405 ] && ok "GET /v1/feedback 405" || bad "GET /v1/feedback $code"
kill "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=""
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"report_usage","arguments":{"endpoints":["POST /adoptions"],"api":"animal-shelter-2"}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"report_usage","arguments":{"endpoints":["POST /adopt"]}}}' \
  '{"jsonrpc":"2.0","id":4,"method":"tools/list"}' \
  | timeout 30 "$bin" mcp --db "$db" 2>/dev/null > "$tmp/mcp.out"
python3 - "$tmp/mcp.out" <<'PY' && ok "MCP report_usage" || { bad "MCP report_usage"; cat "$tmp/mcp.out"; }
import json, sys
r = {m["id"]: m for m in map(json.loads, open(sys.argv[1])) if "id" in m}
assert r[2]["result"]["structuredContent"] == {"recorded": 1}, r[2]
assert r[3]["result"]["isError"] and "closest" in r[3]["result"]["content"][0]["text"], r[3]
t = [t for t in r[4]["result"]["tools"] if t["name"] == "report_usage"][0]
assert t["annotations"]["readOnlyHint"] is False, t
PY
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); n=c.execute('select count(*) from usage_event').fetchone()[0]; sys.exit(0 if n == 2 else 1)" "$db.usage" \
  && ok "sidecar holds both uses" || bad "sidecar rows"
exit $fail
