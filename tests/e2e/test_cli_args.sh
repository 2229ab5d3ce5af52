#!/usr/bin/env bash
# A CLI that explains itself: empty tasks, numbers out of range, unknown commands and flags
# (with the nearest one), values outside a flag's fixed set, unknown --api ids, more than 256
# tool ids, damaged index files; and the same empty-task answer over HTTP and MCP.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin=${APIDEX_BIN:?APIDEX_BIN not set}
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet

# usage_error NAME WANT_MESSAGE ARGS...: exit 2, the message on stderr's first line, then one
# line pointing to --help, nothing on stdout, and never the whole usage.
usage_error() {
  local name=$1 want=$2 status=0
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" = 2 ] || fail "$name: exit $status, want 2 ($(head -c 300 "$tmp/err"))"
  [ ! -s "$tmp/out" ] || fail "$name: printed on stdout: $(head -c 200 "$tmp/out")"
  grep -qF -- "$want" "$tmp/err" || fail "$name: stderr lacks '$want': $(cat "$tmp/err")"
  grep -q "^Run 'apidex.*--help'" "$tmp/err" || fail "$name: no --help hint: $(cat "$tmp/err")"
  if grep -q "^usage:" "$tmp/err"; then fail "$name: printed the whole usage"; fi
  return 0
}

echo "== empty or blank tasks"
usage_error "search ''" "apidex search: task is empty" "$bin" search "" --db "$db"
usage_error "search blank" "task is empty" "$bin" search $'  \t ' --db "$db"
usage_error "tools --search blank" "apidex tools: task is empty" "$bin" tools --search " " --db "$db"
usage_error "agent blank" "apidex agent: task is empty" "$bin" agent "  " --db "$db"
usage_error "ask blank" "apidex ask: task is empty" "$bin" ask " " --db "$db" --context-only

echo "== numbers say their range"
for k in abc 0 -3 1001 5x ""; do
  usage_error "search -k '$k'" "apidex search: -k takes a whole number from 1 to 1000, got '$k'" \
    "$bin" search pets -k "$k" --db "$db"
done
usage_error "tools -k 101" "apidex tools: -k takes a whole number from 1 to 100, got '101'" \
  "$bin" tools --search pets -k 101 --db "$db"
usage_error "search --budget" "--budget takes a whole number from 0 to 10000000, got 'lots'" \
  "$bin" search pets --budget lots --db "$db"
usage_error "serve --threads" "apidex serve: --threads takes a whole number from 1 to 64, got '65'" \
  "$bin" serve --threads 65
usage_error "chunk --depth" "apidex chunk: --depth takes a whole number from 1 to 8, got '9'" \
  "$bin" chunk "$src/examples" --depth 9
usage_error "mcp --reload-interval" "--reload-interval takes a number from 0 to 86400, got 'soon'" \
  "$bin" mcp --reload-interval soon
usage_error "--hybrid-weight" "--hybrid-weight takes a number above 0 and at most 1, got '2'" \
  "$bin" search pets --hybrid-weight 2 --db "$db"
usage_error "agent --temperature" "apidex agent: --temperature takes a number from 0 to 2, got 'hot'" \
  "$bin" agent "find pets" --temperature hot
usage_error "embed --threads" "apidex embed: --threads takes a whole number from 1 to 1048576, got 'x'" \
  "$bin" embed --threads x hello
usage_error "search -k without a value" "apidex search: -k needs a value" "$bin" search pets -k

echo "== unknown commands and flags: the nearest one"
usage_error "serach" "apidex: unknown command 'serach'; did you mean 'search'?" "$bin" serach pets
usage_error "indx" "did you mean 'index'?" "$bin" indx
usage_error "no near command" "apidex: unknown command 'frobnicate'" "$bin" frobnicate
if grep -q "did you mean" "$tmp/err"; then fail "frobnicate got a suggestion: $(cat "$tmp/err")"; fi
usage_error "--jsn" "apidex search: unknown option '--jsn'; did you mean '--json'?" \
  "$bin" search pets --jsn --db "$db"
usage_error "--adapt" "did you mean '--adaptive'?" "$bin" search pets --adapt --db "$db"
usage_error "show --jsno" "apidex show: unknown option '--jsno'; did you mean '--json'?" \
  "$bin" show open-weather-station:listAlerts --jsno --db "$db"
usage_error "list --manfest" "apidex list: unknown option '--manfest'; did you mean '--manifest'?" \
  "$bin" list --manfest --db "$db"
