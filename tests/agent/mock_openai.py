#!/usr/bin/python3
"""A scripted stand-in for an OpenAI-compatible Chat Completions server (loopback only).

It replays a script so the production client code runs unchanged against it:

    {"steps":   [STEP, ...],          answered in order, one per request
     "rules":   [{"when": "text", ...STEP}, ...],  after the steps: the first rule whose
                                      "when" occurs in the last message's content answers
     "default": STEP}                 then this; with none of them: HTTP 500 "script exhausted"

A STEP is an answer:
    status (200)            HTTP status; non-200 answers {"error": {"message": error}}
    error                   the error message of a non-200 answer
    headers                 extra response headers, e.g. {"Retry-After": "1"}
    delay                   seconds to wait before answering (timeouts)
    raw                     send this text as the body, as is (malformed replies)
    content                 the assistant's text
    tool_calls              [{"name", "arguments": object or text, "id"?}]
    finish_reason           default "tool_calls" with tool calls, else "stop"
    usage                   {"prompt_tokens", "completion_tokens"}; null = leave it out;
                            absent = counted as len(JSON)//4 of the request and the answer
    expect                  text the request body must contain (else HTTP 400 naming it)
    stream_cut              when streaming: stop before finish_reason and [DONE]
    chunk                   streamed content piece size (default 7 characters)

Templates in content and in arguments (every string of an object, or the text as is):
{{n}} (request number), {{last}} (the last message's content), {{endpoint}} (the first
"METHOD /path" in it), and {{1}}, {{2}}, ... the groups of the step's "capture" (a
regular expression searched in the whole request, its JSON as sent; no match: HTTP 400
naming it), so a scripted model can pass on a value an earlier answer gave.

A request with "stream": true gets server-sent events (chat.completion.chunk objects, the
tool-call arguments in pieces, usage last when stream_options.include_usage), unless the
answer is an error or raw. Every request is appended to --log as one JSON line
{"n", "path", "auth", "body"}. Writes its port to --port-file once listening and stops by
itself after --lifetime seconds. Standard library only.
"""
import argparse
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ENDPOINT_RE = re.compile(r"\b(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS)\s+(/[^\s`'\"),]*)")


def last_content(req):
    msgs = req.get("messages") or []
    for m in reversed(msgs):
        c = m.get("content")
        if isinstance(c, str) and c:
            return c
    return ""


def fill(text, n, last, groups=()):
    if not isinstance(text, str):
        return text
    m = ENDPOINT_RE.search(last)
    endpoint = "%s %s" % (m.group(1), m.group(2)) if m else ""
    text = text.replace("{{n}}", str(n)).replace("{{last}}", last).replace("{{endpoint}}", endpoint)
    for i, g in enumerate(groups, 1):
        text = text.replace("{{%d}}" % i, g or "")
    return text


def deep_fill(value, n, last, groups=()):
    """Templates in every string of a JSON value (arguments given as an object stay valid)."""
    if isinstance(value, dict):
        return {k: deep_fill(v, n, last, groups) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_fill(v, n, last, groups) for v in value]
    return fill(value, n, last, groups)


