#!/usr/bin/env bash
# The same urlkey commands under glibc malloc, mimalloc and jemalloc (LD_PRELOAD of
# Debian's libmimalloc2.0 / libjemalloc2), interleaved; user+sys CPU seconds and wall,
# median of R runs. Shows what a faster allocator alone would give, before any code change.
# usage: bench/malloc_compare.sh [--runs R] [--bin DIR] FILE
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=3 bin="$root/target/release"
while [ $# -gt 1 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
input="$1"
lib=/usr/lib/x86_64-linux-gnu
allocs=("glibc" "mimalloc" "jemalloc")
preload=("" "$lib/libmimalloc.so.2" "$lib/libjemalloc.so.2")
cmds=(
  "key --policy citation@1 --format key --threads 1 --quiet $input"
  "key --policy mapper@1 --threads 1 --quiet $input"
  "map --threads 1 --quiet $input"
)
declare -A cpu wall
for r in $(seq 1 "$runs"); do
  for c in "${!cmds[@]}"; do
    for a in "${!allocs[@]}"; do
      env ${preload[$a]:+LD_PRELOAD=${preload[$a]}} /usr/bin/time -o /tmp/mc.time -f "%e %U %S" \
        "$bin/urlkey" ${cmds[$c]} >/dev/null 2>/dev/null
      read -r e u s </tmp/mc.time
      cpu[$c,$a]="${cpu[$c,$a]:-} $(echo "$u + $s" | bc -l)"
      wall[$c,$a]="${wall[$c,$a]:-} $e"
    done
  done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "| command | glibc CPU s | mimalloc CPU s | jemalloc CPU s | glibc wall s | mimalloc wall s | jemalloc wall s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for c in "${!cmds[@]}"; do
  printf '| `urlkey %s` |' "${cmds[$c]//$root\//}"
  for a in 0 1 2; do printf ' %.2f |' "$(echo "${cpu[$c,$a]}" | med)"; done
  for a in 0 1 2; do printf ' %.2f |' "$(echo "${wall[$c,$a]}" | med)"; done
  echo
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
