#!/usr/bin/env bash
# Instruction counts (callgrind) of every step of a policy's rule ladder on N corpus URLs:
# deterministic on a loaded machine. usage: bench/cg_ladder.sh POLICY [N] [BIN]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
policy="$1" n="${2:-20000}" bin="${3:-$root/target/release/urlkey-bench}"
out="$root/target/bench-profile"; mkdir -p "$out"
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.tmp.out" --toggle-collect='*Subject*pass*' \
    "$bin" run --subject "$1" --limit "$n" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
ada=$(count ada)
steps=$("$bin" ladder --policy "$policy" --rounds 1 2>/dev/null | grep -c '^| step [0-9]')
echo "| step | instructions/URL | added | ratio to ada |"
echo "|---|---:|---:|---:|"
printf '| ada parse+href | %.0f | | 1.00x |\n' "$(echo "$ada/$n" | bc -l)"
prev=""
for k in $(seq 0 $((steps - 1))); do
  c=$(count "ladder:$policy:$k")
  rule=$("$bin" ladder --policy "$policy" --rounds 1 2>/dev/null | grep "^| step $k:" | cut -d'|' -f2 | sed 's/^ *//; s/ *$//')
  added=""; [ -n "$prev" ] && added=$(printf '%+.0f' "$(echo "($c - $prev)/$n" | bc -l)")
  printf '| %s | %.0f | %s | %.2fx |\n' "$rule" "$(echo "$c/$n" | bc -l)" "$added" "$(echo "$c/$ada" | bc -l)"
  prev=$c
done
c=$(count "$policy")
printf '| %s (builtin) | %.0f | | %.2fx |\n' "$policy" "$(echo "$c/$n" | bc -l)" "$(echo "$c/$ada" | bc -l)"
