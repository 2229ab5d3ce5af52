#!/usr/bin/env bash
# `apidex agent`, `apidex ask`, `apidex eval --agent` and LLM texts at index time, end to end
# against the scripted OpenAI mock (tests/agent/mock_openai.py, loopback only), plus the
# clean failures without an LLM.
set -euo pipefail
bin=${APIDEX_BIN:?APIDEX_BIN must point to the apidex binary}
src=${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
  echo "test_agent_cli: skipped ($PY not found)"
  exit 0
fi
tmp=$(mktemp -d)
mock_pid=""
cleanup() {
  if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL APIDEX_LLM_API_KEY APIDEX_LLM_CONFIG APIDEX_LLM_TIMEOUT
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/config APIDEX_CACHE_DIR=$tmp/cache
mkdir -p "$HOME"
fail() { echo "test_agent_cli: FAIL: $*" >&2; exit 1; }
pass=0
ok() { pass=$((pass + 1)); }
jq_py() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }

start_mock() { # $1: script file
  rm -f "$tmp/port" "$tmp/log.jsonl"
  "$PY" "$src/tests/agent/mock_openai.py" --script "$1" --port-file "$tmp/port" \
    --log "$tmp/log.jsonl" --lifetime 120 >"$tmp/mock.out" 2>&1 &
  mock_pid=$!
  for _ in $(seq 1 250); do [ -s "$tmp/port" ] && break; sleep 0.02; done
  [ -s "$tmp/port" ] || fail "mock server did not start"
  export APIDEX_LLM_BASE_URL="http://127.0.0.1:$(cat "$tmp/port")/v1" APIDEX_LLM_MODEL=mock-model
}
stop_mock() {
  kill "$mock_pid" 2>/dev/null || true
  wait "$mock_pid" 2>/dev/null || true
  mock_pid=""
  unset APIDEX_LLM_BASE_URL APIDEX_LLM_MODEL
}
requests() { [ -f "$tmp/log.jsonl" ] && wc -l <"$tmp/log.jsonl" | tr -d ' ' || echo 0; }

db=$tmp/shop.db
"$bin" index "$src/tests/agent/bookshop.json" --db "$db" --quiet

# ---- without an LLM: clean failures (exit 2) naming the variables; context-only works
set +e
"$bin" agent "Order a book" --db "$db" >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] || fail "agent without LLM: exit $rc"
grep -q APIDEX_LLM_BASE_URL "$tmp/err" || fail "agent without LLM: no hint"
ok
set +e
"$bin" ask "How do I order books?" --db "$db" >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] || fail "ask without LLM: exit $rc"
grep -q -- --context-only "$tmp/err" || fail "ask without LLM: no --context-only hint"
ok
"$bin" ask "How do I order books?" --db "$db" --context-only --json >"$tmp/ctx.json"
jq_py "$tmp/ctx.json" 'assert not d["llm_used"] and "POST /orders" in d["context"] and d["completeness"] == 1.0, d'
ok
set +e
"$bin" eval --db "$db" --queries "$src/tests/agent/bookshop_queries.json" --agent summary \
  >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q APIDEX_LLM_MODEL "$tmp/err" || fail "eval --agent without LLM: exit $rc"
ok
# A hosted API without a key is refused before any traffic.
set +e
APIDEX_LLM_BASE_URL=https://api.openai.com/v1 APIDEX_LLM_MODEL=gpt-4o-mini \
  "$bin" agent "x" --db "$db" >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q APIDEX_LLM_API_KEY "$tmp/err" || fail "hosted API without key: exit $rc"
ok

# ---- apidex agent: a multi-step tool loop, an invented endpoint dropped
cat >"$tmp/agent.json" <<'EOF'
{"steps": [
 {"expect": "What do readers say", "tool_calls": [{"name": "search_endpoints", "arguments": {"query": "top rated library"}}],
  "usage": {"prompt_tokens": 1000, "completion_tokens": 50}},
 {"expect": "GET /books/top_rated", "tool_calls": [{"name": "get_endpoint", "arguments": {"method": "GET", "path": "/books/{id}/reviews"}}],
  "usage": {"prompt_tokens": 1500, "completion_tokens": 40}},
 {"expect": "Reader reviews", "tool_calls": [{"name": "submit_endpoints", "arguments": {"endpoints": [
   {"method": "GET", "path": "/books/top_rated", "rationale": "find the best book"},
   {"method": "GET", "path": "/books/{book_id}/reviews", "rationale": "read its reviews"},
   {"method": "GET", "path": "/books/{book_id}/likes", "rationale": "made up"}]}}],
  "usage": {"prompt_tokens": 2000, "completion_tokens": 60}}]}
