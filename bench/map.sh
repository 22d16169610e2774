#!/usr/bin/env bash
# `urlkey map` against `urlkey key` on a generated input (docs/benchmarks.md, the `map` target):
#   map end-to-end <= 3x key on the same file, peak RSS < 1.5 GB, 2 threads >= 1.7x 1 thread.
#
# usage: bench/map.sh [--lines N] [--distinct M] [--seed S] [--runs R] [--bin DIR]
#   defaults: 10,000,000 lines, 5,000,000 distinct mapper@1 keys, seed 1, 3 runs.
#   --bin DIR: take `urlkey` and `urlkey-bench` from DIR instead of building them.
#
# Every command runs R times, interleaved (run 1 of each, then run 2 of each, ...), with
# output to /dev/null; wall time and peak RSS come from /usr/bin/time; the median is shown.
# Last, the price of memory touched for the first time on this machine
# (bench/first_touch.c, cold) and what the memory `map` touches beyond `key` costs at it.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
lines=10000000 distinct=5000000 seed=1 runs=3 bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) lines="$2"; shift 2 ;;
    --distinct) distinct="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ ! -x /usr/bin/time ]; then
  echo "installing GNU time (apt-get install time)" >&2
  apt-get install -y time >/dev/null
fi
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-cli -p urlkey-bench >&2)
  bin="$root/target/release"
fi
urlkey="$bin/urlkey"
gen="$bin/urlkey-bench"

data="$root/target/bench-data"
mkdir -p "$data"
input="$data/gen-${lines}-${distinct}-s${seed}.txt"
if [ ! -s "$input" ]; then
  echo "generating $input" >&2
  "$gen" gen --lines "$lines" --distinct "$distinct" --seed "$seed" >"$input" 2>"$input.log"
  cat "$input.log" >&2
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "input: $input ($(wc -c <"$input") bytes, $lines lines, $distinct distinct mapper@1 keys)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

names=(
  "map t1"
  "map t2"
  "key mapper@1 jsonl t1"
  "key mapper@1 jsonl t2"
  "key mapper@1 key t1"
  "key mapper@1 key t2"
)
cmds=(
  "$urlkey map --threads 1 --quiet --summary $data/map-summary-t1.json $input"
  "$urlkey map --threads 2 --quiet --summary $data/map-summary-t2.json $input"
  "$urlkey key --policy mapper@1 --threads 1 --quiet $input"
  "$urlkey key --policy mapper@1 --threads 2 --quiet $input"
  "$urlkey key --policy mapper@1 --format key --threads 1 --quiet $input"
  "$urlkey key --policy mapper@1 --format key --threads 2 --quiet $input"
)
declare -A wall rss cpu
for r in $(seq 1 "$runs"); do
  for i in "${!cmds[@]}"; do
    /usr/bin/time -o "$data/time.out" -f "%e %M %U %S" ${cmds[$i]} >/dev/null 2>/dev/null
    read -r e k u s < <(tail -1 "$data/time.out")
    wall[$i]="${wall[$i]:-} $e"
    rss[$i]="${rss[$i]:-} $k"
    cpu[$i]="${cpu[$i]:-} $(echo "$u + $s" | bc -l)"
    echo "run $r: ${names[$i]}: $e s wall, $u s user + $s s sys, $k KiB (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
min() { tr ' ' '\n' | grep -v '^$' | sort -g | head -1; }
declare -A m mn rmed cmed
echo
echo "| command | wall s median | wall s min | all runs | CPU s (user+sys) median | peak RSS MiB (median) |"
echo "|---|---:|---:|---|---:|---:|"
for i in "${!cmds[@]}"; do
  m[$i]=$(echo "${wall[$i]}" | med)
  mn[$i]=$(echo "${wall[$i]}" | min)
  r=$(echo "${rss[$i]}" | med)
  c=$(echo "${cpu[$i]}" | med)
  rmed[$i]=$r cmed[$i]=$c
  printf '| `%s` | %.2f | %.2f | %s | %.2f | %.0f |\n' "${cmds[$i]//$root\//}" "${m[$i]}" "${mn[$i]}" "$(echo ${wall[$i]})" "$c" "$(echo "$r/1024" | bc -l)"
done
ratio() { echo "scale=3; $1 / $2" | bc -l; }
echo
echo "ratios (median; min in parentheses):"
echo "map t1 / key jsonl t1 = $(ratio "${m[0]}" "${m[2]}")x ($(ratio "${mn[0]}" "${mn[2]}")x) (target <= 3)"
echo "map t1 / key key-format t1 = $(ratio "${m[0]}" "${m[4]}")x ($(ratio "${mn[0]}" "${mn[4]}")x)"
echo "map t2 / key key-format t2 = $(ratio "${m[1]}" "${m[5]}")x ($(ratio "${mn[1]}" "${mn[5]}")x) (the map target: <= 3)"
echo "map speedup 2 threads = $(ratio "${m[0]}" "${m[1]}")x ($(ratio "${mn[0]}" "${mn[1]}")x) (target >= 1.7)"
echo "key jsonl speedup 2 threads = $(ratio "${m[2]}" "${m[3]}")x ($(ratio "${mn[2]}" "${mn[3]}")x)"
echo "key key-format speedup 2 threads = $(ratio "${m[4]}" "${m[5]}")x ($(ratio "${mn[4]}" "${mn[5]}")x)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -s "$data/map-summary-t1.json" ]; then
  echo "map summary (1 thread): $(tr -d ' \n' <"$data/map-summary-t1.json")"
fi

# What the memory `map` touches beyond `key`'s costs on this machine: its tables are memory
# the process touches for the first time, whose price this kind of virtual machine sets
# (docs/benchmarks.md, "why runs that start cold cost more" and "no signature table").
# Measured cold, after a
# pause, with bench/first_touch.c and huge pages, as mimalloc asks for its arena.
extra=$(echo "(${rmed[1]} - ${rmed[5]}) / 1024" | bc)
if [ "$extra" -gt 0 ]; then
  if ! command -v gcc >/dev/null; then
    echo "installing gcc for bench/first_touch.c (apt-get install gcc)" >&2
    apt-get install -y gcc >/dev/null
  fi
  gcc -O2 "$root/bench/first_touch.c" -o "$data/first_touch"
  sleep 6
  line=$("$data/first_touch" "$extra" 1)
  perm=$(echo "$line" | awk '{print $(NF-1)}')
  echo "first touch: $line"
  echo "map t2 peak RSS exceeds key t2's by $extra MiB: at $perm ms a MiB, about $(echo "scale=2; $extra * $perm / 1000" | bc -l) s of CPU to fault it in; key t2's whole run used ${cmed[5]} s of CPU"
fi
