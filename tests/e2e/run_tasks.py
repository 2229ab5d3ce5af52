#!/usr/bin/python3
"""RestBench-style tasks solved end to end by `apidex run` (test_run.sh).

For each task: a script for the scripted model (tests/agent/mock_openai.py) that plays
RestGPT's planner, caller and parser, passing values on only through "capture" (a value
the model writes comes from a request apidex sent it: an earlier result, the sub-task);
the model started on it; `apidex run TASK --json` against `apidex mock`; then checks of
the transcript (the endpoints called, in order, by "METHOD /path"; their statuses; the
selections) and of the final answer against the value read from the mock directly.

usage: run_tasks.py BIN DB MOCK_URL LIST_JSON WORKDIR
"""
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

BIN, DB, MOCK, LIST, WORK = sys.argv[1:6]
SRC = os.environ.get("APIDEX_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
MODEL = os.path.join(SRC, "tests", "agent", "mock_openai.py")


def get(path):
    with urllib.request.urlopen(MOCK + path, timeout=20) as r:
        return json.load(r)


# A value the parser's selection gave, as it appears in a later request's JSON text: the
# history line "result: NOTE: VALUE" (a string value is JSON: \"...\" inside the request).
def result_capture(note):
    return re.escape("result: %s: " % note) + r'(?:\\")?([^\\"]+)'


# Each step: the planner's sub-task ([{{1}}] marks the value taken from the previous
# result), the endpoint and params the caller sends ({{1}}: the value in the sub-task's
# brackets), the parser's selection and its note. answer(): the expected final answer,
# read from the mock.
TASKS = [
    {
        "task": "Who directed the top-1 rated movie?",
        "steps": [
            ("get the top rated movies", "GET /movie/top_rated", {}, "$.results[0].id", "top movie id"),
            ("get the credits (cast and crew) of the movie [{{1}}]", "GET /movie/{movie_id}/credits",
             {"movie_id": "{{1}}"}, "$.crew[12].name", "director"),
        ],
        "answer": lambda: next(c["name"] for c in get("/3/movie/%d/credits" % get("/3/movie/top_rated")["results"][0]["id"])["crew"] if c["job"] == "Director"),
    },
    {
        "task": "What genre is the top-1 rated movie?",
        "steps": [
            ("get the top rated movies", "GET /movie/top_rated", {}, "$.results[0].id", "top movie id"),
            ("get the primary details of the movie [{{1}}]", "GET /movie/{movie_id}",
             {"movie_id": "{{1}}"}, "$.genres[0].name", "genre"),
        ],
        "answer": lambda: get("/3/movie/%d" % get("/3/movie/top_rated")["results"][0]["id"])["genres"][0]["name"],
    },
    {
        "task": "Which company produced the first movie a search for Avengers finds?",
        "steps": [
            ("search for movies by their title Avengers", "GET /search/movie", {"query": "Avengers"},
             "$.results[0].id", "movie id"),
            ("get the primary details of the movie [{{1}}]", "GET /movie/{movie_id}",
             {"movie_id": "{{1}}"}, "$.production_companies[0].name", "company"),
        ],
        "answer": lambda: get("/3/movie/%d" % get("/3/search/movie?query=Avengers")["results"][0]["id"])["production_companies"][0]["name"],
    },
    {
        "task": "Name a movie similar to the most popular movie right now.",
        "steps": [
            ("get the list of popular movies", "GET /movie/popular", {}, "$.results[0].id", "popular movie id"),
            ("get similar movies to the movie [{{1}}]", "GET /movie/{movie_id}/similar",
             {"movie_id": "{{1}}"}, "$.results[0].title", "similar title"),
        ],
        "answer": lambda: get("/3/movie/%d/similar" % get("/3/movie/popular")["results"][0]["id"])["results"][0]["title"],
    },
    {
        "task": "What is the first track of the first album in Spotify's new releases?",
        "steps": [
            ("get a list of new album releases featured in Spotify", "GET /browse/new-releases", {},
             "$.albums.items[0].id", "album id"),
            ("get the tracks of the album [{{1}}]", "GET /albums/{id}/tracks",
             {"id": "{{1}}"}, "$.items[0].name", "first track"),
        ],
        "answer": lambda: get("/v1/albums/%s/tracks" % get("/v1/browse/new-releases")["albums"]["items"][0]["id"])["items"][0]["name"],
    },
    {
        "task": "Which movie is the top-1 rated one, and who is the first actor in its cast?",
        "steps": [
            ("get the top rated movies", "GET /movie/top_rated", {}, "$.results[0].id", "top movie id"),
            ("get the credits (cast and crew) of the movie [{{1}}]", "GET /movie/{movie_id}/credits",
             {"movie_id": "{{1}}"}, "$.cast[0].name", "first actor"),
        ],
        "answer": lambda: get("/3/movie/%d/credits" % get("/3/movie/top_rated")["results"][0]["id"])["cast"][0]["name"],
    },
]


def script(task):
    steps = []
    prev = None
    for i, (plan, endpoint, params, select, note) in enumerate(task["steps"], 1):
        p = {"content": "Plan step %d: %s" % (i, plan)}
        if prev:
            p["capture"] = result_capture(prev)
        steps.append(p)
        c = {"tool_calls": [{"name": "call_endpoint",
                             "arguments": {"endpoint": endpoint, "params": params}}]}
        if "{{1}}" in json.dumps(params):
            c["capture"] = r"Sub-task: [^\[]*\[([^\]]+)\]"
        steps.append(c)
        steps.append({"tool_calls": [{"name": "extract", "arguments": {"select": select, "note": note}}]})
        prev = note
    steps.append({"content": "Final Answer: {{1}}", "capture": result_capture(prev)})
    return {"steps": steps}


def endpoints_by_id():
    out = {}
    for a in json.load(open(LIST))["apis"]:
        for t in a["tags"]:
            for o in t["operations"]:
                out[o["id"]] = "%s %s" % (o["method"], o["path"])
    return out


def start_model(path, port_file, log):
    if os.path.exists(port_file):
        os.remove(port_file)
    p = subprocess.Popen(["/usr/bin/python3", MODEL, "--script", path, "--port-file", port_file,
                          "--log", log, "--lifetime", "120"])
    for _ in range(200):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return p, open(port_file).read().strip()
        time.sleep(0.05)
    p.kill()
    raise SystemExit("FAIL: the scripted model did not start")


def main():
    ids = endpoints_by_id()
    apis = {a["id"] for a in json.load(open(LIST))["apis"]}
    tmdb = next(i.split(":")[0] for i, e in ids.items() if e == "GET /movie/top_rated")
    spotify = next(i.split(":")[0] for i, e in ids.items() if e == "GET /browse/new-releases")
    assert tmdb in apis and spotify in apis
    fail = 0
    calls = tokens = steps_n = 0
    for n, task in enumerate(TASKS, 1):
        path = os.path.join(WORK, "script%d.json" % n)
        with open(path, "w") as f:
            json.dump(script(task), f)
        model, port = start_model(path, os.path.join(WORK, "llm%d.port" % n),
                                  os.path.join(WORK, "llm%d.log" % n))
        env = dict(os.environ, APIDEX_LLM_BASE_URL="http://127.0.0.1:%s/v1" % port,
                   APIDEX_LLM_MODEL="mock-model")
        cmd = [BIN, "run", task["task"], "--json", "--db", DB, "--max-steps", "6",
               "--server", "%s=%s/3" % (tmdb, MOCK), "--server", "%s=%s/v1" % (spotify, MOCK),
               "--allow-address", "127.0.0.1"]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        model.kill()
        model.wait()
        name = "task %d (%s)" % (n, task["task"])
        try:
            t = json.loads(r.stdout)
        except ValueError:
            print("FAIL %s: exit %d, no JSON transcript\n%s\n%s" % (name, r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
            fail = 1
            continue
        called = [(ids.get(s.get("endpoint"), s.get("endpoint")), s.get("status"))
                  for s in t["steps"] if s.get("endpoint")]
        want = [(s[1], 200) for s in task["steps"]]
        expected = task["answer"]()
        problems = []
        if r.returncode != 0:
            problems.append("exit %d" % r.returncode)
        if called != want:
            problems.append("calls %s, expected %s" % (called, want))
        sels = [s.get("selection") for s in t["steps"] if s.get("endpoint")]
        if sels != [s[3] for s in task["steps"]]:
            problems.append("selections %s" % sels)
        if t.get("answer") != str(expected):
            problems.append("answer %r, expected %r" % (t.get("answer"), expected))
        made = [s for s in t["steps"] if s.get("endpoint")]
        first = (made[0].get("result") or "").split(": ", 1)[-1].strip('"') if made else ""
        if len(made) > 1 and (not first or first not in (made[1].get("request") or "")):
            problems.append("the second call does not carry the first result %r: %s"
                            % (first, made[1].get("request")))
        if not all(s.get("tokens", {}).get("prompt", 0) > 0 for s in t["steps"]):
            problems.append("a step without prompt tokens")
        if problems:
            print("FAIL %s: %s" % (name, "; ".join(problems)))
            print(r.stderr[-2000:])
            fail = 1
        else:
            print("ok %s: %s -> %r" % (name, " -> ".join(c[0] for c in called), t["answer"]))
        calls += t.get("api_calls", 0)
        steps_n += len(t["steps"])
        tokens += sum(s["tokens"]["prompt"] + s["tokens"]["completion"] for s in t["steps"])
    print("tasks %d, API calls %d, planner turns %d, cl100k tokens %d (%.0f per turn)"
          % (len(TASKS), calls, steps_n, tokens, tokens / max(steps_n, 1)))
    return fail


if __name__ == "__main__":
    sys.exit(main())
