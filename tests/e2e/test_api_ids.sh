#!/usr/bin/env bash
# API ids: proposed from the documents, kept across rebuilds, renames and moves, an id that
# changes (--name) stays an alias; --api takes an id, alias, unique prefix or title, any case;
# an unknown or ambiguous name exits 2 naming the closest ids.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export APIDEX_NO_REEXEC=1

mkdir -p "$T/specs"
cp "$SRC/tests/data/store/petstore.yaml" "$T/specs/"
cp "$SRC/examples/recipes.yaml" "$SRC/examples/library.yaml" "$T/specs/"
DB=$T/idx.db

# "id:alias,alias id:..." of the index, sorted by id
ids() {
  "$BIN" list --db "$DB" --json | "$PY" -c '
import json, sys
print(" ".join(a["id"] + (":" + ",".join(a["aliases"]) if a["aliases"] else "")
               for a in json.load(sys.stdin)["apis"]))'
}

"$BIN" index "$T/specs" --db "$DB" --quiet || fail "first build"
[ "$(ids)" = "city-library pet-store recipe-box" ] || fail "ids from titles: $(ids)"

# A file renamed (same content): it keeps its id, even when the id would now be another.
"$BIN" index "$T/specs/petstore.yaml" --name pets --db "$T/named.db" --quiet || fail "--name"
cp "$T/named.db" "$DB"
"$BIN" index "$T/specs" --db "$DB" --quiet || fail "build after --name"
[ "$(ids)" = "city-library pets recipe-box" ] || fail "an indexed path keeps its id: $(ids)"
mv "$T/specs/petstore.yaml" "$T/specs/pets-v2.yaml"
"$BIN" index "$T/specs" --db "$DB" --quiet || fail "build after rename"
[ "$(ids)" = "city-library pets recipe-box" ] || fail "a renamed file keeps its id: $(ids)"

# --name on an indexed document: the old id stays as an alias and resolves.
cp "$DB" "$T/one.db"
"$BIN" index "$T/specs/pets-v2.yaml" --name petstore --prune --db "$T/one.db" --quiet || fail "--name"
DB=$T/one.db
[ "$(ids)" = "petstore:pets" ] || fail "the old id is an alias: $(ids)"
"$BIN" list --db "$DB" | grep -q "also answers to: pets" || fail "list shows aliases"
"$BIN" search "list pets" --api pets --db "$DB" --json | grep -q '"api":"petstore"' \
  || fail "an alias resolves"
# and the alias survives the next rebuild
"$BIN" index "$T/specs/pets-v2.yaml" --db "$DB" --quiet
[ "$(ids)" = "petstore:pets" ] || fail "aliases are kept: $(ids)"

# Resolution: prefix, title, case.
DB=$T/idx.db
for name in recipe RECIPE-BOX "Recipe Box" recipe-b; do
  "$BIN" search "create a cookbook" --api "$name" --db "$DB" --json -k 1 \
    | grep -q '"api":"recipe-box"' || fail "--api '$name' does not name recipe-box"
done
set +e
out=$("$BIN" search "x" --api recipies --db "$DB" 2>&1); rc=$?
set -e
[ $rc = 2 ] || fail "unknown API: exit $rc"
echo "$out" | grep -q "did you mean 'recipe-box'" || fail "no suggestion: $out"
set +e
"$BIN" search "x" --api "zzzz" --db "$DB" >/dev/null 2>&1; rc=$?
set -e
[ $rc = 2 ] || fail "unknown API without a near one: exit $rc"

# Two new documents with the same title: "-2" by sorted path, whatever order they came in.
mkdir -p "$T/dup/a" "$T/dup/b"
cp "$SRC/tests/data/store/petstore.yaml" "$T/dup/b/x.yaml"
sed 's/List all pets/List the pets/' "$SRC/tests/data/store/petstore.yaml" >"$T/dup/a/y.yaml"
"$BIN" index "$T/dup/b" "$T/dup/a" --db "$T/dup.db" --quiet
"$BIN" list --db "$T/dup.db" --json | grep -q '"id":"pet-store-2"' || fail "collision suffix"
"$BIN" show pet-store:listPets --db "$T/dup.db" --json | grep -q "List the pets" \
  || fail "the first path (a/) gets the bare id"
# An indexed document keeps its id when a new one that sorts before it proposes the same,
# with one thread or several.
for j in 1 3; do
  "$BIN" index "$T/dup/b" --db "$T/keep$j.db" --quiet --jobs $j
  "$BIN" index "$T/dup/a" "$T/dup/b" --db "$T/keep$j.db" --quiet --jobs $j
  "$BIN" show pet-store:listPets --db "$T/keep$j.db" --json | grep -q "List all pets" \
    || fail "b/x.yaml lost its id to a new document (--jobs $j)"
  "$BIN" show pet-store-2:listPets --db "$T/keep$j.db" --json | grep -q "List the pets" \
    || fail "the new document did not get -2 (--jobs $j)"
