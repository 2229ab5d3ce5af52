#!/usr/bin/python3
"""A scripted OpenAI-compatible model that plays RestGPT's roles along RestBench's gold paths.

`apidex run` talks to it as to any chat model (the production client, unchanged). It answers
each role of the loop (src/exec/run.c) from the dataset instead of from a language model:

  planner  "Plan step i: <the gold endpoint's summary>" while gold endpoints remain, then
           "Final Answer: done". The sub-task is the words of the spec, not a user's: an
           upper bound for the selector, said so wherever the numbers are shown.
  caller   calls the gold endpoint when apidex's search offered it among the candidates, else
           the first candidate (a wrong path); every required parameter gets a value: an id
           the previous step selected when the name ends in "id", else a placeholder of the
           parameter's type. The log line of a caller turn says whether the gold endpoint was
           offered ("_offered"), for bench/bench_run.sh.
  parser   selects the first item's id of the first array in the shaped response (else $).

What this measures without a model: calls per task, cl100k tokens per step of apidex's
prompts (the candidates' call-level details dominate), and how often apidex's candidates hold
the gold endpoint. It cannot measure a real planner or caller: docs/EXECUTE.md has that
protocol. Standard library only.

    restbench_model.py --dataset tmdb.json --spec tmdb_oas.json --port-file F [--log F]
"""
import argparse
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def load_spec(path):
    with open(path) as f:
        spec = json.load(f)
    ops = {}
    for p, item in (spec.get("paths") or {}).items():
        shared = item.get("parameters", []) if isinstance(item, dict) else []
        for m, op in item.items():
            if m not in METHODS or not isinstance(op, dict):
                continue
            params = {}
            for prm in shared + op.get("parameters", []):
                if "$ref" in prm:
                    ref = prm["$ref"].split("/")[-1]
                    prm = ((spec.get("components") or {}).get("parameters") or {}).get(ref, {})
                if prm.get("required") or prm.get("in") == "path":
                    schema = prm.get("schema") or prm
                    params[prm.get("name")] = schema.get("type", "string")
            words = op.get("summary") or (op.get("description") or "").split(".")[0]
            ops["%s %s" % (m.upper(), p)] = {"summary": words.strip() or p, "params": params}
    return ops


class Model:
    def __init__(self, dataset, spec):
        with open(dataset) as f:
            self.tasks = {t["query"].strip(): t["solution"] for t in json.load(f)}
        self.ops = load_spec(spec)
        self.lock = threading.Lock()

    def gold(self, user):
        m = re.search(r"^Task: (.*)$", user, re.M)
        return self.tasks.get(m.group(1).strip(), []) if m else []

    @staticmethod
    def done_steps(user):
        part = user.split("Results so far:", 1)[-1]
        return len(re.findall(r"^\d+\. ", part, re.M))

    def planner(self, user):
        gold, i = self.gold(user), self.done_steps(user)
        if i < len(gold):
            op = self.ops.get(gold[i], {"summary": gold[i]})
            return {"content": "Plan step %d: %s" % (i + 1, op["summary"])}
        return {"content": "Final Answer: done"}

    def caller(self, user):
        gold = self.gold(user)
        m = re.search(r"^Sub-task: (.*)$", user, re.M)
        sub = m.group(1).strip() if m else ""
        want = next((g for g in gold if self.ops.get(g, {}).get("summary") == sub), None)
        cands = re.findall(r"^### \d+\. (\S+) \((\w+) ([^)\s]+)\)$", user, re.M)
        pick = next((c for c in cands if want and "%s %s" % (c[1], c[2]) == want), None)
        pick = pick or (cands[0] if cands else None)
        if not pick:
            return {"content": "no candidates"}
        ids = re.findall(r"result: .*?(\d+)", user)
        params = {}
        for name, typ in self.ops.get("%s %s" % (pick[1], pick[2]), {"params": {}})["params"].items():
            if name and name.lower().endswith("id") and ids:
                params[name] = ids[-1]
            else:
                params[name] = 1 if typ in ("integer", "number") else "a"
        offered = bool(want) and any("%s %s" % (c[1], c[2]) == want for c in cands)
        return {"tool_calls": [{"name": "call_endpoint",
                                "arguments": {"endpoint": pick[0], "params": params}}],
                "_offered": offered}

    @staticmethod
    def parser(user):
        text = user.split("Response:\n", 1)[-1]
        try:
            resp = json.loads(text)
        except ValueError:
            resp = None
        body = resp.get("body", resp) if isinstance(resp, dict) else resp
        sel = "$"
        if isinstance(body, dict):
            for k, v in body.items():
                if isinstance(v, list) and v and isinstance(v[0], dict) and "id" in v[0]:
                    sel = "$.%s[0].id" % k
                    break
            else:
                if "id" in body:
                    sel = "$.id"
        return {"tool_calls": [{"name": "extract", "arguments": {"select": sel, "note": "id"}}]}

    def answer(self, req):
        msgs = req.get("messages") or []
        system = next((m.get("content") or "" for m in msgs if m.get("role") == "system"), "")
        user = next((m.get("content") or "" for m in msgs if m.get("role") == "user"), "")
        if "planner" in system:
            return self.planner(user)
        if "caller" in system:
            return self.caller(user)
        if "parser" in system:
            return self.parser(user)
        return {"content": "unknown role"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        req = json.loads(raw or b"{}")
        step = self.server.model.answer(req)
        calls = [{"id": "call_%d" % i, "type": "function",
                  "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                 for i, c in enumerate(step.get("tool_calls", []))]
        msg = {"role": "assistant", "content": step.get("content")}
        if calls:
            msg["tool_calls"] = calls
        out = {"id": "x", "object": "chat.completion", "created": 0, "model": "restbench-gold",
               "choices": [{"index": 0, "message": msg,
                            "finish_reason": "tool_calls" if calls else "stop"}]}
        if self.server.log:
            with self.server.model.lock, open(self.server.log, "a") as f:
                f.write(json.dumps({"request": req, "answer": step}) + "\n")
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", default="")
    opts = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.model = Model(opts.dataset, opts.spec)
    server.log = opts.log
    tmp = opts.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, opts.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
