#!/usr/bin/env python3
"""Draw a reproducible sample of producer edges (edges.kind = 2) from an apidex index,
for judging by hand how many of them are right (docs/SEARCH.md, "Producer edges that are
right").

usage:
  build/apidex index ../shared/corpus/specs ../shared/benchmarks/restbench/specs --db E.db
  python3 bench/sample_edges.py E.db sample.json [--seed 42] [--per-api 4]

The ten APIs below were chosen once, before any judging, to span the corpus (chat, payments,
billing, commerce, cloud, games, video, media, workflow, education); they only pick what
to sample and play no part in how apidex builds edges.

For each of the 10 target APIs (matched by substring of the `api` column,
case-insensitive), take all kind=2 edges of that API, sort them by
(src, param, dst) -- ties broken by (field, score, hint) so the order is total --
and draw --per-api edges with random.Random(seed).sample(...).  A fresh
random.Random(seed) is used for every API, so the draw for one API does not
depend on the other APIs (nor on their order, nor on whether they are present).

Each sampled edge is written with the consumer operation (method, path,
summary), the parameter (name, location, required), the entity word (field),
the producer operation (method, path, summary) and the score.
"""
import argparse
import json
import random
import sqlite3
import sys

TARGETS = [
    "discord",
    "spec3",            # Stripe
    "rebilly",
    "magento",
    "DigitalOcean",
    "bungie",
    "peertube",
    "shutterstock",
    "azure.com_logic",
    "illumidesk",
]


def resolve_apis(con, needle):
    """All api values of edges/operations containing `needle` (case-insensitive)."""
    rows = con.execute(
        "SELECT DISTINCT api FROM operations WHERE instr(lower(api), lower(?)) > 0 "
        "UNION SELECT DISTINCT api FROM edges WHERE instr(lower(api), lower(?)) > 0 "
        "ORDER BY 1", (needle, needle)).fetchall()
    return [r[0] for r in rows]


def op_info(con, op_id):
    r = con.execute(
        "SELECT api, method, path, operation_id, summary FROM operations WHERE id = ?",
        (op_id,)).fetchone()
    if r is None:
        return {"id": op_id, "method": None, "path": None, "operation_id": None,
                "summary": None}
    return {"id": op_id, "method": r[1], "path": r[2], "operation_id": r[3],
            "summary": r[4]}


def param_info(con, op_id, name, field):
    rows = con.execute(
        "SELECT location, required, field FROM inputs WHERE operation = ? AND name = ? "
        "ORDER BY ord", (op_id, name)).fetchall()
    if not rows:
        # body properties are not listed one by one in `inputs`: if the operation
        # takes a request body, the parameter is a field of it
        body = con.execute("SELECT required FROM inputs WHERE operation = ? AND location = 'body'",
                           (op_id,)).fetchone()
        if body is not None:
            return {"location": "body", "required": None, "input_field": None,
                    "inferred": True}
        return {"location": None, "required": None, "input_field": None}
    # if the same name occurs in several locations, prefer the one whose field
    # matches the edge's field, else the first one (by ord)
    best = next((r for r in rows if r[2] == field), rows[0])
    info = {"location": best[0], "required": bool(best[1]), "input_field": best[2]}
    if len(rows) > 1:
        info["other_locations"] = [r[0] for r in rows if r is not best]
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--per-api", type=int, default=4)
    a = ap.parse_args(argv)

    con = sqlite3.connect(f"file:{a.db}?mode=ro", uri=True)
    edge_cols = [r[1] for r in con.execute("PRAGMA table_info(edges)")]
    has_hint = "hint" in edge_cols

    sample = []
    summary = []
    for needle in TARGETS:
        apis = resolve_apis(con, needle)
        if not apis:
            print(f"warning: no API matches {needle!r}", file=sys.stderr)
            summary.append({"target": needle, "apis": [], "n_edges": 0, "n_sampled": 0})
            continue
        if len(apis) > 1:
            print(f"note: {needle!r} matches several APIs, pooled: {apis}", file=sys.stderr)
        q = ("SELECT api, src, param, dst, field, score" + (", hint" if has_hint else ", 0") +
             " FROM edges WHERE kind = 2 AND api IN (%s)" % ",".join("?" * len(apis)))
        edges = con.execute(q, apis).fetchall()
        edges.sort(key=lambda e: (e[1], e[2] or "", e[3], e[4] or "", e[5], e[6], e[0]))
        rng = random.Random(a.seed)
        k = min(a.per_api, len(edges))
        picked = rng.sample(edges, k)
        summary.append({"target": needle, "apis": apis, "n_edges": len(edges),
                        "n_sampled": k})
        for i, (api, src, param, dst, field, score, hint) in enumerate(picked, 1):
            cons = op_info(con, src)
            prod = op_info(con, dst)
            p = param_info(con, src, param, field)
            sample.append({
                "key": f"{needle}#{i}",
                "target": needle,
                "api": api,
                "consumer": cons,
                "param": {"name": param, **p},
                "field": field,
                "producer": prod,
                "score": score,
                "hint": hint,
            })

    out = {"db": a.db, "seed": a.seed, "per_api": a.per_api,
           "procedure": "per target API: kind=2 edges sorted by (src,param,dst,field,score,hint); "
                        "random.Random(seed).sample(edges, per_api), fresh RNG per API",
           "apis": summary, "edges": sample}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(sample)} edges to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
