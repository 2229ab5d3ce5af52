# Sourced by the e2e tests that call the RestBench TMDB and Spotify specs through `apidex
# mock` (test_mcp_call.sh, test_http_call.sh): sets src, shared, bin (absolute), specs, tmp
# (removed at exit, with every server rb_start started) and py; exits 0 ("skipped") without
# the specs; rb_index indexes both into $tmp/rb.db and sets tmdb and spotify to the API ids
# the index gave them; rb_start NAME PORTFILE COMMAND... starts a server on a free loopback
# port and waits for its port file.
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
specs="$shared/benchmarks/restbench/specs"
py=/usr/bin/python3
if [ ! -f "$specs/tmdb_oas.json" ]; then
  echo "skipped: $specs not found"
  exit 0
fi
tmp="$(mktemp -d)"
rb_pids=()
rb_cleanup() { for p in "${rb_pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap rb_cleanup EXIT
unset APIDEX_CREDENTIALS XDG_CONFIG_HOME XDG_CACHE_HOME
for v in $(env | grep -o '^APIDEX_AUTH_[A-Z0-9_]*'); do unset "$v"; done
export HOME="$tmp/home"
mkdir -p "$HOME"
rb_server_asan=${ASAN_OPTIONS:-}
[ "${APIDEX_SANITIZED:-}" = 1 ] && rb_server_asan="${rb_server_asan:+$rb_server_asan:}detect_leaks=0"

rb_index() {
  "$bin" index "$specs" --db "$tmp/rb.db" --quiet || exit 1
  "$bin" list --db "$tmp/rb.db" --json >"$tmp/list.json" || exit 1
  rb_api_of() { # a path only that API has -> the id the index gave it
    "$py" -c "import json,sys; print(next(a['id'] for a in json.load(open('$tmp/list.json'))['apis'] if any(o['path'] == sys.argv[1] for t in a['tags'] for o in t['operations'])))" "$1"
  }
  tmdb=$(rb_api_of "/movie/top_rated")
  spotify=$(rb_api_of "/users/{user_id}/playlists")
  [ -n "$tmdb" ] && [ -n "$spotify" ] || { echo "FAIL: API ids not found"; exit 1; }
}

rb_start() { # name, port file, command...
  local name=$1 port=$2
  shift 2
  ASAN_OPTIONS="$rb_server_asan" timeout 300 "$@" --listen 127.0.0.1:0 --port-file "$port" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" &
  rb_pids+=($!)
  for _ in $(seq 200); do [ -s "$port" ] && return 0; sleep 0.05; done
  echo "FAIL: $name did not start"
  cat "$tmp/$name.err"
  exit 1
}
