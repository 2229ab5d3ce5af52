#!/usr/bin/env bash
# Retrieval dev suite: the quality of `apidex search` on seven task sets, with one build.
#
#   restbench  RestBench (Song et al.): TMDB + Spotify, 157 tasks (pesl_socbench_cleaned
#              tmdb.json + spotify.json), one index over both specs.
#   socbench   SOCBench-D dev split (Pesl et al.): 11 domains x 10 tasks; ONE INDEX PER DOMAIN
#              (its 5 specs together), that domain's tasks against it, as the authors do. The
#              row is the mean over all 110 tasks (each domain weighs by its number of tasks);
#              its p50 is the MEDIAN OF THE 11 PER-DOMAIN p50s.
#   heldout1   bench/queries/corpus_tasks.json, 40 tasks over slack, discord, stripe, twilio,
#              digitalocean (one index over the five; written without seeing the retriever).
#   heldout2   bench/queries/corpus_tasks_2.json, 40 tasks over rebilly, shutterstock, bungie,
#              peertube, magento (one index over the five).
#   everyday   bench/queries/everyday_tasks.json over ONE index of all 40 specs
#              (shared/corpus/specs + the two RestBench specs). Skipped with a note while the
#              file does not exist. Written blind, before any result; dev data since (this
#              script prints aggregates; `apidex eval --per-query` shows the tasks).
#   noanswer   bench/queries/no_answer_tasks.json over the same 40-spec index as everyday:
#              everyday tasks for services no indexed API offers ("kind": "none", no gold).
#              Its recall columns are empty; what counts is its weak/none share.
#   mcp        bench/queries/mcp_tasks.json over the tools of the MCP servers of
#              bench/queries/mcp_servers.json (an `mcpServers` config; its relative paths are
#              resolved against the repository), installed by tools/node (npm ci). Gold ids are
#              SERVER:TOOL. bench/mcp_tools.mjs starts each server over stdio with the official
#              SDK and dumps its tools; bench/mcp_bm25.py ranks them with a plain BM25 over the
#              tool definitions (the tool search MCP clients ship): row `mcp-bm25`, recall
#              columns only. apidex's own row `mcp` (`apidex index --mcp-config`) runs when
#              `apidex index --help` offers --mcp-config; until then the script says so and
#              prints the baseline alone. Skipped with a note without node or tools/node.
#
# How: each set's index is kept in BUILD_DIR/bench-indexes/<set>.db (socbench:
# socbench-<domain>.db) and refreshed every run with `apidex index ... --db` (incremental:
# unchanged documents are reused; output in bench-indexes/index.log). When the apidex binary
# differs from the one that built an index, or the sources' paths differ (both hashed in
# <db>.stamp), the index is rebuilt with --full --prune, so indexing-code changes that keep
# the version string are not hidden by reuse and an index from another checkout is replaced.
# The binary is copied once at start, so a rebuild by someone else mid-run cannot mix two
# builds in one table. Then `apidex eval --db IDX --queries ... --json --per-query` runs per
# set (per domain), in parallel (nproc jobs), and bench/retrieval_table.py aggregates:
#
#   set | tasks | R@5 | R@10 | R@20 | all@5 | adaptive R | adaptive P | adaptive F1 | size | p50 ms
#       | opposite | destructive | best@1 | weak/none
#
# R@k: mean per-task recall of the top k distinct endpoints; all@5: fraction of tasks with
# every gold endpoint in the top 5; adaptive R/P/F1/size: the adaptive answer (eval's default
# budget), mean per-task recall, precision, F1 and number of endpoints; p50 ms: median
# latency of the fixed-k search (engine open excluded); opposite / destructive: how many adaptive
# answers hold an operation opposing the task's request, or a destructive one no request asks
# for (counts; eval's harm.c judges them from the words, apart from the engine); best@1: share of
# the tasks with gold whose best operation (the one the answer's confidence is about) is a gold
# one; weak/none: share of all the tasks answered with the match "weak" or "none" (the
# confidence, docs/SEARCH.md): high on noanswer, low elsewhere. Quality numbers do not vary run to
# run; latencies do.
#
#   bash bench/bench_retrieval.sh [BUILD_DIR] [--sets a,b,...] [--param NAME=VALUE]...
#                                 [--sweep-param NAME=v1,v2,...] [--json] [--keep DIR]
#
#   BUILD_DIR      holds the apidex binary (default: build/ of this repo)
#   --sets         comma-separated subset of restbench,socbench,heldout1,heldout2,everyday,
#                  noanswer,mcp
#   --param        passed untouched to every `apidex eval` as `--param NAME=VALUE`
#   --sweep-param  runs the suite once per value (with --param NAME=v); one table with a
#                  first column NAME, rows grouped by value, then set
#   --json         the same numbers as JSON lines (one object per row) instead of the table
#   --keep DIR     also keeps every eval's per-query JSON in DIR, with DIR/manifest.tsv naming
#                  them (what bench/calibrate.py reads)
# Data: ${APIDEX_SHARED:-<repo>/../shared}. Exit status: 0 ok; 1 an index or eval failed (the
# eval's error is shown; rows whose eval failed are left out of the table); 2 usage, or the
# binary or data missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
all_sets=restbench,socbench,heldout1,heldout2,everyday,noanswer,mcp