usage_error "tools --fromat" "apidex tools: unknown option '--fromat'; did you mean '--format'?" \
  "$bin" tools --fromat openai x --db "$db"
usage_error "index --ful" "apidex index: unknown option '--ful'; did you mean '--full'?" \
  "$bin" index "$src/examples" --ful --db "$tmp/y.db"
usage_error "serve --listn" "apidex serve: unknown option '--listn'; did you mean '--listen'?" \
  "$bin" serve --listn 127.0.0.1:0
usage_error "embed --qeury" "apidex embed: unknown option '--qeury'; did you mean '--query'?" \
  "$bin" embed --qeury hello
usage_error "a second task" "apidex search: unexpected argument 'cats'" "$bin" search pets cats

echo "== flags with a fixed set of values"
usage_error "--method FETCH" \
  "apidex search: --method takes GET, PUT, POST, DELETE, HEAD, PATCH, OPTIONS or TRACE, got 'FETCH'" \
  "$bin" search pets --method FETCH --db "$db"
"$bin" search "list alerts" --method get --db "$db" | grep -q "GET" || fail "--method get (any case) refused"
usage_error "--mode" "apidex search: --mode takes lexical, dense or hybrid, got 'lex'" \
  "$bin" search pets --mode lex --db "$db"
usage_error "--format" "apidex tools: --format takes openai, anthropic or mcp, got 'xml'" \
  "$bin" tools --format xml open-weather-station:listAlerts --db "$db"
usage_error "--color" "apidex show: --color takes auto, always or never, got 'yes'" \
  "$bin" show open-weather-station:listAlerts --color yes --db "$db"
usage_error "agent --tools" "apidex agent: --tools takes summary or query, got 'all'" \
  "$bin" agent "find pets" --tools all
usage_error "--precision" "--precision takes f32 or bf16, got 'f16'; did you mean 'bf16'?" \
  "$bin" search pets --precision f16 --db "$db"
usage_error "--tokenizer" "apidex tokens: --tokenizer takes cl100k or wordpiece, got 'bpe'" \
  "$bin" tokens --tokenizer bpe -
usage_error "--strategy" "apidex index: --strategy takes nosplit, endpoint" \
  "$bin" index "$src/examples" --strategy chunky --db "$tmp/y.db"
usage_error "completion shell" "apidex completion: SHELL takes bash, zsh or fish, got 'tcsh'" \
  "$bin" completion tcsh

echo "== --api with an unknown id names the known ones"
for cmd in search list show; do
  args=(--api nosuchapi --db "$db")
  [ "$cmd" = search ] && args=(pets "${args[@]}")
  [ "$cmd" = show ] && args=(open-weather-station:listAlerts "${args[@]}")
  usage_error "$cmd --api" "apidex $cmd: unknown API 'nosuchapi'" "$bin" "$cmd" "${args[@]}"
  grep -q "the index has 3: city-library, open-weather-station, recipe-box" "$tmp/err" ||
    fail "$cmd --api: known ids not named: $(cat "$tmp/err")"
done
usage_error "--api weathr" "unknown API 'weathr'; did you mean 'open-weather-station'?" \
  "$bin" search storms --api weathr --db "$db"
"$bin" search storms --api open-weather-station --db "$db" | grep -q "/alerts" || fail "--api open-weather-station refused"

echo "== tools takes any number of ids"
"$bin" search "list everything" -k 1000 --json --db "$db" |
  python3 -c 'import json,sys; [print(r["id"]) for r in json.load(sys.stdin)["results"]]' >"$tmp/ids"
