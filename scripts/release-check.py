#!/usr/bin/env python3
"""The version checks of a release (scripts/release.sh; docs/release.md).

    release-check.py source ROOT [--tag vX.Y.Z]
        The version is written once, in ROOT/Cargo.toml's [workspace.package]. Refuses a
        member crate or the Polars plugin (its own workspace) with another version, a Python
        package that states a static version (maturin takes it from Cargo), a tag that is not
        `v` + that version, and, given a tag, a CHANGELOG.md without its `## [X.Y.Z] - date`
        section. Prints the version.

    release-check.py footer FILE
        Prints the metadata footer of a DuckDB extension as JSON (the fields
        scripts/build-duckdb-extension.sh writes).

    release-check.py dist DIR
        Checks a dist/ directory against its dist-manifest.json: one tarball, the two wheels
        and the DuckDB extension, each of the manifest's version (wheel METADATA, extension
        footer), the wheels abi3 and manylinux-tagged as auditwheel found them, the
        extension's metadata file equal to its footer, SHA256SUMS listing every other file.
        Prints the version.

Standard library only: it runs in test-release.sh's clean environment too.
Exit 0 on success, 1 with a message on stderr naming what to fix.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
import zipfile
from pathlib import Path

TARGET = "x86_64-unknown-linux-gnu"
# A tag is v + a SemVer version (pre-releases allowed: v1.0.0-rc.1).
TAG = re.compile(r"v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)")
# The oldest glibc the release files run on, as README.md and docs/release.md state it: the
# binary needs GLIBC_2.35 (hypotf, through plotters), the wheels manylinux_2_34. A build that
# needs a newer one is refused until the docs say so.
GLIBC_FLOOR = (2, 35)
# The label a build without a tag carries in its file names (docs/release.md).
LABELS = {"release": "", "snapshot": "-snapshot", "ci": "-ci"}


class Refused(Exception):
    pass


def toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise Refused(f"cannot read {path}: {e}") from e


def workspace_version(root: Path) -> str:
    version = toml(root / "Cargo.toml").get("workspace", {}).get("package", {}).get("version")
    if not isinstance(version, str):
        raise Refused(f"{root / 'Cargo.toml'} has no [workspace.package] version: the version is written there once")
    return version


def check_source(root: Path, tag: str | None) -> str:
    version = workspace_version(root)
    manifest = toml(root / "Cargo.toml")["workspace"]
    crates = [root / m / "Cargo.toml" for m in manifest.get("members", [])]
    # The Polars plugin is its own workspace (excluded), so it cannot inherit: check its copy.
    crates.append(root / "crates" / "urlkey-polars" / "Cargo.toml")
    for path in crates:
        v = toml(path).get("package", {}).get("version")
        if isinstance(v, dict) and v.get("workspace") is True:
            continue
        if v != version:
            raise Refused(
                f"{path.relative_to(root)} has version {v!r}, the workspace {version!r}: "
                "write `version.workspace = true` (or, for the Polars plugin, the workspace's version)"
            )
    # Path dependencies that state a version (the pins crates.io needs) pin this one.
    for path in [root / "Cargo.toml", *crates]:
        doc = toml(path)
        tables = [doc.get("workspace", {}).get("dependencies", {})]
        tables += [doc.get(k, {}) for k in ("dependencies", "dev-dependencies", "build-dependencies")]
        for deps in tables:
            for name, dep in deps.items():
                if isinstance(dep, dict) and "path" in dep and "version" in dep:
                    if dep["version"].lstrip("=^") != version:
                        raise Refused(
                            f"{path.relative_to(root)}: the path dependency {name} asks for version "
                            f"{dep['version']!r}, the workspace is {version!r}: pin ={version}"
                        )
    for py in ["crates/urlkey-py/pyproject.toml", "crates/urlkey-polars/pyproject.toml"]:
        project = toml(root / py).get("project", {})
        if "version" in project or "version" not in project.get("dynamic", []):
            raise Refused(f"{py} states its own version: keep `dynamic = [\"version\"]` (maturin takes Cargo's)")
    if tag is not None:
        m = TAG.fullmatch(tag)
        if not m:
            raise Refused(f"tag {tag!r} is not v + a version (v{version})")
        if m.group(1) != version:
            raise Refused(
                f"tag {tag} differs from the workspace version {version} (Cargo.toml "
                "[workspace.package]): set the version there, or tag v" + version
            )
        changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
        heading = re.compile(r"^## \[" + re.escape(version) + r"\] - \d{4}-\d{2}-\d{2}$", re.M)
        if not heading.search(changelog):
            raise Refused(
                f"CHANGELOG.md has no `## [{version}] - YYYY-MM-DD` section: move the "
                "entries of `## [Unreleased]` under it (the release entry)"
            )
    return version


def footer(path: Path) -> dict:
    """The fields of a DuckDB extension's metadata footer (the last 534 bytes)."""
    data = path.read_bytes()
    if len(data) < 534 or data[-534:-512][4:20] != b"duckdb_signature":
        raise Refused(f"{path} has no DuckDB metadata footer")
    raw = data[-512:-256]
    fields = [raw[i : i + 32].rstrip(b"\0").decode("ascii") for i in range(0, 256, 32)]
    # Written last to first: three unused, abi type, extension version, duckdb version,
    # platform, the magic "4".
    _, _, _, abi, ext_version, duckdb_version, platform, magic = fields
    if magic != "4":
        raise Refused(f"{path}: footer magic {magic!r}, not '4'")
    return {
        "abi_type": abi,
        "extension_version": ext_version,
        "duckdb_version": duckdb_version,
        "platform": platform,
    }


