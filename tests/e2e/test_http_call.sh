#!/usr/bin/env bash
# POST /v1/call with curl: `apidex serve` over an index of the RestBench TMDB and Spotify specs,
# `apidex mock` serving both on a loopback port. Off (403 naming --allow-calls) by default;
# with --allow-calls the answer `apidex call --json` gives; the loopback mock refused (403,
# the rule named) without --allow-address; a POST refused without --allow-write; 400/404/405
# for bad requests; the route in /openapi.json; rule flags without --allow-calls exit 2.
set -uo pipefail # not -e: every check runs, `fail` collects the verdict
. "$(dirname "$0")/restbench_mock.sh"
export APIDEX_DB="$tmp/rb.db" APIDEX_AUTH_THEMOVIEDB_API_KEY="tmdb-s3cret-http"
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }
rb_index
rb_start mock "$tmp/mock.port" "$bin" mock "$specs/tmdb_oas.json" "$specs/spotify_oas.json"
mock="127.0.0.1:$(cat "$tmp/mock.port")"
rb_start off "$tmp/off.port" "$bin" serve --access-log none
rb_start noaddr "$tmp/noaddr.port" "$bin" serve --access-log none --allow-calls --allow-host "$mock"
# the mock's origin named in full: the API's credentials may go there (a bare host is only reached)
rb_start on "$tmp/on.port" "$bin" serve --access-log none --allow-calls --allow-host "http://$mock" --allow-address 127.0.0.1
post() { # name, port file, want status, JSON body -> $tmp/out
  local got
  got=$(curl -s -o "$tmp/out" -w '%{http_code}' -H 'Content-Type: application/json' -d "$4" "http://127.0.0.1:$(cat "$2")/v1/call")
  if [ "$got" = "$3" ]; then ok "$1 ($got)"; else bad "$1: HTTP $got, want $3"; cat "$tmp/out"; echo; fi
}
check() { # name, python expression on the JSON in $tmp/out (as o)
  if "$py" -c "import json,sys; o=json.load(open('$tmp/out')); sys.exit(0 if ($2) else 1)"; then ok "$1"; else bad "$1: $2"; head -c 600 "$tmp/out"; echo; fi
}
top="{\"endpoint\":\"GET /movie/top_rated\",\"api\":\"$tmdb\",\"server\":\"http://$mock/3\",\"params\":{\"page\":1},\"select\":\"\$.results[*].title\",\"max_items\":3}"

echo "== off by default"
post "calls off" "$tmp/off.port" 403 "$top"
check "the reason names the flag" "'--allow-calls' in o['error']['message']"

echo "== the loopback mock refused without --allow-address"
post "private address" "$tmp/noaddr.port" 403 "$top"
check "the rule named" "'rule: no private addresses' in o['error']['message'] and 'loopback' in o['error']['message']"

echo "== with --allow-calls: the answer of apidex call --json"
post "GET top rated" "$tmp/on.port" 200 "$top"
cp "$tmp/out" "$tmp/http.json"
"$bin" call "GET /movie/top_rated" --api "$tmdb" --server "http://$mock/3" -p page=1 --select '$.results[*].title' \
  --max-items 3 --allow-address 127.0.0.1 --allow-host "http://$mock" --json >"$tmp/cli.json" 2>/dev/null || bad "apidex call failed"
"$py" -c "import json; a=json.load(open('$tmp/http.json')); b=json.load(open('$tmp/cli.json')); assert a == b, (a, b)" \
  && ok "same as apidex call --json" || bad "differs from apidex call --json"
check "status, masked key" "o['status'] == 200 and o['url'].endswith('api_key=****') and 'tmdb-s3cret-http' not in json.dumps(o)"
post "POST without --allow-write" "$tmp/on.port" 403 \
  "{\"endpoint\":\"POST /users/{user_id}/playlists\",\"api\":\"$spotify\",\"server\":\"http://$mock/v1\",\"params\":{\"user_id\":\"me\",\"name\":\"x\"}}"
check "read-only rule named" "'rule: read-only; --allow-write to allow' in o['error']['message']"
post "bad input" "$tmp/on.port" 400 "{\"endpoint\":\"GET /movie/{movie_id}/credits\",\"api\":\"$tmdb\",\"params\":{\"movie_id\":\"x\"}}"
check "names the parameter" "\"parameter 'movie_id' (path): expected integer\" in o['error']['message']"
post "unknown endpoint" "$tmp/on.port" 404 "{\"endpoint\":\"GET /nowhere\",\"api\":\"$tmdb\"}"
post "not JSON" "$tmp/on.port" 400 "{"
post "dry run" "$tmp/on.port" 200 "{\"endpoint\":\"GET /movie/top_rated\",\"api\":\"$tmdb\",\"dry_run\":true}"
check "dry run masked" "o['dry_run'] and o['url'].endswith('api_key=****') and o['curl'].startswith('curl ')"
got=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$(cat "$tmp/on.port")/v1/call")
[ "$got" = 405 ] && ok "GET /v1/call is 405" || bad "GET /v1/call: $got"
curl -s "http://127.0.0.1:$(cat "$tmp/on.port")/openapi.json" >"$tmp/out"
check "/v1/call in /openapi.json" "'post' in o['paths']['/v1/call']"

echo "== rule flags without --allow-calls"
st=0
"$bin" serve --allow-write --listen 127.0.0.1:0 >"$tmp/out" 2>"$tmp/err" || st=$?
[ "$st" = 2 ] && grep -q -- "--allow-calls" "$tmp/err" && ok "--allow-write alone exits 2" || { bad "--allow-write alone: exit $st"; cat "$tmp/err"; }
exit $fail
