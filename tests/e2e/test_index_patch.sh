#!/usr/bin/env bash
# add and remove patch a copy of the index file (store_writer_options.patch): the kept APIs'
# rows stay where they were (same rowids), and the index holds exactly the rows a fresh
# `apidex index` of the same documents writes, with the row counts it reports (meta "rows").
# A truncated index is never patched: add says it is damaged and leaves it as it was.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export APIDEX_NO_REEXEC=1

mkdir -p "$T/specs" "$T/x"
cp "$SRC/tests/data/store/petstore.yaml" "$SRC/tests/data/store/notes.json" "$T/specs/"
sed 's/title: Pet Store/title: Zoo Store/' "$SRC/tests/data/store/petstore.yaml" >"$T/x/zoo.yaml"
DB=$T/idx.db
"$BIN" index "$T/specs" --db "$DB" --quiet || fail "first build"

# rows DB: every table's rows (rowid left out), sorted, one line each; meta only its "rows".
rows() {
  "$PY" - "$1" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for (t,) in c.execute("select name from sqlite_master where type='table' order by name"):
    if t in ("meta", "image"):  # image: built from the rows in their order (test_search_image)
        continue
    for r in sorted(repr(r) for r in c.execute(f"select * from {t}")):
        print(t, r)
EOF
}
# check DB: the meta row counts are the tables' counts
check_counts() {
  "$PY" - "$1" <<'EOF' || fail "meta rows of $1"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
meta = c.execute("select value from meta where key='rows'").fetchone()[0]
real = " ".join(str(c.execute(f"select count(*) from {t}").fetchone()[0])
                for t in ("apis", "operations", "schemas", "chunks", "edges"))
if meta != real:
    sys.exit(f"meta rows {meta!r}, tables {real!r}")
EOF
}
# same_as_fresh DB PATH...: DB holds the rows of a fresh index of PATH...
same_as_fresh() {
  local db=$1
  shift
  rm -f "$T/fresh.db"
  "$BIN" index "$@" --db "$T/fresh.db" --quiet || fail "fresh index of $*"
  rows "$db" >"$T/a"
  rows "$T/fresh.db" >"$T/b"
  cmp -s "$T/a" "$T/b" || fail "the patched index differs from a fresh one: $(diff "$T/a" "$T/b" | head -5)"
  check_counts "$db"
}
first_op() { "$PY" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select min(rowid) from operations where api='pet-store'\").fetchone()[0])" "$1"; }

echo "== add: the kept APIs keep their rows, the new one comes last"
before=$(first_op "$DB")
"$BIN" add "$T/x/zoo.yaml" --db "$DB" --json >"$T/out" || fail "add"
grep -q '"added":1' "$T/out" && grep -q '"operations":' "$T/out" || fail "add report: $(cat "$T/out")"
[ "$(first_op "$DB")" = "$before" ] || fail "petstore's rows moved: the index was copied row by row"
same_as_fresh "$DB" "$T/specs" "$T/x"
n_ops=$("$PY" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from operations').fetchone()[0])" "$DB")
grep -q "\"operations\":$n_ops[,}]" "$T/out" || fail "add reports other counts than the index has: $(cat "$T/out")"

echo "== add of a changed document replaces its rows"
sed -i 's/^  version: .*/  version: 9.9.9/' "$T/x/zoo.yaml"
"$BIN" add "$T/x/zoo.yaml" --db "$DB" --json >"$T/out" || fail "add changed"
grep -q '"updated":1' "$T/out" || fail "update report: $(cat "$T/out")"
same_as_fresh "$DB" "$T/specs" "$T/x"
"$BIN" search "list all pets" --db "$DB" --json | grep -q '"id":"zoo-store:listPets"' || fail "zoo does not answer"

echo "== remove"
"$BIN" remove notes --db "$DB" --json >"$T/out" || fail "remove"
grep -q '"removed":1' "$T/out" || fail "remove report: $(cat "$T/out")"
same_as_fresh "$DB" "$T/specs/petstore.yaml" "$T/x"
"$BIN" list --db "$DB" --json | grep -q '"id":"notes"' && fail "notes still listed"

echo "== a truncated index is not patched"
"$BIN" add "$T/specs/notes.json" --db "$DB" --quiet || fail "add notes again"
head -c $(($(stat -c %s "$DB") - 4096)) "$DB" >"$T/cut.db"
cp "$T/cut.db" "$T/keep.db"
st=0
"$BIN" remove notes --db "$T/cut.db" >/dev/null 2>"$T/err" || st=$?
[ "$st" = 3 ] && grep -q "damaged apidex index" "$T/err" || fail "remove on a truncated index: $st $(cat "$T/err")"
cmp -s "$T/cut.db" "$T/keep.db" || fail "the truncated index was changed"
# idx.db.image-<build id>: the search image's file the index names (one generation only)
named=$("$PY" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select value from meta where key='image_file'\").fetchone()[0])" "$DB")
left=$(find "$T" -maxdepth 1 \( -name 'idx.db.*' ! -name "$named" \) -o -maxdepth 1 -name 'cut.db.*')
[ -z "$left" ] || fail "left behind: $left"
echo "ok: index patch"
