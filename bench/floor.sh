#!/usr/bin/env bash
# The floor target (docs/benchmarks.md: citation@1 and mapper@1 <= 1.0x ada parse+href)
# as a whole process: `urlkey key --policy P --format key --threads 1`
# against `urlkey-bench ada-href` (read the file, parse each line with ada, write its href:
# a program that only parses), on the same file, interleaved run by run. The file is the
# corpus's web lines (kasztp + userbait, 59,440) repeated 20 times: 1,188,800 real web URLs;
# `--set all` takes the whole corpus 11 times over (1,199,682 lines) instead.
# usage: bench/floor.sh [--runs N] [--bin DIR] [--set web|all] [POLICY...]
#   (default policies: citation@1 mapper@1 webkey@1)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
runs=9 bin="" set=web policies=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --set) set="$2"; shift 2 ;;
    *) policies+=("$1"); shift ;;
  esac
done
[ ${#policies[@]} -gt 0 ] || policies=(citation@1 mapper@1 webkey@1)
datasets="${URLKEY_DATASETS:-$root/../shared/datasets/ada-url-various-datasets}"
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-cli -p urlkey-bench >&2)
  bin="$root/target/release"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
times=20
[ "$set" = all ] && times=11
# kasztp.txt starts with a BOM: dropped, so that every repetition reads the same.
corpus_file "$tmp/one.txt" "$set" nobom
for _ in $(seq "$times"); do cat "$tmp/one.txt"; done >"$tmp/in.txt"
echo "input: $(wc -l <"$tmp/in.txt") lines (--set $set), $(wc -c <"$tmp/in.txt") bytes"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
names=("ada-href (parse + href, whole process)")
cmds=("$bin/urlkey-bench ada-href $tmp/in.txt")
for p in "${policies[@]}"; do
  names+=("urlkey key --policy $p --format key --threads 1")
  cmds+=("$bin/urlkey key --policy $p --format key --threads 1 --quiet $tmp/in.txt")
done
declare -A all=()
for i in "${!cmds[@]}"; do ${cmds[$i]} >/dev/null; done
for _ in $(seq "$runs"); do
  for i in "${!cmds[@]}"; do
    t0=$(date +%s%N)
    ${cmds[$i]} >/dev/null
    t1=$(date +%s%N)
    all[$i]="${all[$i]:-} $(( (t1 - t0) / 1000 ))"
  done
done
med=()
for i in "${!cmds[@]}"; do
  med[$i]=$(median_seconds "${all[$i]}")
done
echo
echo "| command ($runs runs, interleaved) | median s | ratio to ada-href |"
echo "|---|---:|---:|"
for i in "${!cmds[@]}"; do
  awk -v n="${names[$i]}" -v t="${med[$i]}" -v a="${med[0]}" \
    'BEGIN {printf "| %s | %.4f | **%.3fx** |\n", n, t, t/a}'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
