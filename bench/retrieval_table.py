#!/usr/bin/env python3
"""Aggregates `apidex eval --json --per-query` outputs into the retrieval dev-suite table.

Called by bench/bench_retrieval.sh; python3 stdlib only.

    retrieval_table.py MANIFEST [--json] [--sweep NAME] [--param NAME=VALUE]...

MANIFEST is a tab-separated file, one eval output per line, in display order:

    VALUE <TAB> SET <TAB> LABEL <TAB> FILE

VALUE is the sweep value ("" without a sweep), SET the row's set, LABEL what the output was
(e.g. the SOCBench domain; used in error messages), FILE the eval's JSON output. A (VALUE, SET)
row with several files (SOCBench-D: one eval per domain) is the task-weighted mean of the
files: each file's aggregate weighs by its `queries`, which is the mean over all tasks.
Latency of such a row is the median of the files' p50s (the tasks of different indexes
cannot be pooled from the percentiles).

opposite and destructive count the adaptive answers that hold an operation opposing the
task's request, or a destructive one no request asks for (eval's harm.c), summed over a row's
files.

all@5 is the fraction of tasks whose per-query recall@5 is 1 (every gold endpoint in the top
5). Only that count is taken from `per_query`; nothing per task is printed.

A file with "baseline" (bench/mcp_bm25.py: a plain BM25 over the MCP set's tool definitions)
holds only a ranked list's numbers: queries, answerable, recall_at and per_query recall_at;
its row shows "-" in the columns that are apidex's (adaptive answer, latency, harm, best@1,
weak/none).

Recall, precision, F1, all@5 and best@1 are means over the tasks with gold (eval's
`answerable`); a row with none (the no-answer set) shows "-" there. best@1 is the share of them
whose best operation is a gold one; weak/none the share of all tasks whose answer's match is
"weak" or "none".
"""
import json
import statistics
import sys

COLUMNS = [
    ("tasks", "tasks"),
    ("R@5", "recall_at_5"),
    ("R@10", "recall_at_10"),
    ("R@20", "recall_at_20"),
    ("all@5", "all_at_5"),
    ("adaptive R", "adaptive_recall"),
    ("adaptive P", "adaptive_precision"),
    ("adaptive F1", "adaptive_f1"),
    ("size", "adaptive_size"),
    ("p50 ms", "p50_ms"),
    ("opposite", "opposite"),
    ("destructive", "destructive"),
    ("best@1", "best_at_1"),
    ("weak/none", "weak_or_none"),
]
# counts (summed over a row's files), not means
COUNTS = ("tasks", "opposite", "destructive")
# what a baseline's file (a ranked list only) does not have
BASELINE_NONE = ("best_right", "weak_or_none", "adaptive_recall", "adaptive_precision",
                 "adaptive_f1", "adaptive_size", "p50", "opposite", "destructive")


def die(msg):
    sys.stderr.write("retrieval_table.py: %s\n" % msg)
    sys.exit(1)


def get(d, *keys, where):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            die("%s: eval output has no %s" % (where, ".".join(keys)))
        d = d[k]
    if not isinstance(d, (int, float)):
        die("%s: %s is not a number" % (where, ".".join(keys)))
    return float(d)


def load(label, path):
    where = "%s (%s)" % (label, path)
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        die("%s: cannot read the eval JSON: %s" % (where, e))
    n = int(get(d, "queries", where=where))
    per = d.get("per_query")
    if not isinstance(per, list) or len(per) != n:
        die("%s: per_query missing or not one entry per query (run eval with --per-query)" % where)
    all5 = 0
    answerable = int(get(d, "answerable", where=where))
    for q in per:
        r5 = get(q, "recall_at", "5", where=where + " per_query")
        if r5 >= 1.0 - 1e-9:
            all5 += 1
    if d.get("baseline"):
        row = dict.fromkeys(BASELINE_NONE)
        row.update({"n": n, "answerable": answerable, "all5": all5,
                    "recall_at_5": get(d, "recall_at", "5", where=where),
                    "recall_at_10": get(d, "recall_at", "10", where=where),
                    "recall_at_20": get(d, "recall_at", "20", where=where)})
        return row
    return {
        "n": n,
        "answerable": answerable,
        "best_right": int(get(d, "best_right", where=where)),
        "weak_or_none": int(get(d, "match", "weak", where=where)) +
                        int(get(d, "match", "none", where=where)),
        "recall_at_5": get(d, "recall_at", "5", where=where),
        "recall_at_10": get(d, "recall_at", "10", where=where),
        "recall_at_20": get(d, "recall_at", "20", where=where),
        "all5": all5,
        "adaptive_recall": get(d, "adaptive", "recall", where=where),
        "adaptive_precision": get(d, "adaptive", "precision", where=where),
        "adaptive_f1": get(d, "adaptive", "f1", where=where),
        "adaptive_size": get(d, "adaptive", "mean_size", where=where),
        "p50": get(d, "latency_ms", "p50", where=where),
        "opposite": int(get(d, "adaptive", "opposite", where=where)),
        "destructive": int(get(d, "adaptive", "destructive", where=where)),
    }


