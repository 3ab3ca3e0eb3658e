#!/usr/bin/env python3
"""Compare what real Flink printed for an exported scenario with the engine's result.

Usage: compare.py ENGINE.json FLINK.out     (exit 0: match, 1: mismatch, 2: Flink run failed)

ENGINE.json is `joinlab run SCENARIO --json`; FLINK.out is the stdout of the exported job
(`JL|...` lines, see the header of an exported job). Compared, per operator subtask:

- outputs (joins, split main output, SQL changelog rows with their kinds) as multisets,
- window results (key, window, count, sum, timestamp, firing) as multisets,
- late rows (stream, row, timestamp, late side-output tag) as multisets,
- side outputs of the split (tag, row, timestamp) as multisets,
- value rows of SQL operators that compute their rows (`values` of an output, `JL|ROW` lines:
  kind, values and the pacer event that emitted them) as multisets; the window aggregation's
  late drops as Flink's `numLateRecordsDropped` per subtask (`JL|LATEDROP`), which counts the
  accumulators (two-phase) or rows (SESSION) the operator dropped,

and then the order of each of these within a subtask. A difference in order alone is reported
as `order` (not a mismatch: Flink's end-of-input watermarks reach an operator over its input
channels in any order, see CONFORMANCE.md). As a library: `compare(engine, flink_lines)`.
"""

import json
import sys
from collections import Counter


class Number(str):
    """A JSON number with a fraction or an exponent, as its text (see `loads`)."""


def loads(text):
    """`json.loads` keeping the text of numbers with a fraction: a DECIMAL prints every digit
    of its scale (`1.50`, `8.0100`), which a float would lose."""
    return json.loads(text, parse_float=Number)


def norm(v):
    """A JSON value made hashable, numbers compared as floats; a number whose fraction has two
    or more digits and ends in 0 (`1.50`: only a DECIMAL prints so, a DOUBLE's shortest form
    never does) is compared as its exact text."""
    if isinstance(v, Number):
        frac = v.split(".", 1)[1] if "." in v else ""
        if "e" not in v.lower() and len(frac) >= 2 and frac.endswith("0"):
            return ("decimal", str(v))
        return float(v)
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, list):
        return tuple(norm(x) for x in v)
    return json.dumps(v, sort_keys=True)


def row(r):
    return None if r is None else norm(r["values"])


def engine_records(e):
    """The engine's result as {category: [(subtask, record, final)]} in emission order; `final`
    marks what the end of input (the final watermark) produced."""
    sql = e["operator"] in ("sql_interval_join", "regular_join", "temporal_join", "lookup_join", "window_tvf_join")
    last = e.get("steps", 0) - 1
    late_tags = set()
    out = {"outputs": [], "windows": [], "late": [], "side": []}
    out["values"] = []
    for o in e.get("outputs", []):
        # Rows the operator computed (the window aggregation: JL|ROW lines); a SQL script's
        # projected values of joined rows are compared as outputs below.
        if "values" in o and e["operator"] == "window_tvf_aggregate":
            out["values"].append((o["subtask"], (o["kind"], norm(o["values"]), o.get("step")), o.get("step") == last))
            continue
        ts = None if sql else o.get("timestamp")
        w = o.get("window")
        # A SQL script's outputs are its query's values (the Flink job prints them the same way).
        left, right = (norm(o["values"]), None) if "values" in o else (row(o.get("left")), row(o.get("right")))
        if "values" in o:
            # A script's query gives its window columns among the values, not as a window.
            w = None
        out["outputs"].append((o["subtask"], (o["kind"], norm(ts), left, right, norm(w)), o.get("step") == last))
    for w in e.get("windows", []):
        firing = w.get("firing") if e.get("_compare_firing", True) else None
        out["windows"].append((w["subtask"], (norm(w["key"]), norm(w["start"]), norm(w["end"]), norm(w["count"]), norm(w.get("sum")), norm(w["timestamp"]), firing), w.get("step") == last))
    for l in e.get("late", []):
        tag = l.get("side_output")
        if tag:
            late_tags.add(tag)
        out["late"].append((l["subtask"], (l["stream"], norm(l.get("timestamp")), tag, row(l["row"])), l.get("step") == last))
    side = []
    for tag, rows in sorted(e.get("side_outputs", {}).items()):
        if tag in late_tags:
            continue
        for s in rows:
            side.append((s.get("step", 0), s["subtask"], (tag, norm(s.get("timestamp")), row(s["row"]))))
    # Emission order across tags: by the step that produced each record.
    side.sort(key=lambda x: x[0])
    out["side"] = [(sub, rec, step == last) for step, sub, rec in side]
    return out


