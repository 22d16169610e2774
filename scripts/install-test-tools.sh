#!/usr/bin/env bash
# Installs what the test layers need, side by side, without building or running anything
# of urlkey's: Debian's chromium and playwright-core (browser layer), the Python venv with
# its requirements (Python layer), the nightly toolchain check and cargo-fuzz (fuzz layer),
# nginx and apache2 (the redirect tests of layer 1).
# Each layer's own script installs the same when missing, so this only saves time: .ci/run
# starts it in the background while the Rust builds run, since most of it waits on the
# network. Exits non-zero when any install failed (the layer would then fail too).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p target/install-logs
export URLKEY_INSTALL_ONLY=1
pids=()
names=(browser python fuzz servers)
bash crates/urlkey-serve/e2e/run.sh > target/install-logs/browser.log 2>&1 & pids+=($!)
bash scripts/test-python.sh > target/install-logs/python.log 2>&1 & pids+=($!)
bash scripts/fuzz.sh > target/install-logs/fuzz.log 2>&1 & pids+=($!)
bash scripts/install-test-packages.sh > target/install-logs/packages.log 2>&1 & pids+=($!)
rc=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "install-test-tools: ${names[$i]}: ready"
  else
    echo "install-test-tools: ${names[$i]}: FAILED (target/install-logs/${names[$i]}.log):" >&2
    tail -n 20 "target/install-logs/${names[$i]}.log" >&2
    rc=1
  fi
done
exit $rc
