#!/usr/bin/env python3
"""The conformance suite: run scenarios on real Apache Flink and on the engine, and compare.

Called by scripts/conformance.sh (which installs Flink's jars and builds the CLI):

    run.py --joinlab BIN --lib FLINK_LIB [--random N] [--seed S] [--no-gallery]
           [--only NAME...] [--report] [--work DIR]

For every scenario: `joinlab export` (a Java job), `joinlab run --json` (the engine) and, for the
gallery, `joinlab check` (the golden file). All jobs are compiled with one javac call and run
on one shared MiniCluster in one JVM (conformance/java/JoinlabRunner.java), then compared by
conformance/compare.py. A random scenario that mismatches is shrunk (rows dropped while it still
mismatches, replayed by the same compiled job through `--data`) and written to
conformance/mismatches/. With --report the results go into CONFORMANCE.md.
"""

import argparse
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import compare  # noqa: E402

JAVA_FLAGS = [
    "--add-opens", "java.base/java.util=ALL-UNNAMED",
    "--add-opens", "java.base/java.lang=ALL-UNNAMED",
    "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens", "java.base/java.io=ALL-UNNAMED",
    "--add-opens", "java.base/java.net=ALL-UNNAMED",
    "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens", "java.base/java.util.concurrent.atomic=ALL-UNNAMED",
    "--add-opens", "java.base/java.time=ALL-UNNAMED",
    "--add-opens", "java.base/java.math=ALL-UNNAMED",
    "--add-opens", "java.base/java.text=ALL-UNNAMED",
    "--add-opens", "java.base/sun.net.util=ALL-UNNAMED",
]


# The CLI, for reading SQL scripts' scenarios (set in main).
JOINLAB = [""]


def log(*a):
    print(*a, flush=True)


def class_name(name):
    return "J_" + re.sub(r"[^A-Za-z0-9]", "_", name)


class Case:
    def __init__(self, path, kind):
        self.path = path
        self.kind = kind  # gallery | random | mismatch
        ext = ".sql" if path.endswith(".sql") else ".json"
        self.name = os.path.basename(path)[: -len(ext)]
        self.cls = class_name(self.name)
        if ext == ".sql":
            # A Flink SQL script: its scenario (`joinlab json`); the job runs the script's own
            # query text (crate/src/export/sql_script.rs).
            r = subprocess.run([JOINLAB[0], "json", path], capture_output=True, text=True)
            self.scenario = json.loads(r.stdout) if r.returncode == 0 else {}
        else:
            self.scenario = json.load(open(path))
        self.operator = self.scenario.get("job", {}).get("operator", "window_join")
        self.excluded = None
        self.error = None
        self.engine = None
        self.golden = None
        self.status = None
        self.details = []
        self.ms = None
        self.flink_lines = []


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def prepare(case, args, java_dir):
    """Export the job, run the engine, check the golden file."""
    sql = case.operator in ("sql_interval_join", "regular_join", "temporal_join", "lookup_join", "window_tvf_join") or case.path.endswith(".sql")
    r = sh([args.joinlab, "export", case.path, "--flink-sql" if sql else "--flink-java", "--class", case.cls])
    if r.returncode != 0:
        case.error = "export failed: " + r.stderr.strip()
        return False
    m = re.search(r"excluded from conformance: (.*)", r.stderr)
    if m:
        case.excluded = m.group(1).strip()
        return False
    with open(os.path.join(java_dir, case.cls + ".java"), "w", encoding="utf-8") as f:
        f.write(r.stdout)
    r = sh([args.joinlab, "run", case.path, "--json"])
    if r.returncode != 0:
        case.error = "engine failed: " + r.stderr.strip()
        return False
    case.engine = compare.loads(r.stdout)
    exp = re.sub(r"\.(json|sql)$", "", case.path) + ".expected.json"
    if case.kind == "gallery" and os.path.exists(exp):
        r = sh([args.joinlab, "check", case.path])
        case.golden = "match" if r.returncode == 0 else "differs"
    return True


