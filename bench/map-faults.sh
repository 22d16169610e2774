#!/usr/bin/env bash
# Where `urlkey map` first touches memory (docs/benchmarks.md, "pass one touches 9% less
# fresh memory"):
# every page fault with its address and call stack (perf, DWARF unwinding), grouped by the
# first `urlkey_batch` function on the stack (pipeline plumbing skipped), with the number of
# distinct 2 MB ranges each group faulted in. On this kind of machine the allocator's arena
# is on transparent huge pages, so a range is a 2 MB huge page zeroed on first touch.
#
# usage: bench/map-faults.sh [--bin DIR] [--threads N] [FILE]
#   defaults: target/release, 2 threads, bench/map.sh's 10M / 5M file.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/target/release" threads=2
input="$root/target/bench-data/gen-10000000-5000000-s1.txt"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    -*) echo "unknown argument $1" >&2; exit 2 ;;
    *) input="$1"; shift ;;
  esac
done
if ! command -v perf >/dev/null; then
  echo "perf is missing: apt-get install linux-perf" >&2
  exit 3
fi
if [ ! -s "$input" ]; then
  echo "no input $input: run bench/map.sh once to generate it, or name a file" >&2
  exit 3
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
perf record -q -o "$out/perf.data" -e page-faults -c 1 -d --call-graph dwarf,16384 \
  "$bin/urlkey" map --threads "$threads" --quiet "$input" >/dev/null
perf script -i "$out/perf.data" -F addr,ip,sym 2>/dev/null | python3 -c '
import sys, collections
faults, ranges = collections.Counter(), collections.defaultdict(set)
for sample in sys.stdin.read().split("\n\n"):
    lines = [l.strip() for l in sample.strip().splitlines() if l.strip()]
    if not lines:
        continue
    addr = int(lines[0].split()[0], 16)
    where = "(outside urlkey_batch)"
    for l in lines[1:]:
        if "urlkey_batch::" in l and "pipeline::" not in l:
            where = l.split(" ", 1)[1].split("::{{closure}}")[0][:90]
            break
    faults[where] += 1
    ranges[where].add(addr >> 21)
print("%7s %10s  first urlkey_batch frame" % ("faults", "2MB ranges"))
for where, n in faults.most_common(15):
    print(f"{n:>7} {len(ranges[where]):>10}  {where}")
print(f"{sum(faults.values()):>7} {len(set().union(*ranges.values())):>10}  in all")
'
