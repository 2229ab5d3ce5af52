#!/usr/bin/env python3
"""A scripted MCP stdio server for tests/e2e/test_mcp_sources.sh: a well-behaved one that
pages its tool list and talks in between (logs, notifications, a request of its own), and
hostile ones (one message over the size limit, a flood without newline, silence).
A "calls" server answers tools/call for tests/e2e/test_mcp_gateway.sh: "reveal" (read-only,
an integer n required) says the value of $MY_API_TOKEN, "erase" (no annotations) does
nothing; each call is appended to the file $CALL_LOG.
Usage: scripted_server.py MODE   (pages | huge | flood | silent | garbage | calls)"""
import json
import os
import sys

mode = sys.argv[1]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def tool(i):
    return {"name": f"tool_{i}", "description": f"Tool number {i} counts the pages of a book.",
            "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}


if mode == "silent":
    for _ in sys.stdin:
        pass
    sys.exit(0)
if mode == "flood":
    chunk = "x" * 65536
    try:
        while True:
            sys.stdout.write(chunk)
    except BrokenPipeError:
        sys.exit(0)

for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue
    if method == "initialize":
        if mode == "garbage":
            sys.stdout.write("this is a log line, not JSON\n[1,2,3]\n\n")
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}})
            send({"jsonrpc": "2.0", "id": 999, "result": {}})
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted-" + mode, "version": "1.0"}}})
    elif method == "tools/list" and mode == "calls":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": "reveal", "description": "Say the configured token.",
             "annotations": {"readOnlyHint": True},
             "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}},
                             "required": ["n"]}},
            {"name": "erase", "description": "Erase everything.",
             "inputSchema": {"type": "object", "properties": {}}}]}})
    elif method == "tools/call" and mode == "calls":
        with open(os.environ["CALL_LOG"], "a") as log:
            log.write(json.dumps(msg["params"]) + "\n")
        p = msg["params"]
        text = ("token is %s, n=%s" % (os.environ.get("MY_API_TOKEN"), p["arguments"].get("n"))
                if p["name"] == "reveal" else "erased")
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": text}]}})
    elif method == "tools/list":
        if mode == "huge":
            sys.stdout.write('{"jsonrpc":"2.0","id":%d,"result":{"tools":[],"pad":"%s"}}\n'
                             % (mid, "y" * (17 << 20)))
            sys.stdout.flush()
            continue
        if mode == "garbage":
            # a request of the server before it answers: the client says it has no such method
            send({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"})
            reply = json.loads(sys.stdin.readline())
            assert reply["id"] == "srv-1" and reply["error"]["code"] == -32601, reply
        page = int((msg.get("params") or {}).get("cursor") or 0)
        result = {"tools": [tool(page * 2), tool(page * 2 + 1)]}
        if page < 2:
            result["nextCursor"] = str(page + 1)
        send({"jsonrpc": "2.0", "id": mid, "result": result})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
