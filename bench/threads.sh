#!/usr/bin/env bash
# The thread-count target (docs/benchmarks.md): is the default thread count ever slower
# than --threads 1? On a shared machine the second core is often busy, so both cases count.
# Times `urlkey key --policy P --format F` with the default threads and with --threads 1,
# interleaved run by run, on the corpus file (109,062 lines) and on it repeated 11 times
# (1,199,682 lines), on an idle machine and with the second core held by a busy loop.
#
# usage: bench/threads.sh [--runs N] [--bin DIR] [--old DIR] [--policy P] [--format F]
#                         [--busy only|no|both]
#   --runs N    runs per command and case (default 7); medians are reported
#   --bin DIR   take `urlkey` from DIR (default: cargo build --release, target/release)
#   --old DIR   also time the `urlkey` in DIR the same way (an earlier build), same run
#   --policy P  default citation@1;  --format F  default key (jsonl: urlkey's default)
#   --busy      with a busy loop on one core: both (default), only, no
# Environment: URLKEY_DATASETS (default ../shared/datasets/ada-url-various-datasets).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
runs=7 bin="" old="" policy=citation@1 format=key busy=both
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --old) old="$2"; shift 2 ;;
    --policy) policy="$2"; shift 2 ;;
    --format) format="$2"; shift 2 ;;
    --busy) busy="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
datasets="${URLKEY_DATASETS:-$root/../shared/datasets/ada-url-various-datasets}"
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-cli >&2)
  bin="$root/target/release"
fi

tmp="$(mktemp -d)"
spinner=""
cleanup() {
  [ -n "$spinner" ] && kill "$spinner" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
small="$tmp/corpus_all.txt" large="$tmp/corpus_x11.txt"
corpus_file "$small"
for _ in $(seq 11); do cat "$small"; done >"$large"
echo "inputs: $(wc -l <"$small") and $(wc -l <"$large") lines; policy $policy, --format $format"
echo "cores: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"

builds=("$bin")
[ -n "$old" ] && builds+=("$old")

# One case: every build, default and --threads 1, interleaved; prints medians and ratios.
measure() {
  local label="$1" file="$2"
  declare -A all=()
  local cmds=() names=()
  for b in "${builds[@]}"; do
    cmds+=("$b/urlkey key --policy $policy --format $format --quiet $file")
    names+=("$b default")
    cmds+=("$b/urlkey key --policy $policy --format $format --quiet --threads 1 $file")
    names+=("$b --threads 1")
  done
  for i in "${!cmds[@]}"; do ${cmds[$i]} >/dev/null; done
  for _ in $(seq "$runs"); do
    for i in "${!cmds[@]}"; do
      local t0 t1
      t0=$(date +%s%N)
      ${cmds[$i]} >/dev/null
      t1=$(date +%s%N)
      all[$i]="${all[$i]:-} $(( (t1 - t0) / 1000 ))"
    done
  done
  local med=()
  for i in "${!cmds[@]}"; do
    med[$i]=$(median_seconds "${all[$i]}")
  done
  for ((i = 0; i < ${#cmds[@]}; i += 2)); do
    awk -v l="$label" -v n="${names[$i]% default}" -v d="${med[$i]}" -v o="${med[$((i+1))]}" \
      'BEGIN {printf "| %s | %s | %.4f | %.4f | **%.3f** |\n", l, n, d, o, d/o}'
  done
}

echo
echo "| case | build | default s | --threads 1 s | default / one thread |"
echo "|---|---|---:|---:|---:|"
for mode in no only; do
  [ "$busy" = both ] || [ "$busy" = "$mode" ] || continue
  if [ "$mode" = only ]; then
    # The second core held by another process, as on a shared machine.
    bash -c 'while :; do :; done' &
    spinner=$!
    tag="busy core"
  else
    tag="idle"
  fi
  measure "109,062 lines, $tag" "$small"
  measure "1,199,682 lines, $tag" "$large"
  if [ -n "$spinner" ]; then kill "$spinner"; wait "$spinner" 2>/dev/null || true; spinner=""; fi
done
echo
echo "target: default / --threads 1 <= 1.05 in every case"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
