#!/usr/bin/env bash
# The Python layer: builds and installs the `urlkey` Python package from this repository
# (crates/urlkey-py, PyO3 + maturin) into a virtual environment, builds the release CLI
# (or takes URLKEY_BIN), and
# runs the pytest suite (Python API vs golden fixtures and the CLI, Parquet output, PySpark
# local[2] vs `urlkey key` and `urlkey map`, the Polars plugin, the DuckDB extension, the
# cross-engine test of all of them, and `ledger report`'s run-to-run stability vs a Python
# reference written from docs/ledger.md).
# It also builds and installs the Polars plugin (crates/urlkey-polars, its own cargo
# workspace) in the `quick` profile (URLKEY_POLARS_PROFILE to change it), and builds the
# DuckDB extension (scripts/build-duckdb-extension.sh, in cargo test's profile unless
# URLKEY_DUCKDB_PROFILE says otherwise), or takes URLKEY_DUCKDB_EXTENSION.
#
# Installs what it needs when missing: a venv under target/py-venv with maturin, pytest,
# pyarrow, pandas (PySpark's mapInArrow imports it), pyspark (Java 17 must be on PATH),
# polars and the duckdb wheel.
# Anything that cannot be installed or built fails the script; nothing is skipped.
# pytest's exit 5 (no tests collected) is a failure too.
#
# Environment: PYTHON (default python3) to create the venv; URLKEY_PY_VENV to use another
# venv directory; URLKEY_PY_PROFILE=release to install the package as the README does
# (`pip install ./crates/urlkey-py`, a release build; default: a debug build of it); extra arguments are passed to pytest (e.g. -k spark).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

PYTHON="${PYTHON:-python3}"
VENV="${URLKEY_PY_VENV:-$ROOT/target/py-venv}"
# Versions known to work together here (PySpark 4.x needs pandas < 3 and Java 17+).
REQUIREMENTS=(
  "maturin>=1.5,<2"
  "pytest>=7"
  "pyarrow>=14"
  "pandas>=2.2,<3"
  "pyspark>=3.5"
  # The plugin interface polars-ffi 0.55 (crates/urlkey-polars) is built for.
  "polars==2.1.0"
  # The DuckDB engine the extension (crates/urlkey-duckdb, duckdb-rs 1.20000.x, C API
  # v1.2.0) is tested in: tests/test_duckdb.py.
  "duckdb==2.0.1"
)

fail() {
  echo "test-python: $*" >&2
  exit 1
}

command -v "$PYTHON" >/dev/null || fail "no $PYTHON on PATH: Python 3.9+ is needed"
command -v cargo >/dev/null || fail "no cargo on PATH: the Rust toolchain is needed to build the package"
command -v java >/dev/null || fail "no java on PATH: PySpark needs Java 17 (apt-get install openjdk-17-jre-headless)"

echo "== python: virtual environment $VENV"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV" || fail "cannot create a virtual environment with $PYTHON -m venv"
fi
VPY="$VENV/bin/python"
# maturin (the build backend) and pytest run from the venv.
export PATH="$VENV/bin:$PATH"
if ! "$VPY" - "${REQUIREMENTS[@]}" <<'EOF'
import sys
from importlib import metadata
try:
    from packaging.requirements import Requirement
except ImportError:
    sys.exit(1)
for spec in sys.argv[1:]:
    r = Requirement(spec)
    try:
        v = metadata.version(r.name)
    except metadata.PackageNotFoundError:
        sys.exit(1)
    if v not in r.specifier:
        sys.exit(1)
EOF
then
  echo "== python: installing ${REQUIREMENTS[*]}"
  "$VPY" -m pip install --quiet --disable-pip-version-check --no-cache-dir packaging "${REQUIREMENTS[@]}" \
    || fail "cannot install the test requirements with pip"
fi

[ "${URLKEY_INSTALL_ONLY:-}" = 1 ] && { echo "== python: requirements installed"; exit 0; }

