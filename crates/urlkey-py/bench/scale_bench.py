"""The measurements of docs/scale.md.

    target/py-venv/bin/python crates/urlkey-py/bench/scale_bench.py [--skip-memory]

Needs the release CLI (target/release/urlkey, or $URLKEY_BIN), the installed package and
PySpark (scripts/test-python.sh sets all of that up). Prints Markdown tables:

1. `urlkey key` and `urlkey map` on the 200,000-line test corpus with 1 and 2 threads,
   `urlkey.keys()` in-process on one core, and PySpark local[2] running `with_keys` and
   `group_report` on the same lines (session start-up excluded, the best of three runs);
2. `urlkey map`'s peak resident memory on two inputs of distinct keys, and the memory per
   distinct key from their difference.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import corpus  # noqa: E402

REPO = corpus.REPO
CLI = Path(os.environ.get("URLKEY_BIN", REPO / "target" / "release" / "urlkey"))
RUNS = 3


def best_of(fn, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cli(*args: str) -> None:
    subprocess.run([str(CLI), *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


_RSS_HELPER = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
sys.exit(f"exit status {status}") if status else print(usage.ru_maxrss)
"""


def peak_rss_kib(*args: str) -> int:
    """Peak resident set size of one CLI run (wait4's ru_maxrss), measured from a small
    helper process: a child forked from this (large) process would start with its RSS."""
    out = subprocess.run(
        [sys.executable, "-S", "-c", _RSS_HELPER, str(CLI), *args],
        check=True,
        stdout=subprocess.PIPE,
    )
    return int(out.stdout)


def throughput(work: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    import urlkey

    src = work / "corpus-200k.txt"
    lines = corpus.write_corpus(src)
    recs = corpus.records(lines)
    n = len(lines)
    rows = []

    def row(what: str, secs: float, cores: int) -> None:
        rows.append((what, secs, n / secs, n / secs / cores))

    for threads in (1, 2):
        secs = best_of(lambda: cli("key", "--policy", "citation@1", "--threads", str(threads), "--quiet", "-o", os.devnull, str(src)))
        row(f"`urlkey key --policy citation@1 --threads {threads}` (JSONL)", secs, threads)
    secs = best_of(lambda: cli("key", "--policy", "citation@1", "--threads", "2", "--quiet", "--format", "parquet", "-o", str(work / "k.parquet"), str(src)))
    row("`urlkey key --policy citation@1 --threads 2 --format parquet`", secs, 2)
    for threads in (1, 2):
        secs = best_of(lambda: cli("map", "--threads", str(threads), "--quiet", "-o", os.devnull, str(src)))
        row(f"`urlkey map --threads {threads}` (mapper@1, CSV)", secs, threads)

    texts = pa.array([t for _, t in recs], type=pa.string())
    secs = best_of(lambda: urlkey.keys(texts, policy="citation@1"))
    row("`urlkey.keys(array, policy=\"citation@1\")` in Python, one core", secs, 1)

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import urlkey.spark as uks

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    d = work / "spark-input"
    d.mkdir()
    size = (len(recs) + 3) // 4
    for p in range(4):
        part = recs[p * size : (p + 1) * size]
        pq.write_table(
            pa.table({"line": pa.array([a for a, _ in part], type=pa.int64()), "url": pa.array([b for _, b in part])}),
            d / f"part-{p}.parquet",
        )
    df = spark.read.parquet(str(d))

    def spark_keys():
        uks.with_keys(df, "url", policy="citation@1").write.format("noop").mode("overwrite").save()

    def spark_plain():
        df.write.format("noop").mode("overwrite").save()

    def spark_report():
        uks.group_report(df, "url", policy="mapper@1", line="line").write.format("noop").mode("overwrite").save()

    spark_plain()  # warm the JVM
    row("Spark local[2]: read the Parquet input only (baseline)", best_of(spark_plain), 2)
    row("Spark local[2]: `with_keys(df, \"url\", \"citation@1\")`", best_of(spark_keys), 2)
    row("Spark local[2]: `group_report(df, \"url\", \"mapper@1\", line=\"line\")`", best_of(spark_report), 2)
    spark.stop()

    print(f"\n{n:,} lines ({len(recs):,} records), best of {RUNS} runs, {os.cpu_count()} cores\n")
    print("| run | seconds | lines/s | lines/s per core |")
    print("|---|---:|---:|---:|")
    for what, secs, lps, per_core in rows:
        print(f"| {what} | {secs:.3f} | {lps:,.0f} | {per_core:,.0f} |")


def memory(work: Path) -> None:
    """Peak RSS of `urlkey map` at 1M and 4M lines (the same hash-table load factor at both
    sizes, so the difference is the cost of the extra keys), in two shapes: every key its
    own signature group (the worst case), and many keys per signature (5,000 groups)."""
    shapes = {
        "one signature per key": lambda i: f"https://host{i % 5000}.example/p/{i}/item{i * 7 % 1000}?id={i}",
        "5,000 signatures": lambda i: f"https://host{i % 5000}.example/item?id={i}",
    }
    sizes = (1_000_000, 4_000_000)
    print("\n`urlkey map --threads 2` peak resident memory, every line a distinct key\n")
    print("| shape | lines = distinct keys | input MiB | peak RSS MiB | bytes per extra key |")
    print("|---|---:|---:|---:|---:|")
    for shape, make in shapes.items():
        results = []
        for n in sizes:
            src = work / f"distinct-{n}.txt"
            with open(src, "w", encoding="utf-8") as f:
                for i in range(n):
                    f.write(make(i) + "\n")
            rss = peak_rss_kib("map", "--threads", "2", "--quiet", "-o", os.devnull, str(src))
            mib = src.stat().st_size / 2**20
            src.unlink()
            per_key = ""
            if results:
                n0, r0 = results[-1]
                per_key = f"{(rss - r0) * 1024 / (n - n0):.0f}"
            results.append((n, rss))
            print(f"| {shape} | {n:,} | {mib:.1f} | {rss / 1024:.1f} | {per_key} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--skip-throughput", action="store_true")
    a = ap.parse_args()
    if not CLI.is_file():
        sys.exit(f"no CLI at {CLI}: cargo build --release -p urlkey-cli")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if not a.skip_memory:
            memory(work)
        if not a.skip_throughput:
            throughput(work)


if __name__ == "__main__":
    main()