class Script:
    def __init__(self, path):
        with open(path) as f:
            data = json.load(f)
        self.steps = list(data.get("steps", []))
        self.rules = list(data.get("rules", []))
        self.default = data.get("default")
        self.lock = threading.Lock()
        self.count = 0

    def next(self, req):
        with self.lock:
            self.count += 1
            n = self.count
            if self.steps:
                return n, self.steps.pop(0)
        last = last_content(req)
        for r in self.rules:
            if r.get("when", "") in last:
                return n, r
        if self.default is not None:
            return n, self.default
        return n, {"status": 500, "error": "script exhausted"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_lock = threading.Lock()

    def log_message(self, fmt, *args):  # the JSON log is the record
        pass

    def record(self, entry):
        if self.server.opts.log:
            with Handler.log_lock, open(self.server.opts.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def send_body(self, status, data, headers=None, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.record({"n": 0, "path": self.path, "method": "GET"})
        self.send_body(404, b'{"error": {"message": "not found"}}')

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        n, step = self.server.script.next(req or {})
        self.record({"n": n, "path": self.path, "auth": self.headers.get("Authorization"),
                     "body": req if req is not None else raw.decode("utf-8", "replace")})
        try:
            self.answer(n, step, req, raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to do

    def answer(self, n, step, req, raw):
        if step.get("delay"):
            time.sleep(float(step["delay"]))
        if req is None:
            return self.send_body(400, b'{"error": {"message": "body is not JSON"}}')
        if not self.path.endswith("/chat/completions"):
            return self.send_body(404, json.dumps({"error": {"message": "no route " + self.path}}).encode())
        expect = step.get("expect")
        if expect and expect not in raw.decode("utf-8", "replace"):
            msg = "expectation failed: request does not contain %r" % expect
            return self.send_body(400, json.dumps({"error": {"message": msg}}).encode())
        groups = ()
        if step.get("capture"):
            m = re.search(step["capture"], raw.decode("utf-8", "replace"))
            if not m:
                msg = "capture failed: request does not match %r" % step["capture"]
                return self.send_body(400, json.dumps({"error": {"message": msg}}).encode())
            groups = m.groups()
        status = int(step.get("status", 200))
        headers = step.get("headers")
        if status != 200:
            body = {"error": {"message": step.get("error", "forced status %d" % status),
                              "type": "mock"}}
            return self.send_body(status, json.dumps(body).encode(), headers)
        if "raw" in step:
            return self.send_body(200, step["raw"].encode(), headers)
        last = last_content(req)
        content = fill(step.get("content"), n, last, groups)
        calls = []
        for i, c in enumerate(step.get("tool_calls") or []):
            args = c.get("arguments", {})
            args = (fill(args, n, last, groups) if isinstance(args, str)
                    else json.dumps(deep_fill(args, n, last, groups)))
            calls.append({"id": c.get("id", "call_%d_%d" % (n, i)), "type": "function",
                          "function": {"name": c["name"], "arguments": args}})
        finish = step.get("finish_reason", "tool_calls" if calls else "stop")
        if "usage" in step:
            usage = step["usage"]
            if usage is not None and "total_tokens" not in usage:
                usage = dict(usage)
                usage["total_tokens"] = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        else:
            out_len = len(content or "") + sum(len(c["function"]["arguments"]) for c in calls)
            p, c = len(raw) // 4, out_len // 4 + 1
            usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        model = req.get("model", "mock")
        if req.get("stream"):
            return self.stream(step, model, content, calls, finish, usage, req, headers)
        message = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        body = {"id": "chatcmpl-%d" % n, "object": "chat.completion", "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
        if usage is not None:
            body["usage"] = usage
        self.send_body(200, json.dumps(body).encode(), headers)

    def stream(self, step, model, content, calls, finish, usage, req, headers):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.close_connection = True

        def event(choices, extra=None):
            obj = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0,
                   "model": model, "choices": choices}
            if extra:
                obj.update(extra)
            self.wfile.write(("data: " + json.dumps(obj) + "\n\n").encode())
            self.wfile.flush()

        size = int(step.get("chunk", 7))
        event([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        text = content or ""
        for i in range(0, len(text), size):
            event([{"index": 0, "delta": {"content": text[i:i + size]}, "finish_reason": None}])
        for idx, c in enumerate(calls):
            fn = c["function"]
            event([{"index": 0, "delta": {"tool_calls": [
                {"index": idx, "id": c["id"], "type": "function",
                 "function": {"name": fn["name"], "arguments": ""}}]}, "finish_reason": None}])
            args = fn["arguments"]
            for i in range(0, len(args), size):
                event([{"index": 0, "delta": {"tool_calls": [
                    {"index": idx, "function": {"arguments": args[i:i + size]}}]},
                    "finish_reason": None}])
        if step.get("stream_cut"):
            return
        event([{"index": 0, "delta": {}, "finish_reason": finish}])
        if usage is not None and (req.get("stream_options") or {}).get("include_usage"):
            event([], {"usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", default="")
    ap.add_argument("--lifetime", type=float, default=120.0)
    opts = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.opts = opts
    server.script = Script(opts.script)
    timer = threading.Timer(opts.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    tmp = opts.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, opts.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
