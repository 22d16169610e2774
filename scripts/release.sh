#!/usr/bin/env bash
# Builds the release files into dist/ (docs/release.md):
#
#   urlkey-VERSION-x86_64-unknown-linux-gnu.tar.gz   the binary (profile `dist`), README.md,
#       LICENSE-*, CHANGELOG.md, complete/ (bash, zsh, fish) and doc/man/ (a page per command)
#   urlkey-VERSION-cp39-abi3-manylinux_*.whl         the Python package (crates/urlkey-py)
#   urlkey_polars-VERSION-cp39-abi3-manylinux_*.whl  the Polars plugin (crates/urlkey-polars)
#   urlkey.duckdb_extension (+ .json)                the DuckDB extension and its target
#   dist-manifest.json, SHA256SUMS
#
#   scripts/release.sh                  a snapshot (no tag): files labelled VERSION-snapshot
#   scripts/release.sh --tag v0.2.0     a release: the tag must be v + the workspace version,
#                                       CHANGELOG.md must have its `## [0.2.0] - date` entry
#   scripts/release.sh --out DIR        another output directory (default dist)
#   scripts/release.sh --ci             no build: assembles CI's own builds (target/debug/urlkey,
#                                       target/py-wheels, target/polars-wheels, target/duckdb),
#                                       labelled VERSION-ci, to test the install path cheaply
#
# Idempotent and incremental: cargo and maturin reuse their builds, and the archive is
# reproducible (sorted, owner 0, mtime of the commit), so a second run gives the same files.
# The directory is assembled in a temporary directory beside it, tested there
# (scripts/test-release.sh, whose failure fails this script), and renamed into place only
# then: a failed run leaves an existing dist/ as it was.
#
# Environment: URLKEY_RELEASE_VENV (default target/release-venv: maturin and auditwheel,
# installed when missing); URLKEY_SHARED is passed on to scripts/test-release.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

fail() {
  echo "release: $*" >&2
  exit 1
}
say() { echo "== release $(date +%T): $*" >&2; }

TAG="" OUT="dist" CI=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) [ $# -ge 2 ] || fail "--tag needs a value (vX.Y.Z)"; TAG="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || fail "--out needs a directory"; OUT="$2"; shift 2 ;;
    --ci) CI=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument $1 (see scripts/release.sh --help)" ;;
  esac
done
KIND=snapshot
[ -n "$TAG" ] && KIND=release
if [ "$CI" = 1 ]; then
  [ -z "$TAG" ] || fail "--ci assembles debug builds: it cannot make a release (drop --tag)"
  KIND=ci
fi

# Everything that can refuse the release is checked before anything is built.
VERSION="$(python3 scripts/release-check.py source "$ROOT" ${TAG:+--tag "$TAG"})" || fail "the version checks failed (above)"
if [ "$KIND" = release ]; then
  git diff --quiet HEAD -- || fail "uncommitted changes: a release is built from a commit (commit or stash them)"
fi
LICENSES=("$ROOT"/LICENSE-*)
[ -f "${LICENSES[0]}" ] || fail "no LICENSE-* file at the top of the repository: the tarball ships the licences (MIT OR Apache-2.0)"
case "$KIND" in release) LABEL="$VERSION" ;; *) LABEL="$VERSION-$KIND" ;; esac
TRIPLE=x86_64-unknown-linux-gnu
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || fail "only $TRIPLE is built here"
# The cheap refusals above come first: this one takes from seconds to minutes.
# The crates package for crates.io and their docs build without warnings
# (scripts/check-packaging.sh, CONTRIBUTING.md "Packaging"): a release builds every .crate
# from its contents alone (--verify); a snapshot packages them without that build.
case "$KIND" in
  release) bash scripts/check-packaging.sh --verify >&2 || fail "the crates do not package (above)" ;;
  snapshot) bash scripts/check-packaging.sh >&2 || fail "the crates do not package (above)" ;;
esac
COMMIT="$(git rev-parse HEAD)"
DIRTY=false
git diff --quiet HEAD -- || DIRTY=true
# The archive's timestamps: the commit's, so that two runs give the same bytes.
EPOCH="$(git log -1 --format=%ct HEAD)"
# (Not exported as SOURCE_DATE_EPOCH: the cc crate's build scripts track that variable, so
# every C dependency, and all that depends on them, would build again.)
say "urlkey $VERSION, $KIND build ($LABEL) of ${COMMIT:0:12}$([ "$DIRTY" = true ] && echo ', with uncommitted changes')"

