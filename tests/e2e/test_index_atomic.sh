#!/usr/bin/env bash
# Index atomicity: kill -9 a build midway and the previous index is intact and answers;
# a reader that has the old index open keeps reading it across a rebuild; the next
# build cleans up after the killed one and reports what changed.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$T/specs"
cp -r "$SRC/tests/data/store/." "$T/specs/"
DB=$T/idx.db
export APIDEX_NO_REEXEC=1

"$BIN" index "$T/specs" --db "$DB" --quiet || fail "first build"
cp "$DB" "$T/before.db"
"$BIN" show pet-store:listPets --db "$DB" --json | grep -q '"summary":"List all pets"' \
  || fail "first index does not answer"

# Work for the next build: one changed document and six new ones.
sed -i 's/List all pets/List every pet/' "$T/specs/petstore.yaml"
for i in 1 2 3 4 5 6; do
  sed "s/title: Pet Store/title: Pet Store $i/" "$T/specs/petstore.yaml" > "$T/specs/extra$i.yaml"
done

# Start a build that pauses 3 s after each document, and kill it during the first pause.
APIDEX_TEST_INDEX_DELAY_MS=3000 "$BIN" index "$T/specs" --db "$DB" --quiet &
PID=$!
for _ in $(seq 200); do [ -e "$DB.tmp-$PID" ] && break; sleep 0.05; done
[ -e "$DB.tmp-$PID" ] || fail "the build never created its temp file"
sleep 0.5
kill -0 "$PID" 2>/dev/null || fail "the build finished before it could be killed"
kill -9 "$PID"
wait "$PID" 2>/dev/null || true

# The previous index: byte for byte the same file, and it still opens and answers.
cmp -s "$DB" "$T/before.db" || fail "the index changed under a killed build"
"$BIN" show pet-store:listPets --db "$DB" --json | grep -q '"summary":"List all pets"' \
  || fail "old index does not answer after the kill"
"$BIN" list --db "$DB" --json | grep -q '"id":"pet-store"' || fail "list after the kill"
"$BIN" search "list all pets" --db "$DB" --json > "$T/search.json" || fail "search after the kill"
grep -q '"id":"pet-store:listPets"' "$T/search.json" || fail "search after the kill: $(cat "$T/search.json")"
[ -e "$DB.tmp-$PID" ] || fail "expected the killed build's temp file to be left behind"

# A reader holding the old index keeps reading it while a build replaces the file;
# a new reader sees the new index. (The build also removes the dead build's temp file.)
"$PY" - "$BIN" "$DB" "$T/specs" "$T/rep.json" <<'EOF' || fail "reader across a rebuild"
import sqlite3, subprocess, sys
bin_, db, specs, rep = sys.argv[1:]
uri = "file:" + db + "?mode=ro&immutable=1"
old = sqlite3.connect(uri, uri=True)
q = "SELECT summary FROM operations WHERE id = 'pet-store:listPets'"
assert old.execute(q).fetchone()[0] == "List all pets"
with open(rep, "w") as out:
    subprocess.run([bin_, "index", specs, "--db", db, "--json"], stdout=out, check=True)
assert old.execute(q).fetchone()[0] == "List all pets", "old reader sees a changed file"
assert old.execute("SELECT count(*) FROM operations").fetchone()[0] == 7
new = sqlite3.connect(uri, uri=True)
assert new.execute(q).fetchone()[0] == "List every pet"
assert new.execute("SELECT count(*) FROM operations").fetchone()[0] == 7 + 6 * 3
EOF
[ ! -e "$DB.tmp-$PID" ] || fail "the stale temp file was not removed"
for want in '"added":6' '"updated":1' '"unchanged":2' '"removed":0' '"failed":0'; do
  grep -q "$want" "$T/rep.json" || fail "report lacks $want: $(cat "$T/rep.json")"
done
"$BIN" show "GET /pets" --api pet-store --db "$DB" | grep -q 'List every pet' \
  || fail "new index does not answer"

# An index of another schema version is refused with a clear message.
"$PY" -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version=999'); c.commit()" "$T/before.db"
if "$BIN" list --db "$T/before.db" 2> "$T/err.txt"; then fail "opened an index of version 999"; fi
grep -q "schema version 999" "$T/err.txt" || fail "unclear version message: $(cat "$T/err.txt")"
echo "ok: index atomicity"
