#!/usr/bin/env bash
# Checks that the workspace's crates package for crates.io and that their docs build without
# warnings (CONTRIBUTING.md, "Packaging"):
#
#   1. every member either publishes (PUBLISHED below) or says `publish = false`; each
#      publishable crate has crates.io's metadata (description, licence, repository,
#      homepage, documentation, a readme that exists, 1-5 valid keywords, 1-5 categories
#      among crates.io's slugs), its version is the workspace's, and it depends on this
#      workspace's crates only as `=VERSION` of publishable ones (`cargo metadata`);
#   2. `cargo package` of the publishable crates: no warning but the tests and examples
#      left out on purpose; each .crate under crates.io's 10 MB, carrying its README and
#      both licence files;
#   3. `cargo doc --workspace --no-deps` with RUSTDOCFLAGS="-D warnings".
#
#   bash scripts/check-packaging.sh            # package with --no-verify (no build)
#   bash scripts/check-packaging.sh --verify   # and cargo's verify build of each .crate
#   bash scripts/check-packaging.sh --manifests  # step 1 alone (a second: .ci/run runs it)
#
# --verify builds every packaged crate from its .crate alone, as crates.io's users will
# (nothing outside a crate's directory is there), into target/debug: 12.5 min here the
# first time (2 cores, load 5), 3.5 min once its dependencies are built. The release script
# runs it that way. Not in .ci/run: after CI's test build, `cargo doc` still has to check
# every dependency in check mode (175 s here, load 5); once that is done, a run without
# --verify takes 20-30 s (most of it cargo package's index update).
# Works on a dirty tree (`--allow-dirty`): it checks the manifests and files, not the VCS.
set -euo pipefail
cd "$(dirname "$0")/.."

# The crates that publish, in dependency order (the order `cargo publish` takes them).
# A new member is either added here or says `publish = false` (the check fails otherwise).
PUBLISHED=(urlkey urlkey-batch urlkey-fetch urlkey-ledger urlkey-redirects urlkey-serve urlkey-cli)

verify=--no-verify manifests_only=0
case "${1:-}" in
  --verify) verify= ;;
  --manifests) manifests_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--verify | --manifests]" >&2; exit 2 ;;
esac

fail() {
  echo "check-packaging: $*" >&2
  exit 1
}
t0=$(date +%s)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo metadata --no-deps --format-version 1 > "$tmp/metadata.json"

# 1. The manifests.
python3 - "$tmp/metadata.json" "${PUBLISHED[@]}" <<'EOF' || fail "manifests: see above"
import json, os, re, sys

meta = json.load(open(sys.argv[1]))
published = sys.argv[2:]
# crates.io's category slugs (rust-lang/crates.io, src/boot/categories.toml, read 2026-12).
CATEGORIES = set("""
algorithms api-bindings asynchronous authentication caching command-line-interface
command-line-utilities compression computer-vision config concurrency cryptography
cryptography::cryptocurrencies database database-implementations data-structures
date-and-time development-tools development-tools::build-utils
development-tools::cargo-plugins development-tools::debugging development-tools::ffi
development-tools::procedural-macro-helpers development-tools::profiling
development-tools::testing email embedded emulators encoding external-ffi-bindings
filesystem game-engines game-development games graphics gui hardware-support
internationalization localization mathematics memory-management multimedia
multimedia::audio multimedia::video multimedia::images multimedia::encoding
network-programming no-std os os::linux-apis os::macos-apis os::unix-apis
os::windows-apis parser-implementations parsing rendering rendering::engine
rendering::graphics-api rendering::data-formats rust-patterns science science::robotics
simulation template-engine text-editors text-processing value-formatting visualization
wasm web-programming web-programming::http-client web-programming::http-server
web-programming::websocket
""".split())
# crates.io's keyword rule: ASCII, a letter first, then letters, digits, _ - +; 20 at most.
KEYWORD = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]{0,19}$")

