#!/usr/bin/env bash
# apidex mock over real HTTP: the TMDB and Spotify specs served at once on a port the
# mock picks (read from its output), answers checked against the specs with curl and
# python, the 400 reasons, a created resource read back, updated and deleted, hostile
# input (huge, deep and broken bodies, odd paths) and a clean stop on SIGTERM and SIGINT.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
specs="$shared/benchmarks/restbench/specs"
if [ ! -f "$specs/tmdb_oas.json" ]; then
  echo "SKIP: $specs not found"
  exit 0
fi
tmp="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
py=/usr/bin/python3
fail=0
server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && server_asan="${server_asan:+$server_asan:}detect_leaks=0"

start() { # start SPEC... : sets $url (the listening URL) from the first line printed
  ASAN_OPTIONS="$server_asan" timeout 300 "$bin" mock "$@" --listen 127.0.0.1:0 >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 200); do grep -q "listening on" "$tmp/out" 2>/dev/null && break; sleep 0.05; done
  url=$(sed -n 's/^apidex mock: listening on //p' "$tmp/out")
  if [ -z "$url" ]; then echo "FAIL: the mock did not start"; cat "$tmp/err"; exit 1; fi
}
stop() { # stop SIGNAL: the mock must exit 0 and say it stopped
  kill -"$1" "$pid"
  local rc=0
  wait "$pid" || rc=$?
  pid=""
  if [ $rc -ne 0 ] || ! grep -q "stopping" "$tmp/err" || grep -q "Sanitizer" "$tmp/err"; then
    echo "FAIL: the mock exited with $rc on SIG$1"; cat "$tmp/err"; fail=1
  fi
}
# req STATUS METHOD PATH [curl args...]: the body lands in $tmp/body, headers in $tmp/headers
req() {
  local want=$1 method=$2 path=$3; shift 3
  local got
  got=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X "$method" --max-time 20 "$@" "$url$path")
  if [ "$got" != "$want" ]; then
    echo "FAIL: $method $path: $got, expected $want"; head -c 400 "$tmp/body"; echo; fail=1
    return 1
  fi
}
jq_py() { "$py" -c "import json,sys; b=json.load(open('$tmp/body')); $1" || { echo "FAIL: check: $1"; head -c 400 "$tmp/body"; echo; fail=1; }; }