EOF
start_mock "$tmp/agent.json"
"$bin" agent "What do readers say about the top rated book?" --db "$db" --json >"$tmp/agent.out"
jq_py "$tmp/agent.out" '
ids = [e["id"] for e in d["endpoints"]]
assert ids == ["bookshop:topRatedBooks", "bookshop:listReviews"], ids
assert d["dropped"] == ["GET /books/{book_id}/likes"], d["dropped"]
assert d["tokens"] == {"prompt": 4500, "completion": 150, "total": 4650, "estimated": False}, d["tokens"]
assert d["endpoints"][1]["rationale"] == "read its reviews"'
[ "$(requests)" = 3 ] || fail "agent: expected 3 LLM requests, got $(requests)"
stop_mock
ok

# text output and the query tool set
cat >"$tmp/agent2.json" <<'EOF'
{"steps": [
 {"expect": "query_endpoints", "tool_calls": [{"name": "query_endpoints", "arguments": {"query": "order library"}}]},
 {"expect": "Request body", "content": "Call POST /orders - places the order."}]}
EOF
start_mock "$tmp/agent2.json"
"$bin" agent "Order two library" --db "$db" --tools query -k 3 >"$tmp/agent2.out"
grep -q "POST    /orders  \[bookshop\]" "$tmp/agent2.out" || fail "agent text: $(cat "$tmp/agent2.out")"
grep -q "why: places the order." "$tmp/agent2.out" || fail "agent text rationale"
grep -q "^Tokens: prompt" "$tmp/agent2.out" || fail "agent text tokens"
stop_mock
ok

# LLM errors: 401 -> exit 2 with the server's words; 500 after retries -> exit 3
echo '{"default": {"status": 401, "error": "Incorrect API key provided"}}' >"$tmp/401.json"
start_mock "$tmp/401.json"
set +e
APIDEX_LLM_API_KEY=sk-bad "$bin" agent "x" --db "$db" >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "Incorrect API key" "$tmp/err" || fail "401: exit $rc $(cat "$tmp/err")"
grep -q '"auth": "Bearer sk-bad"' "$tmp/log.jsonl" || fail "401: key not sent"
stop_mock
echo '{"default": {"status": 500, "error": "overloaded"}}' >"$tmp/500.json"
start_mock "$tmp/500.json"
set +e
"$bin" agent "x" --db "$db" --llm-retries 1 >"$tmp/out" 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 3 ] && grep -q "after 2 attempts" "$tmp/err" || fail "500: exit $rc $(cat "$tmp/err")"
stop_mock
ok

# ---- apidex ask: answer with a citation and a checked example, then from the cache
cat >"$tmp/ask.json" <<'EOF'
{"steps": [{"expect": "Question: How do I order books?", "content": "Send [bookshop:createOrder].\n\nSchema: request of bookshop:createOrder\n```json\n{\"book_id\": 1, \"quantity\": 0, \"shipping\": {\"street\": \"a\", \"city\": \"b\", \"country\": \"DE\"}}\n```\n"}]}
EOF
start_mock "$tmp/ask.json"
"$bin" ask "How do I order books?" --db "$db" >"$tmp/ask.out"
grep -q "Send \[bookshop:createOrder\]" "$tmp/ask.out" || fail "ask: answer missing"
grep -q "example 1: INVALID against request of bookshop:createOrder: /quantity" "$tmp/ask.out" \
  || fail "ask: example not flagged: $(cat "$tmp/ask.out")"
grep -q "cited: bookshop:createOrder" "$tmp/ask.out" || fail "ask: citation"
"$bin" ask "How do I order books?" --db "$db" --json >"$tmp/ask2.json"
jq_py "$tmp/ask2.json" 'assert d["cached"] and d["llm_used"] and d["invalid_examples"] == 1, d'
[ "$(requests)" = 1 ] || fail "ask: the cached answer made a request"
ls "$APIDEX_CACHE_DIR/ask/"*.json >/dev/null || fail "ask: no cache file"
stop_mock
ok

