#!/usr/bin/env bash
# The Polars plugin's throughput target (docs/benchmarks.md, "the Polars target"): `key`
# over 1M URLs in Polars within 1.3x of `urlkey key --threads 1` per core, on the same
# lines, and how it compares with what Polars users write without urlkey (Polars' own string
# expressions, and urllib.parse per row). Also the plugin at Polars' default thread count,
# `outcome`, read + key + write end to end, and memory.
#
# Each way runs in a process of its own (bench/polars_bench.py), runs interleaved round by
# round; medians are reported with their ratio to the CLI's median of the same rounds.
#
# usage: bench/polars.sh [--runs N] [--bin DIR] [--python PY] [--lines N]
#   --runs N     rounds (default 5)
#   --bin DIR    take `urlkey` from DIR (default: cargo build --release, target/release)
#   --python PY  a Python with polars and urlkey_polars installed (default: build the
#                plugin in the release profile into target/bench-venv)
#   --lines N    lines of input (default 1,000,000: the corpus's non-blank, non-comment
#                lines repeated)
# Environment: URLKEY_DATASETS (default ../shared/datasets/ada-url-various-datasets).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
runs=5 bin="" python="" lines=1000000
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --lines) lines="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
datasets="${URLKEY_DATASETS:-$root/../shared/datasets/ada-url-various-datasets}"
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-cli >&2)
  bin="$root/target/release"
fi
if [ -z "$python" ]; then
  venv="$root/target/bench-venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" "polars==2.1.0" >&2
  URLKEY_PY_VENV="$venv" URLKEY_POLARS_PROFILE=release bash "$root/scripts/build-polars-plugin.sh" >&2
  python="$venv/bin/python"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
corpus_file "$tmp/corpus.txt" all nobom
# The lines both sides key: the CLI skips blank and `#` lines, a frame would keep them.
grep -v -e '^$' -e '^#' "$tmp/corpus.txt" | tr -d '\r' | grep -v $'\x1f' >"$tmp/one.txt" || true
: >"$tmp/input.txt"
while [ "$(wc -l <"$tmp/input.txt")" -lt "$lines" ]; do cat "$tmp/one.txt" >>"$tmp/input.txt"; done
head -n "$lines" "$tmp/input.txt" >"$tmp/in.txt"
echo "input: $(wc -l <"$tmp/in.txt") lines, $(du -h "$tmp/in.txt" | cut -f1); cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "polars: $("$python" -c 'import polars, urlkey_polars; print(polars.__version__, "plugin", urlkey_polars.__version__)')"

# The CLI: one process per run; its time and peak RSS from the kernel's accounting.
cli_run() {
  "$python" - "$bin/urlkey" "$tmp/in.txt" "$@" <<'EOF'
import json, os, sys, time
urlkey, file, *extra = sys.argv[1:]
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(urlkey, [urlkey, "key", "--policy", "citation@1", "--format", "key", "--quiet", *extra, file])
_, status, usage = os.wait4(pid, 0)
assert status == 0, status
print(json.dumps({"seconds": [time.perf_counter() - t], "peak_rss_mib": usage.ru_maxrss / 1024}))
EOF
}

ways=(plugin-key plugin-e2e plugin-outcome str-methods python-urllib)
declare -A times=() rss=()
for round in $(seq "$runs"); do
  r="$(cli_run --threads 1)"
  times[cli1]+=" $(echo "$r" | "$python" -c 'import json,sys; print(json.load(sys.stdin)["seconds"][0])')"
  rss[cli1]="$(echo "$r" | "$python" -c 'import json,sys; print(round(json.load(sys.stdin)["peak_rss_mib"]))')"
  r="$(cli_run)"
  times[cli]+=" $(echo "$r" | "$python" -c 'import json,sys; print(json.load(sys.stdin)["seconds"][0])')"
  for w in "${ways[@]}"; do
    for threads in 1 default; do
      [ "$w" = python-urllib ] && [ "$threads" = default ] && continue
      [ "$w" = plugin-outcome ] && [ "$threads" = default ] && continue
      if [ "$threads" = 1 ]; then env_threads=(env POLARS_MAX_THREADS=1); else env_threads=(env); fi
      r="$("${env_threads[@]}" "$python" "$root/bench/polars_bench.py" "$w" "$tmp/in.txt" 1)"
      times["$w/$threads"]+=" $(echo "$r" | "$python" -c 'import json,sys; print(json.load(sys.stdin)["seconds"][0])')"
      rss["$w/$threads"]="$(echo "$r" | "$python" -c 'import json,sys; d=json.load(sys.stdin); print("%.0f (frame alone %.0f)" % (d["peak_rss_mib"], d["rss_with_frame_mib"]))')"
    done
  done
  echo "round $round done" >&2
done

n="$(wc -l <"$tmp/in.txt")"
median() { echo "$1" | tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base="$(median "${times[cli1]}")"
printf '%-26s %10s %12s %14s  %s\n' "way" "median s" "M rows/s" "vs CLI -t1" "peak RSS MiB"
for k in cli1 cli plugin-key/1 plugin-key/default plugin-e2e/1 plugin-e2e/default plugin-outcome/1 str-methods/1 str-methods/default python-urllib/1; do
  m="$(median "${times[$k]}")"
  awk -v k="$k" -v m="$m" -v b="$base" -v n="$n" -v r="${rss[$k]:-}" \
    'BEGIN {printf "%-26s %10.3f %12.2f %13.2fx  %s\n", k, m, n/m/1e6, m/b, r}'
done
echo "(vs CLI -t1: the way's median time over the CLI's with --threads 1; under 1.3 meets the target for plugin-key/1)"
