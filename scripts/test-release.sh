#!/usr/bin/env bash
# Tests a dist/ directory (scripts/release.sh) as users get it, where no Rust toolchain is:
#
#   scripts/test-release.sh dist
#
# Runs in a clean environment (`env -i`, PATH=/usr/bin:/bin plus the directories it makes;
# it first checks that cargo and rustc are not on that PATH) with a temporary HOME:
#   1. the files: SHA256SUMS checks, and the versions agree (scripts/release-check.py dist);
#   2. the tarball, unpacked into a temporary prefix and put on PATH: `urlkey --version`,
#      `urlkey key` keys a URL, the completions it ships are the binary's and the bash one is
#      valid bash (`bash -n`), a man page per command (those `urlkey man --dir` writes);
#   3. a fresh venv (/usr/bin/python3): `pip install` of the two wheels, the urlkey one with
#      its `spark` extra, beside polars==2.1.0, duckdb==2.0.1, pytest and pyarrow from the
#      registry; then the whole pytest suite of crates/urlkey-py/tests (Python API, golden
#      fixtures, CLI equivalence, Parquet, Spark, Polars, DuckDB, cross-engine), copied out of
#      the source tree so that `import urlkey` is the installed wheel, with URLKEY_BIN = the
#      tarball's binary and URLKEY_DUCKDB_EXTENSION = dist's extension;
#   4. DuckDB: `INSTALL '<dist>/urlkey.duckdb_extension'; LOAD urlkey;` in a fresh database
#      (allow_unsigned_extensions) keys a URL as the binary does.
# Any failure fails the script; nothing is skipped. Java (for PySpark) must be in /usr/bin.
#
# Environment: URLKEY_SHARED (default ../shared beside the repository: the datasets and WPT
# data the suite reads); pip's settings (PIP_*, proxies, certificates) and its cache
# (PIP_CACHE_DIR, default ~/.cache/pip) are passed into the clean environment.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

fail() {
  echo "test-release: $*" >&2
  exit 1
}
say() { echo "== test-release: $*" >&2; }

[ $# = 1 ] || fail "usage: scripts/test-release.sh DIST"
DIST="$(realpath "$1")" || fail "no directory $1"
[ -d "$DIST" ] || fail "$DIST is not a directory"

if [ -z "${URLKEY_TEST_RELEASE_WORK:-}" ]; then
  SHARED="$(realpath -m "${URLKEY_SHARED:-$ROOT/../shared}")"
  [ -d "$SHARED/datasets" ] && [ -d "$SHARED/wpt" ] \
    || fail "no datasets/ and wpt/ in $SHARED: set URLKEY_SHARED to the shared data directory"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  mkdir -p "$WORK/home" "$WORK/tmp"
  pass=()
  while IFS='=' read -r name _; do
    case "$name" in
      PIP_* | http_proxy | https_proxy | no_proxy | HTTP_PROXY | HTTPS_PROXY | NO_PROXY | SSL_CERT_FILE | SSL_CERT_DIR | REQUESTS_CA_BUNDLE)
        pass+=("$name=${!name}") ;;
    esac
  done < <(env)
  t0=$(date +%s)
  set +e
  env -i PATH=/usr/bin:/bin HOME="$WORK/home" TMPDIR="$WORK/tmp" LANG=C.UTF-8 \
    PIP_CACHE_DIR="${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pip}" "${pass[@]}" \
    URLKEY_TEST_RELEASE_WORK="$WORK" URLKEY_SHARED="$SHARED" \
    /bin/bash "$ROOT/scripts/test-release.sh" "$DIST"
  status=$?
  set -e
  [ "$status" = 0 ] || fail "failed (exit $status) after $(( $(date +%s) - t0 )) s"
  say "all passed in $(( $(date +%s) - t0 )) s"
  exit 0
fi

# From here: the clean environment.
WORK="$URLKEY_TEST_RELEASE_WORK"
for tool in cargo rustc; do
  if command -v "$tool" >/dev/null; then fail "$tool is on PATH ($(command -v "$tool")): this test is of a machine without Rust"; fi
done
say "clean environment: PATH=$PATH, no cargo, no rustc"