members = {p["name"]: p for p in meta["packages"] if p["id"] in meta["workspace_members"]}
root = meta["workspace_root"]
versions = {p["version"] for p in members.values()}
problems = []
if len(versions) != 1:
    problems.append(f"the members' versions differ ({sorted(versions)}): each takes version.workspace = true")
version = next(iter(versions))
for name in published:
    if name not in members:
        problems.append(f"{name}: listed in PUBLISHED but not a workspace member")
for name, p in sorted(members.items()):
    publishes = p["publish"] != []
    if publishes and name not in published:
        problems.append(f"{name}: publishes (no `publish = false`) but is not in PUBLISHED of scripts/check-packaging.sh: decide (CONTRIBUTING.md, \"Packaging\")")
    if not publishes and name in published:
        problems.append(f"{name}: in PUBLISHED but says `publish = false`")
    if not publishes:
        continue
    for field in ("description", "license", "repository", "homepage", "documentation", "readme"):
        if not p.get(field):
            problems.append(f"{name}: no `{field}`")
    readme = p.get("readme")
    if readme and not os.path.isfile(os.path.join(os.path.dirname(p["manifest_path"]), readme)):
        problems.append(f"{name}: readme {readme} does not exist")
    doc = p.get("documentation") or ""
    has_bin = any("bin" in t["kind"] for t in p["targets"])
    if not has_bin and doc != f"https://docs.rs/{name}":
        problems.append(f"{name}: documentation is {doc!r}, not https://docs.rs/{name}")
    if has_bin and not doc.startswith("https://"):
        problems.append(f"{name}: documentation {doc!r} is not a URL")
    if "MIT" not in (p.get("license") or "") or "Apache-2.0" not in (p.get("license") or ""):
        problems.append(f"{name}: licence {p.get('license')!r} is not MIT OR Apache-2.0")
    kws = p.get("keywords") or []
    if not 1 <= len(kws) <= 5:
        problems.append(f"{name}: {len(kws)} keywords (crates.io takes 1 to 5)")
    problems += [f"{name}: keyword {k!r} is not one crates.io takes" for k in kws if not KEYWORD.match(k)]
    cats = p.get("categories") or []
    if not 1 <= len(cats) <= 5:
        problems.append(f"{name}: {len(cats)} categories (crates.io takes 1 to 5)")
    problems += [f"{name}: category {c!r} is not a crates.io slug" for c in cats if c not in CATEGORIES]
    for d in p["dependencies"]:
        if d["name"] not in members or d["kind"] == "dev":
            # A dev-dependency without a version is dropped from the package.
            if d["kind"] == "dev" and d["name"] in members and d["req"] != "*":
                problems.append(f"{name}: dev-dependency {d['name']} has a version: cargo would keep it, and it would have to publish first")
            continue
        if d["name"] not in published:
            problems.append(f"{name}: depends on {d['name']}, which does not publish")
        if d["req"] != f"={version}":
            problems.append(f"{name}: depends on {d['name']} as {d['req']!r}, not ={version} (the workspace's [workspace.dependencies] entry)")
