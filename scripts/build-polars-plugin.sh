#!/usr/bin/env bash
# Builds the Polars plugin (crates/urlkey-polars, its own cargo workspace) into a wheel in
# target/polars-wheels with the venv's maturin, and installs it into that venv.
#
# Environment: URLKEY_PY_VENV (default target/py-venv; scripts/test-python.sh makes it),
# URLKEY_POLARS_PROFILE (default `quick`: Polars unoptimized, urlkey optimized, the fastest
# build for tests; `release` for the build users get), URLKEY_POLARS_LINT=1 to build the
# plugin crate through clippy-driver (RUSTC_WORKSPACE_WRAPPER): its [lints] (warnings and
# clippy's defaults denied) then fail the build itself, so that CI lints it without a second
# compilation of Polars for `cargo clippy`. Builds go to target/polars. Two runs at once (CI
# starts one early in the background) take turns on a lock.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
VENV="${URLKEY_PY_VENV:-$ROOT/target/py-venv}"
case "$VENV" in /*) ;; *) VENV="$ROOT/$VENV" ;; esac
PROFILE="${URLKEY_POLARS_PROFILE:-quick}"
fail() {
  echo "build-polars-plugin: $*" >&2
  exit 1
}
[ -x "$VENV/bin/maturin" ] || fail "no maturin in $VENV: run scripts/test-python.sh (or URLKEY_INSTALL_ONLY=1 scripts/test-python.sh) first"
if [ "${URLKEY_POLARS_LINT:-}" = 1 ]; then
  driver="$(command -v clippy-driver)" || fail "URLKEY_POLARS_LINT=1 needs clippy-driver (rustup component add clippy)"
  export RUSTC_WORKSPACE_WRAPPER="$driver"
fi
mkdir -p "$ROOT/target"
exec 9>"$ROOT/target/polars-build.lock"
flock 9
t0=$(date +%s)
rm -rf "$ROOT/target/polars-wheels"
CARGO_TARGET_DIR="$ROOT/target/polars" "$VENV/bin/maturin" build --quiet \
  --manifest-path crates/urlkey-polars/Cargo.toml --profile "$PROFILE" \
  --interpreter "$VENV/bin/python" --out "$ROOT/target/polars-wheels" \
  || fail "maturin build of crates/urlkey-polars failed"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir --force-reinstall --no-deps \
  "$ROOT"/target/polars-wheels/urlkey_polars-*.whl \
  || fail "pip install of the urlkey_polars wheel failed"
(cd /tmp && "$VENV/bin/python" -c "import urlkey_polars; print('urlkey_polars', urlkey_polars.__version__, 'from', urlkey_polars.__file__)") \
  || fail "the installed urlkey_polars does not import"
echo "build-polars-plugin: built and installed in $(( $(date +%s) - t0 )) s (profile $PROFILE${RUSTC_WORKSPACE_WRAPPER:+, linted by clippy-driver})"
