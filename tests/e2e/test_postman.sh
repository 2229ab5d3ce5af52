#!/usr/bin/env bash
# Postman collections are specs: `apidex index` loads v2.0 and v2.1 collections (by content,
# any file name) beside OpenAPI files, `apidex search` finds their requests, a bad
# collection is reported with file:line:col and pointer without stopping the others, and
# specs converted by Postman's own converter (openapi-to-postmanv2) come back with the
# same operations.
set -euo pipefail
BIN=${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}
SRC=${APIDEX_SOURCE_DIR:?APIDEX_SOURCE_DIR must name the source tree}
SHARED=${APIDEX_SHARED_DIR:-$SRC/../shared}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export APIDEX_NO_REEXEC=1
unset APIDEX_DB APIDEX_REGISTRY

# 1. a folder with two collections (neither named *.postman_collection.json) and a spec
mkdir -p "$T/specs"
cp "$SRC/tests/data/postman/petstore_v21.postman_collection.json" "$T/specs/shop.json"
cp "$SRC/tests/data/postman/weather_v20.json" "$T/specs/"
sed 's/title: Pet Store/title: Pet Hotel/' "$SRC/tests/data/store/petstore.yaml" >"$T/specs/openapi.yaml"
"$BIN" index "$T/specs" --db "$T/a.db" >"$T/index.txt" 2>&1 || fail "index: $(cat "$T/index.txt")"
grep -q "3 added" "$T/index.txt" || fail "three documents: $(cat "$T/index.txt")"
"$BIN" list --db "$T/a.db" --json >"$T/list.json"
jq -e '[.apis[] | select(.id == "pet-store" or .id == "weather")] | length == 2' "$T/list.json" \
  >/dev/null || fail "the collections' APIs: $(cat "$T/list.json")"
"$BIN" search "upload a photo of my pet" --db "$T/a.db" --json -k 3 >"$T/search.json"
jq -e '[.results[] | select(.role == "primary")][0].id == "pet-store:upload-a-pet-photo"' "$T/search.json" >/dev/null ||
  fail "search for a request: $(cat "$T/search.json")"
"$BIN" search "three day weather forecast for a city" --db "$T/a.db" --json -k 3 >"$T/search2.json"
jq -e '[.results[] | select(.role == "primary")][0].id == "weather:forecast-for-a-city"' "$T/search2.json" >/dev/null ||
  fail "search the v2.0 collection: $(cat "$T/search2.json")"
"$BIN" show pet-store:list-all-pets --db "$T/a.db" >"$T/show.txt"
grep -q "Server: https://petstore.example.com/v1" "$T/show.txt" || fail "server: $(cat "$T/show.txt")"
grep -q "apiKeyAuth" "$T/show.txt" || fail "auth: $(cat "$T/show.txt")"
# the skipped request is a warning with the collection's location
"$BIN" inspect "$T/specs/shop.json" >"$T/inspect.txt" 2>&1 || true
grep -q "shop.json:169:29: request 'Lock the shop': method LOCK has no place in OpenAPI; skipped (at /item/3/request/method)" \
  "$T/inspect.txt" || fail "warning location: $(cat "$T/inspect.txt")"

# 2. a broken collection fails alone, with its location; the rest is indexed
printf '{"info": {"_postman_id": "1", "name": "Broken"},\n "item": {"name": "x"}}\n' >"$T/specs/broken.json"
set +e
"$BIN" index "$T/specs" --db "$T/a.db" >"$T/index2.txt" 2>&1
rc=$?
set -e
grep -q "broken.json:2:10: error: a Postman collection needs an 'item' list (at /item)" "$T/index2.txt" ||
  fail "broken collection ($rc): $(cat "$T/index2.txt")"
"$BIN" list --db "$T/a.db" --json | jq -e '.apis | length == 3' >/dev/null ||
  fail "the good documents stay indexed"
"$BIN" search "list pets" --db "$T/a.db" --json -k 1 | jq -e '.results | length == 1' >/dev/null ||
  fail "search after a bad collection"

# 3. a registry file names a collection like any spec, with an id
mkdir -p "$T/reg"
cp "$SRC/tests/data/postman/weather_v20.json" "$T/reg/"
printf 'db: reg.db\nsources:\n  - path: weather_v20.json\n    id: wx\n' >"$T/reg/apidex.yaml"
(cd "$T/reg" && "$BIN" index >"$T/reg.txt" 2>&1) || fail "registry index: $(cat "$T/reg.txt")"
"$BIN" show wx:stations --db "$T/reg/reg.db" | grep -q "GET https://api.weather.example.org/stations" ||
  fail "registry file: $("$BIN" list --db "$T/reg/reg.db")"

# 4. Postman's own converter: specs -> collections -> apidex, the same operations
NODE_MODULES="$SRC/tools/node/node_modules/openapi-to-postmanv2"
if ! command -v node >/dev/null || [ ! -d "$NODE_MODULES" ] || [ ! -d "$SHARED/corpus/specs" ]; then
  echo "skipped the round trip: node, openapi-to-postmanv2 or the shared corpus is missing"
  exit 0
fi
specs=("$SHARED/corpus/specs/readme_examples__2.0_json_petstore/petstore.json"
  "$SHARED/corpus/specs/apisguru2020__xkcd.com_1.0.0/openapi.yaml"
  "$SHARED/corpus/specs/apisguru2020__nytimes.com_article_search_1.0.0/swagger.yaml"
  "$SHARED/corpus/specs/readme_examples__3.0_json_parameters-style/parameters-style.json")
mkdir -p "$T/conv"
node "$SRC/bench/postman_convert.mjs" "$T/conv" "${specs[@]}" >"$T/conv.txt" 2>&1 ||
  fail "converter: $(cat "$T/conv.txt")"
ops() { # METHOD path per operation, parameter names dropped
  "$BIN" index "$1" --db "$2" >/dev/null 2>&1 || true
  "$BIN" list --db "$2" --json | jq -r '.apis[].tags[].operations[] | "\(.method) \(.path)"' |
    sed -E 's/\{[^}/]*\}/{}/g' | sort -u
}
total=0 matched=0 imported=0
for i in "${!specs[@]}"; do
  [ -f "${specs[$i]}" ] || fail "missing corpus spec ${specs[$i]}"
  grep -q "^$i	ok" "$T/conv.txt" || fail "converter failed on ${specs[$i]}: $(cat "$T/conv.txt")"
  ops "${specs[$i]}" "$T/o$i.db" >"$T/o$i.txt"
  ops "$T/conv/$i.postman_collection.json" "$T/c$i.db" >"$T/c$i.txt"
  [ -s "$T/o$i.txt" ] || fail "no operations in ${specs[$i]}"
  total=$((total + $(wc -l <"$T/o$i.txt")))
  imported=$((imported + $(wc -l <"$T/c$i.txt")))
  matched=$((matched + $(comm -12 "$T/o$i.txt" "$T/c$i.txt" | wc -l)))
done
echo "round trip: $matched of $total operations matched, $imported imported"
# recall and precision at least 0.95 each
[ $((matched * 100)) -ge $((total * 95)) ] || fail "recall $matched/$total"
[ $((matched * 100)) -ge $((imported * 95)) ] || fail "precision $matched/$imported"
echo "ok"
