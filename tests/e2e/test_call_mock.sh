#!/usr/bin/env bash
# `apidex call` sending for real: an index of the RestBench TMDB and Spotify specs, `apidex
# mock` serving both on a loopback port, and calls through --server <mock>/3 and /v1: the
# status and exit codes (0 for 2xx, 6 for 4xx, 4 for a safety refusal, 2 for bad inputs),
# --select and --json, a POST refused without --allow-write and sent with it, the loopback
# address refused without --allow-private / --allow-address, and a host outside the spec's
# servers refused. Endpoints are named "METHOD /path" with --api from `apidex list --json`.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
specs="$shared/benchmarks/restbench/specs"
if [ ! -f "$specs/tmdb_oas.json" ]; then
  echo "skipped: $specs not found"
  exit 0
fi
tmp="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
unset APIDEX_CREDENTIALS XDG_CONFIG_HOME XDG_CACHE_HOME
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home" APIDEX_DB="$tmp/rb.db"
mkdir -p "$HOME"
py=/usr/bin/python3
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }
has() { # name, file, fixed string
  if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in:"; cat "$2"; fi
}
status() { # name, want, command...
  local name=$1 want=$2 st=0
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  if [ "$st" = "$want" ]; then ok "$name (exit $st)"; else bad "$name: exit $st, want $want"; cat "$tmp/err" "$tmp/out"; fi
}
check() { # name, python expression on the JSON in $tmp/out (as o)
  if "$py" -c "import json,sys; o=json.load(open('$tmp/out')); sys.exit(0 if ($2) else 1)"; then
    ok "$1"
  else
    bad "$1: $2"; head -c 600 "$tmp/out"; echo
  fi
}

"$bin" index "$specs" --quiet || exit 1
"$bin" list --json >"$tmp/list.json" || exit 1
api_of() { # a path only that API has -> the id the index gave it
  "$py" -c "import json,sys; print(next(a['id'] for a in json.load(open('$tmp/list.json'))['apis'] if any(o['path'] == sys.argv[1] for t in a['tags'] for o in t['operations'])))" "$1"
}
tmdb=$(api_of "/movie/top_rated")
spotify=$(api_of "/users/{user_id}/playlists")
[ -n "$tmdb" ] && [ -n "$spotify" ] || { echo "FAIL: API ids not found"; cat "$tmp/list.json"; exit 1; }

server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"
ASAN_OPTIONS="$server_asan" timeout 300 "$bin" mock "$specs/tmdb_oas.json" "$specs/spotify_oas.json" \
  --listen 127.0.0.1:0 --port-file "$tmp/port" >"$tmp/mock.out" 2>"$tmp/mock.err" &
pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "FAIL: the mock did not start"; cat "$tmp/mock.err"; exit 1; }
url="http://127.0.0.1:$(cat "$tmp/port")"

echo "== GET through --server, loopback allowed"
status "top rated" 0 "$bin" call "GET /movie/top_rated" --api "$tmdb" --server "$url/3" --allow-private --json
check "status 200" "o['status'] == 200"
check "the mock's URL" "o['url'] == '$url/3/movie/top_rated'"
check "a JSON body with results" "o['body_type'] == 'json' and len(o['body']['results']) > 0"
check "checked against the schema" "o['schema']['checked'] and o['schema']['valid']"
id=$("$py" -c "import json; print(json.load(open('$tmp/out'))['body']['results'][0]['id'])")

echo "== --select, --max-items"
status "select one id" 0 "$bin" call "GET /movie/top_rated" --api "$tmdb" --server "$url/3" \
  --allow-address 127.0.0.1 --select '$.results[0].id' --json
check "the selected value" "o['body'] == $id and o['select'] == '\$.results[0].id'"
status "select titles, 3 items" 0 "$bin" call "GET /movie/top_rated" --api "$tmdb" --server "$url/3" \
  --allow-private --select '$.results[*].title' --max-items 3 --json
check "an array of 3 strings, the rest summarised" \
  "isinstance(o['body'], list) and 1 <= len([x for x in o['body'] if isinstance(x, str)]) <= 3"
status "path parameter" 0 "$bin" call "GET /movie/{movie_id}/credits" --api "$tmdb" -p movie_id="$id" \
  --server "$url/3" --allow-private --select '$.crew[*].job'
has "readable form: status line" "$tmp/out" "HTTP 200"
has "readable form: the request" "$tmp/out" "GET $url/3/movie/$id/credits"

echo "== 4xx: exit 6"
status "no such route on the mock" 6 "$bin" call "GET /movie/top_rated" --api "$tmdb" --server "$url/nowhere" --allow-private --json
check "status 404" "o['status'] == 404"

echo "== safety refusals: exit 4"
status "loopback without the flag" 4 "$bin" call "GET /movie/top_rated" --api "$tmdb" --server "$url/3"
has "names the rule" "$tmp/err" "loopback"
has "names the flag" "$tmp/err" "--allow-private"
status "another private address is still refused" 4 "$bin" call "GET /movie/top_rated" --api "$tmdb" \
  --server "http://10.255.255.1:9/3" --allow-address 127.0.0.1
status "POST without --allow-write" 4 "$bin" call "POST /users/{user_id}/playlists" --api "$spotify" \
  -p user_id=me -p name=Mix --server "$url/v1" --allow-private
has "names the rule" "$tmp/err" "--allow-write"

echo "== POST with --allow-write"
status "create a playlist" 0 "$bin" call "POST /users/{user_id}/playlists" --api "$spotify" \
  -p user_id=me -p name=Mix --server "$url/v1" --allow-private --allow-write --json
check "201 created, the name echoed" "o['status'] == 201 and o['body']['name'] == 'Mix'"

echo "== bad inputs: exit 2"
status "missing required parameter" 2 "$bin" call "GET /movie/{movie_id}/credits" --api "$tmdb" \
  --server "$url/3" --allow-private
status "bad --timeout" 2 "$bin" call "GET /movie/top_rated" --api "$tmdb" --timeout abc
status "bad --select" 2 "$bin" call "GET /movie/top_rated" --api "$tmdb" --server "$url/3" \
  --allow-private --select '$.['
exit $fail
