#!/usr/bin/env python3
"""Plain BM25 over MCP tool definitions: the baseline of the MCP dev set.

The tool search that MCP clients and gateways ship is a BM25 (or regex) over each tool's
definition. This is that baseline, written plainly so its numbers sit beside apidex's in the
retrieval table (bench/bench_retrieval.sh, set `mcp`). python3 stdlib only.

    mcp_bm25.py TOOLS.json TASKS.json [--k1 1.2] [--b 0.75]

TOOLS.json is the dump of bench/mcp_tools.mjs ({"servers": {NAME: {"tools": [...]}}});
TASKS.json a dev-set file ([{"query", "solution": ["NAME:TOOL", ...]}, ...]).

One document per tool, id NAME:TOOL, made of: the server name, the tool name, its title and
description, and the name and description of every top-level property of its input schema.
Tokens: lower-cased runs of letters and digits, with snake_case, kebab-case and camelCase
split into their words (so `list_pull_requests` and `listPullRequests` both give list, pull,
requests). No stemming, no stop words, no synonyms: Okapi BM25 with k1 = 1.2, b = 0.75 and
the non-negative idf ln(1 + (N - df + 0.5) / (df + 0.5)).

Writes, on stdout, a JSON object in the shape of `apidex eval --json --per-query` for the
numbers that apply to a ranked list (queries, answerable, recall_at 5/10/20 and per_query
recall_at) with "baseline": "bm25"; bench/retrieval_table.py shows "-" for the rest (an
adaptive answer, a confidence, harm checks and latency are apidex's, not BM25's).
"""
import json
import math
import re
import sys
from collections import Counter

WORD = re.compile(r"[A-Za-z0-9]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def tokens(text):
    out = []
    for w in WORD.findall(text or ""):
        out.extend(p.lower() for p in CAMEL.findall(w))
    return out


def tool_text(server, tool):
    parts = [server, tool.get("name", ""), tool.get("title") or "", tool.get("description") or ""]
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    if isinstance(props, dict):
        for name, schema in props.items():
            parts.append(name)
            if isinstance(schema, dict) and isinstance(schema.get("description"), str):
                parts.append(schema["description"])
    return " ".join(parts)


class BM25:
    def __init__(self, docs, k1, b):
        self.ids = [d for d, _ in docs]
        self.tf = [Counter(tokens(t)) for _, t in docs]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / len(self.len) if self.len else 0.0
        df = Counter(w for c in self.tf for w in c)
        n = len(docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query):
        q = tokens(query)
        scores = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
            for w in q:
                f = tf.get(w)
                if f:
                    s += self.idf[w] * f * (self.k1 + 1) / (f + norm)
            scores.append(s)
        # ties keep the dump's order (servers in config order, tools as listed)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        return [self.ids[i] for i in order if scores[i] > 0]


def recall(gold, ranked, k):
    top = set(ranked[:k])
    return sum(1 for g in gold if g in top) / len(gold)


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    k1, b = 1.2, 0.75
    rest = argv[2:]
    while rest:
        if len(rest) < 2 or rest[0] not in ("--k1", "--b"):
            sys.stderr.write("mcp_bm25.py: bad argument %r\n" % rest[0])
            return 2
        if rest[0] == "--k1":
            k1 = float(rest[1])
        else:
            b = float(rest[1])
        rest = rest[2:]
    with open(argv[0]) as f:
        dump = json.load(f)
    with open(argv[1]) as f:
        tasks = json.load(f)
    docs = [("%s:%s" % (s, t["name"]), tool_text(s, t))
            for s, v in dump.get("servers", {}).items() for t in v.get("tools", [])]
    if not docs:
        sys.stderr.write("mcp_bm25.py: %s holds no tools\n" % argv[0])
        return 1
    known = {d for d, _ in docs}
    engine = BM25(docs, k1, b)
    per, sums, answerable = [], {5: 0.0, 10: 0.0, 20: 0.0}, 0
    for i, t in enumerate(tasks):
        gold = list(dict.fromkeys(t.get("solution") or []))
        missing = [g for g in gold if g not in known]
        if missing:
            # a server that failed to start: its tasks still count, as misses
            sys.stderr.write("mcp_bm25.py: task %d: %s not among the dumped tools\n"
                             % (i, ", ".join(missing)))
        ranked = engine.rank(t["query"])
        r = {str(k): recall(gold, ranked, k) if gold else 0.0 for k in (5, 10, 20)}
        if gold:
            answerable += 1
            for k in sums:
                sums[k] += r[str(k)]
        per.append({"query": t["query"], "gold": gold, "returned": ranked[:20], "recall_at": r})
    out = {
        "baseline": "bm25",
        "queries": len(tasks),
        "answerable": answerable,
        "tools": len(docs),
        "recall_at": {str(k): (v / answerable if answerable else 0.0) for k, v in sums.items()},
        "per_query": per,
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
