#!/usr/bin/env bash
# How much of `urlkey map`'s time is the kernel zeroing memory the process touches for the
# first time, against `key --format key` (docs/benchmarks.md, "the cost of fresh memory
# measured").
# On a virtual machine that hands free memory back to its host, that first touch costs
# 1-15 ms a megabyte, and `map` touches ~0.5 GB of tables that `key` does not have.
#
# usage: bench/map-zeroing.sh [--bin DIR] [--rounds N] [--threads N] [--input FILE]
#   Each round records `key --policy mapper@1 --format key` and `map --quiet` with
#   `perf record -e cpu-clock` and counts the samples whose innermost frame is the
#   kernel's page zeroing (clear_page_erms, folio_zero_user, and __pi_memset, which
#   zeroes new page-cache pages). Prints, per round, each command's samples, its
#   zeroing samples, and map / key with and without them. Needs perf (Debian's
#   linux-perf) and a kernel that lets this user sample (perf_event_paranoid <= 1, or root).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/target/release" rounds=3 threads=1
input="$root/target/bench-data/gen-10000000-5000000-s1.txt"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --input) input="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ ! -s "$input" ]; then
  echo "no input $input: run bench/map.sh once to generate it, or give --input" >&2
  exit 3
fi
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 3; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
count() {
  # Samples, and those whose innermost frame zeroes a page.
  perf script -i "$1" -F ip,sym 2>/dev/null | awk '
    { n++ } $2 ~ /^(clear_page_erms|clear_page_rep|clear_page_orig|folio_zero_user|__pi_memset)$/ { z++ }
    END { printf "%d %d\n", n, z }'
}
for r in $(seq 1 "$rounds"); do
  perf record -q -e cpu-clock -F 999 -o "$work/key" \
    "$bin/urlkey" key --policy mapper@1 --format key --threads "$threads" --quiet "$input" >/dev/null
  perf record -q -e cpu-clock -F 999 -o "$work/map" \
    "$bin/urlkey" map --threads "$threads" --quiet "$input" >/dev/null
  read -r kn kz < <(count "$work/key")
  read -r mn mz < <(count "$work/map")
  python3 -c "
kn,kz,mn,mz=$kn,$kz,$mn,$mz
print(f'round $r: key {kn} samples ({kz} zeroing), map {mn} ({mz} zeroing, {100*mz/mn:.0f}%): '
      f'map / key {mn/kn:.2f}x, without zeroing {(mn-mz)/(kn-kz):.2f}x')"
done
