#!/usr/bin/env bash
# What `urlkey redirects propose` costs beside `urlkey diff --policy webkey@1` on the same
# two inventories (docs/benchmarks.md, "redirects propose at 1M x 1M"): target within 4x
# diff's time, peak memory stated.
#
# usage: bench/propose.sh [--lines N] [--seed S] [--runs R] [--bin DIR] [--data DIR]
#   defaults: 1,000,000 lines, seed 1, 3 runs;
#   --bin DIR: take `urlkey` and `urlkey-bench` from DIR instead of building them;
#   --data DIR: where the generated inputs go (default target/bench-data).
#
# OLD is `urlkey-bench gen --lines N --distinct N` (web URLs from the corpus, every one a
# distinct mapper@1 key); NEW is written from OLD by bench/propose_new.py (10% unchanged,
# 40% migrated, 15% moved, 10% respelled, 10% renamed, 15% retired and replaced, shuffled).
# Every command runs R times, interleaved (run 1 of each, then run 2 of each, ...), with
# default threads; wall time, CPU time (user + system) and peak RSS come from
# /usr/bin/time; the ratios divide each run by the diff run of the same round (CPU time
# says more than wall time on a machine that other processes load).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
lines=1000000 seed=1 runs=3 bin="" data="$root/target/bench-data"
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) lines="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-cli -p urlkey-bench >&2)
  bin="$root/target/release"
fi
urlkey="$bin/urlkey"
mkdir -p "$data"
old="$data/propose-old-${lines}-s${seed}.txt"
new="$data/propose-new-${lines}-s${seed}.txt"
if [ ! -s "$old" ]; then
  echo "generating $old" >&2
  "$bin/urlkey-bench" gen --lines "$lines" --distinct "$lines" --seed "$seed" >"$old" 2>/dev/null
fi
if [ ! -s "$new" ]; then
  echo "generating $new" >&2
  python3 "$root/bench/propose_new.py" "$old" >"$new"
fi
out="$data/proposals.csv"
echo "OLD: $old ($(wc -l <"$old") lines), NEW: $new ($(wc -l <"$new") lines)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

names=("diff webkey@1" "propose webkey@1" "propose mapper@1 (+ loose webkey@1)")
cmds=(
  "$urlkey diff --policy webkey@1 --quiet $old $new"
  "$urlkey redirects propose --policy webkey@1 --quiet $old $new -o $out"
  "$urlkey redirects propose --policy mapper@1 --quiet $old $new -o $out"
)
declare -A wall rss cpu
for r in $(seq 1 "$runs"); do
  for i in "${!cmds[@]}"; do
    # diff exits 1 when the sides differ: that is its answer, not a failure.
    /usr/bin/time -o "$data/time.out" -f "%e %M %U %S" ${cmds[$i]} >/dev/null 2>/dev/null || true
    read -r e k u sy < <(tail -1 "$data/time.out")
    wall[$r,$i]=$e rss[$r,$i]=$k cpu[$r,$i]=$(echo "$u + $sy" | bc -l)
    echo "round $r: ${names[$i]}: $e s wall, ${cpu[$r,$i]} s CPU, $k KiB max RSS (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done
echo
echo "| command | wall s per round | CPU s per round | peak RSS KiB per round | wall / diff per round | CPU / diff per round |"
echo "|---|---|---|---|---|---|"
for i in "${!cmds[@]}"; do
  ws="" cs="" ks="" tr="" cr=""
  for r in $(seq 1 "$runs"); do
    ws="$ws ${wall[$r,$i]}" cs="$cs ${cpu[$r,$i]}" ks="$ks ${rss[$r,$i]}"
    tr="$tr $(echo "scale=2; ${wall[$r,$i]} / ${wall[$r,0]}" | bc -l)"
    cr="$cr $(echo "scale=2; ${cpu[$r,$i]} / ${cpu[$r,0]}" | bc -l)"
  done
  echo "| ${names[$i]} |$ws |$cs |$ks |$tr |$cr |"
done
# The status counts of the last run (the summary on standard error, without --quiet).
"$urlkey" redirects propose --policy mapper@1 "$old" "$new" -o "$out" 2>&1 >/dev/null | tail -1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
