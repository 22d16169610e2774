#!/usr/bin/env python3
"""Prints the run table of fuzz/RUNS.md from fuzz/logs/summary.tsv (written by run.sh)."""
import collections, pathlib, sys

rows = [l.split("\t") for l in pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
        pathlib.Path(__file__).parent / "logs/summary.tsv").read_text().splitlines() if l]
print("| started (UTC) | target | seconds | executions | exit |")
print("|---|---|---:|---:|---|")
tot = collections.defaultdict(lambda: [0, 0])
for start, target, secs, runs, rc in rows:
    print(f"| {start} | {target} | {secs} | {runs} | {rc} |")
    if secs.isdigit():
        tot[target][0] += int(secs)
    if runs.isdigit():
        tot[target][1] += int(runs)
print()
print("| target | total minutes | total executions |")
print("|---|---:|---:|")
for t, (s, r) in tot.items():
    print(f"| {t} | {s / 60:.1f} | {r:,} |")
