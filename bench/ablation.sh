#!/usr/bin/env bash
# The effect of each retrieval rule on the whole dev suite: the suite once with the defaults,
# then once per rule with that rule switched off (its parameters set to the value that turns
# it off), as one markdown table of R@10 and adaptive F1 per set and their change against the
# defaults. docs/SEARCH.md quotes this table.
#
#   bash bench/ablation.sh [BUILD_DIR]
#
# The rules and the parameters that switch them off are listed below; a rule measured and
# left off by default is switched ON instead (marked "+") to show why it is off.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}

rules=(
  "defaults|"
  "intents|intent.max=1"
  "intent bar|intent.bar=0"
  "intents read in their task|intent.context=0"
  "list items are requests|intent.lists=0"
  "actions: mismatch|action.mismatch=1"
  "actions: destructive|action.destructive=1"
  "names weigh little|query.name_weight=1"
  "purpose phrases|query.purpose_weight=1"
  "word families|query.morph_weight=0 query.verb_noun_weight=0"
  "pronouns take the previous object|query.anaphora_weight=0"
  "typo correction|query.typo_min_len=0"
  "routing by names|route.named_damping=1"
  "routing by coverage|route.coverage=0"
  "things a name has|query.owner_weight=0"
  "what values are|query.value_weight=0"
  "producers|producer.depth=0"
  "ambient inputs|producer.ambient=1.01"
  "'a specific X' is given|producer.given_specific=0"
  "item's own collection, shared path|producer.parent=0 producer.overlap=0"
  "descriptions weigh 0.5|field.description=1"
  "+ one-API focus (x0.6)|route.damping=0.6"
  "+ one-API answer|answer.same_api=1"
  "+ adjuncts weigh 0.7|query.adjunct_weight=0.7"
  "+ request verbs weigh 0.6|query.verb_weight=0.6"
  "+ name searches in lists|answer.name_searches=2"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in "${!rules[@]}"; do
  spec=${rules[$i]#*|}
  args=()
  for p in $spec; do args+=(--param "$p"); done
  bash "$here/bench_retrieval.sh" "$build" --json ${args[@]+"${args[@]}"} > "$tmp/$i.json"
done
python3 - "$tmp" "${rules[@]}" <<'PY'
import json, sys
tmp, rules = sys.argv[1], sys.argv[2:]
sets = ["restbench", "socbench", "heldout1", "heldout2", "everyday"]
def load(i):
    rows = {}
    for line in open(f"{tmp}/{i}.json"):
        r = json.loads(line)
        rows[r["set"]] = r
    return rows
base = load(0)
head = "| rule switched off | " + " | ".join(f"{s} R@10 | F1" for s in sets) + " |"
print(head)
print("|---|" + "---:|---:|" * len(sets))
for i, rule in enumerate(rules):
    name = rule.split("|")[0]
    rows = load(i)
    cells = []
    for s in sets:
        r, b = rows.get(s), base.get(s)
        if not r or not b:
            cells += ["-", "-"]
            continue
        if i == 0:
            cells += [f"{r['recall_at_10']:.3f}", f"{r['adaptive_f1']:.3f}"]
        else:
            cells += [f"{r['recall_at_10'] - b['recall_at_10']:+.3f}",
                      f"{r['adaptive_f1'] - b['adaptive_f1']:+.3f}"]
    print(f"| {name} | " + " | ".join(cells) + " |")
PY