if [ -n "${URLKEY_BIN:-}" ]; then
  [ -x "$URLKEY_BIN" ] || fail "URLKEY_BIN=$URLKEY_BIN is not an executable"
  echo "== python: the CLI the tests compare with: $URLKEY_BIN"
else
  echo "== python: building the release CLI (target/release/urlkey)"
  cargo build --release --quiet -p urlkey-cli || fail "cargo build --release -p urlkey-cli failed"
  URLKEY_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/urlkey"
fi

if [ -n "${URLKEY_DUCKDB_EXTENSION:-}" ]; then
  [ -f "$URLKEY_DUCKDB_EXTENSION" ] || fail "URLKEY_DUCKDB_EXTENSION=$URLKEY_DUCKDB_EXTENSION is not a file"
  echo "== python: the DuckDB extension the tests load: $URLKEY_DUCKDB_EXTENSION"
else
  # cargo test's own build (URLKEY_DUCKDB_PROFILE=test): the tests compare results, not
  # speed, and after `cargo test --workspace` (layer 1) the extension is already built; the
  # release build of the extension's dependencies costs more than the tests.
  echo "== python: building the DuckDB extension (scripts/build-duckdb-extension.sh)"
  URLKEY_DUCKDB_EXTENSION="$(URLKEY_DUCKDB_PROFILE="${URLKEY_DUCKDB_PROFILE:-test}" bash scripts/build-duckdb-extension.sh | tail -n 1)" \
    || fail "scripts/build-duckdb-extension.sh failed: the DuckDB tests need the extension"
  [ -f "$URLKEY_DUCKDB_EXTENSION" ] || fail "scripts/build-duckdb-extension.sh left no extension at $URLKEY_DUCKDB_EXTENSION"
fi

PY_PROFILE="${URLKEY_PY_PROFILE:-dev}"
echo "== python: building and installing the package from crates/urlkey-py (profile $PY_PROFILE)"
if [ "$PY_PROFILE" = release ]; then
  # The README's command, with the venv's maturin as build backend (no download).
  "$VPY" -m pip install --quiet --disable-pip-version-check --no-cache-dir --no-build-isolation \
    --force-reinstall --no-deps ./crates/urlkey-py \
    || fail "pip install ./crates/urlkey-py failed"
else
  # The same package built in the debug profile (the default): after `cargo test
  # --workspace` (layer 1) its dependencies and the library (optimized in both profiles)
  # are built, where the release build took a minute and a half of CI.
  rm -rf "$ROOT/target/py-wheels"
  "$VENV/bin/maturin" build --quiet --manifest-path crates/urlkey-py/Cargo.toml --profile "$PY_PROFILE" \
    --interpreter "$VPY" --out "$ROOT/target/py-wheels" \
    || fail "maturin build of crates/urlkey-py failed"
  "$VPY" -m pip install --quiet --disable-pip-version-check --no-cache-dir --force-reinstall --no-deps \
    "$ROOT"/target/py-wheels/urlkey-*.whl \
    || fail "pip install of the urlkey wheel failed"
fi
(cd /tmp && "$VPY" -c "import urlkey, urlkey.spark; print('urlkey', urlkey.__version__, 'from', urlkey.__file__)") \
  || fail "the installed package does not import"

echo "== python: building and installing the Polars plugin (crates/urlkey-polars)"
URLKEY_PY_VENV="$VENV" bash scripts/build-polars-plugin.sh || fail "the Polars plugin could not be built"

echo "== python: pytest"
export URLKEY_BIN
export URLKEY_DUCKDB_EXTENSION
export PYSPARK_PYTHON="$VPY"
export PYSPARK_DRIVER_PYTHON="$VPY"
set +e
(cd crates/urlkey-py && "$VPY" -m pytest -p no:cacheprovider tests "$@")
status=$?
set -e
if [ "$status" -eq 5 ]; then
  fail "pytest collected no tests (exit 5)"
elif [ "$status" -ne 0 ]; then
  fail "pytest failed (exit $status)"
fi
echo "== python: all tests passed"
