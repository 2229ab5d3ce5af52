"""Calls every GET operation of the specs a running `apidex mock` serves, with each required
parameter filled from its schema, and checks the answers are 2xx and (for JSON) parse.
usage: mock_sweep.py MOCK_OUTPUT SPEC...  (MOCK_OUTPUT: what the mock printed at start; the
SPECs in the order the mock was given them)"""
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

import yaml


def load(path):
    with open(path) as f:
        return yaml.safe_load(f) if path.endswith((".yaml", ".yml")) else json.load(f)


def deref(doc, node, depth=0):
    while isinstance(node, dict) and "$ref" in node and depth < 20:
        ptr = node["$ref"].lstrip("#/").split("/")
        node = doc
        for p in ptr:
            node = node[p.replace("~1", "/").replace("~0", "~")]
        depth += 1
    return node


def value(doc, schema):
    s = deref(doc, schema or {})
    if "enum" in s:
        return str(s["enum"][0]).lower() if isinstance(s["enum"][0], bool) else str(s["enum"][0])
    t = s.get("type", "string")
    if t == "integer":
        return str(max(int(s.get("minimum", 7)), 7) if "maximum" not in s else s.get("minimum", s["maximum"]))
    if t == "number":
        return str(s.get("minimum", 1.5))
    if t == "boolean":
        return "true"
    if t == "array":
        return value(doc, s.get("items", {}))
    return "abc" + "c" * max(0, int(s.get("minLength", 0)) - 3)


def main():
    # the mock mounts its specs in the order they were given: the same order as here
    mounts = re.findall(r"^  \S+ (http\S+) \(", open(sys.argv[1]).read(), re.M)
    calls = bad = 0
    for i, path in enumerate(sys.argv[2:]):
        doc = load(path)
        base = mounts[i]
        for p, item in doc.get("paths", {}).items():
            op = item.get("get")
            if not op:
                continue
            params = [deref(doc, x) for x in item.get("parameters", []) + op.get("parameters", [])]
            url, query, headers = p, {}, {}
            for prm in params:
                sch = prm.get("schema", prm)
                if prm["in"] == "path":
                    url = url.replace("{%s}" % prm["name"], urllib.parse.quote(value(doc, sch), safe=""))
                elif prm.get("required") and prm["in"] == "query":
                    query[prm["name"]] = value(doc, sch)
                elif prm.get("required") and prm["in"] == "header":
                    headers[prm["name"]] = value(doc, sch)
            full = base + url + ("?" + urllib.parse.urlencode(query) if query else "")
            calls += 1
            try:
                with urllib.request.urlopen(urllib.request.Request(full, headers=headers), timeout=20) as r:
                    body = r.read()
                    if "json" in (r.headers.get("Content-Type") or "") and body:
                        json.loads(body)
            except urllib.error.HTTPError as e:
                bad += 1
                print("FAIL: GET %s: %d %s" % (full, e.code, e.read()[:300]))
            except ValueError as e:
                bad += 1
                print("FAIL: GET %s: not JSON: %s" % (full, e))
    print("%d GET operations called, %d failed" % (calls, bad))
    sys.exit(1 if bad or not calls else 0)


main()
