#!/usr/bin/env bash
# Builds the DuckDB extension of urlkey (crates/urlkey-duckdb) and writes it, with the
# metadata footer DuckDB checks at LOAD, to target/duckdb/urlkey.duckdb_extension.
#
#   bash scripts/build-duckdb-extension.sh           # cargo build --release -p urlkey-duckdb
#   URLKEY_DUCKDB_PROFILE=dev bash scripts/build-duckdb-extension.sh   # debug build
#   URLKEY_DUCKDB_PROFILE=test bash scripts/build-duckdb-extension.sh  # cargo test's build (tests)
#
# The footer is the one of duckdb/extension-ci-tools' append_extension_metadata.py,
# written here in Python (stdlib only): a 22-byte WebAssembly custom-section header
# ("duckdb_signature"), eight 32-byte NUL-padded fields written last to first
# (three unused, abi type, extension version, duckdb version, platform, the magic "4"),
# then 256 zero bytes where a signed build has its signature. Fields: ABI type C_STRUCT
# (the C extension API), platform linux_amd64, duckdb version = the C API version the
# entrypoint asks for (v1.2.0, crates/urlkey-duckdb/src/entry.rs), extension version =
# the crate's version. An unsigned extension loads only with allow_unsigned_extensions.
#
# A release build is stripped (`strip --strip-unneeded`, binutils) before the footer goes on:
# the workspace's release profile keeps line tables (debug = "line-tables-only"), which
# made the extension 73 MB instead of 2 MB. The entrypoint is a dynamic symbol and stays.
#
# Environment: URLKEY_DUCKDB_PROFILE (release, the default, dev or test); URLKEY_DUCKDB_STRIP
# (1 by default for release, 0 for dev: 0 keeps the debug information); CARGO_TARGET_DIR.
# Prints the path of the extension on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

fail() {
  echo "build-duckdb-extension: $*" >&2
  exit 1
}

PROFILE="${URLKEY_DUCKDB_PROFILE:-release}"
case "$PROFILE" in
  release) DIR=release STRIP="${URLKEY_DUCKDB_STRIP:-1}" ;;
  dev) DIR=debug STRIP="${URLKEY_DUCKDB_STRIP:-0}" ;;
  # The test profile is `cargo test --workspace`'s own build (CI's layer 1): the crate's
  # integration test makes it build the extension, with the workspace's features. `cargo
  # build -p urlkey-duckdb` would resolve the features of this crate alone and compile 78 of
  # its dependencies again.
  test) DIR=debug STRIP="${URLKEY_DUCKDB_STRIP:-0}" ;;
  *) fail "URLKEY_DUCKDB_PROFILE=$PROFILE: use release, dev or test" ;;
esac
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux_amd64 ;;
  *) fail "only linux_amd64 is built and tested here (this is $(uname -s)-$(uname -m))" ;;
esac
# The C API version of the entrypoint (its min_duckdb_version): one place to change both.
CAPI_VERSION="$(sed -n 's/.*min_duckdb_version = "\(v[0-9.]*\)".*/\1/p' crates/urlkey-duckdb/src/entry.rs)"
[ -n "$CAPI_VERSION" ] || fail "no min_duckdb_version in crates/urlkey-duckdb/src/entry.rs"
VERSION="$(cargo pkgid -p urlkey-duckdb | sed 's/.*[#@]//')"
[ -n "$VERSION" ] || fail "cannot read the version of urlkey-duckdb (cargo pkgid)"

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if [ "$PROFILE" = test ]; then
  echo "== duckdb extension: cargo test --workspace --no-run" >&2
  cargo test --workspace --no-run --quiet >&2 || fail "cargo test --workspace --no-run failed"
else
  echo "== duckdb extension: cargo build --profile $PROFILE -p urlkey-duckdb" >&2
  cargo build --profile "$PROFILE" -p urlkey-duckdb >&2 || fail "cargo build -p urlkey-duckdb failed"
fi
LIB="$TARGET/$DIR/liburlkey_duckdb.so"
# cargo copies up to target/debug only what was asked for (the tests); the extension that
# the tests' build made stays in deps/, under its own name (a cdylib's has no hash).
[ "$PROFILE" = test ] && LIB="$TARGET/$DIR/deps/liburlkey_duckdb.so"
[ -f "$LIB" ] || fail "the build left no $LIB"

OUT_DIR="$TARGET/duckdb"
mkdir -p "$OUT_DIR"
OUT="$OUT_DIR/urlkey.duckdb_extension"
if [ "$STRIP" = 1 ]; then
  command -v strip >/dev/null || fail "no strip on PATH (binutils); URLKEY_DUCKDB_STRIP=0 keeps the debug information"
  strip --strip-unneeded -o "$OUT_DIR/liburlkey_duckdb.stripped.so" "$LIB" || fail "strip $LIB failed"
  LIB="$OUT_DIR/liburlkey_duckdb.stripped.so"
fi
python3 - "$LIB" "$OUT" "$PLATFORM" "$CAPI_VERSION" "$VERSION" <<'PY' || fail "cannot write $OUT"
import os
import sys

lib, out, platform, duckdb_version, ext_version = sys.argv[1:]


def field(text: str) -> bytes:
    raw = text.encode("ascii")
    if len(raw) > 32:
        sys.exit(f"footer field {text!r} is longer than 32 bytes")
    return raw.ljust(32, b"\0")


# A WebAssembly custom section (id 0) of 531 bytes (LEB128 0x93 0x04) named
# "duckdb_signature" (16 bytes), whose payload is 512 bytes (LEB128 0x80 0x04): the
# 256 bytes of fields and the 256 of the signature. Native builds carry it too.
header = bytes([0, 0x93, 0x04, 16]) + b"duckdb_signature" + bytes([0x80, 0x04])
fields = [
    field(""),
    field(""),
    field(""),
    field("C_STRUCT"),
    field(ext_version),
    field(duckdb_version),
    field(platform),
    field("4"),
]
footer = header + b"".join(fields) + bytes(256)
assert len(footer) == 534, len(footer)

tmp = out + ".tmp"
with open(lib, "rb") as src, open(tmp, "wb") as dst:
    while chunk := src.read(1 << 20):
        dst.write(chunk)
    dst.write(footer)
os.replace(tmp, out)
print(
    f"== duckdb extension: {out} ({os.path.getsize(out)} bytes; C_STRUCT, {platform}, "
    f"duckdb {duckdb_version}, version {ext_version})",
    file=sys.stderr,
)
PY
[ "$STRIP" = 1 ] && rm -f "$OUT_DIR/liburlkey_duckdb.stripped.so"
echo "$OUT"
