#!/usr/bin/env bash
# urlkey against the tools users would pick instead (docs/benchmarks.md, the other-tools target), on the same corpus file and in
# the same run: `urlkey key --policy citation@1 --threads 1 --format key` (whole process,
# release build), Python w3lib `canonicalize_url`, Node `normalize-url`, and the urlkey
# command again on every core (its default).
#
# usage: bench/compare.sh [--runs N] [--bin DIR] [--repeat K] [--proto]
#   --runs N   runs per tool (default 3); the median is reported
#   --repeat K the corpus file K times over (11 gives the 1,199,682 lines the target names)
#   --bin DIR  take `urlkey` from DIR instead of building it (cargo build --release)
#   --proto    also time `urlkey-bench proto-key --policy citation@1` (the lean-path
#              prototype of docs/benchmarks.md, whole process, same output bytes)
# Environment: URLKEY_DATASETS (default ../shared/datasets/ada-url-various-datasets).
#
# Installs what is missing, from the registries: w3lib into a venv under
# target/bench-py (pip), normalize-url into target/bench-node (npm). Timing: hyperfine when
# it is on PATH (apt-get install hyperfine), else `date +%s%N` around each run, the tools
# interleaved run by run. Every tool writes to /dev/null.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
runs=3 bin="" proto=0 repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --proto) proto=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
datasets="${URLKEY_DATASETS:-$root/../shared/datasets/ada-url-various-datasets}"

# The corpus file, as SOURCE.md builds corpus_all.txt: the four files in order, a newline
# added where a file lacks its last one.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
corpus="$tmp/corpus_all.txt"
corpus_file "$corpus"
if [ "$repeat" -gt 1 ]; then
  for _ in $(seq "$repeat"); do cat "$corpus"; done >"$tmp/repeated.txt"
  mv "$tmp/repeated.txt" "$corpus"
  echo "the corpus file $repeat times over"
fi
lines=$(wc -l <"$corpus")
echo "corpus: $lines lines, $(wc -c <"$corpus") bytes (SOURCE.md: 109,062 lines, 6,188,328 bytes)"

# urlkey, release build.
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-cli -p urlkey-bench >&2)
  bin="$root/target/release"
fi
urlkey="$bin/urlkey"

# w3lib in a venv.
py="$root/target/bench-py"
if [ ! -x "$py/bin/python" ] || ! "$py/bin/python" -c 'import w3lib' 2>/dev/null; then
  echo "installing w3lib into $py" >&2
  python3 -m venv "$py"
  "$py/bin/pip" install --quiet w3lib >&2
fi
w3lib_version=$("$py/bin/python" -c 'import importlib.metadata as m; print(m.version("w3lib"))')

# normalize-url with npm.
nd="$root/target/bench-node"
if [ ! -f "$nd/node_modules/normalize-url/package.json" ]; then
  echo "installing normalize-url into $nd" >&2
  mkdir -p "$nd"
  (cd "$nd" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --silent normalize-url >&2)
fi
nu_version=$(node -p "require('$nd/node_modules/normalize-url/package.json').version")

echo "urlkey: $("$urlkey" --version 2>/dev/null || echo '?') ($urlkey)"
echo "w3lib: $w3lib_version ($("$py/bin/python" --version 2>&1))"
echo "normalize-url: $nu_version (node $(node --version))"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

names=("urlkey key citation@1" "w3lib canonicalize_url" "normalize-url")
cmds=(
  "$urlkey key --policy citation@1 --threads 1 --format key --quiet $corpus"
  "$py/bin/python $root/bench/w3lib_canonicalize.py $corpus"
  "env NORMALIZE_URL_DIR=$nd/node_modules/normalize-url node $root/bench/normalize_url.mjs $corpus"
)
# The same command on every core (urlkey's default): the peers have no such option.
names+=("urlkey key citation@1, all cores")
cmds+=("$urlkey key --policy citation@1 --format key --quiet $corpus")
if [ "$proto" = 1 ]; then
  names+=("prototype: lean citation@1 (urlkey-bench proto-key)")
  cmds+=("$bin/urlkey-bench proto-key --policy citation@1 $corpus")
fi

# Sanity: each tool writes one line per record.
for i in "${!cmds[@]}"; do
  n=$(${cmds[$i]} 2>/dev/null | wc -l)
  echo "${names[$i]}: $n output lines"
done

declare -A med
if command -v hyperfine >/dev/null; then
  echo "timer: hyperfine $(hyperfine --version | cut -d' ' -f2), $runs runs, 1 warm-up"
  hargs=()
  for i in "${!cmds[@]}"; do hargs+=(-n "${names[$i]}" "${cmds[$i]}"); done
  hyperfine --warmup 1 --runs "$runs" --style basic --output null \
    --export-json "$tmp/h.json" "${hargs[@]}" >&2
  for i in "${!cmds[@]}"; do
    med[$i]=$(python3 -c "import json,sys; print(json.load(open('$tmp/h.json'))['results'][$i]['median'])")
  done
else
  echo "timer: date +%s%N (hyperfine not found), $runs runs interleaved, after 1 warm-up each"
  declare -A all
  for i in "${!cmds[@]}"; do ${cmds[$i]} >/dev/null 2>&1; done
  for r in $(seq 1 "$runs"); do
    for i in "${!cmds[@]}"; do
      t0=$(date +%s%N)
      ${cmds[$i]} >/dev/null 2>&1
      t1=$(date +%s%N)
      all[$i]="${all[$i]:-} $(( (t1 - t0) / 1000 ))"
      echo "run $r: ${names[$i]}: $(( (t1 - t0) / 1000000 )) ms" >&2
    done
  done
  for i in "${!cmds[@]}"; do
    med[$i]=$(median_seconds "${all[$i]}")
  done
fi

echo
echo "| tool | median s | us/URL | ratio to urlkey |"
echo "|---|---:|---:|---:|"
for i in "${!cmds[@]}"; do
  awk -v n="${names[$i]}" -v t="${med[$i]}" -v u="${med[0]}" -v l="$lines" \
    'BEGIN {printf "| %s | %.3f | %.2f | %.1fx |\n", n, t, t*1e6/l, t/u}'
done
echo
for i in "${!cmds[@]}"; do
  [ "$i" = 1 ] || [ "$i" = 2 ] && continue
  awk -v n="${names[$i]}" -v t="${med[$i]}" -v w="${med[1]}" -v u="${med[2]}" \
    'BEGIN {printf "%s: w3lib / it = %.1fx, normalize-url / it = %.1fx\n", n, w/t, u/t}'
done
echo "target: urlkey at least 40x faster than w3lib and than normalize-url"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
