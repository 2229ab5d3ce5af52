#!/usr/bin/python3
"""A local stand-in for the servers apidex talks to in tests (loopback only, stops by itself).

- POST .../embeddings: the OpenAI embeddings API. A text's vector is derived from its sha256
  (component d = digest[d % 32] / 127.5 - 1), so tests can recompute it. It can fail on demand:
  --fail-429 N / --fail-500 N answer the first N requests with that status, --status CODE
  answers every request with it, --require-key KEY wants "Authorization: Bearer KEY".
- GET /ORG/REPO/resolve/REV/PATH: files from --files-dir (a Hugging Face stand-in), 404 else.

Writes its port to --port-file once listening; every request is appended to --log as a JSON
line. Needs only the standard library.
"""
import argparse
import hashlib
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def vector(text, dim):
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [digest[d % 32] / 127.5 - 1.0 for d in range(dim)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counter_lock = threading.Lock()
    count = 0

    def log_message(self, fmt, *args):  # quiet: the JSON log is the record
        pass

    def record(self, entry):
        if self.server.opts.log:
            with Handler.counter_lock, open(self.server.opts.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def reply(self, status, body, headers=None, ctype="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        o = self.server.opts
        self.record({"method": "GET", "path": self.path})
        parts = self.path.split("/resolve/", 1)
        if not o.files_dir or len(parts) != 2 or "/" not in parts[1]:
            return self.reply(404, {"error": "not found"})
        rel = parts[1].split("/", 1)[1]
        full = os.path.realpath(os.path.join(o.files_dir, rel))
        if not full.startswith(os.path.realpath(o.files_dir) + os.sep) or not os.path.isfile(full):
            return self.reply(404, {"error": "Entry not found"})
        with open(full, "rb") as f:
            self.reply(200, f.read(), ctype="application/octet-stream")

    def do_POST(self):
        o = self.server.opts
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        with Handler.counter_lock:
            Handler.count += 1
            n = Handler.count
        try:
            req = json.loads(raw)
        except ValueError:
            return self.reply(400, {"error": {"message": "body is not JSON"}})
        inputs = req.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        self.record({"method": "POST", "path": self.path, "n": len(inputs or []),
                     "model": req.get("model"), "auth": self.headers.get("Authorization"),
                     "inputs": inputs})
        if not self.path.endswith("/embeddings"):
            return self.reply(404, {"error": {"message": "no route " + self.path}})
        if o.require_key and self.headers.get("Authorization") != "Bearer " + o.require_key:
            return self.reply(401, {"error": {"message": "Incorrect API key provided"}})
        if o.status:
            return self.reply(o.status, {"error": {"message": "forced status %d" % o.status}})
        if n <= o.fail_429:
            hdr = {"Retry-After": str(o.retry_after)} if o.retry_after else {}
            return self.reply(429, {"error": {"message": "Rate limit reached"}}, hdr)
        if n <= o.fail_429 + o.fail_500:
            return self.reply(500, {"error": {"message": "internal error"}})
        if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
            return self.reply(400, {"error": {"message": "input must be strings"}})
        data = [{"object": "embedding", "index": i, "embedding": vector(t, o.dim)}
                for i, t in enumerate(inputs)]
        if o.wrong_count:
            data = data[:-1]
        if o.reverse:
            data.reverse()
        self.reply(200, {"object": "list", "data": data, "model": req.get("model"),
                         "usage": {"prompt_tokens": 0, "total_tokens": 0}})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--dim", type=int, default=8)
    ap.add_argument("--fail-429", type=int, default=0)
    ap.add_argument("--fail-500", type=int, default=0)
    ap.add_argument("--retry-after", type=int, default=0)
    ap.add_argument("--status", type=int, default=0)
    ap.add_argument("--require-key", default="")
    ap.add_argument("--wrong-count", action="store_true")
    ap.add_argument("--reverse", action="store_true")
    ap.add_argument("--files-dir", default="")
    ap.add_argument("--log", default="")
    ap.add_argument("--lifetime", type=float, default=120.0)
    opts = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.opts = opts
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
