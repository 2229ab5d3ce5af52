#!/usr/bin/env python3
"""Query documents for `apidex match`, derived from real specs the way an agent's would
differ from them (docs/MATCH.md, "Evaluation").

For each spec a few documents keep 1-8 of its operations, in another order, and rewrite
them: descriptions dropped, the summary and operationId often dropped or reworded, path
words renamed to synonyms or recased (camelCase, snake_case, kebab-case), parameters
renamed the same way, another version prefix, request and response fields kept by name
and type only (recased). Some specs are held out of the index: documents derived from
them are real services the registry does not hold, so their right answer is "no match".
Specs are split by seed into dev and test (whole specs, so no spec is in both).

python3 stdlib only; YAML specs are read through build/bench/bench_match_json (apidex's
own loader printing JSON). Seeded and deterministic.

usage: match_gen.py --tool BENCH_MATCH_JSON --out DIR [--seed N] [--heldout N]
                    [--docs N] SPECS_DIR...
writes DIR/index.txt (the spec paths to index), DIR/{dev,test}/*.json (query documents),
DIR/gold.json ({doc: {"spec": path, "indexed": bool, "ops": [[qm, qp, m, p], ...]}}),
DIR/speed.json (one 50-operation document, for timing).
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")

# Words an agent might use instead of the registry's (the matcher has no synonym table:
# these test whether the other features carry a renamed operation).
SYNONYMS = {
    "movie": "film", "movies": "films", "user": "member", "users": "members",
    "account": "profile", "accounts": "profiles", "customer": "client",
    "customers": "clients", "order": "purchase", "orders": "purchases",
    "image": "picture", "images": "pictures", "message": "note", "messages": "notes",
    "channel": "room", "channels": "rooms", "search": "find", "list": "all",
    "playlist": "mix", "playlists": "mixes", "track": "song", "tracks": "songs",
    "artist": "performer", "artists": "performers", "album": "record",
    "albums": "records", "video": "clip", "videos": "clips", "person": "people",
    "payment": "charge", "payments": "charges", "invoice": "bill", "invoices": "bills",
    "product": "item", "products": "items", "file": "document", "files": "documents",
    "team": "group", "teams": "groups", "event": "happening", "events": "happenings",
    "comment": "remark", "comments": "remarks", "tweet": "post", "tweets": "posts",
    "article": "story", "articles": "stories", "address": "location",
    "subscription": "plan", "subscriptions": "plans", "domain": "site",
    "domains": "sites", "server": "machine", "servers": "machines",
    "instance": "machine", "instances": "machines", "volume": "disk", "volumes": "disks",
    "pet": "animal", "pets": "animals", "trip": "journey", "trips": "journeys",
    "booking": "reservation", "bookings": "reservations", "station": "stop",
    "stations": "stops", "guild": "server", "guilds": "servers", "get": "fetch",
    "create": "add", "update": "edit", "delete": "remove", "details": "info",
}


def words_of(s):
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", s)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", s) if w]


def recase(words, style):
    if not words:
        return ""
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    if style == "pascal":
        return "".join(w.capitalize() for w in words)
    if style == "kebab":
        return "-".join(words)
    return "_".join(words)


def rename(rng, name, style, p_syn):
    ws = [SYNONYMS.get(w, w) if rng.random() < p_syn else w for w in words_of(name)]
    return recase(ws, style) or name


def resolve(doc, node, depth=0):
    while isinstance(node, dict) and "$ref" in node and depth < 20:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return {}
        cur = doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(cur, dict) or part not in cur:
                return {}
            cur = cur[part]
        node, depth = cur, depth + 1
    return node if isinstance(node, dict) else {}


def fields(doc, rng, schema, style, depth=0):
    """A schema reduced to property names and types, recased (what an agent writes)."""
    s = resolve(doc, schema)
    for key in ("allOf", "oneOf", "anyOf"):
        if key in s and isinstance(s[key], list) and s[key]:
            merged = {}
            for sub in s[key][:3]:
                merged.update(resolve(doc, sub).get("properties", {}) or {})
            s = {"type": "object", "properties": merged}
            break
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "array" or "items" in s:
        return {"type": "array", "items": fields(doc, rng, s.get("items", {}), style, depth + 1)}
    props = s.get("properties")
    if isinstance(props, dict) and props and depth < 2:
        out = {}
        for name in list(props)[:25]:
            out[rename(rng, name, style, 0.0)] = fields(doc, rng, props[name], style, depth + 1)
        return {"type": "object", "properties": out}
    return {"type": t if isinstance(t, str) and t in ("string", "integer", "number", "boolean",
                                                         "object") else "string"}


def media_schema(doc, holder):
    content = holder.get("content")
    if isinstance(content, dict):
        for mt in sorted(content, key=lambda m: "json" not in m):
            sch = (content[mt] or {}).get("schema")
            if sch:
                return sch
    return holder.get("schema")


def operations(doc):
    ops = []
    paths = doc.get("paths") or {}
    for path in sorted(paths):
        item = resolve(doc, paths[path])
        for m in METHODS:
            op = item.get(m)
            if isinstance(op, dict) and not op.get("deprecated"):
                ops.append((m, path, op, item))
    return ops


def derive_op(doc, rng, m, path, op, item, prefix, style):
    """One operation as an agent would write it for the same need."""
    rename_map = {}
    segs = []
    stripped = [s for s in path.split("?")[0].split("#")[0].split("/") if s]
    while stripped and re.fullmatch(r"(v\d[\w.]*|\d[\d.]*|api)", stripped[0], re.I):
        stripped.pop(0)
    for seg in stripped:
        mt = re.fullmatch(r"\{([^}]+)\}", seg)
        if mt:
            old = mt.group(1)
            new = rename(rng, old, style, 0.5) if rng.random() < 0.8 else "id"
            if new in rename_map.values():
                new = new + str(len(rename_map))
            rename_map[old] = new
            segs.append("{" + new + "}")
        else:
            segs.append(rename(rng, seg, style, 0.4))
    qpath = prefix + "/" + "/".join(segs)
    out = {}
    if op.get("operationId") and rng.random() < 0.5:
        out["operationId"] = rename(rng, op["operationId"], "camel", 0.4)
    if op.get("summary") and rng.random() < 0.5:
        out["summary"] = " ".join(SYNONYMS.get(w, w) if rng.random() < 0.3 else w
                                  for w in words_of(op["summary"])[:12])
    params = []
    seen = set()
    for p in (item.get("parameters") or []) + (op.get("parameters") or []):
        p = resolve(doc, p)
        name, where = p.get("name"), p.get("in")
        if not name or where not in ("path", "query") or (name, where) in seen:
            continue
        seen.add((name, where))
        if where == "path":
            if name not in rename_map:
                continue
            params.append({"name": rename_map[name], "in": "path", "required": True,
                           "schema": {"type": "string"}})
        elif p.get("required") or rng.random() < 0.5:
            params.append({"name": rename(rng, name, style, 0.3), "in": "query",
                           "schema": {"type": "string"}})
    for old, new in rename_map.items():
        if not any(x["in"] == "path" and x["name"] == new for x in params):
            params.append({"name": new, "in": "path", "required": True,
                           "schema": {"type": "string"}})
    rng.shuffle(params)
    if params:
        out["parameters"] = params
    body = resolve(doc, op.get("requestBody") or {})
    bs = media_schema(doc, body) if body else None
    if not bs:
        for p in op.get("parameters") or []:
            p = resolve(doc, p)
            if p.get("in") == "body":
                bs = p.get("schema")
    if bs:
        out["requestBody"] = {"content": {"application/json": {
            "schema": fields(doc, rng, bs, style)}}}
    resp = {}
    for code in sorted((op.get("responses") or {}), key=str):
        if str(code).startswith("2"):
            r = resolve(doc, op["responses"][code])
            rs = media_schema(doc, r)
            entry = {"description": "ok"}
            if rs:
                entry["content"] = {"application/json": {"schema": fields(doc, rng, rs, style)}}
            resp[str(code)] = entry
            break
    out["responses"] = resp or {"200": {"description": "ok"}}
    return qpath, out


def derive_doc(doc, rng, ops, n_ops):
    style = rng.choice(["camel", "snake", "kebab", "pascal"])
    prefix = rng.choice(["", "/v1", "/v2", "/api", "/api/v3"])
    # an agent's document is about one part of the service: a run of neighbouring paths
    start = rng.randrange(len(ops))
    window = ops[start:start + max(n_ops * 3, 8)] or ops
    picked = rng.sample(window, min(n_ops, len(window)))
    rng.shuffle(picked)
    out = {"openapi": "3.0.3", "info": {"title": "Generated service", "version": "1.0.0"},
           "servers": [{"url": "https://service.example.com" + prefix}], "paths": {}}
    gold = []
    for m, path, op, item in picked:
        qpath, qop = derive_op(doc, rng, m, path, op, item, prefix, style)
        if m in out["paths"].get(qpath, {}):
            continue
        out["paths"].setdefault(qpath, {})[m] = qop
        gold.append([m.upper(), qpath, m.upper(), path])
    return out, gold


def find_root(tool, entry):
    cands = []
    if os.path.isfile(entry):
        cands = [entry]
    else:
        for root, dirs, files in os.walk(entry):
            dirs.sort()
            depth = root[len(entry):].count(os.sep)
            if depth > 1:
                continue
            cands += [os.path.join(root, f) for f in sorted(files)
                      if f.endswith((".json", ".yaml", ".yml"))]
    for c in cands:
        r = subprocess.run([tool, c], capture_output=True)
        if r.returncode:
            continue
        try:
            d = json.loads(r.stdout)
        except ValueError:
            continue
        if isinstance(d, dict) and ("openapi" in d or "swagger" in d) and d.get("paths"):
            return c, d
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--heldout", type=int, default=8)
    ap.add_argument("--docs", type=int, default=4)
    ap.add_argument("specs", nargs="+")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    entries = []
    for d in a.specs:
        entries += [os.path.join(d, x) for x in sorted(os.listdir(d))]
    specs = []
    for e in entries:
        root, doc = find_root(a.tool, e)
        ops = operations(doc) if doc else []
        if not ops:
            print("match_gen: skipped %s (no root document with operations)" % e,
                  file=sys.stderr)
            continue
        specs.append((e, root, doc, ops))
    titles = {}
    for e, root, doc, ops in specs:
        t = str((doc.get("info") or {}).get("title", "")).lower()
        titles[t] = titles.get(t, 0) + 1
    # held out: real services the index will not hold (never one with a second copy)
    unique = [s for s in specs if titles[str((s[2].get("info") or {}).get("title", "")).lower()] == 1]
    held = set(x[0] for x in rng.sample(unique, min(a.heldout, len(unique))))
    order = [s[0] for s in specs]
    rng.shuffle(order)
    dev = set(order[: len(order) // 2])
    os.makedirs(os.path.join(a.out, "dev"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "test"), exist_ok=True)
    gold = {}
    with open(os.path.join(a.out, "index.txt"), "w") as f:
        for e, root, doc, ops in specs:
            if e not in held:
                f.write(e + "\n")
    for k, (e, root, doc, ops) in enumerate(specs):
        split = "dev" if e in dev else "test"
        for j in range(a.docs):
            n = rng.choice([1, 1, 2, 3, 4, 5, 6, 8])
            qdoc, g = derive_doc(doc, rng, ops, n)
            name = os.path.join(a.out, split, "q%02d_%d.json" % (k, j))
            with open(name, "w") as f:
                json.dump(qdoc, f, indent=1)
            gold[os.path.abspath(name)] = {"spec": os.path.abspath(e), "root": os.path.abspath(root),
                                           "indexed": e not in held, "split": split, "ops": g}
    with open(os.path.join(a.out, "gold.json"), "w") as f:
        json.dump(gold, f, indent=1, sort_keys=True)
    # timing: one 50-operation document from the largest indexed spec
    big = max((s for s in specs if s[0] not in held), key=lambda s: len(set(o[1] for o in s[3])))
    srng = random.Random(a.seed + 1)
    qdoc, g = derive_doc(big[2], srng, big[3][:400], 50)
    with open(os.path.join(a.out, "speed.json"), "w") as f:
        json.dump(qdoc, f)
    print("match_gen: %d specs (%d held out), %d documents (%d dev, %d test)" % (
        len(specs), len(held), len(gold), sum(v["split"] == "dev" for v in gold.values()),
        sum(v["split"] == "test" for v in gold.values())), file=sys.stderr)


if __name__ == "__main__":
    main()
