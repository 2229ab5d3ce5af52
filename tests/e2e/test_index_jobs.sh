#!/usr/bin/env bash
# apidex index --jobs N: documents are parsed on N-1 worker threads while one thread
# writes in registry order, so every N gives the same index (all tables but meta, row
# by row, packed columns included), and show reads packed text back whole.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export APIDEX_NO_REEXEC=1

mkdir -p "$T/specs"
cp -r "$SRC/tests/data/store/." "$T/specs/"
for i in 1 2 3 4 5 6 7 8; do
  sed "s/title: Pet Store/title: Pet Store $i/" "$T/specs/petstore.yaml" > "$T/specs/extra$i.yaml"
done

dump() {
  "$PY" - "$1" <<'PYEOF'
import sqlite3, sys, hashlib
db = sqlite3.connect(sys.argv[1])
tables = [r[0] for r in db.execute(
    "select name from sqlite_master where type='table' and name <> 'meta' order by name")]
for t in tables:
    order = "api, seq" if t == "edges" else "rowid"  # edges: WITHOUT ROWID
    for row in db.execute(f"select * from {t} order by {order}"):
        if t == "image" and row[0] == 1:  # the search image: its header holds the build id
            row = (row[0], row[1][48:])
        print(t, hashlib.sha256(repr(row).encode()).hexdigest())
PYEOF
}

for j in 1 2 3; do
  "$BIN" index "$T/specs" --db "$T/j$j.db" --jobs "$j" --quiet || fail "index --jobs $j"
  dump "$T/j$j.db" > "$T/j$j.txt"
done
[ -s "$T/j1.txt" ] || fail "empty dump"
cmp -s "$T/j1.txt" "$T/j2.txt" || fail "--jobs 2 wrote another index than --jobs 1"
cmp -s "$T/j1.txt" "$T/j3.txt" || fail "--jobs 3 wrote another index than --jobs 1"

# Rendered text is packed in the file and shown whole.
packed=$("$PY" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select count(*) from operations where typeof(content)='blob'\").fetchone()[0])" "$T/j2.db")
[ "$packed" -gt 0 ] || fail "no operation content is packed"
# Nine documents propose "pet-store" (numbers are not part of a title's id): suffixes go by
# path, whatever thread parsed first.
pet=$("$PY" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select api from documents where path like '%/petstore.yaml'\").fetchone()[0])" "$T/j2.db")
[ "$pet" = "pet-store-9" ] || fail "petstore.yaml is '$pet', want pet-store-9 (extra1..8 sort first)"
"$BIN" show "$pet:listPets" --db "$T/j2.db" > "$T/show.txt" || fail "show"
grep -q "List all pets" "$T/show.txt" || fail "show lost the summary"
grep -q "/pets" "$T/show.txt" || fail "show lost the path"

rc=0
"$BIN" index "$T/specs" --db "$T/x.db" --jobs 0 --quiet 2>"$T/err.txt" || rc=$?
[ "$rc" -eq 2 ] || fail "--jobs 0: exit $rc, want 2 (usage)"
grep -q "jobs" "$T/err.txt" || fail "--jobs 0: no message"
echo "ok"