def wheel_version(path: Path) -> str:
    with zipfile.ZipFile(path) as z:
        meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        if len(meta) != 1:
            raise Refused(f"{path.name} has {len(meta)} METADATA files")
        for line in z.read(meta[0]).decode("utf-8").splitlines():
            if line.startswith("Version: "):
                return line[len("Version: ") :]
    raise Refused(f"{path.name}: no Version in its METADATA")


def one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    if len(found) != 1:
        raise Refused(f"{dist}: {len(found)} files match {pattern}, one expected")
    return found[0]


def check_dist(dist: Path) -> str:
    try:
        manifest = json.loads((dist / "dist-manifest.json").read_text(encoding="utf-8"))
        version, kind = manifest["version"], manifest["kind"]
    except (OSError, ValueError, KeyError) as e:
        raise Refused(f"{dist}/dist-manifest.json is missing or has no version and kind: {e}") from e
    if kind not in LABELS:
        raise Refused(f"dist-manifest.json: kind {kind!r} is not one of {sorted(LABELS)}")
    if kind == "release" and manifest.get("tag") != "v" + version:
        raise Refused(f"dist-manifest.json: a release of {version} needs the tag v{version}")
    labelled = version + LABELS[kind]
    tarball = one(dist, "urlkey-*.tar.gz")
    if tarball.name != f"urlkey-{labelled}-{TARGET}.tar.gz":
        raise Refused(f"{tarball.name}: expected urlkey-{labelled}-{TARGET}.tar.gz")
    for name, entry in [("urlkey", "urlkey_wheel"), ("urlkey_polars", "polars_wheel")]:
        wheel = one(dist, f"{name}-*.whl")
        m = re.fullmatch(re.escape(name) + r"-([^-]+)-cp39-abi3-(manylinux_\d+_\d+_x86_64)\.whl", wheel.name)
        if not m:
            raise Refused(f"{wheel.name}: not an abi3 (cp39-abi3) manylinux x86_64 wheel")
        if m.group(1) != version or wheel_version(wheel) != version:
            raise Refused(f"{wheel.name}: version {m.group(1)} / METADATA {wheel_version(wheel)}, the release {version}")
        if tuple(int(x) for x in m.group(2).split("_")[1:3]) > GLIBC_FLOOR:
            raise Refused(f"{wheel.name} needs glibc {m.group(2)}, newer than the stated floor {GLIBC_FLOOR}")
        recorded = manifest.get(entry, {})
        if recorded.get("file") != wheel.name or recorded.get("auditwheel_tag") != m.group(2):
            raise Refused(f"{wheel.name}: dist-manifest.json records {recorded}, not this file and tag {m.group(2)}")
    needs = manifest.get("tarball", {}).get("glibc_floor", "")
    m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", needs)
    if not m:
        raise Refused(f"dist-manifest.json: tarball.glibc_floor {needs!r} is not GLIBC_X.Y")
    if (int(m.group(1)), int(m.group(2))) > GLIBC_FLOOR:
        raise Refused(f"the binary needs {needs}, newer than the stated floor {GLIBC_FLOOR}: "
                      "build on an older system, or change the floor in README.md and docs/release.md")
    ext = dist / "urlkey.duckdb_extension"
    if not ext.is_file():
        raise Refused(f"{dist} has no urlkey.duckdb_extension (DuckDB's LOAD urlkey needs that name)")
    fields = footer(ext)
    if fields["extension_version"] != version:
        raise Refused(f"{ext.name}: footer version {fields['extension_version']}, the release {version}")
    if fields["abi_type"] != "C_STRUCT" or fields["platform"] != "linux_amd64":
        raise Refused(f"{ext.name}: footer {fields}, expected C_STRUCT on linux_amd64")
    meta = json.loads((dist / "urlkey.duckdb_extension.json").read_text(encoding="utf-8"))
    if {k: meta.get(k) for k in fields} != fields:
        raise Refused(f"urlkey.duckdb_extension.json says {meta}, its footer {fields}")
    sums = {}
    for line in (dist / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        sums[name] = digest
    files = sorted(p.name for p in dist.iterdir() if p.is_file() and p.name != "SHA256SUMS")
    if sorted(sums) != files:
        raise Refused(f"SHA256SUMS lists {sorted(sums)}, the directory holds {files}")
    for name in files:
        if hashlib.sha256((dist / name).read_bytes()).hexdigest() != sums[name]:
            raise Refused(f"SHA256SUMS: {name} does not match its sum")
    return version


def main(argv: list[str]) -> int:
    try:
        if len(argv) >= 2 and argv[0] == "source":
            tag = None
            if argv[2:3] == ["--tag"] and len(argv) == 4:
                tag = argv[3]
            elif len(argv) != 2:
                raise Refused("usage: release-check.py source ROOT [--tag vX.Y.Z]")
            print(check_source(Path(argv[1]), tag))
        elif len(argv) == 2 and argv[0] == "footer":
            print(json.dumps(footer(Path(argv[1])), indent=2, sort_keys=True))
        elif len(argv) == 2 and argv[0] == "dist":
            print(check_dist(Path(argv[1])))
        else:
            raise Refused("usage: release-check.py source ROOT [--tag vX.Y.Z] | footer FILE | dist DIR")
    except Refused as e:
        print(f"release-check: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