def javac(args, java_dir, files):
    cp = os.path.join(args.lib, "*")
    t = time.time()
    r = sh(["javac", "-nowarn", "-encoding", "UTF-8", "-J-Xmx1g", "-cp", cp, "-d", java_dir] + files)
    if r.returncode != 0:
        log(r.stdout[-4000:] + r.stderr[-4000:])
    return r.returncode == 0, time.time() - t


def run_jobs(args, java_dir, out_dir, specs):
    """Runs jobs on one shared MiniCluster; returns ({name: (status, ms)}, cluster start ms)."""
    cp = os.path.join(args.lib, "*") + os.pathsep + java_dir
    os.makedirs(out_dir, exist_ok=True)
    cmd = ["java", "-Xmx2g"] + JAVA_FLAGS + ["-Dlog4j2.level=WARN", "-cp", cp, "JoinlabRunner", out_dir] + specs
    res = {}
    start = None
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        line = line.strip()
        m = re.match(r"^(\S+) (ok|error|timeout) (\d+)$", line)
        if m:
            res[m.group(1)] = (m.group(2), int(m.group(3)))
            if args.verbose:
                log("   ", line)
        elif line.startswith("JL|CLUSTER|started|"):
            start = int(line.split("|")[3])
    proc.wait()
    return res, start


def compare_case(case, out_dir):
    path = os.path.join(out_dir, case.cls + ".out")
    if not os.path.exists(path):
        case.status, case.details = "error", ["no output (the JVM died?)"]
        return
    case.flink_lines = open(path, encoding="utf-8").read().splitlines()
    case.status, case.details = compare.compare(case.engine, case.flink_lines)


# ---------------------------------------------------------------- shrinking

def rows_of(stream):
    return [l for l in stream.get("rows", "").split("\n")]


def is_row(line):
    t = line.strip()
    return t and not t.startswith("#") and not t.startswith("//")


def pin_types(sc, engine):
    """Write each column's resolved type into the scenario, so dropping rows cannot change it."""
    sc = json.loads(json.dumps(sc))
    names = {"int": "int", "long": "bigint", "string": "string", "double": "double", "boolean": "boolean"}
    for s, info in zip(sc["streams"], engine["streams"]):
        s["columns"] = [f"{c['name']}:{names[c['type']]}" for c in info["columns"]]
    return sc


def without(sc, drop):
    """The scenario without the row lines in `drop` (a set of (stream, line index))."""
    sc = json.loads(json.dumps(sc))
    for si, s in enumerate(sc["streams"]):
        lines = rows_of(s)
        s["rows"] = "\n".join(l for i, l in enumerate(lines) if (si, i) not in drop)
    return sc