OUT="$(realpath -m "$OUT")"
mkdir -p "$(dirname "$OUT")"
STAGE="$(mktemp -d "$(dirname "$OUT")/.$(basename "$OUT").tmp.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
chmod 755 "$STAGE"  # mktemp's 700 would be dist/'s mode after the rename

if [ "$KIND" = ci ]; then
  BIN="$ROOT/target/debug/urlkey"
  PY_WHEELS="$ROOT/target/py-wheels"
  POLARS_WHEELS="$ROOT/target/polars-wheels"
  EXT="$ROOT/target/duckdb/urlkey.duckdb_extension"
  for f in "$BIN" "$EXT"; do [ -f "$f" ] || fail "--ci: no $f (CI's build makes it)"; done
else
  VENV="${URLKEY_RELEASE_VENV:-$ROOT/target/release-venv}"
  if ! "$VENV/bin/python" -c 'import auditwheel' 2>/dev/null || [ ! -x "$VENV/bin/maturin" ]; then
    say "tools venv $VENV (maturin, auditwheel)"
    python3 -m venv "$VENV" || fail "cannot create $VENV with python3 -m venv"
    # maturin as scripts/test-python.sh pins it.
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" auditwheel \
      || fail "cannot install maturin and auditwheel into $VENV"
  fi
  t0=$(date +%s)
  say "the binary: cargo build --profile dist -p urlkey-cli"
  nice -n 10 cargo build --quiet --profile dist -p urlkey-cli || fail "cargo build --profile dist -p urlkey-cli failed"
  BIN="$ROOT/target/dist/urlkey"
  say "the urlkey wheel: maturin build --release (crates/urlkey-py)"
  PY_WHEELS="$ROOT/target/release-wheels"
  rm -rf "$PY_WHEELS"
  nice -n 10 "$VENV/bin/maturin" build --quiet --release --manifest-path crates/urlkey-py/Cargo.toml \
    --interpreter "$VENV/bin/python" --out "$PY_WHEELS" || fail "maturin build of crates/urlkey-py failed"
  # As scripts/build-polars-plugin.sh builds it (its own workspace, target/polars), but
  # without that script's unit-test step: in the release profile it compiled Polars a second
  # time (maturin's build settings are not cargo rustc's), 10+ minutes for tests that CI
  # runs on every change in the quick profile. test-release.sh tests this wheel itself.
  say "the urlkey_polars wheel: maturin build --release (crates/urlkey-polars)"
  POLARS_WHEELS="$ROOT/target/release-polars-wheels"
  rm -rf "$POLARS_WHEELS"
  CARGO_TARGET_DIR="$ROOT/target/polars" nice -n 10 "$VENV/bin/maturin" build --quiet --release \
    --manifest-path crates/urlkey-polars/Cargo.toml --interpreter "$VENV/bin/python" --out "$POLARS_WHEELS" \
    || fail "maturin build of crates/urlkey-polars failed"
  say "the DuckDB extension: scripts/build-duckdb-extension.sh (release)"
  EXT="$(URLKEY_DUCKDB_PROFILE=release nice -n 10 bash scripts/build-duckdb-extension.sh | tail -n 1)" \
    || fail "scripts/build-duckdb-extension.sh failed"
  say "built in $(( $(date +%s) - t0 )) s"
fi

# The tarball: the layout of ripgrep's (binary at the top, complete/, doc/).
NAME="urlkey-$LABEL-$TRIPLE"
PKG="$STAGE/.pkg/$NAME"
mkdir -p "$PKG/complete" "$PKG/doc/man"
install -m 755 "$BIN" "$PKG/urlkey"
cp README.md CHANGELOG.md "${LICENSES[@]}" "$PKG/"
# Completions and man pages come from the binary itself (clap_complete, clap_mangen).
for pair in bash:urlkey.bash zsh:_urlkey fish:urlkey.fish; do
  "$PKG/urlkey" completions "${pair%%:*}" >"$PKG/complete/${pair#*:}" \
    || fail "\`urlkey completions ${pair%%:*}\` failed: this binary has no completions command"
  [ -s "$PKG/complete/${pair#*:}" ] || fail "\`urlkey completions ${pair%%:*}\` printed nothing"
done
"$PKG/urlkey" man --dir "$PKG/doc/man" >/dev/null || fail "\`urlkey man --dir\` failed: this binary has no man command"
[ -f "$PKG/doc/man/urlkey.1" ] || fail "\`urlkey man --dir\` wrote no urlkey.1"
find "$PKG" -exec touch -h -d "@$EPOCH" {} +
tar -C "$STAGE/.pkg" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$EPOCH" -cf - "$NAME" \
  | gzip -9 -n >"$STAGE/$NAME.tar.gz" || fail "cannot write $NAME.tar.gz"