mapfile -t ids <"$tmp/ids"
all=()
while [ ${#all[@]} -lt 300 ]; do all+=("${ids[@]}"); done
"$bin" tools --compact --db "$db" "${all[@]}" >"$tmp/tools.json" ||
  fail "tools with ${#all[@]} ids: $(head -c 300 "$tmp/tools.json")"
# repeated ids give one definition each (names are unique)
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tools"]))' "$tmp/tools.json")
u=$(printf '%s\n' "${all[@]}" | sort -u | wc -l)
[ "$n" = "$u" ] || fail "tools with ${#all[@]} ids ($u distinct) gave $n definitions"

echo "== a damaged index: its name, what is wrong and what to do, never SQLite's URI"
printf 'not a database at all, just text' >"$tmp/garbage.db"
head -c 50000 "$db" >"$tmp/cut.db"
cp "$db" "$tmp/zeroed.db"
dd if=/dev/zero of="$tmp/zeroed.db" bs=1 seek=100 count=4000 conv=notrunc 2>/dev/null
for f in garbage cut zeroed; do
  for run in "search pets --db $tmp/$f.db" "list --db $tmp/$f.db" "index $src/examples --db $tmp/$f.db"; do
    status=0
    # shellcheck disable=SC2086
    "$bin" $run >/dev/null 2>"$tmp/err" || status=$?
    # A writer refuses (4) to replace a file that is not an apidex index at all.
    want=3
    case "$f:$run" in garbage:index*) want=4 ;; esac
    [ "$status" = "$want" ] || fail "$f.db, $run: exit $status, want $want: $(cat "$tmp/err")"
    if grep -qE "file:|immutable|mode=ro" "$tmp/err"; then fail "$f.db, $run leaks a URI: $(cat "$tmp/err")"; fi
    grep -q "$f.db" "$tmp/err" || fail "$f.db, $run: the message does not name the file: $(cat "$tmp/err")"
    grep -qE "apidex index|--db path" "$tmp/err" || fail "$f.db, $run: no next step: $(cat "$tmp/err")"
  done
done

echo "== the same empty-task answer over HTTP and MCP"
"$bin" serve --db "$db" --listen 127.0.0.1:0 --port-file "$tmp/port" --no-llm 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
code=$(curl -s -o "$tmp/http.json" -w '%{http_code}' "http://127.0.0.1:$port/v1/search?q=%20%20")
[ "$code" = 400 ] || fail "/v1/search blank: HTTP $code"
grep -q '"task is empty: describe what you want to do in plain words"' "$tmp/http.json" ||
  fail "/v1/search blank: $(cat "$tmp/http.json")"
code=$(curl -s -o "$tmp/http.json" -w '%{http_code}' -H 'content-type: application/json' \
  -d '{"task":" "}' "http://127.0.0.1:$port/v1/ask")
[ "$code" = 400 ] || fail "/v1/ask blank: HTTP $code"
grep -q '"task is empty' "$tmp/http.json" || fail "/v1/ask blank: $(cat "$tmp/http.json")"
kill "$server"
server=
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_endpoints","arguments":{"task":"  "}}}' |
  timeout 20 "$bin" mcp --db "$db" --no-llm 2>/dev/null >"$tmp/mcp.jsonl"
grep '"id":2' "$tmp/mcp.jsonl" | grep -q '"isError":true' || fail "MCP blank task: $(cat "$tmp/mcp.jsonl")"
grep '"id":2' "$tmp/mcp.jsonl" | grep -q 'task is empty: describe what you want to do in plain words' ||
  fail "MCP blank task: $(cat "$tmp/mcp.jsonl")"

echo "== flag tables: lists, older spellings, flags taken but never offered"
args=()
for n in $(seq 1 32); do args+=(--api "a$n"); done
usage_error "search 32 --api" "apidex search: --api: at most 31 filters of one kind" \
  "$bin" search "pets" "${args[@]}" --db "$db"
usage_error "agent --k range" "apidex agent: --k takes a whole number from 1 to 100, got '0'" \
  "$bin" agent "pets" --k 0 --db "$db"
usage_error "index --mode" "apidex index: --mode is a search option, not an index one" \
  "$bin" index "$src/examples" --mode dense --db "$tmp/y.db"
usage_error "index --mode at the end" "unknown option '--mode'; did you mean '--model'?" \
  "$bin" index "$src/examples" --mode
usage_error "eval --llm-url at the end" "apidex eval: --llm-url needs a value (see --help)" \
  "$bin" eval --queries q.json --llm-url
"$bin" completion bash > "$tmp/c.bash"
agent_opts=$(grep '^    agent) opts=' "$tmp/c.bash")
index_opts=$(grep '^    index) opts=' "$tmp/c.bash")
case " $agent_opts " in *" --k "*) fail "completion offers agent's older --k" ;; esac
case " $index_opts " in *" --mode "*|*" --hybrid-weight "*) fail "completion offers index --mode" ;; esac
case " $index_opts " in *" --model "*) ;; *) fail "completion lacks index --model: $index_opts" ;; esac
grep -q '"search --method") COMPREPLY=($(compgen -W "GET PUT POST DELETE HEAD PATCH OPTIONS TRACE"' \
  "$tmp/c.bash" || fail "completion lacks search --method's values"

echo "ok"
