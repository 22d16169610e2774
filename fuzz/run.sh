#!/usr/bin/env bash
# Runs one fuzz target for SECONDS under nice, appending libFuzzer's output to
# fuzz/logs/TARGET.log and one summary line to fuzz/logs/summary.tsv.
# Usage: bash fuzz/run.sh TARGET SECONDS [extra cargo-fuzz args]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$1"; secs="$2"; shift 2
mkdir -p "$here/logs" "$here/corpus/$target"
log="$here/logs/$target.log"
start=$(date -u +%FT%TZ)
cd "$here"
echo "=== $start $target ${secs}s" >> "$log"
nice -n 19 cargo +nightly fuzz run -s none -a "$@" "$target" "corpus/$target" -- \
  -max_total_time="$secs" -timeout=10 -print_final_stats=1 >> "$log" 2>&1
rc=$?
runs=$(grep -a 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')
took=$(grep -a '^Done [0-9]* runs in' "$log" | tail -1 | sed 's/.* in \([0-9]*\) second.*/\1/')
printf '%s\t%s\t%s\t%s\t%s\n' "$start" "$target" "${took:-?}" "${runs:-?}" "$rc" >> "$here/logs/summary.tsv"
echo "$target rc=$rc secs=${took:-?} runs=${runs:-?}"
