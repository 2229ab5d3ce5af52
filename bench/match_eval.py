#!/usr/bin/env python3
"""Scores `apidex match` on the documents of match_gen.py (docs/MATCH.md, "Evaluation").

usage: match_eval.py --bin APIDEX --db DB --gen DIR --split dev|test
                     [--threshold T | --choose] [--param NAME=VALUE]...

Per operation: accuracy at 1 and at 5 over the operations whose service the index holds
(a candidate is right when it is the source operation: its method and path in the source
API, or in another copy of that service, same title); "no match" precision and recall at
the threshold (an operation of a held-out spec should get none). Per document: the API
ranked first is the source's (API-level accuracy), and held-out documents whose first API
covers none of their operations. --choose picks the threshold on this split: the one with
the most right decisions (a held-out operation without a match, or an indexed one whose
first candidate is right and above the threshold); ties go to the lowest.
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys


def run_match(a, files, threshold):
    cmd = [a.bin, "match", "--json", "--k", "5", "--threshold", "%g" % threshold, "--db", a.db]
    for p in a.param:
        cmd += ["--param", p]
    r = subprocess.run(cmd + files, capture_output=True, text=True)
    if r.returncode not in (0,):
        sys.stderr.write(r.stderr)
        sys.exit("match_eval: apidex match failed (%d)" % r.returncode)
    out = json.loads(r.stdout)
    return out if isinstance(out, list) else [out]


def api_groups(db):
    con = sqlite3.connect("file:%s?immutable=1" % db, uri=True)
    rows = con.execute("SELECT id, document, title FROM apis").fetchall()
    con.close()
    by_doc, by_title = {}, {}
    for i, doc, title in rows:
        by_doc[os.path.realpath(doc)] = (i, (title or "").lower())
        by_title.setdefault((title or "").lower(), set()).add(i)
    return by_doc, by_title


def score(results, gold, by_doc, by_title, threshold):
    m = dict(pos=0, neg=0, at1=0, at5=0, docs_pos=0, api1=0, docs_neg=0, api_none=0,
             pred_no=0, tp_no=0, decide=0, ops=0)
    for res in results:
        g = gold[os.path.abspath(res["file"])]
        want = {}
        for qm, qp, sm, sp in g["ops"]:
            want[(qm, qp)] = (sm, sp)
        ids = set()
        if g["indexed"]:
            i, title = by_doc[os.path.realpath(g["root"])]
            ids = by_title.get(title, set()) | {i}
        for op in res["operations"]:
            key = (op["method"], op["path"])
            if key not in want:
                continue
            m["ops"] += 1
            cands = op["candidates"]
            no = not cands or cands[0]["score"] < threshold
            m["pred_no"] += no
            if not g["indexed"]:
                m["neg"] += 1
                m["tp_no"] += no
                m["decide"] += no
                continue
            m["pos"] += 1
            sm, sp = want[key]
            right = [c["api"] in ids and c["method"] == sm and c["path"] == sp for c in cands[:5]]
            m["at1"] += bool(right and right[0])
            m["at5"] += any(right)
            m["decide"] += bool(right and right[0] and not no)
        apis = res["apis"]
        if g["indexed"]:
            m["docs_pos"] += 1
            m["api1"] += bool(apis and apis[0]["api"] in ids)
        else:
            m["docs_neg"] += 1
            m["api_none"] += not apis or apis[0]["covered"] == 0
    return m


def fmt(m, threshold, split):
    div = lambda a, b: a / b if b else 0.0
    return ("%-5s T=%.2f  ops %d (%d indexed, %d held out)  acc@1 %.3f  acc@5 %.3f  "
            "API@1 %.3f (%d docs)  no-match P %.3f R %.3f  held-out docs without an API %.3f  "
            "right decisions %.3f" % (
                split, threshold, m["ops"], m["pos"], m["neg"], div(m["at1"], m["pos"]),
                div(m["at5"], m["pos"]), div(m["api1"], m["docs_pos"]), m["docs_pos"],
                div(m["tp_no"], m["pred_no"]), div(m["tp_no"], m["neg"]),
                div(m["api_none"], m["docs_neg"]), div(m["decide"], m["ops"])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--split", required=True, choices=["dev", "test"])
    ap.add_argument("--threshold", type=float)
    ap.add_argument("--choose", action="store_true")
    ap.add_argument("--param", action="append", default=[])
    a = ap.parse_args()
    gold = json.load(open(os.path.join(a.gen, "gold.json")))
    files = sorted(f for f, g in gold.items() if g["split"] == a.split)
    by_doc, by_title = api_groups(a.db)
    threshold = a.threshold
    if a.choose:
        results = run_match(a, files, 0.0)
        best = None
        for t100 in range(0, 101):
            t = t100 / 100.0
            d = score(results, gold, by_doc, by_title, t)["decide"]
            if best is None or d > best[1]:
                best = (t, d)
        threshold = best[0]
        print("chosen threshold %.2f (%d right decisions on %s)" % (best[0], best[1], a.split))
    if threshold is None:
        sys.exit("match_eval: give --threshold T or --choose")
    results = run_match(a, files, threshold)
    print(fmt(score(results, gold, by_doc, by_title, threshold), threshold, a.split))


if __name__ == "__main__":
    main()
