#!/usr/bin/env bash
# The effect of each retrieval rule on the whole dev suite: the suite once with the defaults,
# then once per rule with that rule switched off (its parameters set to the value that turns
# it off), as one markdown table of the measures the targets use, per set, and their change
# against the defaults: R@10 and adaptive F1 (restbench, socbench, heldout1, heldout2), all@5,
# F1 and the share answered weak or none (everyday), the weak/none share (noanswer), and the
# opposite and destructive answers summed over the sets; then which sets the rule moves on any
# measure (R@5, R@10, R@20, all@5, adaptive R, P, F1, best@1, weak/none, the opposite and
# destructive counts). docs/SEARCH.md quotes this table.
#
#   bash bench/ablation.sh [BUILD_DIR] [--rules REGEX] [--sets a,b,...] [--keep DIR]
#
#   --rules REGEX  only the rules whose name matches (grep -E), and the defaults
#   --sets         passed to bench_retrieval.sh (default: every set it knows)
#   --keep DIR     also keeps each run's JSON lines (bench_retrieval.sh --json) in DIR, as
#                  NN.json with DIR/rules.tsv naming them (what a commit quotes)
#
# The rules and the parameters that switch them off are listed below; a rule measured and
# left off by default is switched ON instead (marked "+") to show why it is off. The last
# column says "none" when a rule moves no set and "one < 0.01" when it moves one set by less
# than 0.01 on every measure (a count by less than one answer in a hundred tasks): such a rule
# must have a general reason to stay (docs/SEARCH.md, "What each rule does").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="" only="" sets=() keep=""
while (($#)); do
  case $1 in
    --rules) only=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --sets) sets=(--sets "$2"); shift 2 ;;
    *) build=$1; shift ;;
  esac
done
build=${build:-$here/../build}