def shrink(case, args, java_dir, work):
    """Drops rows while the scenario still mismatches on Flink; returns the smallest scenario."""
    base = pin_types(case.scenario, case.engine)
    # Re-export with pinned types: the job must stay the same for --data replays.
    p = os.path.join(work, case.name + ".pinned.json")
    json.dump(base, open(p, "w"), indent=2)
    cls = case.cls + "_s"
    sql = case.operator in ("sql_interval_join", "regular_join", "temporal_join", "lookup_join", "window_tvf_join")
    r = sh([args.joinlab, "export", p, "--flink-sql" if sql else "--flink-java", "--class", cls])
    if r.returncode != 0:
        return None
    with open(os.path.join(java_dir, cls + ".java"), "w", encoding="utf-8") as f:
        f.write(r.stdout)
    ok, _ = javac(args, java_dir, [os.path.join(java_dir, cls + ".java")])
    if not ok:
        return None
    current = base
    case.shrunk_details, case.shrunk_flink = case.details, case.flink_lines
    items = [(si, i) for si, s in enumerate(current["streams"]) for i, l in enumerate(rows_of(s)) if is_row(l)]
    chunk = max(1, len(items) // 2)
    rounds = 0
    deadline = time.time() + args.shrink_seconds
    while chunk >= 1 and rounds < 40 and time.time() < deadline:
        rounds += 1
        items = [(si, i) for si, s in enumerate(current["streams"]) for i, l in enumerate(rows_of(s)) if is_row(l)]
        if len(items) <= 1:
            break
        cands = []
        for k in range(0, len(items), chunk):
            drop = set(items[k:k + chunk])
            sc = without(current, drop)
            cp = os.path.join(work, f"{case.name}.cand{rounds}_{k}.json")
            json.dump(sc, open(cp, "w"), indent=2)
            d = sh([args.joinlab, "export", cp, "--flink-java", "--data"])
            e = sh([args.joinlab, "run", cp, "--json"])
            if d.returncode != 0 or e.returncode != 0:
                continue
            dp = cp[:-5] + ".data"
            open(dp, "w").write(d.stdout)
            cands.append((f"{case.cls}_c{rounds}_{k}", sc, dp, compare.loads(e.stdout)))
        if not cands:
            chunk //= 2
            continue
        res, _ = run_jobs(args, java_dir, os.path.join(work, "shrink-out"), [f"{n}={cls}:{dp}" for n, _, dp, _ in cands])
        found = None
        for n, sc, dp, eng in cands:
            path = os.path.join(work, "shrink-out", n + ".out")
            if n not in res or not os.path.exists(path):
                continue
            flines = open(path, encoding="utf-8").read().splitlines()
            st, det = compare.compare(eng, flines)
            if st == "mismatch":
                found = sc
                case.shrunk_details, case.shrunk_flink = det, flines
                break
        if found is not None:
            current = found
        else:
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
    return current


# ---------------------------------------------------------------- report

def write_report(cases, meta):
    path = os.path.join(ROOT, "CONFORMANCE.md")
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    lines = [begin, ""]
    lines.append(f"Last run: {meta['date']}, Apache Flink {meta['flink']} (PyPI apache-flink), Java {meta['java']}, "
                 f"`bash scripts/conformance.sh{meta['args']}`.")
    lines.append(f"Cluster start {meta['cluster_ms']} ms; javac {meta['javac_s']:.0f} s for {meta['compiled']} jobs; "
                 f"whole run {meta['total_s']:.0f} s.")
    lines.append("")
    gal = [c for c in cases if c.kind == "gallery"]
    if gal:
        lines.append("### Gallery")
        lines.append("")
        lines.append("| scenario | operator | Flink vs engine | golden file | Flink job ms | notes |")
        lines.append("|---|---|---|---|---|---|")
        for c in gal:
            res = c.status or ("excluded" if c.excluded else "error")
            note = c.excluded or c.error or "; ".join(c.details[:3])
            note = note.replace("|", "\\|")[:300]
            lines.append(f"| `{c.name}` | {c.operator} | {res} | {c.golden or '-'} | {c.ms if c.ms is not None else '-'} | {note} |")
        lines.append("")
    rnd = [c for c in cases if c.kind == "random"]
    if rnd:
        lines.append(f"### Random scenarios (seed {meta['seed']}, {len(rnd)} scenarios)")
        lines.append("")
        lines.append("| operator | run | match | order only | mismatch | excluded | error |")
        lines.append("|---|---|---|---|---|---|---|")
        ops = sorted({c.operator for c in rnd})
        for op in ops:
            cs = [c for c in rnd if c.operator == op]
            cnt = lambda st: sum(1 for c in cs if c.status == st)
            lines.append(f"| {op} | {len(cs)} | {cnt('match') + cnt('match-warned')} | {cnt('order')} | {cnt('mismatch')} | "
                         f"{sum(1 for c in cs if c.excluded)} | {sum(1 for c in cs if c.status == 'error' or c.error)} |")
        lines.append("")
        mism = [c for c in rnd if c.status in ("mismatch", "error") or c.error]
        if mism:
            lines.append("Mismatches (minimal scenarios in `conformance/mismatches/`):")
            lines.append("")
            for c in mism:
                d = (c.error or "; ".join(c.details[:4])).replace("\n", " ")[:400]
                lines.append(f"- `{c.name}` ({c.operator}): {d}")
            lines.append("")
    lines.append(end)
    block = "\n".join(lines)
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n## Results\n\n" + block + "\n"
    open(path, "w", encoding="utf-8").write(text)
    log(f"wrote {path}")


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--joinlab", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--random", type=int, default=0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--operator", default=None, help="random scenarios of one operator (joinlab gen --operator)")
    ap.add_argument("--no-gallery", action="store_true")
    ap.add_argument("--only", nargs="*", default=None, help="scenario files to run instead of the gallery")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "conformance"))
    ap.add_argument("--batch", type=int, default=400, help="jobs per JVM")
    ap.add_argument("--shrink-seconds", type=int, default=900)
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--scripts", action="store_true", help="also run the SQL gallery scenarios as scripts (joinlab sql), with their query text")
    args = ap.parse_args()
    JOINLAB[0] = args.joinlab
    t_start = time.time()
    if args.seed is None:
        args.seed = int(time.time()) % 100000
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    java_dir = os.path.join(work, "java")
    os.makedirs(java_dir)
    shutil.copy(os.path.join(HERE, "java", "JoinlabRunner.java"), java_dir)

    cases = []
    if args.only:
        cases += [Case(p, "gallery") for p in args.only if not p.endswith(".expected.json")]
    elif not args.no_gallery:
        for p in sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.json"))):
            if not p.endswith(".expected.json"):
                cases.append(Case(p, "gallery"))
        # Flink SQL scripts run with the user's own query text.
        for p in sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.sql"))):
            cases.append(Case(p, "gallery"))
    if args.scripts:
        # The SQL gallery scenarios as the scripts `joinlab sql` prints, run like the gallery's
        # scripts (every SQL operator the script job's pacer watches: interval, regular,
        # temporal, lookup and window TVF joins, window TVF aggregations).
        sdir = os.path.join(work, "scripts")
        os.makedirs(sdir, exist_ok=True)
        for p in sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.json"))):
            if p.endswith(".expected.json"):
                continue
            op = json.load(open(p)).get("job", {}).get("operator")
            if op not in ("sql_interval_join", "regular_join", "temporal_join", "lookup_join", "window_tvf_join", "window_tvf_aggregate"):
                continue
            r = sh([args.joinlab, "sql", p])
            if r.returncode != 0:
                log(f"{p}: no script: {r.stderr.strip()}")
                continue
            q = os.path.join(sdir, "script-" + os.path.basename(p)[: -len(".json")] + ".sql")
            with open(q, "w", encoding="utf-8") as f:
                f.write(r.stdout)
            cases.append(Case(q, "script"))
    if args.random:
        rdir = os.path.join(work, "random")
        gen = [args.joinlab, "gen", "--seed", str(args.seed), "--count", str(args.random), "--out", rdir]
        if args.operator:
            gen += ["--operator", args.operator]
        r = sh(gen)
        if r.returncode != 0:
            log(r.stderr)
            sys.exit(1)
        cases += [Case(p, "random") for p in sorted(glob.glob(os.path.join(rdir, "*.json")))]

    log(f"{len(cases)} scenarios: exporting and running the engine")
    ready = [c for c in cases if prepare(c, args, java_dir)]
    files = [os.path.join(java_dir, "JoinlabRunner.java")] + [os.path.join(java_dir, c.cls + ".java") for c in ready]
    log(f"compiling {len(ready)} jobs")
    ok, javac_s = javac(args, java_dir, files)
    if not ok:
        # Compile one by one to find the broken ones.
        good = []
        for c in ready:
            o, _ = javac(args, java_dir, [os.path.join(java_dir, c.cls + ".java")])
            if o:
                good.append(c)
            else:
                c.error = "javac failed"
        javac(args, java_dir, [os.path.join(java_dir, "JoinlabRunner.java")])
        ready = good
    out_dir = os.path.join(work, "out")
    cluster_ms = None
    for k in range(0, len(ready), args.batch):
        batch = ready[k:k + args.batch]
        log(f"running {len(batch)} jobs on Flink")
        res, start = run_jobs(args, java_dir, out_dir, [c.cls for c in batch])
        cluster_ms = cluster_ms or start
        for c in batch:
            if c.cls in res:
                c.ms = res[c.cls][1]
            compare_case(c, out_dir)
    counts = {}
    for c in cases:
        st = c.status or ("excluded" if c.excluded else "error")
        counts[st] = counts.get(st, 0) + 1
        if st not in ("match", "excluded") or args.verbose:
            log(f"{st:12} {c.name} ({c.operator}) {c.ms if c.ms is not None else '-'} ms")
            for d in (c.details or [c.excluded or c.error or ""])[:12]:
                log("             " + d)
        if c.kind == "gallery" and c.golden == "differs":
            log(f"{'golden':12} {c.name}: the engine's output differs from {c.name}.expected.json")

    # Shrink random mismatches into regression scenarios.
    mdir = os.path.join(HERE, "mismatches")
    for c in cases:
        if c.kind == "random" and c.status == "mismatch" and not args.no_shrink:
            log(f"shrinking {c.name}")
            small = shrink(c, args, java_dir, work) or c.scenario
            small = dict(small)
            n_rows = sum(len([l for l in rows_of(s) if is_row(l)]) for s in small["streams"])
            small["title"] = f"Conformance mismatch: {c.operator} (from {c.name}, {n_rows} rows)"
            det = getattr(c, "shrunk_details", c.details)
            flink = [l for l in getattr(c, "shrunk_flink", c.flink_lines) if l.startswith(("JL|OUT", "JL|WIN", "JL|LATE", "JL|SIDE"))]
            small["description"] = ("Found by the conformance suite: real Apache Flink 2.3.0 and the engine disagree on this "
                                    "scenario. " + " ".join(d.strip() for d in det[:8]) + " Flink printed: " + " ".join(flink[:30])).strip()[:4000]
            os.makedirs(mdir, exist_ok=True)
            out = os.path.join(mdir, c.name + ".json")
            json.dump(small, open(out, "w"), indent=2, ensure_ascii=False)
            open(out, "a").write("\n")
            log(f"  wrote {out} ({n_rows} rows)")

    java_version = sh(["java", "-version"]).stderr.split("\n")[0]
    meta = {
        "date": datetime.date.today().isoformat(),
        "flink": "2.3.0",
        "java": re.sub(r'.*"(.*)".*', r"\1", java_version),
        "args": (f" --random {args.random}" if args.random else "") + (f" --seed {args.seed}" if args.random else "")
        + (f" --operator {args.operator}" if args.operator else ""),
        "seed": args.seed,
        "cluster_ms": cluster_ms,
        "javac_s": javac_s,
        "compiled": len(ready),
        "total_s": time.time() - t_start,
    }
    results = [{"name": c.name, "kind": c.kind, "operator": c.operator, "status": c.status, "excluded": c.excluded,
                "error": c.error, "golden": c.golden, "flink_ms": c.ms, "details": c.details} for c in cases]
    json.dump({"meta": meta, "results": results}, open(os.path.join(work, "results.json"), "w"), indent=2)
    if args.report:
        write_report(cases, meta)
    log("summary: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + f" ({meta['total_s']:.0f} s)")
    bad = sum(v for k, v in counts.items() if k in ("mismatch", "error"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