done
set +e
out=$("$BIN" search "x" --api pet --db "$T/dup.db" 2>&1); rc=$?
set -e
[ $rc = 2 ] && echo "$out" | grep -q "ambiguous" || fail "an ambiguous prefix: $rc $out"

# --name: one PATH, a valid id.
set +e
"$BIN" index "$T/dup/a" "$T/dup/b" --name x --db "$T/n.db" >/dev/null 2>&1; rc1=$?
"$BIN" index "$T/dup/a/y.yaml" --name "Bad Id" --db "$T/n.db" >/dev/null 2>&1; rc2=$?
set -e
[ $rc1 = 2 ] || fail "--name with two PATHs: exit $rc1"
[ $rc2 = 2 ] || fail "--name with an invalid id: exit $rc2"
# add --name, and remove by id, alias, prefix and title (the same resolution as --api).
DB=$T/reg.db
cp "$SRC/examples/recipes.yaml" "$SRC/examples/library.yaml" "$T/"
cp "$SRC/tests/data/store/petstore.yaml" "$T/"
"$BIN" index "$T/recipes.yaml" --db "$DB" --quiet || fail "index one"
"$BIN" add "$T/library.yaml" --name books --db "$DB" --quiet || fail "add --name"
"$BIN" add "$T/petstore.yaml" --db "$DB" --quiet || fail "add"
[ "$(ids)" = "books pet-store recipe-box" ] || fail "add --name / derived: $(ids)"
set +e
"$BIN" add "$T/petstore.yaml" --name "Bad Id" --db "$DB" >/dev/null 2>&1; rc=$?
set -e
[ $rc = 2 ] || fail "add --name with an invalid id: exit $rc"
# a new --name for an indexed document: the old id stays an alias
"$BIN" add "$T/library.yaml" --name lib --db "$DB" --quiet || fail "add --name again"
[ "$(ids)" = "lib:books pet-store recipe-box" ] || fail "renamed by add: $(ids)"
"$BIN" remove "Recipe Box" --db "$DB" --quiet || fail "remove by title"
[ "$(ids)" = "lib:books pet-store" ] || fail "remove by title: $(ids)"
"$BIN" remove pet-s --db "$DB" --quiet || fail "remove by prefix"
[ "$(ids)" = "lib:books" ] || fail "remove by prefix: $(ids)"
set +e
out=$("$BIN" remove bookz --db "$DB" 2>&1); rc=$?
set -e
[ $rc = 2 ] && echo "$out" | grep -q "did you mean 'lib'" || fail "remove unknown (near an alias): $rc $out"
[ "$(ids)" = "lib:books" ] || fail "a failed remove changed the index: $(ids)"
"$BIN" remove BOOKS --db "$DB" --quiet || fail "remove by alias"
[ "$("$BIN" list --db "$DB" --json | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["apis"]))')" = 0 ] \
  || fail "remove by alias left: $(ids)"

# The registry file's id wins over the derived one and stays across rebuilds; a document
# that proposes a given id yields ("-2").
mkdir -p "$T/reg"
cp "$SRC/examples/recipes.yaml" "$T/reg/"
cp "$SRC/tests/data/store/petstore.yaml" "$T/reg/a.yaml"
cp "$SRC/tests/data/store/petstore.yaml" "$T/reg/b.yaml"
sed -i 's/List all pets/List the pets/' "$T/reg/b.yaml"
cat >"$T/reg/apidex.yaml" <<YAML
db: reg.db
sources:
  - path: recipes.yaml
    id: cookbook
  - path: b.yaml
    id: pet-store
  - a.yaml
YAML
DB=$T/reg/reg.db
"$BIN" index --registry "$T/reg/apidex.yaml" --quiet || fail "registry build"
[ "$(ids)" = "cookbook pet-store pet-store-2" ] || fail "registry ids: $(ids)"
"$BIN" show pet-store:listPets --db "$DB" --json | grep -q "List the pets" \
  || fail "the given id goes to b.yaml"
"$BIN" index --registry "$T/reg/apidex.yaml" --quiet || fail "registry rebuild"
[ "$(ids)" = "cookbook pet-store pet-store-2" ] || fail "registry ids after a rebuild: $(ids)"
# An index of an older schema (ids were file names) is rebuilt, and its ids stay as aliases.
DB=$T/old.db
"$BIN" index "$SRC/examples/recipes.yaml" --db "$DB" --quiet
"$PY" - "$DB" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE documents SET api = 'recipes'")
db.execute("PRAGMA user_version = 3")
db.commit()
PYEOF
set +e
out=$("$BIN" list --db "$DB" 2>&1); rc=$?
set -e
[ $rc != 0 ] && echo "$out" | grep -q "rebuild it with 'apidex index'" || fail "old schema: $rc $out"
"$BIN" index "$SRC/examples/recipes.yaml" --db "$DB" --quiet || fail "rebuild of an old index"
[ "$(ids)" = "recipe-box:recipes" ] || fail "the old file-name id is an alias: $(ids)"
echo ok
