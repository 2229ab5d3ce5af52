#!/usr/bin/env bash
# Dense and hybrid search end to end: vectors built at index time (HTTP provider against the
# local mock, and a small random local BERT), incremental re-embedding, a model change, lexical
# results untouched by vectors, `apidex eval --mode dense|hybrid` on RestBench, and the HTTP
# and MCP servers with --mode.
set -euo pipefail
bin=${APIDEX_BIN:?APIDEX_BIN must point to the apidex binary}
src=${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
shared=${APIDEX_SHARED_DIR:-/work/shared}
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "test_dense_search: skipped (/usr/bin/python3 with numpy not found)"
  exit 0
fi
tmp=$(mktemp -d)
mock_pid=""
cleanup() {
  if [ -n "$mock_pid" ]; then
    kill "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
export APIDEX_CACHE_DIR=$tmp/cache
unset APIDEX_MODEL APIDEX_EMBED_URL APIDEX_EMBED_KEY OPENAI_API_KEY APIDEX_EMBED_PROVIDER APIDEX_DB
fail() { echo "test_dense_search: FAIL: $*" >&2; exit 1; }
field() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
posts() { grep -c '"POST"' "$tmp/log.jsonl" || true; }

"$PY" "$src/tests/embed/mock_server.py" --port-file "$tmp/port" --dim 16 --log "$tmp/log.jsonl" \
  --lifetime 300 >"$tmp/mock.out" 2>&1 &
mock_pid=$!
for _ in $(seq 1 250); do [ -s "$tmp/port" ] && break; sleep 0.02; done
[ -s "$tmp/port" ] || fail "mock server did not start"
url="http://127.0.0.1:$(cat "$tmp/port")"
cp -r "$src/examples" "$tmp/specs"
db=$tmp/d.db

# 1. Every chunk embedded once.
"$bin" index "$tmp/specs" --db "$db" --embed-url "$url" --model mock-a --json >"$tmp/i1.json"
chunks=$(field "$tmp/i1.json" chunks)
[ "$(field "$tmp/i1.json" embedded)" = "$chunks" ] || fail "first build did not embed every chunk"
[ "$chunks" -gt 0 ] || fail "no chunks"
n_posts=$(posts)
[ "$n_posts" -gt 0 ] || fail "the mock saw no embedding request"

# 2. Dense and hybrid answers, as JSON.
for args in "--mode dense" "--mode hybrid" "--mode hybrid --hybrid-weight 0.5"; do
  # shellcheck disable=SC2086
  "$bin" search "search recipes by ingredient" --db "$db" $args --embed-url "$url" --model mock-a \
    --json -k 5 >"$tmp/s.json" || fail "search $args"
  "$PY" - "$tmp/s.json" <<'PYEOF' || fail "search $args: output"
import json, sys
d = json.load(open(sys.argv[1]))
assert 1 <= len(d["results"]) <= 5, d
assert any("dense(" in r["why"] for r in d["results"]), d
PYEOF
done
"$bin" search "search recipes" --db "$db" --mode dense --embed-url "$url" --model mock-a --adaptive \
  --budget 2000 >/dev/null || fail "dense adaptive search with a context"

# 3. Nothing changed: nothing embedded, no document request to the server.
before=$(posts)
"$bin" index "$tmp/specs" --db "$db" --embed-url "$url" --model mock-a --json >"$tmp/i2.json"
[ "$(field "$tmp/i2.json" embedded)" = 0 ] || fail "an unchanged re-index embedded chunks"
[ "$(field "$tmp/i2.json" unchanged)" = 3 ] || fail "documents were not reused"
[ "$(posts)" = "$before" ] || fail "an unchanged re-index called the embedding server"

# 4. One document edited: only its changed chunks are embedded again.
sed -i 's/Search recipes/Search recipes by name or ingredient/' "$tmp/specs/recipes.yaml"
"$bin" index "$tmp/specs" --db "$db" --embed-url "$url" --model mock-a --json >"$tmp/i3.json"
emb=$(field "$tmp/i3.json" embedded)
reused=$(field "$tmp/i3.json" vectors_reused)
if [ "$emb" -eq 0 ] || [ "$emb" -ge "$chunks" ]; then fail "edit: embedded $emb of $chunks"; fi
[ "$reused" -gt 0 ] || fail "edit: no vector of an unchanged chunk was reused"

# 5. Another model: a clean rebuild, and the old model cannot query it.
"$bin" index "$tmp/specs" --db "$db" --embed-url "$url" --model mock-b --json >"$tmp/i4.json"
[ "$(field "$tmp/i4.json" embedded)" = "$chunks" ] || fail "a model change did not re-embed all"
[ "$(field "$tmp/i4.json" full_rebuild)" = True ] || fail "a model change did not rebuild"
set +e
"$bin" search "list recipes" --db "$db" --mode dense --embed-url "$url" --model mock-a \
  2>"$tmp/err" >/dev/null
rc=$?
set -e
[ "$rc" = 2 ] || fail "model mismatch: exit $rc"
grep -q "vectors were made by" "$tmp/err" || fail "model mismatch not explained"

# 6. Lexical results do not depend on the vectors.
"$bin" index "$tmp/specs" --db "$tmp/plain.db" --json >/dev/null
for q in "search recipes by ingredient" "get the weather forecast for a city" "reserve a book"; do
  "$bin" search "$q" --db "$db" --json -k 10 | sed 's/"elapsed_ms":[0-9.]*//' >"$tmp/a"
  "$bin" search "$q" --db "$tmp/plain.db" --json -k 10 | sed 's/"elapsed_ms":[0-9.]*//' >"$tmp/b"
  cmp -s "$tmp/a" "$tmp/b" || fail "lexical results differ with vectors for '$q'"
done
set +e
"$bin" search "list recipes" --db "$tmp/plain.db" --mode dense --embed-url "$url" --model mock-a \
  2>"$tmp/err" >/dev/null
rc=$?
set -e
[ "$rc" = 2 ] || fail "an index without vectors: exit $rc"
grep -q "has no vectors" "$tmp/err" || fail "an index without vectors not explained"

# 7. A local model in the default place (a random BERT with the bge vocabulary): no --model needed.
vocab=$shared/models/bge-small-en-v1.5/vocab.txt
gen=(--hidden 32 --layers 1 --heads 2 --max-pos 128)
if [ -f "$vocab" ]; then gen+=(--vocab-file "$vocab"); else gen+=(--vocab 300); fi
"$PY" "$src/tests/embed/gen_bert.py" --out "$APIDEX_CACHE_DIR/models/bge-small-en-v1.5" "${gen[@]}"
"$bin" index "$tmp/specs" --db "$tmp/local.db" --model bge-small-en-v1.5 --json >"$tmp/i5.json"
[ "$(field "$tmp/i5.json" embedded)" = "$chunks" ] || fail "local model: not every chunk embedded"
"$bin" search "search recipes" --db "$tmp/local.db" --mode dense --json >"$tmp/s.json" ||
  fail "local model: dense search"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["results"], d' "$tmp/s.json" ||
  fail "local model: no results"

# 8. eval on RestBench: hybrid through the HTTP provider, dense with the local default model.
rb=$shared/benchmarks/restbench
if [ -d "$rb/specs" ] && [ -d "$rb/pesl_socbench_cleaned/datasets" ]; then
  set -- --specs "$rb/specs/spotify_oas.json" "$rb/specs/tmdb_oas.json" \
    --queries "$rb/pesl_socbench_cleaned/datasets/spotify.json" \
    "$rb/pesl_socbench_cleaned/datasets/tmdb.json" --json
  "$bin" eval --mode hybrid --embed-url "$url" --model mock-a "$@" >"$tmp/e1.json" 2>"$tmp/e1.err" ||
    fail "eval --mode hybrid (http): $(cat "$tmp/e1.err")"
  [ "$(field "$tmp/e1.json" queries)" = 157 ] || fail "eval hybrid: not 157 queries"
  "$bin" eval --mode dense "$@" >"$tmp/e2.json" 2>"$tmp/e2.err" ||
    fail "eval --mode dense (local): $(cat "$tmp/e2.err")"
  [ "$(field "$tmp/e2.json" queries)" = 157 ] || fail "eval dense: not 157 queries"
  echo "test_dense_search: eval hybrid (mock vectors) recall@10 $(field "$tmp/e1.json" recall)"
else
  echo "test_dense_search: RestBench not found under $shared: eval part skipped"
fi
# 9. The servers search the same way with --mode: HTTP (/v1/search, /healthz) and MCP on stdio,
#    and refuse at start an index whose vectors another model made.
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap 'stop_server; cleanup' EXIT
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
  "$bin" serve --db "$db" --mode hybrid --embed-url "$url" --model mock-b --no-llm \
  --listen 127.0.0.1:0 --port-file "$tmp/sport" --access-log none 2>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 1 500); do [ -s "$tmp/sport" ] && break; sleep 0.02; done
[ -s "$tmp/sport" ] || fail "serve --mode hybrid did not start: $(cat "$tmp/serve.err")"
base="http://127.0.0.1:$(cat "$tmp/sport")"
grep -q "search: hybrid with mock-b" "$tmp/serve.err" || fail "serve does not say how it searches"
curl -sS "$base/healthz" >"$tmp/h.json" || fail "healthz"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["index"]["search_mode"] == "hybrid", d' \
  "$tmp/h.json" || fail "healthz: search_mode"
before=$(posts)
curl -sS "$base/v1/search?q=search%20recipes%20by%20ingredient&k=5" >"$tmp/hs.json" || fail "/v1/search"
"$PY" - "$tmp/hs.json" <<'PYEOF' || fail "serve --mode hybrid: /v1/search output"
import json, sys
d = json.load(open(sys.argv[1]))
assert 1 <= len(d["results"]) <= 5, d
assert any("dense(" in r["why"] for r in d["results"]), d
PYEOF
[ "$(posts)" -gt "$before" ] || fail "serve --mode hybrid did not embed the query"
stop_server
set +e
"$bin" serve --db "$db" --mode dense --embed-url "$url" --model mock-a --no-llm \
  --listen 127.0.0.1:0 --access-log none 2>"$tmp/err" >/dev/null
rc=$?
set -e
[ "$rc" = 2 ] || fail "serve with another model's vectors: exit $rc"
grep -q "vectors were made by" "$tmp/err" || fail "serve: model mismatch not explained"

mcp_in='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_endpoints","arguments":{"task":"search recipes by ingredient","k":5}}}'
before=$(posts)
printf '%s\n' "$mcp_in" | ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
  "$bin" mcp --db "$db" --mode hybrid --embed-url "$url" --model mock-b --no-llm \
  >"$tmp/mcp.out" 2>"$tmp/mcp.err" || fail "mcp --mode hybrid: $(cat "$tmp/mcp.err")"
grep -q "search: hybrid with mock-b" "$tmp/mcp.err" || fail "mcp does not say how it searches"
"$PY" - "$tmp/mcp.out" <<'PYEOF' || fail "mcp --mode hybrid: tools/call output"
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
call = next(m for m in msgs if m.get("id") == 2)
assert not call["result"].get("isError"), call
res = call["result"]["structuredContent"]["results"]
assert res, call
# reciprocal-rank fusion scores: at most 2 / (60 + 1) (lexical BM25 scores are far above)
assert all(0 < r["score"] <= 2 / 61 + 1e-3 for r in res), res
PYEOF
[ "$(posts)" -gt "$before" ] || fail "mcp --mode hybrid did not embed the query"
set +e
printf '%s\n' "$mcp_in" | "$bin" mcp --db "$tmp/plain.db" --mode dense --embed-url "$url" \
  --model mock-b --no-llm >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "mcp on an index without vectors: exit $rc"
grep -q "has no vectors" "$tmp/err" || fail "mcp: missing vectors not explained"
echo "test_dense_search: ok"
