#!/usr/bin/env bash
# Builds the Polars plugin (crates/urlkey-polars, its own cargo workspace) into a wheel in
# target/polars-wheels with the venv's maturin, and installs it into that venv.
#
# Environment: URLKEY_PY_VENV (default target/py-venv; scripts/test-python.sh makes it),
# URLKEY_POLARS_PROFILE (default `quick`: Polars unoptimized, urlkey optimized, the fastest
# build for tests; `release` for the build users get), URLKEY_POLARS_LINT=1 to build the
# plugin crate through clippy-driver (RUSTC_WORKSPACE_WRAPPER): its [lints] (warnings and
# clippy's defaults denied) then fail the build itself, so that CI lints it without a second
# compilation of Polars for `cargo clippy`. Then it runs the crate's unit tests (built from
# the same dependencies, see below). Builds go to target/polars. Two runs at once (CI
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
# The crate's unit tests (src/outcome.rs: the struct derived from the core's field table),
# built from the wheel's own dependencies: `cargo test` would build Polars a second time
# (maturin turns on pyo3/extension-module with its interpreter's config), so the library is
# compiled once more as a test harness with the same features and config, linking libpython
# itself (an extension module leaves Python's symbols to the interpreter that loads it).
read -r pylibdir pyldversion pyversion < <("$VENV/bin/python" -c 'import sysconfig as s; print(*(s.get_config_var(v) for v in ("LIBDIR", "LDVERSION", "VERSION")))')
pyo3_config="$(ls "$ROOT"/target/polars/maturin/pyo3-config-*-"$pyversion"-*.txt 2>/dev/null | head -n 1)"
[ -n "$pyo3_config" ] || fail "maturin left no pyo3 config for Python $pyversion in target/polars/maturin: cannot build the unit tests"
PYO3_CONFIG_FILE="$pyo3_config" CARGO_TARGET_DIR="$ROOT/target/polars" cargo rustc --quiet \
  --manifest-path crates/urlkey-polars/Cargo.toml --profile "$PROFILE" --lib \
  --features pyo3/extension-module -- --test -L "$pylibdir" -C "link-arg=-lpython$pyldversion" \
  || fail "the unit tests of crates/urlkey-polars do not build"
tests_out="$(LD_LIBRARY_PATH="$pylibdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$ROOT/target/polars/$PROFILE/deps/urlkey_polars" 2>&1)" \
  || { echo "$tests_out" >&2; fail "the unit tests of crates/urlkey-polars failed"; }
echo "$tests_out" | grep -q "^test result: ok. [1-9]" \
  || { echo "$tests_out" >&2; fail "no unit test of crates/urlkey-polars ran"; }
echo "build-polars-plugin: $(echo "$tests_out" | grep "^test result")"
echo "build-polars-plugin: built and installed in $(( $(date +%s) - t0 )) s (profile $PROFILE${RUSTC_WORKSPACE_WRAPPER:+, linted by clippy-driver})"