rules=(
  "defaults|"
  "intents|intent.max=1"
  "intents read in their task|intent.context=0"
  "list items are requests|intent.lists=0"
  "actions: mismatch|action.mismatch=1"
  "actions: destructive|action.destructive=1"
  "actions: opposite verbs|action.opposite=1"
  "actions: words that destroy|action.destroy_words=0"
  "actions: verbs learned from the specs|action.learn_min=1000"
  "actions: a question reads|action.question=1"
  "names weigh little|query.name_weight=1"
  "purpose phrases|query.purpose_weight=1"
  "word families|query.morph_weight=0 query.verb_noun_weight=0"
  "action nouns and sent things|query.verb_noun_weight=0"
  "pronouns take the previous object|query.anaphora_weight=0"
  "typo correction|query.typo_min_len=0"
  "negated verbs ask nothing|query.negation_reach=0"
  "ids the task gives|query.id_reach=0 query.id_before=0"
  "'a new X' needs no producer|query.fresh_reach=0"
  "routing by names|route.named_damping=1"
  "names by spread|route.name_spread=0"
  "lower-case label names|route.lower_names=0"
  "label prose is no name|route.label_prose=0"
  "routing by coverage|route.coverage=0"
  "things a name has|query.owner_weight=0"
  "what values are|query.value_weight=0"
  "producers|producer.depth=0"
  "producer relevance|producer.relevance=0"
  "search producers for names|producer.search_bonus=0"
  "caller's producers for 'my'|producer.mine_bonus=0"
  "producer path names the entity|producer.path_names=0"
  "producer takes a text query|producer.text_query=0"
  "producer is the caller's object|producer.caller=0"
  "consumer names its producer|producer.hint=0"
  "producer needs inputs itself|producer.own_input=0"
  "deprecated producers|producer.deprecated=0"
  "ambient inputs|producer.ambient=1.01"
  "'a specific X' is given|producer.given_specific=0"
  "item's own collection, shared path|producer.parent=0 producer.overlap=0"
  "producers in the ranked list|answer.list_producers=0"
  "one entry per service|answer.one_per_service=0"
  "older versions left out|answer.duplicates=0"
  "descriptions weigh 0.5|field.description=1"
  "confidence: the task names the API|confidence.named=0"
  "confidence: unknown words|confidence.unknown=0"
  "+ one-API focus (x0.6)|route.damping=0.6"
  "+ one-API answer|answer.same_api=1"
  "+ adjuncts weigh 0.7|query.adjunct_weight=0.7"
  "+ request verbs weigh 0.6|query.verb_weight=0.6"
  "+ name searches in lists|answer.name_searches=2"
  "+ an intent's second operation (0.8)|intent.second=0.8"
  "+ routing weighs relative scores (1)|route.relative=1"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
picked=()
for i in "${!rules[@]}"; do
  name=${rules[$i]%%|*}
  if ((i > 0)) && [ -n "$only" ] && ! grep -qE -- "$only" <<<"$name"; then continue; fi
  spec=${rules[$i]#*|}
  args=()
  for p in $spec; do args+=(--param "$p"); done
  bash "$here/bench_retrieval.sh" "$build" ${sets[@]+"${sets[@]}"} --json ${args[@]+"${args[@]}"} \
    > "$tmp/$i.json"
  picked+=("${rules[$i]}")
  cp "$tmp/$i.json" "$tmp/p${#picked[@]}.json"
  if [ -n "$keep" ]; then
    mkdir -p "$keep"
    n=$(printf %02d "${#picked[@]}")
    cp "$tmp/$i.json" "$keep/$n.json"
    printf '%s\t%s\n' "$n" "${rules[$i]}" >> "$keep/rules.tsv"
  fi
done
python3 - "$tmp" "${picked[@]}" <<'PY'
import json, sys
tmp, rules = sys.argv[1], sys.argv[2:]
MEASURES = ["recall_at_5", "recall_at_10", "recall_at_20", "all_at_5", "adaptive_recall",
            "adaptive_precision", "adaptive_f1", "best_at_1", "weak_or_none"]
HARM = ("opposite", "destructive")
# the columns: per set, the measures its targets use (as in the issue of answers)
COLUMNS = {"everyday": [("all@5", "all_at_5"), ("F1", "adaptive_f1"), ("w/n", "weak_or_none")],
           "noanswer": [("w/n", "weak_or_none")]}
DEFAULT_COLUMNS = [("R@10", "recall_at_10"), ("F1", "adaptive_f1")]
def load(i):
    rows = {}
    for line in open(f"{tmp}/p{i + 1}.json"):
        r = json.loads(line)
        rows[r["set"]] = r
    return rows
base = load(0)
sets = list(base)
head, cols = [], []
for s in sets:
    for label, key in COLUMNS.get(s, DEFAULT_COLUMNS):
        head.append(f"{s} {label}")
        cols.append((s, key))
print("| rule switched off | " + " | ".join(head) + " | opposite | destructive | sets moved |")
print("|---|" + "---:|" * (len(cols) + 2) + "---|")
for i, rule in enumerate(rules):
    name, spec = rule.split("|", 1)
    rows = load(i)
    cells, moved = [], []
    for s, key in cols:
        r, b = rows.get(s), base.get(s)
        if not r or not b or r.get(key) is None or b.get(key) is None:
            cells.append("-")
        elif i == 0:
            cells.append(f"{r[key]:.3f}")
        else:
            cells.append(f"{r[key] - b[key]:+.3f}")
    for c in HARM:
        n = sum(rows[s][c] for s in sets if s in rows)
        n0 = sum(base[s][c] for s in sets)
        cells.append(f"{n}" if i == 0 else f"{n - n0:+d}")
    for s in sets:
        r, b = rows.get(s), base.get(s)
        if i == 0 or not r or not b:
            continue
        d = max([0.0] + [abs(r[m] - b[m]) for m in MEASURES
                         if r.get(m) is not None and b.get(m) is not None])
        # a harm count moves by answers; as a share of the set's tasks
        d = max([d] + [abs(r[c] - b[c]) / b["tasks"] for c in HARM])
        if d > 1e-9:
            moved.append((s, d))
    if i == 0:
        verdict = ""
    elif not moved:
        verdict = "none"
    elif len(moved) == 1 and moved[0][1] < 0.01:
        verdict = f"one < 0.01 ({moved[0][0]} {moved[0][1]:.3f})"
    else:
        verdict = ", ".join(f"{s} {d:.3f}" for s, d in moved)
    label = f"{name} (`{spec}`)" if spec else name
    print(f"| {label} | " + " | ".join(cells) + f" | {verdict} |")
PY