say "1. the files of $DIST"
(cd "$DIST" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not check"
VERSION="$(/usr/bin/python3 "$ROOT/scripts/release-check.py" dist "$DIST")" || fail "the files do not agree (above)"

say "2. the tarball"
tarballs=("$DIST"/urlkey-*-x86_64-unknown-linux-gnu.tar.gz)
mkdir -p "$WORK/prefix"
tar -C "$WORK/prefix" -xzf "${tarballs[0]}" || fail "cannot unpack $(basename "${tarballs[0]}")"
NAME="$(basename "${tarballs[0]}" .tar.gz)"
PKG="$WORK/prefix/$NAME"
[ "$(ls "$WORK/prefix")" = "$NAME" ] || fail "the tarball holds $(ls "$WORK/prefix" | tr '\n' ' ')instead of one directory $NAME"
for f in urlkey README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE complete/urlkey.bash complete/_urlkey complete/urlkey.fish doc/man/urlkey.1; do
  [ -s "$PKG/$f" ] || fail "the tarball has no $f"
done
export PATH="$PKG:$PATH"
[ "$(command -v urlkey)" = "$PKG/urlkey" ] || fail "urlkey on PATH is $(command -v urlkey), not the tarball's"
version_line="$(urlkey --version | head -n 1)"
[ "$version_line" = "urlkey $VERSION" ] || fail "urlkey --version says '$version_line', the release is $VERSION"
urlkey --version | grep -q '^Public Suffix List: ' || fail "urlkey --version does not name its Public Suffix List snapshot"
if ldd "$PKG/urlkey" | grep -q 'not found'; then fail "the binary needs libraries this machine lacks: $(ldd "$PKG/urlkey")"; fi
URL='https://Example.COM/a/b/?utm_source=news&id=7#top'
key="$(printf '%s\n' "$URL" | urlkey key --quiet --policy citation@1 --format key)" || fail "urlkey key failed"
[ "$key" = 'https://example.com/a/b?id=7' ] || fail "urlkey key gave '$key' for $URL"
for pair in bash:urlkey.bash zsh:_urlkey fish:urlkey.fish; do
  urlkey completions "${pair%%:*}" | cmp -s - "$PKG/complete/${pair#*:}" \
    || fail "complete/${pair#*:} is not what \`urlkey completions ${pair%%:*}\` prints"
done
bash -n "$PKG/complete/urlkey.bash" || fail "complete/urlkey.bash is not valid bash"
grep -q 'urlkey' "$PKG/complete/_urlkey" && grep -q 'complete -c urlkey' "$PKG/complete/urlkey.fish" \
  || fail "the zsh or fish completions do not complete urlkey"
urlkey man --dir "$WORK/man" >"$WORK/man.list" || fail "urlkey man --dir failed"
[ -s "$WORK/man.list" ] || fail "urlkey man --dir listed no page"
(cd "$WORK/man" && ls) >"$WORK/man.want"
(cd "$PKG/doc/man" && ls) | cmp -s - "$WORK/man.want" || fail "doc/man/ is not the pages of \`urlkey man --dir\`: $(ls "$PKG/doc/man" | tr '\n' ' ')"
for page in "$PKG"/doc/man/*.1; do
  grep -q '^\.TH ' "$page" || fail "$(basename "$page") is not a man page (no .TH)"
done
say "   $NAME: --version, a key, completions (bash -n), $(wc -l <"$WORK/man.want") man pages"

say "3. a fresh venv with the wheels"
/usr/bin/python3 -m venv "$WORK/venv" || fail "/usr/bin/python3 -m venv failed"
export PATH="$WORK/venv/bin:$PATH"
py_wheel=("$DIST"/urlkey-*.whl)
pl_wheel=("$DIST"/urlkey_polars-*.whl)
t_pip=$(date +%s)
# As the README says to install them, with the test tools beside them. The Spark extra's
# pyspark and pandas (< 3: PySpark 4.x's own bound) come from the registry too.
python -m pip install --quiet --disable-pip-version-check "${py_wheel[0]}[spark]" "${pl_wheel[0]}" \
  "polars==2.1.0" "duckdb==2.0.1" pytest pyarrow "pandas>=2.2,<3" \
  || fail "pip install of the wheels failed"
say "   installed in $(( $(date +%s) - t_pip )) s"
command -v java >/dev/null || fail "no java in /usr/bin: the Spark tests need Java 17+"

# The suite out of the source tree: a view of the repository whose crates/urlkey-py holds
# only the tests (the source package is absent), with ../shared beside it as the suite
# expects; data files (golden fixtures, docs, examples) are read through links.
VIEW="$WORK/view/repo"
mkdir -p "$VIEW/crates/urlkey-py"
for entry in "$ROOT"/* "$ROOT"/.gitignore; do
  case "$(basename "$entry")" in crates | target | dist) continue ;; esac
  ln -s "$entry" "$VIEW/$(basename "$entry")"
done
for crate in "$ROOT"/crates/*; do
  [ "$(basename "$crate")" = urlkey-py ] || ln -s "$crate" "$VIEW/crates/$(basename "$crate")"
done
cp -r "$ROOT/crates/urlkey-py/tests" "$VIEW/crates/urlkey-py/tests"
ln -s "$URLKEY_SHARED" "$WORK/view/shared"
where="$(cd "$VIEW/crates/urlkey-py/tests" && python -c 'import urlkey, urlkey_polars; print(urlkey.__file__); print(urlkey_polars.__file__)')" \
  || fail "the installed packages do not import"
while read -r file; do
  case "$file" in "$WORK/venv/"*) ;; *) fail "imported $file, not the installed wheel" ;; esac
done <<<"$where"
t_py=$(date +%s)
set +e
(cd "$VIEW/crates/urlkey-py" && URLKEY_BIN="$PKG/urlkey" URLKEY_DUCKDB_EXTENSION="$DIST/urlkey.duckdb_extension" \
  PYSPARK_PYTHON="$WORK/venv/bin/python" PYSPARK_DRIVER_PYTHON="$WORK/venv/bin/python" \
  python -m pytest -p no:cacheprovider -q tests)
status=$?
set -e
[ "$status" = 5 ] && fail "pytest collected no tests"
[ "$status" = 0 ] || fail "the pytest suite failed on the installed wheels (exit $status)"
say "   pytest passed in $(( $(date +%s) - t_py )) s"

say "4. DuckDB: INSTALL and LOAD from the file"
python - "$DIST/urlkey.duckdb_extension" "$URL" "$key" "$WORK/duckdb-extensions" <<'PY' || fail "the DuckDB extension does not INSTALL and LOAD"
import sys
import duckdb

ext, url, want, ext_dir = sys.argv[1:]
con = duckdb.connect(config={"allow_unsigned_extensions": "true", "extension_directory": ext_dir})
con.execute(f"INSTALL '{ext}'")
con.execute("LOAD urlkey")
got = con.execute("SELECT urlkey_key(?, 'citation@1')", [url]).fetchone()[0]
assert got == want, (got, want)
loaded = con.execute("SELECT loaded, installed FROM duckdb_extensions() WHERE extension_name = 'urlkey'").fetchall()
assert loaded == [(True, True)], loaded
print(f"== test-release:    duckdb {duckdb.__version__}: INSTALL '{ext}'; LOAD urlkey; key {got}", file=sys.stderr)
PY
