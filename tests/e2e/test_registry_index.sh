#!/usr/bin/env bash
# The registry file: `apidex index` with no PATH reads ./apidex.yaml (or --registry FILE,
# or $APIDEX_REGISTRY): its db, ids, tag filters and per-API overrides (list --json shows
# them); a bad entry exits 2 naming file:line:col; a missing source touches nothing.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export APIDEX_NO_REEXEC=1
unset APIDEX_DB APIDEX_REGISTRY

mkdir -p "$T/proj/specs/more" "$T/proj/out"
cp "$SRC/tests/data/store/petstore.yaml" "$SRC/tests/data/store/notes.json" "$T/proj/specs/"
sed 's/title: Pet Store/title: Pet Hotel/' "$SRC/tests/data/store/petstore.yaml" \
  > "$T/proj/specs/more/hotel.yaml"
cd "$T/proj"

# No PATH and no apidex.yaml: a usage error that names the registry file.
set +e
"$BIN" index > "$T/out.txt" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "no PATH, no registry: exit $rc"
grep -q "apidex.yaml" "$T/out.txt" || fail "no PATH: $(cat "$T/out.txt")"

cat > apidex.yaml <<'YAML'
# the registry of this project
db: out/reg.db
sources:
  - specs/more
  - path: specs/petstore.yaml
    id: pets
    tags:
      include: [PETS]
    server: https://pets.example.com/v2
    auth:
      api_key: PETS_API_KEY
  - path: specs/notes.json
    tags: {exclude: [notes]}
YAML
"$BIN" index --json > "$T/rep.json" || fail "index from ./apidex.yaml"
[ -f out/reg.db ] || fail "the registry's db was not used"
"$BIN" list --db out/reg.db --json > "$T/list.json"
"$PY" - "$T/list.json" <<'PYEOF' || fail "list after the registry build: $(cat "$T/list.json")"
import json, sys
apis = {a["id"]: a for a in json.load(open(sys.argv[1]))["apis"]}
assert set(apis) == {"pets", "pet-hotel", "notes"}, sorted(apis)
assert apis["pets"]["overrides"] == {"server": "https://pets.example.com/v2",
                                     "auth": {"api_key": "PETS_API_KEY"}}, apis["pets"]
assert "overrides" not in apis["pet-hotel"]
assert apis["pets"]["operations"] == 3          # every operation is tagged pets
assert apis["notes"]["operations"] == 0, apis["notes"]  # every one excluded
assert apis["pet-hotel"]["operations"] == 3
PYEOF

# Other commands find the registry's db too (no --db, no $APIDEX_DB).
"$BIN" list --json | grep -q '"id":"pets"' || fail "list without --db: not the registry's db"
# (pet-hotel is a copy of the pet store, same host and endpoints, and the newer file: without
# --duplicates all, search answers from it alone)
"$BIN" search "list all pets" --json --duplicates all | grep -q '"pets:listPets"' \
  || fail "search without --db: not the registry's db"
APIDEX_DB="$T/none.db" "$BIN" list --json > /dev/null 2>&1 && fail "\$APIDEX_DB does not win"

# The overrides change, the documents do not: the index follows (the API is reused).
sed -i 's#pets.example.com/v2#pets.example.com/v3#' apidex.yaml
"$BIN" index --json > "$T/rep2.json" || fail "second build"
grep -q '"unchanged":3' "$T/rep2.json" || fail "overrides alone re-indexed: $(cat "$T/rep2.json")"
"$BIN" list --db out/reg.db --json | grep -q 'pets.example.com/v3' || fail "overrides not updated"

# A tag filter that changes re-indexes that document.
sed -i 's#include: \[PETS\]#include: [nothing-has-this]#' apidex.yaml
"$BIN" index --json > "$T/rep3.json" || fail "third build"
grep -q '"updated":1' "$T/rep3.json" || fail "a changed filter did not re-index: $(cat "$T/rep3.json")"
"$BIN" list --db out/reg.db --json | "$PY" -c '
import json, sys
apis = {a["id"]: a for a in json.load(sys.stdin)["apis"]}
assert apis["pets"]["operations"] == 0, apis["pets"]' || fail "include filter"

# --registry FILE and $APIDEX_REGISTRY; --db wins over the registry's db.
mkdir -p "$T/elsewhere"
cat > "$T/elsewhere/reg.yaml" <<YAML
sources:
  - $T/proj/specs/more/*.yaml
  - url: https://invalid.example/never-fetched.json
YAML
sed -i '/url:/d' "$T/elsewhere/reg.yaml"
"$BIN" index --registry "$T/elsewhere/reg.yaml" --db "$T/two.db" --quiet || fail "--registry"
"$BIN" list --db "$T/two.db" --json | grep -q '"id":"pet-hotel"' || fail "--registry list"
# A registry named by --registry that names no db: the default index, never the db of
# another registry file (./apidex.yaml here names out/reg.db).
cp out/reg.db "$T/reg-before.db"
"$BIN" index --registry "$T/elsewhere/reg.yaml" --quiet || fail "--registry without db"
cmp -s out/reg.db "$T/reg-before.db" || fail "--registry FILE wrote ./apidex.yaml's db"
"$BIN" list --db apidex.db --json | grep -q '"id":"pet-hotel"' || fail "--registry: not ./apidex.db"
rm -f apidex.db
(cd "$T" && APIDEX_REGISTRY="$T/elsewhere/reg.yaml" "$BIN" index --db "$T/three.db" --quiet) \
  || fail "\$APIDEX_REGISTRY"
[ -f "$T/three.db" ] || fail "\$APIDEX_REGISTRY: no index"
set +e
"$BIN" index specs --registry apidex.yaml > "$T/out.txt" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "PATH and --registry together: exit $rc"

# Errors: file:line:col, exit 2, and the index is untouched.
cp out/reg.db "$T/before.db"
printf 'db: out/reg.db\nsources:\n  - path: specs/more\n    tagz: {include: [a]}\n' > bad.yaml
set +e
"$BIN" index --registry bad.yaml > "$T/out.txt" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "unknown key: exit $rc"
grep -q "bad.yaml:4:5: unknown key 'tagz' in a source (did you mean 'tags'?)" "$T/out.txt" \
  || fail "unknown key message: $(cat "$T/out.txt")"
printf 'db: out/reg.db\nsources:\n  - specs/more\n  - specs/typo.yaml\n' > bad.yaml
set +e
"$BIN" index --registry bad.yaml > "$T/out.txt" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "missing source: exit $rc"
grep -q "bad.yaml:4:5: source 'specs/typo.yaml'" "$T/out.txt" || fail "missing source: $(cat "$T/out.txt")"
cmp -s out/reg.db "$T/before.db" || fail "a bad registry changed the index"
echo "ok"
