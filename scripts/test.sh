#!/usr/bin/env bash
# Runs every test layer. A layer that cannot run fails the script: nothing is skipped silently.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
since() { echo "($(( $(date +%s) - t0 )) s since the start)"; }

# The redirect tests load compiled maps into real nginx and Apache, the completion tests
# load their scripts into zsh and fish (installed when missing).
bash scripts/install-test-packages.sh

echo "== layer 1: Rust (unit, WPT conformance, golden fixtures, properties, CLI, ledger, web API), release scripts' checks"
cargo test --workspace
# The release's version and dist checks and refusals (scripts/release.sh; seconds, no build).
python3 scripts/test-release-checks.py

echo "== layer 2: browser end-to-end (headless Chromium) $(since)"
bash crates/urlkey-serve/e2e/run.sh

echo "== layer 3: Python package, PySpark local[2], Parquet hand-off, Polars plugin, DuckDB extension, cross-engine test $(since)"
bash scripts/test-python.sh

echo "== layer 4: fuzzing (every fuzz target for FUZZ_SECONDS, default 60; a finding fails) $(since)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-60}"

echo "== all layers passed $(since)"
