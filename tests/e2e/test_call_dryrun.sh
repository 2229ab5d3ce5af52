#!/usr/bin/env bash
# `apidex call --dry-run` and `apidex snippet` on an index of the RestBench TMDB and Spotify
# specs: the request built from the spec (server, path, query, body), credentials from
# APIDEX_AUTH_* and the credentials file (its 0600 check) shown masked, validation errors
# (exit 2 naming the parameter and the rule), the JSON form, runnable snippets (bash -n,
# py_compile, node --check), and a --select that does not parse refused before sending.
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
trap 'rm -rf "$tmp"' EXIT
unset APIDEX_CREDENTIALS XDG_CONFIG_HOME
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home" APIDEX_DB="$tmp/rb.db"
mkdir -p "$HOME"
"$bin" index "$specs" --quiet || exit 1
fail=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1"; fail=1; }
has() { # name, file, fixed string
  if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in:"; cat "$2"; fi
}
hasnt() {
  if grep -qF -- "$3" "$2"; then bad "$1: '$3' shown in:"; cat "$2"; else ok "$1"; fi
}
status() { # name, want, command...
  local name=$1 want=$2 st=0
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  if [ "$st" = "$want" ]; then ok "$name (exit $st)"; else bad "$name: exit $st, want $want"; cat "$tmp/err"; fi
}

echo "== TMDB: path and query parameters, API key in the query, masked"
export APIDEX_AUTH_THEMOVIEDB_API_KEY="tmdb-s3cret-key"
status "credits dry run" 0 "$bin" call "GET /movie/{movie_id}/credits" -p movie_id=550 --dry-run
has "URL with the path filled and the key masked" "$tmp/out" \
  "GET https://api.themoviedb.org/3/movie/550/credits?api_key=****"
has "curl reads the key from its variable" "$tmp/out" \
  "curl 'https://api.themoviedb.org/3/movie/550/credits?api_key='\"\$APIDEX_AUTH_THEMOVIEDB_API_KEY\""
hasnt "no secret on stdout" "$tmp/out" "tmdb-s3cret-key"
hasnt "no secret on stderr" "$tmp/err" "tmdb-s3cret-key"
sed -n '/^curl/,$p' "$tmp/out" > "$tmp/curl.sh"
bash -n "$tmp/curl.sh" && ok "curl command parses" || bad "curl command does not parse"

status "top rated JSON" 0 "$bin" call themoviedb:GET_movie-top_rated -p page=2 --dry-run --json
python3 - "$tmp/out" <<'PY' && ok "JSON form" || { bad "JSON form"; cat "$tmp/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dry_run"] is True and d["method"] == "GET", d
assert d["operation"] == "themoviedb:GET_movie-top_rated", d
assert d["url"] == "https://api.themoviedb.org/3/movie/top_rated?page=2&api_key=****", d["url"]
assert d["body"] is None and d["curl"].startswith("curl "), d
assert "tmdb-s3cret-key" not in json.dumps(d)
PY

echo "== validation: exit 2 naming the parameter and the rule"
status "missing path parameter" 2 "$bin" call "GET /movie/{movie_id}/credits" --dry-run
has "names it" "$tmp/err" "missing required parameter 'movie_id' (path): give -p movie_id=VALUE"
status "wrong type" 2 "$bin" call "GET /movie/{movie_id}/credits" -p movie_id=fight-club --dry-run
has "names the type" "$tmp/err" "parameter 'movie_id' (path): expected integer, got string"
status "unknown parameter" 2 "$bin" call themoviedb:GET_movie-top_rated -p pag=2 --dry-run
has "nearest" "$tmp/err" "unknown parameter 'pag' for GET /movie/top_rated (did you mean 'page'?)"
status "unknown endpoint" 1 "$bin" call "GET /nowhere" --dry-run
status "bad JSON body" 2 "$bin" call "POST /users/{user_id}/playlists" -p user_id=me --body '{"name":' --dry-run
has "says where" "$tmp/err" "the request body is not valid JSON"
status "body rule" 2 "$bin" call "POST /users/{user_id}/playlists" -p user_id=me --body '{"public":true}' --dry-run
has "required field" "$tmp/err" "the request body: required property \"name\" is missing"

