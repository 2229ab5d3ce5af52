#!/usr/bin/env python3
"""A synthetic OpenAPI 3 document of about --mb megabytes, for bench_load_memory.sh.

Shaped like the big real specs: paths with a few operations each, parameters, request
bodies and responses that $ref component schemas, schemas with described properties and
nested objects. --format json (indented 2), json-compact or yaml (block style).
python3 stdlib only; seeded and deterministic.

usage: load_memory_gen.py --mb N --format json|json-compact|yaml --out FILE
"""
import argparse
import json
import random

WORDS = ("account customer order invoice payment product price item user team project "
         "file folder message channel event webhook token session report metric alert "
         "policy role group member address region zone network volume image").split()


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def schema(rng, i, n_schemas):
    props = {}
    for k in range(rng.randint(4, 14)):
        name = f"{rng.choice(WORDS)}_{k}"
        r = rng.random()
        if r < 0.2 and n_schemas > 1:
            props[name] = {"$ref": f"#/components/schemas/S{rng.randrange(n_schemas)}"}
        elif r < 0.35:
            props[name] = {"type": "array", "items": {"type": "string"},
                           "description": words(rng, rng.randint(3, 12))}
        elif r < 0.45:
            props[name] = {"type": "object", "properties": {
                "id": {"type": "string"}, "count": {"type": "integer", "format": "int64"}}}
        else:
            props[name] = {"type": rng.choice(("string", "integer", "boolean")),
                           "description": words(rng, rng.randint(3, 16))}
    return {"type": "object", "description": words(rng, 10), "required": list(props)[:2],
            "properties": props}


def operation(rng, oid, n_schemas, with_body):
    op = {"operationId": oid, "summary": words(rng, 5), "description": words(rng, 25),
          "tags": [rng.choice(WORDS)],
          "parameters": [{"name": f"{rng.choice(WORDS)}_{k}", "in": "query",
                          "description": words(rng, 8), "schema": {"type": "string"}}
                         for k in range(rng.randint(1, 4))],
          "responses": {
              "200": {"description": "ok", "content": {"application/json": {"schema": {
                  "$ref": f"#/components/schemas/S{rng.randrange(n_schemas)}"}}}},
              "404": {"description": "not found"}}}
    if with_body:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": {
            "$ref": f"#/components/schemas/S{rng.randrange(n_schemas)}"}}}}
    return op


def build(mb, rng):
    # about 2.3 KB of indented JSON per path with its schema: scale the counts to the size
    n = max(10, int(mb * 1024 * 1024 / 2300))
    paths = {}
    for i in range(n):
        paths[f"/v1/{rng.choice(WORDS)}s/{i}/{{id}}"] = {
            "get": operation(rng, f"get{i}", n, False),
            "post": operation(rng, f"post{i}", n, True)}
    schemas = {f"S{i}": schema(rng, i, n) for i in range(n)}
    return {"openapi": "3.0.3", "info": {"title": "synthetic", "version": "1"},
            "servers": [{"url": "https://api.example.com"}], "paths": paths,
            "components": {"schemas": schemas}}


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return json.dumps(v)  # a double-quoted YAML scalar


def yaml_emit(v, out, indent=0):
    pad = " " * indent
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{json.dumps(k)}:\n")
                yaml_emit(x, out, indent + 2)
            else:
                out.append(f"{pad}{json.dumps(k)}: {yaml_scalar(x) if not isinstance(x, (dict, list)) else ('{}' if isinstance(x, dict) else '[]')}\n")
    else:
        for x in v:
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}-\n")
                yaml_emit(x, out, indent + 2)
            else:
                out.append(f"{pad}- {yaml_scalar(x)}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, required=True)
    ap.add_argument("--format", choices=("json", "json-compact", "yaml"), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    doc = build(a.mb, random.Random(a.seed))
    with open(a.out, "w") as f:
        if a.format == "json":
            json.dump(doc, f, indent=2)
        elif a.format == "json-compact":
            json.dump(doc, f, separators=(",", ":"))
        else:
            out = []
            yaml_emit(doc, out)
            f.write("".join(out))


if __name__ == "__main__":
    main()
