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
echo ok
