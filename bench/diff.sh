#!/usr/bin/env bash
# What `urlkey diff` costs beside `map` (docs/benchmarks.md, "diff at 10M lines"): diff
# streams like map, so it should stay within 2x map's time and peak memory on the same file.
#
# usage: bench/diff.sh [--lines N] [--distinct M] [--seed S] [--runs R] [--bin DIR] [--data DIR]
#   defaults: 10,000,000 lines, 5,000,000 distinct mapper@1 keys, seed 1, 2 runs;
#   --bin DIR: take `urlkey` and `urlkey-bench` from DIR instead of building them;
#   --data DIR: where the generated input goes (default target/bench-data).
#
# Every command runs R times, interleaved (run 1 of each, then run 2 of each, ...), output
# to /dev/null; wall time and peak RSS come from /usr/bin/time. The ratios divide each diff
# run by the map run of the same round, so a round on a loaded machine slows both.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
lines=10000000 distinct=5000000 seed=1 runs=2 bin="" data="$root/target/bench-data"
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) lines="$2"; shift 2 ;;
    --distinct) distinct="$2"; shift 2 ;;
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
input="$data/gen-${lines}-${distinct}-s${seed}.txt"
if [ ! -s "$input" ]; then
  echo "generating $input" >&2
  "$bin/urlkey-bench" gen --lines "$lines" --distinct "$distinct" --seed "$seed" >"$input"
fi
echo "input: $input ($(wc -c <"$input") bytes, $lines lines)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

names=("map t1" "diff report t1" "diff csv t1")
cmds=(
  "$urlkey map --threads 1 --quiet $input"
  "$urlkey diff --from mapper@1 --to webkey@1 --threads 1 --quiet $input"
  "$urlkey diff --from mapper@1 --to webkey@1 --format csv --threads 1 --quiet $input"
)
declare -A wall rss
for r in $(seq 1 "$runs"); do
  for i in "${!cmds[@]}"; do
    /usr/bin/time -o "$data/time.out" -f "%e %M" ${cmds[$i]} >/dev/null 2>/dev/null
    read -r e k < <(tail -1 "$data/time.out")
    wall[$r,$i]=$e rss[$r,$i]=$k
    echo "round $r: ${names[$i]}: $e s wall, $k KiB max RSS (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done
echo
echo "| command | wall s per round | min | peak RSS KiB per round | diff/map time per round | diff/map RSS |"
echo "|---|---|---:|---|---|---|"
for i in "${!cmds[@]}"; do
  ws="" ks="" tr="" mr=""
  for r in $(seq 1 "$runs"); do
    ws="$ws ${wall[$r,$i]}" ks="$ks ${rss[$r,$i]}"
    tr="$tr $(echo "scale=2; ${wall[$r,$i]} / ${wall[$r,0]}" | bc -l)"
    mr="$mr $(echo "scale=2; ${rss[$r,$i]} / ${rss[$r,0]}" | bc -l)"
  done
  mn=$(echo "$ws" | tr ' ' '\n' | grep -v '^$' | sort -g | head -1)
  echo "| \`${cmds[$i]#"$bin/"}\` |$ws | $mn |$ks |$tr |$mr |"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