start "$specs/tmdb_oas.json" "$specs/spotify_oas.json" "$src/tests/data/mock/store.yaml" "$src"/examples/* --seed 3
grep -q "themoviedb $url/3 " "$tmp/out" || { echo "FAIL: no TMDB mount line"; cat "$tmp/out"; fail=1; }
grep -q "spotify $url/v1 " "$tmp/out" || { echo "FAIL: no Spotify mount line"; cat "$tmp/out"; fail=1; }

# every GET operation of every spec, required parameters filled from their schemas: 2xx
"$py" "$src/tests/e2e/mock_sweep.py" "$tmp/out" "$specs/tmdb_oas.json" "$specs/spotify_oas.json" "$src/tests/data/mock/store.yaml" \
  "$src"/examples/* || fail=1

# top rated, then credits of every id it returned: both 200 and with the same id
req 200 GET "/3/movie/top_rated" && jq_py "assert b['results'] and all('id' in m for m in b['results'])"
ids=$("$py" -c "import json; print(' '.join(str(m['id']) for m in json.load(open('$tmp/body'))['results']))")
cp "$tmp/body" "$tmp/top1"
for id in $ids; do
  req 200 GET "/3/movie/$id/credits" && jq_py "assert b['id'] == $id and isinstance(b['cast'], list)"
done
# deterministic: the same request, the same bytes
req 200 GET "/3/movie/top_rated" && cmp -s "$tmp/body" "$tmp/top1" || { echo "FAIL: not deterministic"; fail=1; }
grep -qi '^content-type: application/json' "$tmp/headers" || { echo "FAIL: content type"; fail=1; }
req 200 GET "/v1/search?q=beatles&type=artist"
req 200 GET "/v1/albums/4aawyAB9vmqN3uQ7FjRGTy" && jq_py "assert isinstance(b, dict)"

# 400 reasons name the parameter (or pointer) and the rule
req 400 GET "/3/movie/abc/credits" && jq_py "assert b['in']=='path' and b['parameter']=='movie_id' and b['rule']=='type'"
req 400 GET "/v1/search?type=artist" && jq_py "assert b['parameter']=='q' and b['rule']=='required'"
req 400 GET "/v1/search?q=x&type=artist&limit=500" && jq_py "assert b['parameter']=='limit' and b['rule']=='maximum'"
req 404 GET "/3/no/such/thing" && jq_py "assert b['rule']=='path'"
req 405 DELETE "/3/movie/top_rated" && grep -qi '^allow: GET' "$tmp/headers" || { echo "FAIL: Allow"; fail=1; }

# create, read back, update (Spotify: a playlist made for a user is read
# back at /playlists/{id}, the same resource name)
req 201 POST "/v1/users/alice/playlists" -H 'Content-Type: application/json' -d '{"name":"Road trip","public":false}' ||
  req 200 POST "/v1/users/alice/playlists" -H 'Content-Type: application/json' -d '{"name":"Road trip","public":false}'
pl=$("$py" -c "import json; print(json.load(open('$tmp/body'))['id'])")
jq_py "assert b['name']=='Road trip'"
grep -qi "^location: /v1/users/alice/playlists/$pl" "$tmp/headers" || { echo "FAIL: Location"; cat "$tmp/headers"; fail=1; }
req 200 GET "/v1/playlists/$pl" && jq_py "assert b['name']=='Road trip' and b['id']=='$pl'"
req 400 POST "/v1/users/alice/playlists" -H 'Content-Type: application/json' -d '{"public":false}' &&
  jq_py "assert b['in']=='body' and b['rule']=='required' and 'name' in b['message']"
req 400 POST "/v1/users/alice/playlists" -H 'Content-Type: application/json' -d '{"name":5}' &&
  jq_py "assert b['pointer']=='/name' and b['rule']=='type'"
req 200 PUT "/v1/playlists/$pl" -H 'Content-Type: application/json' -d '{"name":"Night drive"}'
req 200 GET "/v1/playlists/$pl" && jq_py "assert b['name']=='Night drive'"

# the pet store of the unit tests: POST -> GET -> PATCH -> list -> DELETE -> 404
req 201 POST "/api/v1/pets" -H 'Content-Type: application/json' -d '{"name":"Rex","age":3}'
pet=$("$py" -c "import json; print(json.load(open('$tmp/body'))['id'])")
req 200 GET "/api/v1/pets/$pet" && jq_py "assert b['name']=='Rex' and b['id']==$pet"
req 200 PATCH "/api/v1/pets/$pet" -H 'Content-Type: application/json' -d '{"age":4}' && jq_py "assert b['age']==4 and b['name']=='Rex'"
req 200 GET "/api/v1/pets?limit=5" && jq_py "assert b[0]['id']==$pet"
req 204 DELETE "/api/v1/pets/$pet"
req 404 GET "/api/v1/pets/$pet" && jq_py "assert b['rule']=='deleted'"
req 400 GET "/api/v1/pets?status=lost" && jq_py "assert b['parameter']=='status' and b['rule']=='enum'"

# hostile input: none of it crashes or hangs the mock
head -c 3000000 /dev/zero | tr '\0' 'a' >"$tmp/huge"
req 413 POST "/api/v1/pets" -H 'Content-Type: application/json' --data-binary @"$tmp/huge"
"$py" -c "print('['*100000)" >"$tmp/deep"
req 400 POST "/api/v1/pets" -H 'Content-Type: application/json' --data-binary @"$tmp/deep" && jq_py "assert b['rule']=='json'"
req 400 POST "/api/v1/pets" -H 'Content-Type: application/json' -d '{"name": "x",' && jq_py "assert b['rule']=='json'"
for p in "/" "//" "/%" "/%00" "/3/movie/%2F/credits" "/3/../../etc/passwd" "/3/movie/$(head -c 5000 /dev/zero | tr '\0' 'x')"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --path-as-is "$url$p")
  case "$code" in 4*) ;; *) echo "FAIL: odd path $p: $code"; fail=1 ;; esac
done
curl -s --max-time 10 -o /dev/null -H "X-Big: $(head -c 100000 /dev/zero | tr '\0' 'x')" "$url/3/movie/top_rated"
req 200 GET "/3/movie/top_rated" # still answering
stop TERM

# SIGINT stops it too; a bad spec beside a good one is reported, the good one served
echo '{"openapi": "3.0.0", "paths": ' >"$tmp/broken.json"
start "$tmp/broken.json" "$specs/tmdb_oas.json"
req 200 GET "/3/genre/movie/list"
grep -q "broken.json" "$tmp/err" || { echo "FAIL: the broken spec was not reported"; cat "$tmp/err"; fail=1; }
kill -INT "$pid"
wait "$pid"
rc=$?
pid=""
[ $rc -eq 1 ] || { echo "FAIL: exit $rc after SIGINT with a broken spec (want 1: problems reported)"; fail=1; }

# usage errors
"$bin" mock >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: no SPEC is a usage error"; fail=1; }
"$bin" mock "$specs/tmdb_oas.json" --seed x >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a bad --seed is a usage error"; fail=1; }
"$bin" mock "$specs/tmdb_oas.json" --listen 0.0.0.0:0 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a public address without --allow-remote"; fail=1; }

[ $fail -eq 0 ] && echo "PASS: apidex mock"
exit $fail
