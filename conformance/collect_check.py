"""Runs a Flink SQL script on real Flink (PyFlink's TableEnvironment) as the SQL client would,
and compares the result with `joinlab run FILE.sql --json`.

    ~/.cache/joinlab-flink-venv/bin/python conformance/collect_check.py JOINLAB FILE.sql...

Each script's statements run verbatim, except that every CREATE TABLE gets a filesystem CSV
table in a temporary directory instead of its WITH options: the script's own `INSERT INTO t
VALUES ...` statements write the rows (in order, one file per table), then the query runs with
`executeSql(query).collect()` and each row is taken with its row kind. The tables are read at
parallelism 1 in file order, but the two tables' rows reach the join in whatever interleaving
the two sources give, so only what does not depend on that interleaving is compared: the
result as a multiset of (row kind, values) and the column names. Scripts with row annotations
(`-- a=… s=… -U`) are skipped: arrival times and changelog rows need the pacer of
`scripts/conformance.sh`. Exit status 1 on any difference.
"""

import datetime
import decimal
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter


def statements(text):
    """The script's statements (split at `;` outside strings and comments)."""
    out, cur, i = [], [], 0
    while i < len(text):
        c = text[i]
        if c == "'":
            j = i + 1
            while j < len(text):
                if text[j] == "'" and text[j + 1 : j + 2] == "'":
                    j += 2
                    continue
                if text[j] == "'":
                    break
                j += 1
            cur.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
            cur.append(text[i:j])
            i = j
        elif c == ";":
            out.append("".join(cur).strip())
            cur, i = [], i + 1
        else:
            cur.append(c)
            i += 1
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return [s for s in out if re.sub(r"--[^\n]*", "", s).strip()]


def without_comments(s):
    return re.sub(r"--[^\n]*", "", s).strip()


def as_file_table(stmt, path):
    """CREATE TABLE t (...) [WITH (...)] -> the same columns on a CSV file."""
    depth, end = 0, None
    for i, c in enumerate(stmt):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                end = i
                break
    return stmt[: end + 1] + f" WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"


class RawNumber(str):
    """A JSON number's text as the engine wrote it (`1.50`: a DECIMAL keeps its scale)."""


def value(v, decimal_column=False):
    """A result value in a form both sides compare exactly: a DECIMAL as its plain text with
    every digit of its scale (`decimal.Decimal` from Flink, the JSON number's text from the
    engine), a DOUBLE as a float."""
    if isinstance(v, decimal.Decimal):
        return "DECIMAL " + format(v, "f")
    if isinstance(v, RawNumber):
        return "DECIMAL " + v if decimal_column else float(v)
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S.") + f"{v.microsecond // 1000:03d}"
    if isinstance(v, float) and v.is_integer():
        return v
    return v


def check(t_env_factory, joinlab, path):
    text = open(path, encoding="utf-8").read()
    if re.search(r"--\s*(\+I|-U|\+U|-D|a=|s=)", text):
        return "skipped", ["row annotations need the pacer (scripts/conformance.sh)"]
    r = subprocess.run([joinlab, "run", path, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        return "error", ["engine: " + r.stderr.strip()]
    engine = json.loads(r.stdout, parse_float=RawNumber)
    t = t_env_factory()
    tmp = tempfile.mkdtemp(prefix="joinlab-collect-")
    query = None
    for s in statements(text):
        body = without_comments(s)
        head = body.split(None, 2)
        word = head[0].upper()
        if word == "CREATE":
            name = re.match(r"CREATE\s+(?:TEMPORARY\s+)?TABLE\s+`?([^\s(`]+)", body, re.I).group(1)
            t.execute_sql(as_file_table(body, os.path.join(tmp, name)))
        elif word == "SET":
            t.execute_sql(body)
        elif word == "INSERT" and re.search(r"\bVALUES\b", body, re.I) and not re.search(r"\bSELECT\b", body, re.I):
            t.execute_sql(body).wait()
        else:
            query = re.sub(r"^INSERT\s+INTO\s+\S+\s+", "", body, flags=re.I)
    if query is None:
        return "error", ["no query"]
    # PyFlink cannot hand a TIMESTAMP_LTZ value (a java.time.Instant) to Python: such a column
    # is read as its CAST to STRING, which prints it in the session time zone (UTC), as the
    # engine prints it. The projection on top changes neither the rows nor their kinds.
    schema = t.sql_query(query).get_schema()
    names, types = schema.get_field_names(), schema.get_field_data_types()
    ltz = [type(ty).__name__ == "LocalZonedTimestampType" for ty in types]
    if any(ltz):
        q = lambda n: "`" + n.replace("`", "``") + "`"
        cols = [
            f"CAST({q(n)} AS STRING) AS {q(n)}"
            if z
            else q(n)
            for n, z in zip(names, ltz)
        ]
        query = f"SELECT {', '.join(cols)} FROM ({query})"
    res = t.execute_sql(query)
    cols = res.get_table_schema().get_field_names()
    got = []
    with res.collect() as it:
        for row in it:
            got.append((str(row.get_row_kind()), json.dumps([value(v) for v in row])))
    dec = [type(ty).__name__ == "DecimalType" for ty in types]
    want = [
        (o["kind"], json.dumps([value(v, d) for v, d in zip(o["values"], dec)]))
        for o in engine["outputs"]
    ]
    details = []
    if list(cols) != engine["columns"]:
        details.append(f"columns: engine {engine['columns']}, Flink {list(cols)}")
    cw, cg = Counter(want), Counter(got)
    for x in (cw - cg).elements():
        details.append(f"only engine: {x}")
    for x in (cg - cw).elements():
        details.append(f"only Flink:  {x}")
    return ("match" if not details else "mismatch"), details + [f"{len(got)} rows, columns {list(cols)}"]


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    from pyflink.table import EnvironmentSettings, TableEnvironment

    def factory():
        t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        t.get_config().set("parallelism.default", "1")
        t.get_config().set("table.local-time-zone", "UTC")
        return t

    bad = 0
    for p in sys.argv[2:]:
        status, details = check(factory, sys.argv[1], p)
        print(f"{status:9} {p}")
        for d in details:
            print("          " + d)
        bad += status not in ("match", "skipped")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
