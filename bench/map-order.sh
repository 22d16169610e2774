#!/usr/bin/env bash
# Two builds' `urlkey map` against `key --format key` in blocks whose order is balanced
# (docs/benchmarks.md, Method, "Cold runs", and "Why runs that start cold cost more"): on a
# virtual machine that hands free memory back to its host, a `map` run right after another
# one finds memory already backed and is faster, so a fixed order favours the second build.
#
# usage: bench/map-order.sh --new DIR --old DIR [--blocks N] [--threads "1 2"] [--input FILE]
#                           [--pause SECONDS]
#   Each block runs `key --policy mapper@1 --format key` (from --new), then both builds'
#   `map --quiet`; the next block has the builds the other way round. N blocks of each
#   order per thread count (default 4). The input defaults to bench/map.sh's 10M / 5M file.
#   --pause sleeps that long before every run, so that each starts cold: this kind of VM
#   hands free memory back to its host about 2 s after it is freed (free page reporting:
#   /sys/module/page_reporting/parameters/page_reporting_order reads 5, blocks of 128 KB
#   and more; the kernel's command line asks for 11, past this kernel's largest order, 10),
#   and a run that starts later faults every huge page in from the host
#   (docs/benchmarks.md, "why runs that start cold cost more", "no signature table"). 0 (the default): back
#   to back.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
new="" old="" blocks=4 threads="1 2" pause=0
input="$root/target/bench-data/gen-10000000-5000000-s1.txt"
while [ $# -gt 0 ]; do
  case "$1" in
    --new) new="$2"; shift 2 ;;
    --old) old="$2"; shift 2 ;;
    --blocks) blocks="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --input) input="$2"; shift 2 ;;
    --pause) pause="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$new" ] || [ -z "$old" ]; then
  echo "usage: bench/map-order.sh --new DIR --old DIR [--blocks N] [--threads \"1 2\"] [--input FILE]" >&2
  exit 2
fi
if [ ! -s "$input" ]; then
  echo "no input $input: run bench/map.sh once to generate it, or give --input" >&2
  exit 3
fi
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for t in $threads; do
  for b in $(seq 1 "$blocks"); do
    for order in "new old" "old new"; do
      sleep "$pause"
      /usr/bin/time -f "$t $b key %e" -a -o "$out" \
        "$new/urlkey" key --policy mapper@1 --format key --threads "$t" --quiet "$input" >/dev/null
      for which in $order; do
        dir="$new"; [ "$which" = old ] && dir="$old"
        sleep "$pause"
        /usr/bin/time -f "$t $b $which %e %U %S" -a -o "$out" \
          "$dir/urlkey" map --threads "$t" --quiet "$input" >/dev/null
      done
      tail -3 "$out" | sed "s/^/threads /" >&2
    done
  done
done
python3 - "$out" <<'PY'
import statistics as st, sys
blocks, cur = [], None
for line in open(sys.argv[1]):
    p = line.split()
    if p[2] == "key":
        cur = {"t": p[0], "key": float(p[3])}
        blocks.append(cur)
    else:
        cur[p[2]] = float(p[3])
for t in sorted({b["t"] for b in blocks}):
    bs = [b for b in blocks if b["t"] == t]
    for which in ("new", "old"):
        r = [b[which] / b["key"] for b in bs]
        print(f"threads {t}: {which} map / key = {st.median(r):.2f}x median ({min(r):.2f}-{max(r):.2f}) over {len(bs)} blocks")
    r = [b["new"] / b["old"] for b in bs]
    print(f"threads {t}: new / old = {st.median(r):.3f} median ({min(r):.3f}-{max(r):.3f}); new faster in {sum(x < 1 for x in r)} of {len(r)}")
PY