echo "== Spotify: OAuth2 bearer token, JSON body from --body and -p fields"
status "no token: a note" 0 "$bin" call "POST /users/{user_id}/playlists" -p user_id=me -p name=Trip --dry-run
has "note names the variable" "$tmp/err" "set APIDEX_AUTH_SPOTIFY_OAUTH_2_0 (an access token)"
export APIDEX_AUTH_SPOTIFY_OAUTH_2_0="spotify-s3cret-token"
echo '{"name": "Road trip", "public": false}' > "$tmp/body.json"
status "body from a file" 0 "$bin" call "POST /users/{user_id}/playlists" -p user_id=me --body @"$tmp/body.json" --dry-run
has "method and URL" "$tmp/out" "POST https://api.spotify.com/v1/users/me/playlists"
has "bearer masked" "$tmp/out" "Authorization: Bearer ****"
has "body" "$tmp/out" '{"name":"Road trip","public":false}'
hasnt "no token shown" "$tmp/out" "spotify-s3cret-token"
unset APIDEX_AUTH_SPOTIFY_OAUTH_2_0

echo "== the credentials file: used at 0600, refused when others can read it"
unset APIDEX_AUTH_THEMOVIEDB_API_KEY
mkdir -p "$HOME/.config/apidex"
printf 'themoviedb:\n  api_key: file-s3cret\n' > "$HOME/.config/apidex/credentials.yaml"
chmod 644 "$HOME/.config/apidex/credentials.yaml"
status "0644 refused" 2 "$bin" call "GET /movie/{movie_id}" -p movie_id=550 --dry-run
has "says why and how" "$tmp/err" "has mode 0644: it holds secrets, so only its owner may read it (mode 0600 or stricter: chmod 600"
chmod 600 "$HOME/.config/apidex/credentials.yaml"
status "0600 used" 0 "$bin" call "GET /movie/{movie_id}" -p movie_id=550 --dry-run
has "key applied, masked" "$tmp/out" "GET https://api.themoviedb.org/3/movie/550?api_key=****"
hasnt "file secret hidden" "$tmp/out" "file-s3cret"

echo "== snippets"
status "curl" 0 "$bin" snippet "GET /search" --api spotify -p q=beatles -p type=artist
cp "$tmp/out" "$tmp/s.sh"
bash -n "$tmp/s.sh" && ok "curl snippet parses" || bad "curl snippet"
has "curl URL" "$tmp/s.sh" "https://api.spotify.com/v1/search?q=beatles&type=artist"
status "python" 0 "$bin" snippet "GET /search" --api spotify -p q=beatles -p type=artist --lang python
cp "$tmp/out" "$tmp/s.py"
python3 -m py_compile "$tmp/s.py" && ok "python snippet compiles" || bad "python snippet"
has "python token from env" "$tmp/s.py" 'os.environ["APIDEX_AUTH_SPOTIFY_OAUTH_2_0"]'
status "javascript" 0 "$bin" snippet "POST /users/{user_id}/playlists" -p user_id=me -p name=Trip --lang javascript
cp "$tmp/out" "$tmp/s.js"
node --check "$tmp/s.js" && ok "javascript snippet parses" || bad "javascript snippet"
status "go" 0 "$bin" snippet themoviedb:GET_movie-top_rated --lang go
has "go package" "$tmp/out" "package main"
has "go key from env" "$tmp/out" 'os.Getenv("APIDEX_AUTH_THEMOVIEDB_API_KEY")'
hasnt "snippet never reads the file's secret" "$tmp/out" "file-s3cret"
status "unknown language" 2 "$bin" snippet themoviedb:GET_movie-top_rated --lang cobol

echo "== call without --dry-run: a bad --select is refused before anything is sent"
# (sending itself: test_call_mock.sh, against apidex mock)
status "bad select" 2 "$bin" call themoviedb:GET_movie-top_rated --select '$.results[' --allow-private
has "names the flag" "$tmp/err" "--select"
exit $fail