def parse_value(text):
    return None if text == "null" else loads(text)


def flink_records(lines):
    """Flink's `JL|` lines as {category: [(subtask, record)]}, plus status info."""
    out = {"outputs": [], "windows": [], "late": [], "side": [], "values": [], "latedrop": {}}
    info = {"warnings": [], "end": None, "error": None, "times": {}, "proctime": []}
    for line in lines:
        line = line.rstrip("\n")
        if not line.startswith("JL|"):
            continue
        f = line.split("|")
        kind = f[1]
        if kind == "OUT":
            # Subtask '-': collected with executeSql(query).collect(), which has none.
            sub = None if f[2] == "-" else int(f[2])
            k, ts, left, right, w = f[3], f[4], f[5], f[6], f[7]
            ts = None if ts == "-" else int(ts)
            win = None if w == "-" else [int(x) for x in w.split(",")]
            step = int(f[8]) if len(f) > 8 and f[8].lstrip("-").isdigit() else None
            out["outputs"].append((sub, (k, norm(ts), norm(parse_value(left)), norm(parse_value(right)), norm(win), step)))
            # "step=N": the pacer's last released event when the job printed it (regular join).
            out.setdefault("steps", []).append(int(f[8][5:]) if len(f) > 8 and f[8].startswith("step=") else None)
        elif kind == "WIN":
            sub = int(f[2])
            key = parse_value(f[3])
            s = None if f[7] == "null" else float(f[7])
            out["windows"].append((sub, (norm(key), float(f[4]), float(f[5]), float(f[6]), s, float(f[8]), int(f[9]))))
        elif kind == "LATE":
            sub, stream, tag, ts, r = int(f[2]), f[3], f[4], f[5], f[6]
            out["late"].append((sub, (stream, norm(None if ts == "-" else int(ts)), None if tag == "-" else tag, norm(parse_value(r)))))
        elif kind == "SIDE":
            sub, tag, ts, r = int(f[2]), f[3], f[4], f[5]
            out["side"].append((sub, (tag, norm(None if ts == "-" else int(ts)), norm(parse_value(r)))))
        elif kind == "ROW":
            sub, k, step, vals = int(f[2]), f[3], int(f[4]), "|".join(f[5:])
            out["values"].append((sub, (k, norm(loads(vals)), step)))
        elif kind == "LATEDROP":
            out["latedrop"][int(f[2])] = int(f[3])
        elif kind == "LATECOUNT":
            # An operator's late counter at the end: JL|LATECOUNT|subtask|metric name|count.
            n = int(f[4])
            if n:
                out.setdefault("late_counts", []).append((int(f[2]), (f[3], float(n))))
        elif kind == "COLUMNS":
            info["columns"] = "|".join(f[2:]).split("\t")
        elif kind == "NOTE":
            note = "|".join(f[2:])
            prefix = "not compared: the processing-time column "
            if note.startswith(prefix):
                info["proctime"].append(note[len(prefix):].rsplit(" (", 1)[0])
        elif kind == "WARN":
            info["warnings"].append("|".join(f[2:]))
        elif kind == "END":
            info["end"] = f[2]
            if f[2] != "ok":
                info["error"] = "|".join(f[3:]) or f[2]
        elif kind == "TIME":
            info["times"][f[2]] = int(f[3])
    return out, info


def fmt(rec):
    return json.dumps(rec, default=str)


