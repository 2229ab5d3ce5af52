#!/usr/bin/env bash
# Writers of one index: add and remove change only the APIs they name (the others' rows stay
# byte for byte), two writers at once both land (the second waits and says for whom) or the
# second fails fast with --no-wait, and `index` refuses a build from no documents or one that
# would remove most of the index unless --prune is given.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export APIDEX_NO_REEXEC=1

mkdir -p "$T/specs" "$T/a" "$T/b" "$T/empty"
cp "$SRC/tests/data/store/petstore.yaml" "$SRC/tests/data/store/notes.json" "$T/specs/"
sed 's/title: Pet Store/title: Zoo Store/; s/List all pets/List all animals/' \
  "$SRC/tests/data/store/petstore.yaml" >"$T/a/zoo.yaml"
sed 's/title: Pet Store/title: Farm Store/; s/List all pets/List all cows/' \
  "$SRC/tests/data/store/petstore.yaml" >"$T/b/farm.yaml"
DB=$T/idx.db
"$BIN" index "$T/specs" --db "$DB" --quiet || fail "first build"

# The rows of one API, hashed table by table: what "untouched" means.
rows() {
  "$PY" - "$DB" "$1" <<'PYEOF'
import hashlib, sqlite3, sys
db, api = sys.argv[1:]
c = sqlite3.connect("file:" + db + "?mode=ro&immutable=1", uri=True)
h = hashlib.sha256()
for t in ["apis", "operations", "inputs", "schemas", "chunks", "edges", "documents"]:
    col = "id" if t == "apis" else "api"
    order = "seq" if t == "edges" else "rowid"  # edges: WITHOUT ROWID
    for r in c.execute(f"SELECT * FROM {t} WHERE {col} = ? ORDER BY {order}", (api,)):
        h.update(repr(r).encode())
print(h.hexdigest())
PYEOF
}
ids() { "$BIN" list --db "$DB" --json | "$PY" -c 'import json,sys; print(" ".join(sorted(a["id"] for a in json.load(sys.stdin)["apis"])))'; }
[ "$(ids)" = "notes pet-store" ] || fail "first build has $(ids)"
pet=$(rows pet-store)
notes=$(rows notes)

echo "== add: only the new document is indexed, the others are copied as they are"
"$BIN" add "$T/a/zoo.yaml" --db "$DB" --json >"$T/add.json" || fail "add"
grep -q '"added":1' "$T/add.json" && grep -q '"unchanged":2' "$T/add.json" \
  && grep -q '"added_apis":\["zoo-store"\]' "$T/add.json" || fail "add report: $(cat "$T/add.json")"
[ "$(ids)" = "notes pet-store zoo-store" ] || fail "after add: $(ids)"
[ "$(rows pet-store)" = "$pet" ] && [ "$(rows notes)" = "$notes" ] || fail "add changed other APIs"
"$BIN" search "list all animals" --db "$DB" --json | grep -q '"id":"zoo-store:listPets"' || fail "zoo not found"
# --name sets the id; a second document given an id the index has is refused (2); one that
# derives it gets a suffix (test_api_ids.sh)
"$BIN" add "$T/b/farm.yaml" --name farm.one --db "$DB" --quiet || fail "add --name"
[ "$(ids)" = "farm.one notes pet-store zoo-store" ] || fail "after add --name: $(ids)"
cp "$T/a/zoo.yaml" "$T/b/zoo.yaml"
st=0; "$BIN" add "$T/b/zoo.yaml" --name zoo-store --db "$DB" 2>"$T/err" || st=$?
[ "$st" = 2 ] && grep -q "taken by" "$T/err" && grep -q -- "--name" "$T/err" || fail "id clash: $st $(cat "$T/err")"
rm "$T/b/zoo.yaml"
st=0; "$BIN" add "$T/b" --name 'Bad Name' --db "$DB" 2>"$T/err" || st=$?
[ "$st" = 2 ] || fail "a bad --name: exit $st"
st=0; "$BIN" add "$T/empty" --db "$DB" 2>"$T/err" || st=$?
[ "$st" = 2 ] && grep -q "nothing to add" "$T/err" || fail "add of nothing: $st $(cat "$T/err")"

echo "== add of a changed document updates it alone"
sed -i 's/List all animals/List every animal/' "$T/a/zoo.yaml"
"$BIN" add "$T/a/zoo.yaml" --db "$DB" 2>"$T/out" || fail "re-add"
grep -q "1 updated" "$T/out" && grep -q "updated: zoo-store" "$T/out" || fail "re-add report: $(cat "$T/out")"
[ "$(rows pet-store)" = "$pet" ] || fail "re-add changed petstore"

