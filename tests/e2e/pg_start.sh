# Sourced by the tests/e2e/test_pg_*.sh tests and bench/bench_pg.sh: a throwaway PostgreSQL
# (Debian's postgresql-15 binaries) in a directory of its own, on 127.0.0.1 and a free port.
#
#   . pg_start.sh; pg_start DIR || exit 0   # 1: binaries missing (skip), 2: failed
#   ... "$PG_URL" (postgres://apidex:PASSWORD@127.0.0.1:PORT/apidex) ...
#   pg_down; pg_up                          # stop the server, start it again (same port)
#   pg_stop                                 # also run it from the caller's EXIT trap
#
# As root (CI), initdb, pg_ctl and postgres run as the unprivileged user `nobody` (the
# server refuses to run as root). Password authentication (scram) everywhere, so the
# URL carries a password the tests can look for in output.

PG_DIR= PG_URL= PG_PORT= PG_PASSWORD=

pg_run() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

pg_start() {
  local dir=$1
  local b
  for b in initdb pg_ctl postgres; do
    command -v "$b" >/dev/null 2>&1 || {
      echo "PostgreSQL binaries not found ($b): install postgresql-15 (make deps)"
      return 1
    }
  done
  PG_DIR=$dir/pg
  mkdir -p "$PG_DIR"
  chmod o+x "$dir" # the server's user must reach its directory inside it
  PG_PASSWORD="s3cret-$RANDOM$RANDOM"
  printf '%s\n' "$PG_PASSWORD" >"$PG_DIR/pw"
  [ "$(id -u)" = 0 ] && chown -R nobody "$PG_DIR"
  chmod 700 "$PG_DIR"
  pg_run initdb -D "$PG_DIR/data" -U apidex --pwfile="$PG_DIR/pw" -A scram-sha-256 \
    -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 || {
    cat "$PG_DIR/initdb.log" >&2
    return 2
  }
  local try
  for try in 1 2 3 4 5; do
    PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if pg_run pg_ctl -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
      -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60" \
      start >/dev/null 2>&1; then
      break
    fi
    PG_PORT=
  done
  [ -n "$PG_PORT" ] || {
    cat "$PG_DIR/server.log" >&2
    return 2
  }
  PG_URL="postgres://apidex:$PG_PASSWORD@127.0.0.1:$PG_PORT/postgres"
  export PG_URL PG_PORT PG_PASSWORD PG_DIR
  return 0
}

# SQL against the throwaway server, one value per line (needs psql; tests use python if not).
pg_sql() {
  PGPASSWORD=$PG_PASSWORD psql -X -q -t -A -h 127.0.0.1 -p "$PG_PORT" -U apidex -d postgres -c "$1"
}

# The server goes away and comes back on the same port (connection-loss tests).
pg_down() { pg_run pg_ctl -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1; }
pg_up() {
  pg_run pg_ctl -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60" \
    start >/dev/null 2>&1
}

pg_stop() {
  [ -n "$PG_DIR" ] && [ -d "$PG_DIR/data" ] || return 0
  pg_run pg_ctl -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
}