def aggregate(parts):
    tasks = sum(p["n"] for p in parts)
    gold = sum(p["answerable"] for p in parts)
    if any(p[k] is None for p in parts for k in BASELINE_NONE):
        row = aggregate_ranked(parts, tasks, gold)
        row.update(dict.fromkeys(("adaptive_recall", "adaptive_precision", "adaptive_f1",
                                  "adaptive_size", "best_at_1", "weak_or_none", "p50_ms",
                                  "opposite", "destructive")))
        return row
    row = aggregate_ranked(parts, tasks, gold)
    # eval's means are over a file's tasks with gold: weigh them by those
    for key in ("adaptive_recall", "adaptive_precision", "adaptive_f1"):
        row[key] = sum(p[key] * p["answerable"] for p in parts) / gold if gold else None
    row["adaptive_size"] = sum(p["adaptive_size"] * p["n"] for p in parts) / tasks if tasks else 0.0
    row["best_at_1"] = sum(p["best_right"] for p in parts) / gold if gold else None
    row["weak_or_none"] = sum(p["weak_or_none"] for p in parts) / tasks if tasks else 0.0
    row["p50_ms"] = statistics.median(p["p50"] for p in parts)
    row["opposite"] = sum(p["opposite"] for p in parts)
    row["destructive"] = sum(p["destructive"] for p in parts)
    return row


def aggregate_ranked(parts, tasks, gold):
    """The numbers of a ranked list: recall at 5/10/20 and all@5 (eval's means are over a
    file's tasks with gold: weigh them by those)."""
    row = {"tasks": tasks}
    for key in ("recall_at_5", "recall_at_10", "recall_at_20"):
        row[key] = sum(p[key] * p["answerable"] for p in parts) / gold if gold else None
    row["all_at_5"] = sum(p["all5"] for p in parts) / gold if gold else None
    return row


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    manifest, as_json, sweep, params = argv[0], False, None, []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--json":
            as_json = True
        elif a in ("--sweep", "--param") and i + 1 < len(argv):
            if a == "--sweep":
                sweep = argv[i + 1]
            else:
                params.append(argv[i + 1])
            i += 1
        else:
            die("bad argument %r" % a)
        i += 1

    rows, order = {}, []
    with open(manifest) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            value, set_name, label, path = line.split("\t", 3)
            key = (value, set_name)
            if key not in rows:
                rows[key] = []
                order.append(key)
            rows[key].append(load(label, path))
    if not order:
        die("no eval outputs to aggregate")

    fixed = {}
    for p in params:
        name, _, value = p.partition("=")
        fixed[name] = value

    out = sys.stdout
    if not as_json:
        head = ([sweep] if sweep else []) + ["set"] + [c for c, _ in COLUMNS]
        out.write("| " + " | ".join(head) + " |\n")
        out.write("|" + "|".join("---" if j < len(head) - len(COLUMNS) else "---:"
                                 for j in range(len(head))) + "|\n")
    for value, set_name in order:
        row = aggregate(rows[(value, set_name)])
        if as_json:
            rec = {}
            if sweep:
                rec["sweep_param"] = sweep
                rec["sweep_value"] = value
            rec["set"] = set_name
            for _, key in COLUMNS:
                v = row[key]
                rec[key] = v if key in COUNTS or v is None else round(v, 3)
            ps = dict(fixed)
            if sweep:
                ps[sweep] = value
            rec["params"] = ps
            out.write(json.dumps(rec) + "\n")
        else:
            cells = ([value] if sweep else []) + [set_name]
            for _, key in COLUMNS:
                v = row[key]
                cells.append("-" if v is None else str(v) if key in COUNTS else "%.3f" % v)
            out.write("| " + " | ".join(cells) + " |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