echo "== remove: the named APIs go (by id or unique prefix), the others stay; an unknown id is exit 2 naming the nearest"
"$BIN" remove zoo --db "$DB" 2>"$T/out" || fail "remove"
grep -q "removed: zoo-store" "$T/out" || fail "remove report: $(cat "$T/out")"
[ "$(ids)" = "farm.one notes pet-store" ] || fail "after remove: $(ids)"
[ "$(rows pet-store)" = "$pet" ] && [ "$(rows notes)" = "$notes" ] || fail "remove changed other APIs"
cp "$DB" "$T/before.db"
st=0; "$BIN" remove petstor --db "$DB" 2>"$T/err" || st=$?
[ "$st" = 2 ] && grep -q "did you mean 'pet-store'" "$T/err" || fail "unknown id: $st $(cat "$T/err")"
cmp -s "$DB" "$T/before.db" || fail "a refused remove changed the index"

echo "== two writers at once: the second waits (saying for whom), then builds on the first's index"
APIDEX_TEST_INDEX_DELAY_MS=400 "$BIN" add "$T/a/zoo.yaml" --db "$DB" --quiet &
P1=$!
for _ in $(seq 100); do [ -e "$DB.lock" ] && break; sleep 0.02; done
sed 's/Farm Store/Barn Store/' "$T/b/farm.yaml" >"$T/b/barn.yaml"
"$BIN" add "$T/b/barn.yaml" --db "$DB" 2>"$T/wait.txt" || fail "second writer: $(cat "$T/wait.txt")"
wait "$P1" || fail "first writer"
grep -q "(pid $P1) is writing" "$T/wait.txt" || fail "the waiter did not say for whom: $(cat "$T/wait.txt")"
[ "$(grep -c 'waiting for it' "$T/wait.txt")" = 1 ] || fail "the waiter said it more than once"
[ "$(ids)" = "barn-store farm.one notes pet-store zoo-store" ] || fail "a concurrent add was lost: $(ids)"

echo "== --no-wait fails at once (exit 5) and changes nothing"
cp "$DB" "$T/before.db"
APIDEX_TEST_INDEX_DELAY_MS=1500 "$BIN" remove barn --db "$DB" --quiet &
P1=$!
for _ in $(seq 100); do [ -e "$DB.lock" ] && break; sleep 0.02; done
t0=$(date +%s%N)
st=0; "$BIN" remove zoo --db "$DB" --no-wait 2>"$T/err" || st=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$st" = 5 ] && grep -q "pid $P1" "$T/err" && grep -q "nothing was done" "$T/err" || fail "--no-wait: $st $(cat "$T/err")"
[ "$ms" -lt 1000 ] || fail "--no-wait took $ms ms"
st=0; "$BIN" index "$T/specs" --db "$DB" --wait 0.3 2>"$T/err" || st=$?
[ "$st" = 5 ] && grep -q "still writing" "$T/err" || fail "--wait 0.3: $st $(cat "$T/err")"
wait "$P1" || fail "the remove that held the lock"
[ "$(ids)" = "farm.one notes pet-store zoo-store" ] || fail "after the remove: $(ids)"
[ ! -e "$DB.lock" ] || fail "the lock file was left behind"

echo "== index: no documents, a typo, or most of the index removed is refused unless --prune"
cp "$DB" "$T/before.db"
st=0; "$BIN" index "$T/empty" --db "$DB" 2>"$T/err" || st=$?
[ "$st" = 4 ] && grep -q "remove all 4 APIs" "$T/err" || fail "empty folder: $st $(cat "$T/err")"
for id in farm.one notes pet-store zoo-store; do grep -q "$id" "$T/err" || fail "the refusal does not name $id"; done
st=0; "$BIN" index "$T/speks" --db "$DB" 2>"$T/err" || st=$?
[ "$st" = 2 ] || fail "a typo'd path: exit $st $(cat "$T/err")"
st=0; "$BIN" index "$T/a" --db "$DB" --json >"$T/out" 2>"$T/err" || st=$?
[ "$st" = 4 ] && grep -q "remove 3 of the 4 APIs" "$T/err" && grep -q -- "--prune" "$T/err" \
  || fail "most removed: $st $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "a refused build printed a report: $(cat "$T/out")"
cmp -s "$DB" "$T/before.db" || fail "a refused build changed the index"
# half is allowed: 2 of 4 removed
"$BIN" index "$T/specs" --db "$DB" --json >"$T/out" || fail "removing half"
changed() { "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(sorted(r[sys.argv[2] + "_apis"])))' "$T/out" "$1"; }
[ "$(changed removed)" = "farm.one zoo-store" ] || fail "half report: $(cat "$T/out")"
"$BIN" index "$T/a" --db "$DB" --prune --json >"$T/out" || fail "--prune"
[ "$(changed added)" = zoo-store ] && [ "$(changed removed)" = "notes pet-store" ] || fail "--prune report: $(cat "$T/out")"
[ "$(ids)" = "zoo-store" ] || fail "after --prune: $(ids)"
"$BIN" index "$T/empty" --db "$T/new.db" 2>"$T/err" && fail "an empty first build was not refused"
[ ! -e "$T/new.db" ] || fail "a refused first build left a file"
"$BIN" index "$T/empty" --db "$T/new.db" --prune --quiet || fail "--prune of an empty first build"
echo "ok: index writers"
