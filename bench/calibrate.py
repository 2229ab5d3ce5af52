#!/usr/bin/env python3
"""The confidence's calibration table, measured on the dev suite (python3 stdlib only).

    bash bench/bench_retrieval.sh build --keep DIR      # every set, per-query outputs kept
    python3 bench/calibrate.py DIR [--bands N] [--write src/search/confidence.c]

Reads DIR/manifest.tsv (bench_retrieval.sh --keep) and every eval output it names: per task,
the answer's evidence level (`evidence`, confidence.c) and whether its best operation is a
gold one (`best_right`; a task of the no-answer set never is). The tasks of every set are
pooled and cut into N bands of equal width of evidence (default 10); per band, the share of
its tasks whose best operation was right. Pool-adjacent-violators makes the shares
non-decreasing (a band that held fewer right answers than the one below it is merged with
it, weighed by tasks). The table maps each band's centre to its share; confidence.c reads it
by linear interpolation between centres (flat before the first and after the last).

Prints the table as markdown (the one docs/SEARCH.md shows) with, per band, its tasks, right
answers, raw share, calibrated share and tasks per set; with --write, also rewrites the block
between BEGIN CALIBRATION and END CALIBRATION of the given file.
"""
import json
import os
import re
import sys

SETS = ["restbench", "socbench", "heldout1", "heldout2", "everyday", "noanswer"]


def die(msg):
    sys.stderr.write("calibrate.py: %s\n" % msg)
    sys.exit(1)


def load(d):
    path = os.path.join(d, "manifest.tsv")
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        die("cannot read %s (run bench_retrieval.sh --keep %s first): %s" % (path, d, e))
    tasks = []
    for line in lines:
        if not line:
            continue
        _, set_name, label, name = line.split("\t", 3)
        try:
            with open(os.path.join(d, name)) as f:
                out = json.load(f)
        except (OSError, ValueError) as e:
            die("%s (%s): %s" % (label, name, e))
        for q in out.get("per_query") or die("%s: no per_query" % label):
            if "evidence" not in q or "best_right" not in q:
                die("%s: per_query without evidence/best_right (an older apidex?)" % label)
            tasks.append((set_name, float(q["evidence"]), bool(q["best_right"])))
    if not tasks:
        die("no tasks in %s" % path)
    return tasks


def pava(values, weights):
    """Non-decreasing least-squares fit (pool adjacent violators)."""
    blocks = []  # [value, weight, count of bands]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks.pop()
            w = w1 + w2
            blocks.append([(v1 * w1 + v2 * w2) / w if w else 0.0, w, n1 + n2])
    out = []
    for v, _, n in blocks:
        out.extend([v] * n)
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    d, bands, write = argv[0], 10, None
    i = 1
    while i < len(argv):
        if argv[i] == "--bands" and i + 1 < len(argv):
            bands = int(argv[i + 1])
            i += 2
        elif argv[i] == "--write" and i + 1 < len(argv):
            write = argv[i + 1]
            i += 2
        else:
            die("bad argument %r" % argv[i])
    if bands < 2:
        die("--bands must be at least 2")
    tasks = load(d)
    n = [0] * bands
    right = [0] * bands
    per_set = [dict() for _ in range(bands)]
    for set_name, ev, ok in tasks:
        b = min(int(max(ev, 0.0) * bands), bands - 1)
        n[b] += 1
        right[b] += ok
        per_set[b][set_name] = per_set[b].get(set_name, 0) + 1
    used = [b for b in range(bands) if n[b]]
    raw = [right[b] / n[b] for b in used]
    cal = pava(raw, [n[b] for b in used])
    centres = [(b + 0.5) / bands for b in used]

    sets = [s for s in SETS if any(s in p for p in per_set)]
    sets += sorted({s for p in per_set for s in p} - set(sets))
    print("| evidence | tasks | right | share right | confidence | " + " | ".join(sets) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(sets))
    for j, b in enumerate(used):
        cells = ["%.2f-%.2f" % (b / bands, (b + 1) / bands), str(n[b]), str(right[b]),
                 "%.3f" % raw[j], "%.3f" % cal[j]]
        cells += [str(per_set[b].get(s, 0)) for s in sets]
        print("| " + " | ".join(cells) + " |")
    print("\n%d tasks; %d with the best operation right" % (len(tasks), sum(right)))

    if write:
        def array(name, values):  # five a line, as clang-format lays them out
            head = "static const double %s[] = {" % name
            rows = [", ".join("%.3f" % v for v in values[i:i + 5])
                    for i in range(0, len(values), 5)]
            return head + (",\n" + " " * len(head)).join(rows) + "};\n"
        block = ("/* BEGIN CALIBRATION (bench/calibrate.py --write rewrites this block) */\n" +
                 array("cal_evidence", centres) + array("cal_confidence", cal) +
                 "/* END CALIBRATION */")
        try:
            src = open(write).read()
        except OSError as e:
            die("cannot read %s: %s" % (write, e))
        new, k = re.subn(r"/\* BEGIN CALIBRATION.*?/\* END CALIBRATION \*/", lambda _: block, src,
                         flags=re.S)
        if k != 1:
            die("%s: no BEGIN CALIBRATION ... END CALIBRATION block" % write)
        with open(write, "w") as f:
            f.write(new)
        sys.stderr.write("calibrate.py: wrote the table into %s\n" % write)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
