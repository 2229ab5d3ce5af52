#!/usr/bin/env python3
"""A Streamable HTTP MCP server whose GET event stream is hostile, for
tests/e2e/test_mcp_http_watch.sh: POSTs are answered well (initialize, tools/list), but the
first GET stream sends binary garbage, an event over the client's size limit, data that is
not JSON, an overlong id, then one valid notifications/tools/list_changed (after which
tools/list holds a second tool, calm_seas, two seconds after the garbage: only the
notification can tell the client), and then a line that never ends; every later
GET sends a line that never ends at once. Each GET is appended to LOG.
Usage: hostile_stream_server.py PORT_FILE LOG"""
import http.server
import json
import os
import sys
import time

port_file, log = sys.argv[1], sys.argv[2]
state = {"gets": 0, "changed": False}
TOOL = {"name": "tide_chart", "description": "Read the tide chart of a harbour",
        "inputSchema": {"type": "object", "properties": {"harbour": {"type": "string"}}}}
AFTER = {"name": "calm_seas", "description": "Tell whether the seas are calm for sailing",
         "inputSchema": {"type": "object"}}


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, obj=None, headers=()):
        body = json.dumps(obj).encode() if obj is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        mid, method = msg.get("id"), msg.get("method")
        if mid is None:
            return self.reply(202)
        if method == "initialize":
            return self.reply(200, {"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "hostile", "version": "1"}}},
                [("Mcp-Session-Id", "hostile-session")])
        if method == "tools/list":
            tools = [TOOL, AFTER] if state["changed"] else [TOOL]
            return self.reply(200, {"jsonrpc": "2.0", "id": mid, "result": {"tools": tools}})
        self.reply(200, {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})

    def do_DELETE(self):
        self.reply(200)

    def do_GET(self):
        state["gets"] += 1
        with open(log, "a") as f:
            f.write("GET\n")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        w = self.wfile
        try:
            if state["gets"] == 1:
                w.write(b"\x00\xff\xfe garbage\r\r\n: comment\n\x01\x02data\x00:\n\n")
                w.write(b"data: " + b"z" * (3 << 20) + b"\n\n")  # over the 1 MiB limit
                w.write(b"data: this is not json\n\ndata: [1,2,3]\n\n")
                w.write(b"id: " + b"i" * 5000 + b"\nretry: 99999999999999999\n\n")
                w.flush()
                time.sleep(2)  # the read the stream's opening starts is over by now
                state["changed"] = True
                w.write(b'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n')
                w.flush()
            chunk = b"x" * 65536
            while True:  # a line that never ends
                w.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(port_file + ".tmp", port_file)
srv.serve_forever()
