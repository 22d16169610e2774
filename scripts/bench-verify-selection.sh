#!/usr/bin/env bash
# Times `urlkey ledger verify`'s target selection (which keys are due, each key's distinct
# observed URLs, risky merges first) on a ledger of 100,000 observations, with nothing
# fetched (--dry-run). The baseline in the same run is `--max-variants 1` (one URL per key,
# what verify fetched before it checked every variant of a key); reported: each median, and the ratio to it.
#
# Input: the first 50,000 URLs of ../shared/datasets' kasztp.txt and userbait.txt, each
# observed twice: an even row with its trailing slash toggled (a risky merge), an odd row
# with `utm_source` added (a documented one). So 50,000 keys of 100,000 observations.
#
# Usage: URLKEY_BIN=target/release/urlkey bash scripts/bench-verify-selection.sh [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${URLKEY_BIN:-$here/target/release/urlkey}
runs=${1:-3}
data=${DATASETS:-$here/../shared/datasets}/ada-url-various-datasets/others
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$data" "$work/obs.csv" <<'PY'
import csv, sys
urls = []
for name in ("kasztp.txt", "userbait.txt"):
    with open(f"{sys.argv[1]}/{name}", encoding="utf-8-sig") as f:
        urls += [u.strip() for u in f if u.strip()]
with open(sys.argv[2], "w", newline="") as out:
    w = csv.writer(out)
    w.writerow(["observation_id", "observed_url", "claim"])
    for i, u in enumerate(urls[:50000]):
        w.writerow([f"o-{2 * i:06d}", u, f"claim {i}"])
        if i % 2 == 0:
            v = u[:-1] if u.endswith("/") else u + "/"
        else:
            v = u + ("&" if "?" in u else "?") + "utm_source=bench"
        w.writerow([f"o-{2 * i + 1:06d}", v, f"claim {i}"])
PY

db="$work/bench.sqlite"
"$bin" ledger --db "$db" ingest "$work/obs.csv" --answer-system bench --prompt-version v1 \
  --market local --run-timestamp 2026-12-01T00:00:00Z | tail -1
"$bin" ledger --db "$db" verify --dry-run > "$work/due.txt"
echo "$(tail -1 "$work/due.txt"); risky merges listed first: $(grep -c '\[risky merge\]' "$work/due.txt")"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# One run: "wall cpu" seconds (cpu = user + system of the process), output discarded. CPU
# time is the figure to compare when other builds share the cores; wall time is printed too.
measure() {
  local TIMEFORMAT='%R %U %S' t
  t=$( { time "$@" > /dev/null; } 2>&1 )
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<< "$t"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A wall cpu
cases=("max-variants-1" "default" "limit-100")
declare -A args=(
  [max-variants-1]="--max-variants 1"
  [default]=""
  [limit-100]="--limit 100"
)
for _ in $(seq "$runs"); do # interleaved, so load changes hit every case alike
  for c in "${cases[@]}"; do
    # shellcheck disable=SC2086 # the arguments are meant to split
    read -r w u <<< "$(measure "$bin" ledger --db "$db" verify --dry-run ${args[$c]})"
    wall[$c]+="$w "
    cpu[$c]+="$u "
  done
done
med() { tr ' ' '\n' <<< "$1" | grep . | median; }
base=$(med "${cpu[max-variants-1]}")
for c in "${cases[@]}"; do
  printf '%-15s cpu median %6.3f s (runs: %s)  wall median %6.3f s  cpu ratio to max-variants-1: %.2f\n' \
    "$c" "$(med "${cpu[$c]}")" "${cpu[$c]% }" "$(med "${wall[$c]}")" \
    "$(echo "$(med "${cpu[$c]}") / $base" | bc -l)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
