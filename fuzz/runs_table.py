#!/usr/bin/env python3
"""Prints the run table of fuzz/RUNS.md from fuzz/logs/summary.tsv (written by run.sh and
scripts/fuzz.sh). A line has start, target, seconds, executions and exit, then (from
scripts/fuzz.sh) exec/s, cov, ft, corpus files and corpus bytes: '-' where a line lacks them."""
import collections, pathlib, sys

rows = [l.split("\t") for l in pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
        pathlib.Path(__file__).parent / "logs/summary.tsv").read_text().splitlines() if l]
print("| started (UTC) | target | seconds | executions | exec/s | cov | ft | corpus files | corpus KiB | exit |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
tot = collections.defaultdict(lambda: [0, 0])
for row in rows:
    start, target, secs, runs, rc = row[:5]
    rate, cov, ft, files, size = (row[5:10] + ["-"] * 5)[:5]
    kib = str(int(size) // 1024) if size.isdigit() else size
    print(f"| {start} | {target} | {secs} | {runs} | {rate} | {cov} | {ft} | {files} | {kib} | {rc} |")
    if secs.isdigit():
        tot[target][0] += int(secs)
    if runs.isdigit():
        tot[target][1] += int(runs)
print()
print("| target | total minutes | total executions |")
print("|---|---:|---:|")
for t, (s, r) in tot.items():
    print(f"| {t} | {s / 60:.1f} | {r:,} |")