rm -rf "$STAGE/.pkg"

shopt -s nullglob
py=("$PY_WHEELS"/urlkey-"$VERSION"-*.whl)
pl=("$POLARS_WHEELS"/urlkey_polars-"$VERSION"-*.whl)
shopt -u nullglob
[ ${#py[@]} = 1 ] || fail "expected one urlkey $VERSION wheel in $PY_WHEELS, found ${#py[@]}"
[ ${#pl[@]} = 1 ] || fail "expected one urlkey_polars $VERSION wheel in $POLARS_WHEELS, found ${#pl[@]}"
cp "${py[0]}" "${pl[0]}" "$STAGE/"
cp "$EXT" "$STAGE/urlkey.duckdb_extension"

# What auditwheel finds in each wheel (the policy its filename tag claims), and the glibc
# versions the binary needs: the floors docs/release.md states.
wheel_tag() {
  local w="$1" shown
  if [ "$KIND" = ci ]; then
    # CI's wheels are not audited again here: the tag maturin's own check gave them.
    sed -n 's/.*-\(manylinux_[0-9]*_[0-9]*_x86_64\)\.whl$/\1/p' <<<"$(basename "$w")"
    return
  fi
  shown="$("$VENV/bin/auditwheel" show "$w")" || fail "auditwheel show $(basename "$w") failed"
  echo "$shown" | tr '\n' ' ' | grep -o 'consistent with the following platform tag: *"[^"]*"' | grep -o 'manylinux_[0-9]*_[0-9]*_x86_64' \
    || fail "auditwheel found no manylinux tag for $(basename "$w"): $shown"
}
PY_TAG="$(wheel_tag "$STAGE/$(basename "${py[0]}")")"
PL_TAG="$(wheel_tag "$STAGE/$(basename "${pl[0]}")")"
GLIBC="$(objdump -T "$BIN" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)" || GLIBC=""
[ -n "$GLIBC" ] || fail "cannot read the glibc versions $BIN needs (objdump -T, binutils)"

python3 - "$STAGE" "$VERSION" "$KIND" "$TAG" "$COMMIT" "$DIRTY" "$NAME.tar.gz" "$GLIBC" \
  "$(basename "${py[0]}")" "$PY_TAG" "$(basename "${pl[0]}")" "$PL_TAG" <<'PY' || fail "cannot write the manifests"
import json, subprocess, sys
from pathlib import Path

stage, version, kind, tag, commit, dirty, tarball, glibc, py, py_tag, pl, pl_tag = sys.argv[1:]
stage = Path(stage)
footer = json.loads(subprocess.run(
    [sys.executable, "scripts/release-check.py", "footer", str(stage / "urlkey.duckdb_extension")],
    check=True, capture_output=True, text=True).stdout)
ext = {"file": "urlkey.duckdb_extension", **footer, "signed": False,
       "load": "with allow_unsigned_extensions (duckdb -unsigned): INSTALL '<path>'; LOAD urlkey;"}
(stage / "urlkey.duckdb_extension.json").write_text(json.dumps(ext, indent=2, sort_keys=True) + "\n")
manifest = {
    "version": version,
    "kind": kind,
    "tag": tag or None,
    "commit": commit,
    "uncommitted_changes": dirty == "true",
    "tarball": {"file": tarball, "target": "x86_64-unknown-linux-gnu", "glibc_floor": glibc},
    "urlkey_wheel": {"file": py, "auditwheel_tag": py_tag},
    "polars_wheel": {"file": pl, "auditwheel_tag": pl_tag},
    "duckdb_extension": ext,
}
(stage / "dist-manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
PY

(cd "$STAGE" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS) \
  || fail "cannot write SHA256SUMS"
(cd "$STAGE" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not check"
python3 scripts/release-check.py dist "$STAGE" >/dev/null || fail "the assembled files do not agree (above)"

say "testing the files as users install them: scripts/test-release.sh"
bash scripts/test-release.sh "$STAGE" || fail "scripts/test-release.sh failed: $OUT is left as it was"

# Into place: the old directory goes only once the new one is complete and tested.
if [ -e "$OUT" ]; then
  mv "$OUT" "$STAGE.old"
fi
mv "$STAGE" "$OUT"
rm -rf "$STAGE.old"
trap - EXIT
say "$OUT ($KIND $LABEL):"
(cd "$OUT" && ls -l --time-style=+ | tail -n +2 | awk '{print "  " $5 "\t" $NF}') >&2
