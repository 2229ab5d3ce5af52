#!/usr/bin/env bash
# `apidex inspect`: the per-document report (human and --json), its exit codes (0 loaded,
# 1 some document failed, 2 usage), on the spec fixtures and the RestBench specs.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
data="$src/tests/data/oas"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# good documents: exit 0, warnings allowed
"$bin" inspect "$data/petstore30.yaml" "$data/swagger20.yaml" "$data/multi/api/root.yaml" \
  --json >"$tmp/ok.json"
"$bin" inspect "$data/multi/api/root.yaml" >"$tmp/ok.txt"
grep -q "^  operations:   7$" "$tmp/ok.txt"
grep -q "warning: .*root.yaml:18:23: \$ref '../outside.yaml' refused" "$tmp/ok.txt"

# a failed document among good ones: exit 1, the others still reported
set +e
"$bin" inspect "$data/petstore30.yaml" "$data/format/not_openapi.yaml" "$tmp/missing.yaml" \
  --json >"$tmp/bad.json" 2>"$tmp/bad.err"
bad=$?
"$bin" inspect --no-such-option "$data/petstore30.yaml" >/dev/null 2>&1
usage1=$?
"$bin" inspect >/dev/null 2>&1
usage2=$?
set -e
[ "$bad" -eq 1 ] || { echo "exit $bad for a failed document" >&2; exit 1; }
[ "$usage1" -eq 2 ] && [ "$usage2" -eq 2 ] || { echo "usage errors: $usage1 $usage2" >&2; exit 1; }

/usr/bin/python3 - "$tmp/ok.json" "$tmp/bad.json" <<'PY'
import json, sys
keys = {"file", "api", "title", "version", "spec_version", "operations", "schemas", "cycles",
        "warnings", "errors"}
ok = json.load(open(sys.argv[1]))
assert set(ok) == {"documents"}, ok.keys()
docs = {d["api"]: d for d in ok["documents"]}
assert set(docs) == {"pet-store", "uploads", "multi"}, docs.keys()  # ids from the titles
for d in docs.values():
    assert keys <= set(d), d.keys()
    assert d["errors"] == [], d["errors"]
    for w in d["warnings"]:
        assert {"message", "file", "line", "pointer"} <= set(w), w
p = docs["pet-store"]
assert (p["title"], p["version"], p["spec_version"]) == ("Pet Store", "1.2", "3.0.3"), p
assert (p["operations"], p["schemas"], p["cycles"]) == (4, 8, 2), p
s = docs["uploads"]
assert (s["spec_version"], s["operations"], s["schemas"], s["cycles"]) == ("2.0", 3, 2, 1), s
r = docs["multi"]
assert (r["operations"], r["files"], len(r["warnings"])) == (7, 7, 3), r
w = [w for w in r["warnings"] if "outside.yaml" in w["message"]][0]
assert w["line"] == 18 and w["pointer"].startswith("/paths/~1escape/get"), w
assert w["file"].endswith("multi/api/root.yaml"), w

bad = json.load(open(sys.argv[2]))["documents"]
assert len(bad) == 3, bad
by_file = {d["file"].rsplit("/", 1)[-1]: d for d in bad}
assert by_file["petstore30.yaml"]["errors"] == []
n = by_file["not_openapi.yaml"]
assert n["errors"] and "not an OpenAPI" in n["errors"][0]["message"], n
m = by_file["missing.yaml"]
assert m["api"] is None and m["errors"], m
PY

# the RestBench specs: 54 and 40 operations
if [ -d "$shared/benchmarks/restbench/specs" ]; then
  "$bin" inspect "$shared/benchmarks/restbench/specs" --json >"$tmp/rb.json"
  /usr/bin/python3 - "$tmp/rb.json" <<'PY'
import json, sys
docs = {d["api"]: d for d in json.load(open(sys.argv[1]))["documents"]}
assert docs["themoviedb"]["operations"] == 54, docs["themoviedb"]
assert docs["spotify"]["operations"] == 40, docs["spotify"]
assert all(not d["errors"] for d in docs.values())
PY
fi
echo "inspect: ok"
