#!/usr/bin/env bash
# `apidex stats`: the table per tokenizer and filter stage, on the golden petstore and the
# RestBench specs (TMDB is 86% examples: the examples stage must cut it by far).
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
vocab="$shared/models/bge-small-en-v1.5/vocab.txt"
"$bin" stats "$src/tests/golden/hybrid_petstore/petstore.yaml" --json --vocab "$vocab" > "$tmp/pet.json"
"$bin" stats "$src/tests/golden/hybrid_petstore/petstore.yaml" > "$tmp/pet.txt"
grep -q "^cl100k     none " "$tmp/pet.txt"
grep -q "+request-body" "$tmp/pet.txt"
/usr/bin/python3 - "$tmp/pet.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["documents"] == 1 and d["operations"] == 5, d
names = [t["name"] for t in d["tokenizers"]]
assert names == ["cl100k", "wordpiece"], names
for t in d["tokenizers"]:
    st = t["stages"]
    assert [s["filter"] for s in st] == ["none", "base64", "html", "markdown", "urls", "errors",
                                         "headers", "examples", "request-body"]
    # Every filter of the fixture removes something, and no stage adds tokens.
    for prev, cur in zip(st, st[1:]):
        assert cur["mean_tokens"] <= prev["mean_tokens"] + 1, (prev, cur)
        if cur["filter"] != "urls":
            assert cur["removed"]["count"] > 0, cur
    assert st[-1]["mean_tokens"] < st[0]["mean_tokens"]
print("stats petstore ok")
PY
rb="$shared/benchmarks/restbench/specs"
if [ -d "$rb" ]; then
  "$bin" stats "$rb" --json --vocab "$vocab" > "$tmp/rb.json"
  /usr/bin/python3 - "$tmp/rb.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["documents"] == 2 and d["operations"] == 94, d
cl = d["tokenizers"][0]["stages"]
by = {s["filter"]: s for s in cl}
assert by["none"]["over_limit"] == 2
assert by["request-body"]["mean_tokens"] < 0.5 * by["none"]["mean_tokens"], by
print("stats restbench ok")
PY
fi
echo "stats: ok"
