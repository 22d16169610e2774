#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each and fails on any finding.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (default: 60 seconds, every target)
#   FUZZ_JOBS (2), FUZZ_NICE (19), FUZZ_CODEGEN_UNITS (1), FUZZ_OPT_LEVEL (3),
#   FUZZ_SEED (1; 0: random),
#   SHARED (../shared)
#
# Installs cargo-fuzz when `cargo +nightly fuzz` is missing, builds all targets once
# (`-s none -a`: see docs/security.md "Fuzzing"), seeds the corpora with fuzz/seed.sh, then
# runs the targets FUZZ_JOBS (default 2) at a time under `nice -n FUZZ_NICE` (default 19).
# A crash, a timeout (one input over 10 s), an out-of-memory (RSS over 2 GB), a target that
# exits non-zero or never reports its final statistics fails the script, which prints the
# input libFuzzer saved and the command that reproduces it. Nothing is skipped: without a
# nightly toolchain or cargo-fuzz the script fails.
#
# Logs: fuzz/logs/TARGET.log (libFuzzer's output); one line per run in fuzz/logs/summary.tsv
# (start, target, seconds, executions, exit, exec/s, cov, ft, corpus files, corpus bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

secs=${1:-60}
[ $# -gt 0 ] && shift
case $secs in
  '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$secs'" >&2; exit 2 ;;
esac
all=(policies fast_path inspect readers policy_file ledger_ingest serve_api)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [ -f "fuzz/fuzz_targets/$t.rs" ] || {
    echo "fuzz.sh: no target '$t' (known: ${all[*]})" >&2; exit 2; }
done
jobs=${FUZZ_JOBS:-2}
# A fixed seed (FUZZ_SEED, default 1) fixes libFuzzer's random choices; what a run reaches
# still depends on timing (two CI runs with the same seed found different inputs). 0 asks
# libFuzzer for a random seed (long exploratory runs).
seed=${FUZZ_SEED:-1}
nice=${FUZZ_NICE:-19}
cargo_fuzz_version=0.13.2
# CI lints its stable builds through clippy-driver (.ci/run); a stable driver cannot build
# the nightly fuzz workspace.
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
t0=$(date +%s)
phase() { echo "== fuzz: $1 ($(( $(date +%s) - t0 )) s since start)"; }

phase "toolchain"
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz.sh: no nightly toolchain; installing it (rustup toolchain install nightly)"
  rustup toolchain install nightly --profile minimal || {
    echo "fuzz.sh: FAILED: cargo-fuzz needs a nightly toolchain and none could be installed" >&2
    exit 1; }
fi
cargo +nightly --version
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: cargo-fuzz missing; cargo install cargo-fuzz --locked --version $cargo_fuzz_version"
  ti=$(date +%s)
  cargo install cargo-fuzz --locked --version "$cargo_fuzz_version" || {
    echo "fuzz.sh: FAILED: could not install cargo-fuzz" >&2; exit 1; }
  echo "fuzz: cargo-fuzz installed in $(( $(date +%s) - ti )) s"
fi
cargo +nightly fuzz --version
# URLKEY_INSTALL_ONLY=1: stop once the tools are there (.ci/run installs every layer's
# tools side by side before the builds).
[ "${URLKEY_INSTALL_ONLY:-}" = 1 ] && exit 0

# The seed corpora come from the shared WPT data and datasets, as the tests' inputs do.
shared=${SHARED:-$root/../shared}
[ -f "$shared/wpt/urltestdata.json" ] || {
  echo "fuzz.sh: FAILED: no $shared/wpt/urltestdata.json for the seed corpora (set SHARED=DIR)" >&2
  exit 1; }

cgu=${FUZZ_CODEGEN_UNITS:-1}
# FUZZ_OPT_LEVEL (default 3, cargo-fuzz's): CI builds at 1, which compiles faster and runs
# its short runs a little slower. ada-url keeps its own level (fuzz/Cargo.toml).
opt=${FUZZ_OPT_LEVEL:-3}
phase "build (cargo +nightly fuzz build -s none -a --features serve --codegen-units $cgu, opt-level $opt)"
tb=$(date +%s)
# --features serve builds serve_api beside the others; one build serves every target.
# One codegen unit per crate (FUZZ_CODEGEN_UNITS; cargo-fuzz's own default): at opt-level 1
# on this machine's 2 cores, 16 units took 6 min 10 s of CPU (3 min 10 s wall) and one unit
# 5 min 6 s (2 min 40 s), and the targets ran as fast or faster (docs/security.md). CI
# builds them on cores the other layers keep busy, where the CPU is what counts.
(cd fuzz && CARGO_PROFILE_RELEASE_OPT_LEVEL="$opt" nice -n "$nice" \
  cargo +nightly fuzz build -s none -a --features serve --codegen-units "$cgu")
echo "fuzz: build took $(( $(date +%s) - tb )) s"
# URLKEY_BUILD_ONLY=1: stop once the targets are built (.ci/run builds them in the
# background, under nice, while the other layers run).
[ "${URLKEY_BUILD_ONLY:-}" = 1 ] && exit 0
bin="${CARGO_TARGET_DIR:-$root/fuzz/target}"
bin="$bin/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"

phase "seed corpora (fuzz/seed.sh)"
SHARED="$shared" bash fuzz/seed.sh

mkdir -p fuzz/logs
run_one() {
  local t=$1 log="fuzz/logs/$1.log" start rc
  local extra=()
  # Every step below runs, whatever fails: the summary line is written in all cases.
  set +e
  # The committed minimized corpus is read too (libFuzzer writes new inputs only to the
  # first directory), so a short run starts where the long runs stopped.
  [ -d "fuzz/replay/$t" ] && extra=("fuzz/replay/$t")
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  start=$(date -u +%FT%TZ)
  echo "=== $start $t ${secs}s" >> "$log"
  # The outer timeout catches a target that hangs outside an input (libFuzzer's own
  # -timeout covers one input): the run's time, plus room for loading the corpus.
  (cd fuzz && timeout -k 10 $(( secs * 2 + 300 )) nice -n "$nice" "$bin/$t" \
    -artifact_prefix="artifacts/$t/" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -seed="$seed" \
    -print_final_stats=1 "corpus/$t" "${extra[@]/#fuzz\//}") >> "$log" 2>&1
  rc=$?
  local runs took cov ft files bytes
  runs=$(grep -a 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')
  took=$(sed -n "/^=== $start $t /,\$p" "$log" | grep -a '^Done [0-9]* runs in' | tail -1 \
    | sed 's/.* in \([0-9]*\) second.*/\1/')
  # The last status line of this run: "#N ... cov: C ft: F corp: ..."
  cov=$(sed -n "/^=== $start $t /,\$p" "$log" | grep -a ' cov: ' | tail -1 \
    | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(sed -n "/^=== $start $t /,\$p" "$log" | grep -a ' ft: ' | tail -1 \
    | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  files=$(find "fuzz/corpus/$t" -type f | wc -l)
  bytes=$(du -sb "fuzz/corpus/$t" | cut -f1)
  local rate="?"
  [ -n "$took" ] && [ -n "$runs" ] && [ "$took" -gt 0 ] && rate=$(( runs / took ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$start" "$t" "${took:-?}" "${runs:-?}" \
    "$rc" "$rate" "${cov:-?}" "${ft:-?}" "$files" "$bytes" >> fuzz/logs/summary.tsv
  echo "fuzz: $t exit=$rc seconds=${took:-?} executions=${runs:-?} exec/s=$rate cov=${cov:-?} ft=${ft:-?} corpus=$files files"
  # Without the "Done" line libFuzzer did not finish its run, whatever the exit code says.
  [ "$rc" -eq 0 ] && [ -n "$took" ]
}

phase "run ${#targets[@]} target(s), ${secs} s each, $jobs at a time"
tr=$(date +%s)
# Artifacts already there (an earlier finding) do not count against this run.
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
failed=()
declare -A pid_of
pending=("${targets[@]}")
running=0
while [ ${#pending[@]} -gt 0 ] || [ "$running" -gt 0 ]; do
  while [ ${#pending[@]} -gt 0 ] && [ "$running" -lt "$jobs" ]; do
    t=${pending[0]}; pending=("${pending[@]:1}")
    run_one "$t" &
    pid_of[$!]=$t
    running=$(( running + 1 ))
  done
  set +e
  wait -n -p done_pid
  rc=$?
  set -e
  running=$(( running - 1 ))
  [ "$rc" -eq 0 ] || failed+=("${pid_of[$done_pid]}")
done
echo "fuzz: runs took $(( $(date +%s) - tr )) s"

# Only the directories of the targets run: another run may be writing beside this one.
found=""
for t in "${targets[@]}"; do
  new=$(find "fuzz/artifacts/$t" -type f -newer "$marker" 2>/dev/null | sort)
  if [ -n "$new" ]; then
    found+="$new"$'\n'
    case " ${failed[*]} " in *" $t "*) ;; *) failed+=("$t") ;; esac
  fi
done
if [ ${#failed[@]} -gt 0 ] || [ -n "$found" ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  for t in "${failed[@]}"; do
    echo "--- $t: the end of fuzz/logs/$t.log" >&2
    tail -n 40 "fuzz/logs/$t.log" >&2
  done
  for f in $found; do
    t=$(basename "$(dirname "$f")")
    feat=""; [ "$t" = serve_api ] && feat=" --features serve"
    echo "fuzz: input $f; reproduce: (cd fuzz && cargo +nightly fuzz run -s none -a$feat $t ${f#fuzz/})" >&2
  done
  exit 1
fi
phase "all ${#targets[@]} target(s) ran ${secs} s with no finding"
