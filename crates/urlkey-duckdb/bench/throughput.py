"""Throughput of the DuckDB extension against the command, on the same lines.

    python crates/urlkey-duckdb/bench/throughput.py CORPUS [EXTENSION] [--urlkey BIN]

CORPUS is a file of one URL per line (the 200,000-line test corpus:
crates/urlkey-py/tests/corpus.py, `corpus.write_corpus(path)`). The records (blank and
`#` lines dropped, as the command drops them) are loaded into a DuckDB table first; then,
interleaved, best of five: `SELECT count(urlkey_key(url, 'citation@1')) FROM u` with
DuckDB at one thread and at two, `urlkey_outcome` at one thread, and
`urlkey key --policy citation@1 --threads 1 --quiet CORPUS > /dev/null`, in JSONL (the
full outcome, as urlkey_outcome) and `--format key` (the lean key path, as urlkey_key).
Prints records/s; the command's times include starting the process. Needs the `duckdb` wheel (2.0.1) and a release build of the extension
(scripts/build-duckdb-extension.sh).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("extension", nargs="?", default=str(ROOT / "target/duckdb/urlkey.duckdb_extension"))
    ap.add_argument("--urlkey", default=str(ROOT / "target/release/urlkey"))
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()

    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{a.extension}'").fetchall()
    con.execute(
        """CREATE TABLE u AS
           WITH p AS (SELECT regexp_split_to_array(content, '\\r\\n|\\n|\\r') AS l
                      FROM read_text(?)),
                n AS (SELECT unnest(l) AS url FROM p)
           SELECT url FROM n
           WHERE NOT regexp_matches(url, '^[\\t\\n\\x{0B}\\f\\r\\p{Zs}\\x{FEFF}]*(#|$)')""",
        [a.corpus],
    ).fetchall()
    n = con.execute("SELECT count(*) FROM u").fetchall()[0][0]

    def sql(threads: int, expr: str) -> float:
        con.execute(f"SET threads = {threads}").fetchall()
        t = time.perf_counter()
        con.execute(f"SELECT count({expr}) FROM u").fetchall()
        return time.perf_counter() - t

    def cli(*fmt: str) -> float:
        cmd = [a.urlkey, "key", "--policy", "citation@1", "--threads", "1", "--quiet", *fmt]
        t = time.perf_counter()
        with open(os.devnull, "wb") as null:
            subprocess.run([*cmd, a.corpus], stdout=null, check=True)
        return time.perf_counter() - t

    runs = {
        "duckdb urlkey_key(url, 'citation@1'), threads=1": lambda: sql(1, "urlkey_key(url, 'citation@1')"),
        "duckdb urlkey_key(url, 'citation@1'), threads=2": lambda: sql(2, "urlkey_key(url, 'citation@1')"),
        "duckdb urlkey_outcome(url, 'citation@1'), threads=1": lambda: sql(
            1, "urlkey_outcome(url, 'citation@1')"
        ),
        "urlkey key --policy citation@1 --threads 1 (JSONL to /dev/null)": cli,
        "urlkey key --policy citation@1 --threads 1 --format key (to /dev/null)": lambda: cli(
            "--format", "key"
        ),
    }
    best = {k: float("inf") for k in runs}
    for _ in range(a.runs):
        for k, f in runs.items():
            best[k] = min(best[k], f())
    print(f"{n} records; load average {os.getloadavg()[0]:.2f}")
    for k, s in best.items():
        print(f"{k}: {s:.3f} s, {n / s:,.0f} records/s")


if __name__ == "__main__":
    main()