def compare(engine, flink_lines, compare_firing=True):
    """Returns (status, details): status is match, order, mismatch or error."""
    engine = dict(engine)
    engine["_compare_firing"] = compare_firing
    got, info = flink_records(flink_lines)
    # A PROCTIME() column holds the wall clock on Flink (the job leaves it out of its rows
    # and names it in a JL|NOTE line) and the simulated processing time in the engine: its
    # name is compared (JL|COLUMNS below), its values are not.
    skip = set(info["proctime"])
    if skip and engine.get("columns"):
        keep = [i for i, c in enumerate(engine["columns"]) if c not in skip]
        engine["outputs"] = [
            dict(o, values=[o["values"][i] for i in keep]) if "values" in o else o
            for o in engine.get("outputs", [])
        ]
    want = engine_records(engine)
    if not compare_firing:
        got["windows"] = [(s, r[:-1] + (None,)) for s, r in got["windows"]]
    details = []
    if info["end"] != "ok":
        return "error", [f"Flink run failed: {info['error'] or 'no end marker (crashed or killed)'}"]
    # A script's result columns: the names Flink gives them (`SELECT *`'s uniquified names,
    # a PROCTIME() column included).
    if info.get("columns") is not None and engine.get("columns"):
        if info["columns"] != engine["columns"]:
            details.append(f"columns: engine {engine['columns']}, Flink {info['columns']}")
            return "mismatch", details
    # At the end of input each channel delivers its Long.MAX_VALUE watermark whenever it gets
    # there, so with several input channels (parallelism > 1, two inputs, or the window join's
    # union of both streams) the operator's watermark may reach +inf in several steps, in an
    # order that differs from run to run. What the end of input emits is then compared as a
    # multiset; everything before it, in order.
    p = engine.get("parallelism", 1)
    several_channels = p > 1 or engine.get("operator") in ("window_join", "interval_join", "sql_interval_join", "regular_join", "temporal_join", "window_tvf_join")
    # The step of each output: the job prints the pacer's event index with each result (the
    # SQL window join's job does). Without periodic watermark emission, the engine's steps are
    # the arrivals and the end of input, one to one with the pacer's events, so the steps are
    # compared; otherwise (or for jobs that print none) they are left out.
    periodic = any(w.get("interval", 0) > 0 for w in engine.get("settings", {}).get("watermarks", []))
    flink_steps = any(r[5] is not None for _, r in got["outputs"])
    if flink_steps and not periodic:
        want["outputs"] = [(s, r + (o.get("step"),), f) for (s, r, f), o in zip(want["outputs"], engine.get("outputs", []))]
    else:
        got["outputs"] = [(s, r[:5]) for s, r in got["outputs"]]
    if engine.get("operator") == "window_tvf_join":
        # The SQL window join has no late side output: Flink only counts the dropped copies
        # (WindowJoinHelper: leftNumLateRecordsDropped / rightNumLateRecordsDropped), so the
        # engine's late copies are compared as those counts per subtask.
        # With SESSION windows the TVF before the join drops late rows itself
        # (UnalignedWindowTableFunctionOperator's numLateRecordsDropped, one per row): the job
        # prints each input's TVF counter as leftTvfNumLateRecordsDropped /
        # rightTvfNumLateRecordsDropped, per TVF subtask (the join subtask of the same key).
        names = [s["name"] for s in engine.get("streams", [])]
        counts = Counter()
        for (sub, rec, _), l in zip(want["late"], engine.get("late", [])):
            side = "left" if names and rec[0] == names[0] else "right"
            tvf = "Tvf" if l.get("reason", {}).get("rule") == "session_tvf" else ""
            counts[(sub, side + tvf + "NumLateRecordsDropped")] += 1
        want["late"] = [(sub, (name, float(n)), False) for (sub, name), n in sorted(counts.items())]
        got["late"] = sorted(got.get("late_counts", []))
    status = "match"
    if engine.get("operator") == "window_tvf_aggregate":
        # Flink drops late rows silently: compare its drop counter with the engine's drops,
        # counted as Flink counts them (one per accumulator a subtask dropped: the late rows
        # of one step, subtask, key and slice came in one accumulator; SESSION: per row).
        counts = Counter()
        seen = set()
        for l in engine.get("late", []):
            unit = (l["subtask"], l.get("reason", {}).get("record"))
            if unit not in seen:
                seen.add(unit)
                counts[l["subtask"]] += 1
        ld = got["latedrop"]
        for sub in sorted(set(counts) | set(ld)):
            if counts.get(sub, 0) != ld.get(sub, 0):
                status = "mismatch"
                details.append(f"late drops subtask {sub}: engine {counts.get(sub, 0)}, Flink numLateRecordsDropped {ld.get(sub, 0)}")
        want["late"] = []
        # Compare the step of each value row only when every pacer event is one engine step
        # (no periodic emission: the pacer's ticks are not all engine steps).
        periodic = any(w.get("interval", 0) > 0 for w in engine.get("settings", {}).get("watermarks", []))
        if periodic:
            want["values"] = [(s, r[:2] + (None,), f) for s, r, f in want["values"]]
            got["values"] = [(s, r[:2] + (None,)) for s, r in got["values"]]
    # A script job collects its results like the SQL client (executeSql(query).collect()): one
    # stream without subtasks, so the engine's outputs are compared without theirs. Results of
    # one event still come in the engine's order (the pacer releases events one by one); what
    # the end of input emits on several subtasks arrives in any order.
    collect = any(s is None for s, _ in got["outputs"])
    if collect and engine.get("operator") == "window_tvf_aggregate":
        # The window aggregation's rows are its `values` (kind, values; the collected rows
        # carry no pacer step), compared without subtask.
        got["values"] = [(None, (r[0], r[2], None)) for _, r in got["outputs"]]
        got["outputs"] = []
        # The collect sink merges the aggregate's subtasks in whatever order their rows arrive:
        # the order is then checked per engine subtask (each row's key lives on one subtask).
        by_subtask = [(s, r[:2] + (None,)) for s, r, _ in want["values"]]
        want["values"] = [(None, r[:2] + (None,), f) for _, r, f in want["values"]]
        several_channels = several_channels or engine.get("operator_parallelism", 1) > 1
    else:
        by_subtask = None
    out_by_subtask = None
    if collect and by_subtask is None:
        # The collect sink merges the operator's subtasks as their rows arrive (a window join
        # at parallelism 2 fires a watermark's windows on both): when the order differs, it is
        # checked per engine subtask, as for the window aggregation.
        if engine.get("operator_parallelism", 1) > 1:
            out_by_subtask = [(s, r) for s, r, _ in want["outputs"]]
        want["outputs"] = [(None, r, f) for s, r, f in want["outputs"]]
        several_channels = several_channels or engine.get("operator_parallelism", 1) > 1
    for cat in ("outputs", "windows", "late", "side", "values"):
        w, g = want[cat], got[cat]
        subs = sorted({x[0] for x in w} | {x[0] for x in g})
        for sub in subs:
            ws = [r for s, r, _ in w if s == sub]
            pre = [r for s, r, f in w if s == sub and not f]
            fin = [r for s, r, f in w if s == sub and f]
            gs = [r for s, r in g if s == sub]
            cw, cg = Counter(ws), Counter(gs)
            if cw != cg:
                status = "mismatch"
                only_engine = list((cw - cg).elements())
                only_flink = list((cg - cw).elements())
                details.append(f"{cat} subtask {sub}: engine has {len(ws)}, Flink {len(gs)}")
                for r in only_engine[:10]:
                    details.append(f"  only engine: {fmt(r)}")
                for r in only_flink[:10]:
                    details.append(f"  only Flink:  {fmt(r)}")
            elif ws != gs and cat == "values" and by_subtask is not None and subtask_orders_agree(by_subtask, gs):
                pass
            elif ws != gs and cat == "outputs" and out_by_subtask is not None and subtask_orders_agree(out_by_subtask, gs):
                pass
            elif ws != gs and not (several_channels and gs[: len(pre)] == pre and Counter(gs[len(pre):]) == Counter(fin)):
                if status == "match":
                    status = "order"
                details.append(f"{cat} subtask {sub}: same records, different order")
                for a, b in zip(ws, gs):
                    if a != b:
                        details.append(f"  first difference: engine {fmt(a)} / Flink {fmt(b)}")
                        break
    # The step that emitted each result, where the job tagged them (the regular join): the same
    # results per subtask must come from the same steps.
    steps = got.get("steps", [])
    if status in ("match", "order") and steps and all(s is not None for s in steps):
        ew = Counter((None if collect else o["subtask"], o.get("step")) + (r,) for o, (_, r, _) in zip(engine.get("outputs", []), want["outputs"]))
        fg = Counter((s, st) + (r,) for (s, r), st in zip(got["outputs"], steps))
        if ew != fg:
            status = "mismatch"
            details.append("outputs: same results, emitted at different steps")
            for x in list((ew - fg).elements())[:5]:
                details.append(f"  engine: step {x[1]} subtask {x[0]} {fmt(x[2])}")
            for x in list((fg - ew).elements())[:5]:
                details.append(f"  Flink:  step {x[1]} subtask {x[0]} {fmt(x[2])}")
    if info["warnings"]:
        details.append("pacer warnings (the replay may not have been deterministic): " + "; ".join(info["warnings"][:5]))
        if status == "match":
            status = "match-warned"
    return status, details


def subtask_orders_agree(by_subtask, got):
    """Whether the collected rows `got`, split by the engine subtask that emitted each, come in
    the engine's order on every subtask (rows emitted by several subtasks: no)."""
    where = {}
    for s, r in by_subtask:
        where.setdefault(r, set()).add(s)
    if any(len(v) > 1 for v in where.values()):
        return False
    for sub in {s for s, _ in by_subtask}:
        if [r for s, r in by_subtask if s == sub] != [r for r in got if sub in where.get(r, ())]:
            return False
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    engine = loads(open(sys.argv[1]).read())
    lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
    status, details = compare(engine, lines)
    print(status)
    for d in details:
        print(d)
    sys.exit(0 if status in ("match", "order") else 2 if status == "error" else 1)


if __name__ == "__main__":
    main()
