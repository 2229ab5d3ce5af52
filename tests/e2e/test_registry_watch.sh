#!/usr/bin/env bash
# `apidex index --watch` follows the registry's folders: a spec added (in a new subfolder
# too), changed or deleted is in the index within seconds; a change made while a slow
# build runs is not lost; the registry file itself is re-read; SIGTERM ends it.
# `apidex serve --watch` answers for a newly added spec without a restart.
# Every wait polls with a generous limit (a loaded 2-core machine), never a fixed sleep.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
  exit 1
}
export APIDEX_NO_REEXEC=1
unset APIDEX_DB APIDEX_REGISTRY
LIMIT=${APIDEX_TEST_WATCH_LIMIT:-60} # seconds for each wait

# ids DB: the API ids of the index, sorted, one line ("" when there is no index yet)
ids() { "$BIN" list --db "$1" --json 2>/dev/null | grep -o '"id":"[a-z0-9._-]*","title"' \
  | sed 's/"id":"\([^"]*\)".*/\1/' | sort | tr '\n' ' ' || true; }
# wait_for DESCRIPTION COMMAND...: polls COMMAND every 0.2 s for $LIMIT s
wait_for() {
  local what=$1; shift
  local end=$((SECONDS + LIMIT))
  until "$@"; do
    [ $SECONDS -lt $end ] || fail "timed out waiting for: $what"
    sleep 0.2
  done
}
has_ids() { [ "$(ids "$1")" = "$2" ]; }
pet() { sed "s/title: Pet Store/title: $2/" "$SRC/tests/data/store/petstore.yaml" > "$1"; }

mkdir -p "$T/p/specs" "$T/p/out"
cp "$SRC/tests/data/store/petstore.yaml" "$SRC/tests/data/store/notes.json" "$T/p/specs/"
cd "$T/p"
printf 'db: out/w.db\nsources:\n  - specs\n' > apidex.yaml

"$BIN" index --watch > "$T/watch.log" 2>&1 &
W=$!
PIDS+=("$W")
wait_for "the first build" has_ids out/w.db "notes pet-store "
# test_registry_watch_poll.sh runs this script with the polling fallback forced
if [ "${APIDEX_WATCH_POLL:-}" = 1 ]; then
  grep -q "for changes by polling" "$T/watch.log" || fail "APIDEX_WATCH_POLL=1 but not polling"
fi

# a new spec in a new subfolder
mkdir -p specs/new/deeper
pet specs/new/deeper/zoo.yaml "Zoo"
wait_for "a spec in a new subfolder" has_ids out/w.db "notes pet-store zoo "
# a change to a spec
sed -i 's/List all pets/List every pet/' specs/petstore.yaml
wait_for "a changed spec" sh -c "'$BIN' show pet-store:listPets --db out/w.db --json 2>/dev/null \
  | grep -q 'List every pet'"
# a deletion
rm specs/notes.json
wait_for "a deleted spec" has_ids out/w.db "pet-store zoo "
# the registry file: a new source with an id
mkdir -p other
pet other/b.yaml "Bee"
printf 'db: out/w.db\nsources:\n  - specs\n  - {path: other/b.yaml, id: bee}\n' > apidex.yaml
wait_for "a new source in the registry file" has_ids out/w.db "bee pet-store zoo "
# a bad registry file is reported and the last good one stays in use
printf 'db: out/w.db\nsources:\n  - specs\n  - {path: other/b.yaml, idd: bee}\n' > apidex.yaml
wait_for "the error for a bad registry" grep -q "apidex.yaml:4:.*unknown key 'idd'" "$T/watch.log"
pet specs/late.yaml "Late"
wait_for "a spec after a bad registry" has_ids out/w.db "bee late pet-store zoo "
kill -TERM "$W"
wait_for "the watcher to stop on SIGTERM" sh -c "! kill -0 $W 2>/dev/null"
wait "$W" && rc=0 || rc=$?
[ "$rc" = 0 ] || fail "index --watch exited $rc after SIGTERM"
grep -q "stopped watching" "$T/watch.log" || fail "no clean stop"

# A change while a slow build runs is not lost: it causes another build after it.
mkdir -p "$T/slow/specs"
cp "$SRC/tests/data/store/petstore.yaml" "$T/slow/specs/"
cd "$T/slow"
printf 'db: slow.db\nsources: [specs]\n' > apidex.yaml
APIDEX_TEST_INDEX_DELAY_MS=1500 "$BIN" index --watch > "$T/slow.log" 2>&1 &
S=$!
PIDS+=("$S")
wait_for "the first slow build" has_ids slow.db "pet-store "
pet specs/one.yaml "One"
wait_for "the second build to start" sh -c "ls slow.db.tmp-* >/dev/null 2>&1"
pet specs/two.yaml "Two" # during that build
wait_for "the change made during a build" has_ids slow.db "one pet-store two "
kill -TERM "$S"
wait "$S" || fail "slow watcher exit"

# serve --watch: the server answers for a spec added after it started.
mkdir -p "$T/srv/specs"
cp "$SRC/tests/data/store/petstore.yaml" "$T/srv/specs/"
cd "$T/srv"
printf 'db: srv.db\nsources: [specs]\n' > apidex.yaml
"$BIN" serve --watch --listen 127.0.0.1:0 --port-file port --reload-interval 0.2 \
  --access-log none > "$T/serve.log" 2>&1 &
V=$!
PIDS+=("$V")
wait_for "serve to listen" test -s port
PORT=$(cat port)
apis() { curl -s "http://127.0.0.1:$PORT/v1/apis" | grep -q "\"id\":\"$1\""; }
wait_for "serve answers" apis pet-store
pet specs/giraffe.yaml "Giraffe"
wait_for "serve answers for a new spec" apis giraffe
curl -s "http://127.0.0.1:$PORT/v1/search?q=list+pets&api=giraffe" | grep -q '"giraffe:listPets"' \
  || fail "search in the new API"
kill -TERM "$V"
wait "$V" || fail "serve --watch exit"
grep -q "stopped watching" "$T/serve.log" || fail "serve --watch: watcher not stopped"
echo "ok"