# streamed answer
cat >"$tmp/ask3.json" <<'EOF'
{"steps": [{"expect": "\"stream\":true", "content": "Use [bookshop:getAuthor] for the author.", "chunk": 3}]}
EOF
start_mock "$tmp/ask3.json"
"$bin" ask "Who wrote a book?" --db "$db" --stream --no-cache >"$tmp/ask3.out"
head -1 "$tmp/ask3.out" | grep -q "^Use \[bookshop:getAuthor\] for the author.$" || fail "ask --stream"
stop_mock
ok

# ---- index --strategy summary: the LLM writes the texts, the cache makes re-indexing free
cat >"$tmp/refine.json" <<'EOF'
{"rules": [{"when": "Summarize what this API endpoint does", "content": "LLM summary of {{endpoint}}."}]}
EOF
start_mock "$tmp/refine.json"
"$bin" index "$src/tests/agent/bookshop.json" --db "$tmp/sum.db" --strategy summary 2>"$tmp/idx.err"
grep -q "LLM texts (mock-model): 8 endpoints, 0 from the cache, 8 written" "$tmp/idx.err" \
  || fail "index summary: $(cat "$tmp/idx.err")"
"$bin" index "$src/tests/agent/bookshop.json" --db "$tmp/sum.db" --strategy summary --full 2>"$tmp/idx.err"
grep -q "8 from the cache, 0 written" "$tmp/idx.err" || fail "index re-run: $(cat "$tmp/idx.err")"
[ "$(requests)" = 8 ] || fail "index: $(requests) requests"
"$bin" index "$src/tests/agent/bookshop.json" --db "$tmp/det.db" --strategy summary --no-llm --quiet
[ "$(requests)" = 8 ] || fail "index --no-llm called the LLM"
stop_mock
ok

# ---- eval --agent: Table 4 layout, JSON numbers
cat >"$tmp/eval.json" <<'EOF'
{"steps": [
 {"tool_calls": [{"name": "search_endpoints", "arguments": {"query": "top rated library"}}], "usage": {"prompt_tokens": 300, "completion_tokens": 20}},
 {"tool_calls": [{"name": "submit_endpoints", "arguments": {"endpoints": [
   {"method": "GET", "path": "/books/top_rated", "rationale": "a"}, {"method": "GET", "path": "/books/{id}/reviews", "rationale": "b"}]}}],
  "usage": {"prompt_tokens": 500, "completion_tokens": 30}},
 {"tool_calls": [{"name": "submit_endpoints", "arguments": {"endpoints": [
   {"method": "POST", "path": "/orders", "rationale": "c"}, {"method": "GET", "path": "/shelves", "rationale": "invented"}]}}],
  "usage": {"prompt_tokens": 400, "completion_tokens": 50}}]}
EOF
start_mock "$tmp/eval.json"
"$bin" eval --db "$db" --queries "$src/tests/agent/bookshop_queries.json" --agent summary --json \
  >"$tmp/eval.out"
jq_py "$tmp/eval.out" '
a = d["all"]["agent"]
assert d["queries"] == 2 and d["agent"] == "summary", d
assert abs(a["recall"] - 0.75) < 1e-3 and abs(a["precision"] - 1.0) < 1e-3, a
assert abs(a["f1"] - (1.0 + 2/3) / 2) < 1e-3, a
assert a["tokens"] == {"prompt": 600.0, "completion": 50.0, "total": 650.0, "estimated": False}, a
assert d["all"]["dropped"] == 1 and d["datasets"][0]["name"] == "bookshop_queries", d'
stop_mock
start_mock "$tmp/eval.json"
"$bin" eval --db "$db" --queries "$src/tests/agent/bookshop_queries.json" --agent summary \
  >"$tmp/eval.txt"
grep -q "| Accuracy | Recall |" "$tmp/eval.txt" || fail "eval table: $(cat "$tmp/eval.txt")"
grep -q "| #Token | Prompt |" "$tmp/eval.txt" || fail "eval table tokens"
grep -q "| | | RAG | Summary |" "$tmp/eval.txt" || fail "eval table header"
stop_mock
ok

echo "test_agent_cli: $pass checks passed"
