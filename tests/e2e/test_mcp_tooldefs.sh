#!/usr/bin/env bash
# `apidex tools`: OpenAI and Anthropic function definitions for every endpoint of examples/
# (endpoints as functions), checked for shape: unique safe names, descriptions
# naming the endpoint, JSON Schema objects grouped by location whose required names exist,
# path parameters required, the body and its content type where the spec has one, and the
# calling details naming the endpoint. (The whole corpus: test_tooldefs_corpus.sh.)
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
db="$tmp/x.db"
"$bin" index "$src/examples" --db "$db" --quiet
"$bin" list --db "$db" --json > "$tmp/list.json"
mapfile -t ids < <(/usr/bin/python3 -c "
import json
for a in json.load(open('$tmp/list.json'))['apis']:
    for t in a['tags']:
        for o in t['operations']:
            print(o['id'])
" | sort -u)
[ ${#ids[@]} -gt 5 ] || { echo "FAIL: only ${#ids[@]} endpoints"; exit 1; }
"$bin" tools --db "$db" "${ids[@]}" > "$tmp/openai.json"
"$bin" tools --db "$db" --format anthropic --compact "${ids[@]}" > "$tmp/anthropic.json"
"$bin" tools --db "$db" --search "Get the weather forecast for a city" > "$tmp/task.json"
for id in "${ids[@]}"; do "$bin" show "$id" --db "$db" --json; done > "$tmp/shows.jsonl"
/usr/bin/python3 - "$tmp" "${#ids[@]}" <<'PY'
import json, re, sys
tmp, n = sys.argv[1], int(sys.argv[2])
shows = [json.loads(l) for l in open(f"{tmp}/shows.jsonl")]
openai = json.load(open(f"{tmp}/openai.json"))
anthropic = json.load(open(f"{tmp}/anthropic.json"))
assert len(openai["tools"]) == len(anthropic["tools"]) == n, (len(openai["tools"]), n)
names = [d["function"]["name"] for d in openai["tools"]]
assert len(set(names)) == n, names
LOCS = ("path", "query", "header", "cookie")
for show, o, a in zip(shows, openai["tools"], anthropic["tools"]):
    f = o["function"]
    assert o["type"] == "function" and f["strict"] is True
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", f["name"]), f["name"]
    assert f["name"] == a["name"]
    call = openai["calls"][f["name"]]
    assert call == {k: v for k, v in anthropic["calls"][a["name"]].items()} | (
        {"json_strings": call["json_strings"]} if "json_strings" in call else {}), call
    assert call["id"] == show["id"] and call["method"] == show["method"] and call["path"] == show["path"]
    assert f["description"].startswith(f"{show['method']} {show['path']}."), f["description"]
    assert len(f["description"].encode()) <= 1024
    p = a["input_schema"]
    assert p["type"] == "object" and isinstance(p["properties"], dict)
    assert set(p["properties"]) <= set(LOCS) | {"body"}, p["properties"].keys()
    for r in p.get("required", []):
        assert r in p["properties"], (f["name"], r)
    for ph in re.findall(r"\{([^}]+)\}", show["path"]):
        g = p["properties"]["path"]
        assert ph in g["properties"] and ph in g["required"], (f["name"], ph)
    if show["request_body"] is not None:
        assert "body" in p["properties"] and call["content_type"], f["name"]
    else:
        assert "body" not in p["properties"] and "content_type" not in call, f["name"]
    json.dumps(p)  # plain JSON all the way down
task = json.load(open(f"{tmp}/task.json"))
# the adaptive answer by relevance: the forecast, then the station search its input needs
assert [d["function"]["name"] for d in task["tools"]] == ["open-weather-station__getForecast", "open-weather-station__findStations"], task
print(f"ok tools: {n} endpoints, OpenAI and Anthropic shapes agree")
PY
# unknown ids are an error (exit 1) that names the id
if "$bin" tools --db "$db" "nope:nothing" 2> "$tmp/err"; then echo "FAIL: unknown id accepted"; exit 1; fi
grep -q "nope:nothing" "$tmp/err" || { echo "FAIL: error does not name the id"; cat "$tmp/err"; exit 1; }
echo "ok tools errors"