for line in problems:
    print(f"check-packaging: {line}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
echo "check-packaging: manifests of ${#PUBLISHED[@]} publishable crates checked"
[ "$manifests_only" = 1 ] && exit 0

# 2. The packages. `--workspace` would also package the members that never publish.
excludes=()
while read -r name; do excludes+=(--exclude "$name"); done < <(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for p in m["packages"]:
    if p["id"] in m["workspace_members"] and p["publish"] == []:
        print(p["name"])' "$tmp/metadata.json")
package() {
  nice -n 10 cargo package --workspace "${excludes[@]}" "$@" --allow-dirty 2> "$tmp/package.log" \
    || { cat "$tmp/package.log" >&2; fail "cargo package failed"; }
}
package --no-verify
if [ -z "$verify" ]; then
  # Cargo's verify builds each crate against its siblings unpacked from a local registry
  # into $CARGO_HOME/registry/src/-HASH/NAME-VERSION, and reuses an unpacked copy, and
  # what it compiled from it, as long as the version is the same (a registry's crates are
  # taken as immutable): measured here, a second run built urlkey-cli against the
  # urlkey-redirects of the first (it failed to compile; a stale copy that still compiles
  # would pass unseen). So every unpacked copy that differs from the fresh .crate goes,
  # and so do the fingerprints of what was compiled from one (2 min here to rebuild).
  python3 - "$tmp/metadata.json" "${CARGO_HOME:-$HOME/.cargo}" "${PUBLISHED[@]}" <<'PY'
import glob, json, os, shutil, sys, tarfile

meta = json.load(open(sys.argv[1]))
version = next(p["version"] for p in meta["packages"] if p["id"] in meta["workspace_members"])
for name in sys.argv[3:]:
    crate = os.path.join(meta["target_directory"], "package", f"{name}-{version}.crate")
    with tarfile.open(crate) as t:
        files = {m.name.split("/", 1)[1]: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
    # Local registries have no host: their directories are named "-HASH".
    for d in glob.glob(os.path.join(sys.argv[2], "registry", "src", "-*", f"{name}-{version}")):
        def same(rel, data):
            try:
                with open(os.path.join(d, rel), "rb") as f:
                    return f.read() == data
            except OSError:
                return False
        if not all(same(rel, data) for rel, data in files.items()):
            print(f"check-packaging: removed a stale unpacked copy: {d}", file=sys.stderr)
            shutil.rmtree(d)
# What was compiled from an unpacked copy (its dep-info names the local registry's
# directory) is rebuilt: its files carry the .crate's fixed mtimes, so cargo never finds
# them newer than the build.
for out in glob.glob(os.path.join(meta["target_directory"], "*")):
    for dep_info in glob.glob(os.path.join(out, "deps", "urlkey*.d")) + glob.glob(
        os.path.join(out, "build", "urlkey-*", "*.d")
    ):
        with open(dep_info, errors="replace") as f:
            if "/registry/src/-" not in f.read():
                continue
        unit_hash = os.path.basename(dep_info)[:-2].rsplit("-", 1)[1]
        for d in glob.glob(os.path.join(out, ".fingerprint", f"*-{unit_hash}")):
            shutil.rmtree(d)
PY
  package
fi
# Tests and examples are left out on purpose (each crate's `exclude`); any other warning
# (missing metadata, a file that will not be packaged...) fails the check.
warnings=$(grep '^warning:' "$tmp/package.log" \
  | grep -Ev '^warning: ignoring (test|example|bench) `[^`]+` as `[^`]+` is not included in the published package$' || true)
[ -z "$warnings" ] || { echo "$warnings" >&2; fail "cargo package warned (above)"; }
python3 - "$tmp/metadata.json" "${PUBLISHED[@]}" <<'EOF' || fail "packages: see above"
import json, os, sys, tarfile

meta = json.load(open(sys.argv[1]))
version = next(p["version"] for p in meta["packages"] if p["id"] in meta["workspace_members"])
problems = []
for name in sys.argv[2:]:
    path = os.path.join(meta["target_directory"], "package", f"{name}-{version}.crate")
    size = os.path.getsize(path)
    # crates.io refuses a .crate over 10 MB.
    if size >= 10 * 1000 * 1000:
        problems.append(f"{name}: {size} bytes, over crates.io's 10 MB: exclude big test data")
    with tarfile.open(path) as t:
        files = {m.name.split("/", 1)[1] for m in t.getmembers() if m.isfile()}
    for needed in ("Cargo.toml", "README.md", "LICENSE-MIT", "LICENSE-APACHE"):
        if needed not in files:
            problems.append(f"{name}: the package has no {needed}")
    print(f"check-packaging: {name}-{version}.crate {size / 1024:.0f} KiB, {len(files)} files")
for line in problems:
    print(f"check-packaging: {line}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

# 3. The docs, as docs.rs builds them, with warnings as errors.
RUSTDOCFLAGS="-D warnings" nice -n 10 cargo doc --workspace --no-deps --quiet \
  || fail "cargo doc warned or failed (above)"
echo "check-packaging: ok ($(( $(date +%s) - t0 )) s${verify:+; packages not built: --verify builds them})"
