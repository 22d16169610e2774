#!/usr/bin/env bash
# The verified fast parse (docs/benchmarks.md, the floor target: citation@1 and mapper@1
# no dearer than ada parse+href) before/after in one run, as callgrind
# instruction counts (repeatable on a loaded machine): ada parse+href, and citation@1 and
# mapper@1 with the fast parse (`key_into:<id>`, `<id>`) and without it (`...~ada`), on N
# corpus lines (an even spread; --set web: the http(s) lines only). malloc calls are
# Rust and C++ together.
# usage: bench/cg_fast.sh [N] [--set all|web] [--bin DIR]   (output in target/bench-profile)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n=20000 set=all bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --set) set="$2"; shift 2 ;;
    *) n="$1"; shift ;;
  esac
done
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-bench >&2)
  bin="${CARGO_TARGET_DIR:-$root/target}/release"
fi
out="${CARGO_TARGET_DIR:-$root/target}/bench-profile"; mkdir -p "$out"
subjects=(ada key_into:citation@1 key_into:citation@1~ada key_into:mapper@1 key_into:mapper@1~ada
  citation@1 citation@1~ada mapper@1 mapper@1~ada)
echo "| subject ($n lines, --set $set) | instructions/URL | ratio to ada | malloc calls/URL |"
echo "|---|---:|---:|---:|"
ada=""
for s in "${subjects[@]}"; do
  f="$out/cg.fast.$set.$s.out"
  valgrind --tool=callgrind --callgrind-out-file="$f" --toggle-collect='*Subject*pass*' \
    "$bin/urlkey-bench" run --subject "$s" --limit "$n" --set "$set" >/dev/null 2>&1
  total=$(callgrind_annotate "$f" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
  [ -z "$ada" ] && ada=$total
  m=$(python3 "$root/bench/cg_calls.py" "$f" malloc | cut -f2)
  printf '| %s | %.0f | %.3fx | %.2f |\n' "$s" "$(echo "$total/$n" | bc -l)" "$(echo "$total/$ada" | bc -l)" "$(echo "$m/$n" | bc -l)"
done