usage() { sed -n '/^#   bash bench/,/calibrate.py reads)$/s/^# \{0,1\}//p' "$0"; }
die() { echo "bench_retrieval.sh: $*" >&2; exit 2; }
note() { echo "bench_retrieval.sh: $*" >&2; }

build_arg="" sets_arg=$all_sets sweep="" json=0 keep=""
params=()
while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --sets) (($# >= 2)) || die "--sets needs a value"; sets_arg=$2; shift 2 ;;
    --sets=*) sets_arg=${1#--sets=}; shift ;;
    --param) (($# >= 2)) || die "--param needs NAME=VALUE"; params+=(--param "$2"); shift 2 ;;
    --param=*) params+=(--param "${1#--param=}"); shift ;;
    --sweep-param) (($# >= 2)) || die "--sweep-param needs NAME=v1,v2,..."; sweep=$2; shift 2 ;;
    --sweep-param=*) sweep=${1#--sweep-param=}; shift ;;
    --json) json=1; shift ;;
    --keep) (($# >= 2)) || die "--keep needs a directory"; keep=$2; shift 2 ;;
    --keep=*) keep=${1#--keep=}; shift ;;
    -*) usage >&2; die "unknown option '$1'" ;;
    *) [ -z "$build_arg" ] || die "one BUILD_DIR only (got '$build_arg' and '$1')"
       build_arg=$1; shift ;;
  esac
done

# --- binary, data ------------------------------------------------------------------------
build_dir=${build_arg:-$repo/build}
[ -d "$build_dir" ] || die "no build directory '$build_dir' (run 'make build' in $repo)"
build_dir=$(cd "$build_dir" && pwd)
[ -x "$build_dir/apidex" ] || die "no apidex binary at $build_dir/apidex (run 'make build' in $repo)"

shared=${APIDEX_SHARED:-$repo/../shared}
[ -d "$shared" ] || die "no shared data at '$shared' (set APIDEX_SHARED)"
shared=$(cd "$shared" && pwd)
rb=$shared/benchmarks/restbench
sb=$shared/benchmarks/socbenchd_dev
cs=$shared/corpus/specs
q=$here/queries

sweep_name="" sweep_values=()
if [ -n "$sweep" ]; then
  [[ $sweep == ?*=?* ]] || die "--sweep-param wants NAME=v1,v2,... (got '$sweep')"
  sweep_name=${sweep%%=*}
  IFS=, read -r -a sweep_values <<<"${sweep#*=}"
  ((${#sweep_values[@]})) || die "--sweep-param $sweep_name: no values"
else
  sweep_values=("")
fi

IFS=, read -r -a sets <<<"$sets_arg"
((${#sets[@]})) || die "--sets is empty"
for s in "${sets[@]}"; do
  [[ ,$all_sets, == *,"$s",* ]] || die "unknown set '$s' (sets: $all_sets)"
done

need() { for p in "$@"; do [ -e "$p" ] || die "missing $p (set APIDEX_SHARED, or check the checkout)"; done; }
heldout1_specs=(
  "$cs/apisguru2020__slack.com_1.2.0/swagger.yaml"
  "$cs/discord__specs_openapi/openapi.json"
  "$cs/stripe__spec3/spec3.json"
  "$cs/twilio__spec_json_twilio_api_v2010/twilio_api_v2010.json"
  "$cs/digitalocean__DigitalOcean-public.v2/specification/DigitalOcean-public.v2.yaml"
)
heldout2_specs=(
  "$cs/apisguru2020__rebilly.com_2.1/openapi.yaml"
  "$cs/apisguru2020__shutterstock.com_1.0.16/openapi.yaml"
  "$cs/apisguru2020__bungie.net_2.0.0/swagger.yaml"
  "$cs/apisguru2020__cpy.re_peertube_1.3.1/openapi.yaml"
  "$cs/apisguru2020__magento.com_2.1/swagger.yaml"
)

# One unit = one index + one eval. Fields: set|label|db name|queries (;-sep)|specs (;-sep).
units=() run_sets=() mcp_set=0
add_unit() { local IFS=';'; units+=("$1|$2|$3|$4|$5"); }
join() { local IFS=';'; echo "$*"; }
for s in "${sets[@]}"; do
  case $s in
    restbench)
      need "$rb/specs" "$rb/pesl_socbench_cleaned/datasets/tmdb.json" "$rb/pesl_socbench_cleaned/datasets/spotify.json"
      add_unit restbench restbench restbench \
        "$(join "$rb/pesl_socbench_cleaned/datasets/tmdb.json" "$rb/pesl_socbench_cleaned/datasets/spotify.json")" \
        "$rb/specs" ;;
    socbench)
      need "$sb"
      n=0
      for d in "$sb"/*/; do
        d=${d%/}; dn=$(basename "$d")
        [ -d "$d/specs" ] || continue
        need "$d/queries.json"
        add_unit socbench "socbench $dn" "socbench-$dn" "$d/queries.json" "$d/specs"
        n=$((n + 1))
      done
      ((n)) || die "no SOCBench-D domains (<domain>/specs) under $sb"
      [ "$n" = 11 ] || note "socbench: $n domains under $sb (expected 11)" ;;
    heldout1)
      need "$q/corpus_tasks.json" "${heldout1_specs[@]}"
      add_unit heldout1 heldout1 heldout1 "$q/corpus_tasks.json" "$(join "${heldout1_specs[@]}")" ;;
    heldout2)
      need "$q/corpus_tasks_2.json" "${heldout2_specs[@]}"
      add_unit heldout2 heldout2 heldout2 "$q/corpus_tasks_2.json" "$(join "${heldout2_specs[@]}")" ;;
    everyday)
      if [ ! -e "$q/everyday_tasks.json" ]; then
        note "everyday: $q/everyday_tasks.json does not exist yet; set skipped"
        continue
      fi
      need "$cs" "$rb/specs"
      add_unit everyday everyday everyday "$q/everyday_tasks.json" "$(join "$cs" "$rb/specs")" ;;
    noanswer)
      need "$q/no_answer_tasks.json" "$cs" "$rb/specs"
      # the everyday index: the same database, indexed once
      add_unit noanswer noanswer everyday "$q/no_answer_tasks.json" "$(join "$cs" "$rb/specs")" ;;
    mcp)
      need "$q/mcp_tasks.json" "$q/mcp_servers.json" "$here/mcp_tools.mjs" "$here/mcp_bm25.py"
      if ! command -v node >/dev/null || [ ! -d "$repo/tools/node/node_modules/@modelcontextprotocol/sdk" ]; then
        note "mcp: needs node and the MCP servers of tools/node (cd tools/node && npm ci); set skipped"
        continue
      fi
      mcp_set=1 ;;  # its unit is added once the binary is copied (below)
  esac
  run_sets+=("$s")
done
((${#units[@]} || mcp_set)) || die "no set left to run"

# --- workspace ---------------------------------------------------------------------------
idx_dir=$build_dir/bench-indexes
mkdir -p "$idx_dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_retrieval.XXXXXX")
cleanup() { local p; for p in $(jobs -pr); do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
bin=$tmp/apidex
cp "$build_dir/apidex" "$bin"
binsha=$(sha256sum "$bin" | cut -d' ' -f1)
jobs_max=$(nproc 2>/dev/null || echo 2)

throttle() { while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done; }

# --- 0. the MCP set: its servers' tools, the BM25 baseline, apidex's unit if it can ----------
mcp_failed=0
if ((mcp_set)); then
  # the config with its paths resolved: what apidex indexes. Kept beside the index, at one
  # path from run to run: the index's sources are named after it, so a config in this run's
  # temporary directory would make the next run's incremental index drop them all (refused)
  mcp_cfg=$idx_dir/mcp_servers.json
  rc=0
  node "$here/mcp_tools.mjs" --config "$q/mcp_servers.json" --resolved "$mcp_cfg" \
    --out "$tmp/mcp_tools.json" 2>"$tmp/mcp_tools.log" || rc=$?
  if [ "$rc" != 0 ] && [ ! -s "$tmp/mcp_tools.json" ]; then
    note "mcp: bench/mcp_tools.mjs failed (exit $rc):"; sed 's/^/    /' "$tmp/mcp_tools.log" >&2
    exit 1
  fi
  if [ "$rc" != 0 ]; then  # some servers failed: their tasks count as misses, and it is an error
    note "mcp: some MCP servers did not list their tools:"
    grep -v ': [0-9]* tools$' "$tmp/mcp_tools.log" | sed 's/^/    /' >&2
    mcp_failed=1
  fi
  rc=0
  python3 "$here/mcp_bm25.py" "$tmp/mcp_tools.json" "$q/mcp_tasks.json" \
    >"$tmp/mcp-bm25.json" 2>"$tmp/mcp-bm25.json.err" || rc=$?
  echo "$rc" >"$tmp/mcp-bm25.json.rc"
  # the help read whole first: under pipefail, grep -q closing the pipe early made a longer
  # help die of SIGPIPE and the row was skipped as if the flag were missing
  index_help=$("$bin" index --help 2>&1 || true)
  if grep -q -- --mcp-config <<<"$index_help"; then
    add_unit mcp mcp mcp "$q/mcp_tasks.json" "$(join --mcp-config "$mcp_cfg")"
  else
    note "mcp: this apidex cannot index MCP sources yet (its 'index --help' has no --mcp-config);" \
      "only the BM25 baseline row (mcp-bm25) is printed"
  fi
  run_sets+=(mcp)
fi

# --- 1. indexes (once per run, whatever the sweep) -----------------------------------------
index_one() {  # dbname specs...
  local name=$1; shift
  local db=$idx_dir/$name.db full=()
  # the stamp names the binary and the sources: an index left by another binary, or built
  # from other paths (another checkout, a moved build folder), is rebuilt whole, never
  # updated in place (an incremental index refuses to drop every source it had)
  local stamp
  stamp="$binsha $(printf '%s\n' "$@" | sha256sum | cut -d' ' -f1)"
  if [ -e "$db" ] && [ "$(cat "$db.stamp" 2>/dev/null)" != "$stamp" ]; then full=(--full --prune); fi
  local rc=0
  "$bin" index "$@" --db "$db" "${full[@]}" >"$tmp/idx-$name.log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then echo "$stamp" >"$db.stamp"; else rm -f "$db.stamp"; fi
  echo "$rc" >"$tmp/idx-$name.rc"
}
declare -A indexed=()  # sets sharing an index (everyday, noanswer) build it once
for u in "${units[@]}"; do
  IFS='|' read -r _ _ name _ specs <<<"$u"
  [ -z "${indexed[$name]:-}" ] || continue
  indexed[$name]=1
  IFS=';' read -r -a spec_list <<<"$specs"
  throttle
  index_one "$name" "${spec_list[@]}" &
done
wait
log=$idx_dir/index.log
{ echo "# bench_retrieval.sh $(date -u +%FT%TZ), apidex sha256 $binsha"; } >"$log"
failed=0
logged=()
for u in "${units[@]}"; do
  IFS='|' read -r _ label name _ _ <<<"$u"
  [[ " ${logged[*]} " != *" $name "* ]] || continue
  logged+=("$name")
  { echo "## $label ($idx_dir/$name.db)"; cat "$tmp/idx-$name.log"; } >>"$log"
  rc=$(cat "$tmp/idx-$name.rc")
  if [ "$rc" != 0 ]; then
    note "index failed for $label (apidex index exit $rc; 1 = some documents failed):"
    sed 's/^/    /' "$tmp/idx-$name.log" | tail -n 8 >&2
    failed=1
  fi
done
((failed == 0)) || { note "see $log"; exit 1; }

# --- 2. evals: every sweep value x unit ------------------------------------------------------
eval_one() {  # out db queries... -- extra args...
  local out=$1 db=$2; shift 2
  local qs=()
  while [ "$1" != -- ]; do qs+=("$1"); shift; done
  shift
  local rc=0
  "$bin" eval --db "$db" --queries "${qs[@]}" --json --per-query "$@" >"$out" 2>"$out.err" || rc=$?
  echo "$rc" >"$out.rc"
}
evals=()  # out|value|set|label|extra args (for messages)
i=0
for v in "${sweep_values[@]}"; do
  extra=("${params[@]}")
  [ -z "$sweep_name" ] || extra+=(--param "$sweep_name=$v")
  for u in "${units[@]}"; do
    IFS='|' read -r set label name queries _ <<<"$u"
    IFS=';' read -r -a q_list <<<"$queries"
    out=$tmp/eval-$i.json
    evals+=("$out|$v|$set|$label|${extra[*]}")
    throttle
    # The job's own stderr (bash's "Segmentation fault" notice) goes to a file, not the terminal.
    eval_one "$out" "$idx_dir/$name.db" "${q_list[@]}" -- "${extra[@]}" 2>"$out.sh" &
    i=$((i + 1))
  done
  # the baseline does not depend on apidex's parameters: the same row under every value
  if ((mcp_set)); then evals+=("$tmp/mcp-bm25.json|$v|mcp-bm25|mcp bm25|"); fi
done
wait
# A failed eval drops its whole row (a SOCBench-D mean over some domains would mislead); the
# other rows are still printed and the exit status is 1.
declare -A seen=() bad=()  # an identical error (e.g. a --param eval refuses) is shown once
for e in "${evals[@]}"; do
  IFS='|' read -r out v set label args <<<"$e"
  rc=$(cat "$out.rc")
  [ "$rc" != 0 ] || continue
  failed=1
  bad[$v|$set]=1
  what=$label${sweep_name:+ [$sweep_name=$v]}
  key=$rc:$(cksum <"$out.err")
  if [ -n "${seen[$key]:-}" ]; then seen[$key]+=", $what"; continue; fi
  seen[$key]=$what
  sig=""
  ((rc <= 128)) || sig=", killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
  note "apidex eval failed for $what (exit $rc$sig${args:+; extra arguments: $args}):"
  if [ -s "$out.err" ]; then
    head -n 3 "$out.err" | sed 's/^/    /' >&2
    nl=$(wc -l <"$out.err")
    ((nl <= 3)) || echo "    (... $((nl - 3)) more lines)" >&2
  else
    echo "    (nothing on stderr)" >&2
  fi
done
for key in "${!seen[@]}"; do
  if [[ ${seen[$key]} == *,* ]]; then note "the same error for: ${seen[$key]}"; fi
done
manifest=$tmp/manifest.tsv
: >"$manifest"
for e in "${evals[@]}"; do
  IFS='|' read -r out v set label _ <<<"$e"
  [ -n "${bad[$v|$set]:-}" ] || printf '%s\t%s\t%s\t%s\n' "$v" "$set" "$label" "$out" >>"$manifest"
done

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  # the manifest with the files' names inside DIR (awk: a sweep value may be empty); apidex's
  # evals only (the BM25 baseline has no answers for bench/calibrate.py)
  awk -F'\t' -v OFS='\t' '$2 != "mcp-bm25" { n = split($4, p, "/"); $4 = p[n]; print }' \
    "$manifest" >"$keep/manifest.tsv"
  awk -F'\t' '$2 != "mcp-bm25" { print $4 }' "$manifest" | while read -r out; do cp "$out" "$keep/"; done
fi

# --- 3. table ------------------------------------------------------------------------------
targs=()
if ((json)); then targs+=(--json); fi
[ -z "$sweep_name" ] || targs+=(--sweep "$sweep_name")
for ((j = 1; j < ${#params[@]}; j += 2)); do targs+=(--param "${params[j]}"); done
if [ -s "$manifest" ]; then
  python3 "$here/retrieval_table.py" "$manifest" "${targs[@]}"
fi
if ((failed)); then
  note "some evals failed; their rows are missing${sweep_name:+ (or the table is empty)}"
  exit 1
fi
if ((mcp_failed)); then
  note "mcp: some MCP servers did not start (above); their tasks counted as misses"
  exit 1
fi
