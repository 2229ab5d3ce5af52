#!/usr/bin/env bash
# Golden tests of `apidex search`: each folder of tests/golden/search/ holds `case.json`
# ({"index", "task", "adaptive" or "k", "pins"}) and `expected.txt`: the answer as a reader
# checks it (the list by relevance: rank, METHOD /path, API, role, producer links; then the
# plan in call order, each input with the step, the task or the caller; no scores). The indexes:
#   fixtures  the small test specs (tests/data/search, examples, tests/golden/search/specs)
#   corpus    real specs from ../shared (corpus and RestBench) that the cases need
#   socbench  one SOCBench-D dev domain (tasks that list several things to do)
# Cases on the shared indexes are skipped, with a note, when ../shared is missing.
# A case may name, in "off", the parameters that switch its rule off: the test then also
# checks that its answer (the adaptive list or the top k, and the match, by `apidex eval
# --per-query`) changes with them, so the case fails when its rule stops working.
# UPDATE_GOLDEN=1 rewrites expected.txt from the current binary (`make golden-update`);
# review the diff before committing it.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
bin="${APIDEX_BIN:?APIDEX_BIN must name the apidex binary}"
shared="${APIDEX_SHARED_DIR:-$src/../shared}"
root="$src/tests/golden/search"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

build_index() { # NAME SPECS...
  local name=$1
  shift
  "$bin" index "$@" --db "$tmp/$name.db" > "$tmp/$name.log" 2>&1 || {
    local rc=$?
    # exit 1: some document had problems (reported); the rest is indexed
    [ "$rc" -eq 1 ] || { echo "FAIL: indexing $name (exit $rc)"; cat "$tmp/$name.log"; exit 1; }
  }
}

build_index fixtures "$src/tests/data/search/music.yaml" "$src/tests/data/search/films.yaml" \
  "$src/examples/library.yaml" "$src/examples/recipes.yaml" "$src/examples/weather.json" \
  "$src/tests/agent/bookshop.json" "$root/specs"
have_shared=0
if [ -d "$shared/corpus/specs" ] && [ -d "$shared/benchmarks/restbench/specs" ]; then
  have_shared=1
  c="$shared/corpus/specs"
  build_index corpus "$c/stripe__spec3/spec3.json" \
    "$c/twilio__spec_json_twilio_api_v2010/twilio_api_v2010.json" \
    "$c/digitalocean__DigitalOcean-public.v2/specification/DigitalOcean-public.v2.yaml" \
    "$c/discord__specs_openapi/openapi.json" "$c/apisguru2020__slack.com_1.2.0/swagger.yaml" \
    "$c/readme_examples__3.1_yaml_train-travel/train-travel.yaml" \
    "$shared/benchmarks/restbench/specs"
  build_index socbench "$shared/benchmarks/socbenchd_dev/01_energy/specs"
fi

# The answer as a reader checks it, from `apidex search --json`.
render() { # [match]: the answer's match first
  python3 -c '
import json, sys
r = json.load(sys.stdin)
if sys.argv[1:] == ["match"]:
    print("match: %s" % r["match"])
ids = {h["id"]: "%s %s" % (h["method"], h["path"]) for h in r["results"]}
for h in r["results"]:
    print("%d. %s %s [%s] %s" % (h["rank"], h["method"], h["path"], h["api"], h["role"]))
    for n in h["needs"]:
        print("   needs %s <- %s" % (n["param"], ids.get(n["producer"], n["producer"])))
print("plan:")
for s in r["plan"]:
    print("%d. %s %s [%s] %s" % (s["step"], s["method"], s["path"], s["api"], s["role"]))
    for i in s["inputs"]:
        if i["from"] == "step":
            p = r["plan"][i["step"] - 1]
            print("   %s <- step %d (%s %s)" % (i["param"], i["step"], p["method"], p["path"]))
        else:
            print("   %s <- the %s" % (i["param"], i["from"]))
' "$@"
}

# The answer of TASK on DB by `apidex eval` with the given parameters, and the same with the
# case's "off" ones: exit 1 when they are the same (the rule the case pins makes no difference).
rule_moves() { # DB TASK adaptive|K OFF...
  python3 - "$bin" "$@" <<'PY'
import json, subprocess, sys, tempfile
bin, db, task, mode, off = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
with tempfile.NamedTemporaryFile("w", suffix=".json") as q:
    json.dump([{"query": task, "solution": [], "kind": "none"}], q)
    q.flush()
    def answer(params):
        args = [bin, "eval", "--db", db, "--queries", q.name, "--json", "--per-query"]
        args += [] if mode == "adaptive" else ["-k", mode]
        for p in params:
            args += ["--param", p]
        r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
        r = r["per_query"][0]
        return (r["adaptive"]["returned"] if mode == "adaptive" else r["returned"], r["match"])
    on, without = answer([]), answer(off)
if on == without:
    print("  with %s the answer is the same: %s" % (" ".join(off), on))
    sys.exit(1)
PY
}

fail=0 count=0 skipped=0 offs=0
for dir in "$root"/*/; do
  dir="${dir%/}"
  name="$(basename "$dir")"
  [ -f "$dir/case.json" ] || continue
  mapfile -t spec < <(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
print(c["index"])
print(c["task"])
print("--adaptive" if c.get("adaptive") else "-k %d" % c.get("k", 10))
print("match" if c.get("match") else "")
print(" ".join(c.get("off", [])))' "$dir/case.json")
  index="${spec[0]}" task="${spec[1]}" mode="${spec[2]}" show="${spec[3]}" off="${spec[4]}"
  if [ "$index" != fixtures ] && [ "$have_shared" = 0 ]; then
    skipped=$((skipped + 1))
    continue
  fi
  out="$tmp/$name.txt"
  {
    echo "task: $task"
    echo "mode: $mode"
    # shellcheck disable=SC2086
    "$bin" search "$task" --db "$tmp/$index.db" $mode --json | render $show
  } > "$out" 2> "$tmp/$name.err" || { echo "FAIL $name: apidex search failed"; cat "$tmp/$name.err"; fail=1; continue; }
  count=$((count + 1))
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$out" "$dir/expected.txt"
    echo "updated search/$name"
  elif ! diff -u "$dir/expected.txt" "$out" > "$tmp/$name.diff"; then
    echo "FAIL search/$name: the answer differs from expected.txt"
    cat "$tmp/$name.diff"
    fail=1
  fi
  if [ -n "$off" ]; then
    offs=$((offs + 1))
    # shellcheck disable=SC2086
    rule_moves "$tmp/$index.db" "$task" "$([ "$mode" = --adaptive ] && echo adaptive || echo "${mode#-k }")" $off ||
      { echo "FAIL search/$name: its rule switched off ($off) does not change the answer"; fail=1; }
  fi
done
[ "$count" -gt 0 ] || { echo "FAIL: no search golden case ran"; exit 1; }
[ "$skipped" = 0 ] || echo "note: $skipped cases skipped: $shared is missing"
echo "search golden: $count cases, $offs checked to change with their rule off${skipped:+, $skipped skipped}"
exit $fail
