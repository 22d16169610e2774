#!/usr/bin/env python3
"""Tests of the release's refusals (scripts/release-check.py, scripts/release.sh):

    python3 scripts/test-release-checks.py

Each case builds a small tree or dist/ in a temporary directory (a copy of this repository's
version files, or fake wheels and a fake extension with a real footer), changes one thing and
asserts that the check refuses it with the message that says what to fix, and that the
unchanged copy passes. release.sh is run on copies too: it must refuse before building
anything and leave no output directory. Seconds, no build. Exit 1 on the first failure.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "scripts" / "release-check.py"
VERSION = re.search(r'(?ms)^\[workspace\.package\].*?^version = "([^"]+)"', (ROOT / "Cargo.toml").read_text()).group(1)
TARGET = "x86_64-unknown-linux-gnu"
CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, cwd=cwd)


def accepted(res: subprocess.CompletedProcess, out: str) -> None:
    assert res.returncode == 0, f"refused: {res.stderr}"
    assert res.stdout.strip() == out, res.stdout


def refused(res: subprocess.CompletedProcess, *words: str) -> None:
    assert res.returncode == 1, f"exit {res.returncode}, expected 1 (stdout {res.stdout!r})"
    for w in words:
        assert w in res.stderr, f"{w!r} not in the message: {res.stderr}"


def source_tree(tmp: Path) -> Path:
    """The files the version checks read, copied, plus the release scripts."""
    tree = tmp / "tree"
    for rel in ["Cargo.toml", "CHANGELOG.md", "scripts/release.sh", "scripts/release-check.py",
                "crates/urlkey-polars/Cargo.toml", "crates/urlkey-polars/pyproject.toml",
                "crates/urlkey-py/pyproject.toml"]:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tree / rel)
    for member in ROOT.glob("crates/*/Cargo.toml"):
        dst = tree / member.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(member, dst)
    return tree


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def with_release_entry(tree: Path) -> None:
    edit(tree / "CHANGELOG.md", "## [Unreleased]\n", f"## [Unreleased]\n\n## [{VERSION}] - 2026-12-06\n\n- A release.\n")


@case
def the_repository_passes_without_a_tag(tmp: Path) -> None:
    accepted(run(sys.executable, str(CHECK), "source", str(ROOT)), VERSION)


@case
def a_tag_of_another_version_is_refused(tmp: Path) -> None:
    tree = source_tree(tmp)
    with_release_entry(tree)
    accepted(run(sys.executable, str(CHECK), "source", str(tree), "--tag", f"v{VERSION}"), VERSION)
    refused(run(sys.executable, str(CHECK), "source", str(tree), "--tag", "v9.9.9"),
            f"tag v9.9.9 differs from the workspace version {VERSION}")
    refused(run(sys.executable, str(CHECK), "source", str(tree), "--tag", VERSION), "is not v + a version")


@case
def a_tag_without_its_changelog_entry_is_refused(tmp: Path) -> None:
    tree = source_tree(tmp)
    refused(run(sys.executable, str(CHECK), "source", str(tree), "--tag", f"v{VERSION}"),
            f"CHANGELOG.md has no `## [{VERSION}] - YYYY-MM-DD` section")
    # A heading without its date is not the entry either.
    edit(tree / "CHANGELOG.md", "## [Unreleased]\n", f"## [Unreleased]\n\n## [{VERSION}]\n")
    refused(run(sys.executable, str(CHECK), "source", str(tree), "--tag", f"v{VERSION}"), "CHANGELOG.md has no")


@case
def the_polars_plugin_at_another_version_is_refused(tmp: Path) -> None:
    tree = source_tree(tmp)
    edit(tree / "crates/urlkey-polars/Cargo.toml", f'version = "{VERSION}"', 'version = "0.0.1"')
    refused(run(sys.executable, str(CHECK), "source", str(tree)), "crates/urlkey-polars/Cargo.toml has version '0.0.1'")


@case
def a_member_with_its_own_version_is_refused(tmp: Path) -> None:
    tree = source_tree(tmp)
    edit(tree / "crates/urlkey-duckdb/Cargo.toml", "version.workspace = true", 'version = "0.0.2"')
    refused(run(sys.executable, str(CHECK), "source", str(tree)), "crates/urlkey-duckdb/Cargo.toml has version '0.0.2'")



@case
def a_path_dependency_pinned_to_another_version_is_refused(tmp: Path) -> None:
    tree = source_tree(tmp)
    manifest = tree / "crates/urlkey-polars/Cargo.toml"
    text, n = re.subn(r'(?m)^urlkey = \{.*\}$', 'urlkey = { path = "../urlkey", version = "=0.0.5" }', manifest.read_text())
    assert n == 1, "the plugin's dependency line on urlkey"
    manifest.write_text(text)
    refused(run(sys.executable, str(CHECK), "source", str(tree)), "the path dependency urlkey asks for version '=0.0.5'")
    edit(tree / "crates/urlkey-polars/Cargo.toml", '"=0.0.5"', f'"={VERSION}"')
    accepted(run(sys.executable, str(CHECK), "source", str(tree)), VERSION)

@case
def a_python_package_with_a_static_version_is_refused(tmp: Path) -> None:
    tree = source_tree(tmp)
    edit(tree / "crates/urlkey-py/pyproject.toml", 'dynamic = ["version"]', 'version = "0.1.0"')
    refused(run(sys.executable, str(CHECK), "source", str(tree)), "crates/urlkey-py/pyproject.toml states its own version")


@case
def release_sh_refuses_before_building(tmp: Path) -> None:
    tree = source_tree(tmp)
    res = run("bash", str(tree / "scripts/release.sh"), "--tag", "v9.9.9", "--out", str(tmp / "dist"))
    refused(res, "differs from the workspace version", "release: the version checks failed")
    res = run("bash", str(tree / "scripts/release.sh"), "--tag", f"v{VERSION}", "--out", str(tmp / "dist"))
    refused(res, f"CHANGELOG.md has no `## [{VERSION}]")
    # Without licence files the tarball cannot be made: said before any build.
    res = run("bash", str(tree / "scripts/release.sh"), "--out", str(tmp / "dist"))
    refused(res, "no LICENSE-* file")
    res = run("bash", str(tree / "scripts/release.sh"), "--ci", "--tag", f"v{VERSION}")
    refused(res, "--ci assembles debug builds")
    assert not (tmp / "dist").exists() and not list(tmp.glob(".dist.tmp.*")), "a refused run left files"



@case
def crates_that_do_not_package_refuse_the_release_before_building(tmp: Path) -> None:
    # scripts/check-packaging.sh stands in: a failure fails the release; a snapshot runs
    # it without --verify, a tagged release with it.
    tree = source_tree(tmp)
    (tree / "LICENSE-MIT").write_text("MIT\n")
    calls = tmp / "calls"
    stub = tree / "scripts/check-packaging.sh"
    stub.write_text(f'#!/bin/sh\necho "args:$*" >> {calls}\necho "a crate does not package" >&2\nexit 1\n')
    res = run("bash", str(tree / "scripts/release.sh"), "--out", str(tmp / "dist"), cwd=tree)
    refused(res, "a crate does not package", "release: the crates do not package")
    with_release_entry(tree)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "t"]):
        assert run("git", *args, cwd=tree).returncode == 0, args
    res = run("bash", str(tree / "scripts/release.sh"), "--tag", f"v{VERSION}", "--out", str(tmp / "dist"), cwd=tree)
    refused(res, "release: the crates do not package")
    assert calls.read_text().splitlines() == ["args:", "args:--verify"], calls.read_text()
    assert not (tmp / "dist").exists() and not list(tree.glob(".dist.tmp.*")), "a refused run left files"


@case
def a_run_that_fails_after_assembly_began_leaves_the_old_dist(tmp: Path) -> None:
    # --ci in a copy whose "debug binary" has no completions command: release.sh fails
    # while it fills its temporary directory, after the checks.
    tree = source_tree(tmp)
    (tree / "LICENSE-MIT").write_text("MIT\n")
    (tree / "README.md").write_text("# urlkey\n")
    (tree / "target/debug").mkdir(parents=True)
    (tree / "target/duckdb").mkdir(parents=True)
    (tree / "target/duckdb/urlkey.duckdb_extension").write_bytes(footer(VERSION))
    binary = tree / "target/debug/urlkey"
    binary.write_text("#!/bin/sh\nexit 2\n")
    binary.chmod(0o755)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "t"]):
        assert run("git", *args, cwd=tree).returncode == 0, args
    old = tree / "dist"
    old.mkdir()
    (old / "SHA256SUMS").write_text("the previous release\n")
    res = run("bash", str(tree / "scripts/release.sh"), "--ci", cwd=tree)
    refused(res, "`urlkey completions bash` failed")
    assert (old / "SHA256SUMS").read_text() == "the previous release\n", "the old dist/ was touched"
    assert sorted(p.name for p in old.iterdir()) == ["SHA256SUMS"]
    assert not list(tree.glob(".dist.tmp.*")), "the temporary directory was left behind"


def footer(version: str, duckdb: str = "v1.2.0") -> bytes:
    def field(text: str) -> bytes:
        return text.encode().ljust(32, b"\0")

    header = bytes([0, 0x93, 0x04, 16]) + b"duckdb_signature" + bytes([0x80, 0x04])
    fields = [field(""), field(""), field(""), field("C_STRUCT"), field(version), field(duckdb),
              field("linux_amd64"), field("4")]
    return header + b"".join(fields) + bytes(256)


def wheel(path: Path, name: str, version: str) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{name}-{version}.dist-info/METADATA", f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n")


def fake_dist(tmp: Path, version: str = VERSION) -> Path:
    """A dist/ as release.sh writes it, with small stand-ins for the built files."""
    d = tmp / "dist"
    d.mkdir(parents=True)
    tag = "manylinux_2_34_x86_64"
    (d / f"urlkey-{version}-snapshot-{TARGET}.tar.gz").write_bytes(b"tarball")
    wheel(d / f"urlkey-{version}-cp39-abi3-{tag}.whl", "urlkey", version)
    wheel(d / f"urlkey_polars-{version}-cp39-abi3-{tag}.whl", "urlkey_polars", version)
    (d / "urlkey.duckdb_extension").write_bytes(b"\x7fELF" + bytes(100) + footer(version))
    meta = {"abi_type": "C_STRUCT", "extension_version": version, "duckdb_version": "v1.2.0", "platform": "linux_amd64"}
    (d / "urlkey.duckdb_extension.json").write_text(json.dumps(meta))
    manifest = {
        "version": version, "kind": "snapshot", "tag": None,
        "tarball": {"glibc_floor": "GLIBC_2.35"},
        "urlkey_wheel": {"file": f"urlkey-{version}-cp39-abi3-{tag}.whl", "auditwheel_tag": tag},
        "polars_wheel": {"file": f"urlkey_polars-{version}-cp39-abi3-{tag}.whl", "auditwheel_tag": tag},
    }
    (d / "dist-manifest.json").write_text(json.dumps(manifest))
    sums(d)
    return d


def sums(d: Path) -> None:
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}"
             for p in sorted(d.iterdir()) if p.name != "SHA256SUMS"]
    (d / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def check_dist(d: Path) -> subprocess.CompletedProcess:
    return run(sys.executable, str(CHECK), "dist", str(d))


@case
def a_consistent_dist_passes_and_sha256sum_agrees(tmp: Path) -> None:
    d = fake_dist(tmp)
    accepted(check_dist(d), VERSION)
    res = run("sha256sum", "-c", "SHA256SUMS", cwd=d)
    assert res.returncode == 0, res.stdout + res.stderr


@case
def a_wheel_of_another_version_is_refused(tmp: Path) -> None:
    d = fake_dist(tmp)
    name = f"urlkey_polars-{VERSION}-cp39-abi3-manylinux_2_34_x86_64.whl"
    wheel(d / name, "urlkey_polars", "0.0.3")  # the file name says VERSION, its METADATA not
    sums(d)
    refused(check_dist(d), "METADATA 0.0.3")


@case
def an_extension_footer_of_another_version_is_refused(tmp: Path) -> None:
    d = fake_dist(tmp)
    (d / "urlkey.duckdb_extension").write_bytes(b"\x7fELF" + footer("0.0.4"))
    sums(d)
    refused(check_dist(d), "footer version 0.0.4")


@case
def an_extension_metadata_file_that_disagrees_is_refused(tmp: Path) -> None:
    d = fake_dist(tmp)
    (d / "urlkey.duckdb_extension").write_bytes(b"\x7fELF" + footer(VERSION, duckdb="v1.1.0"))
    sums(d)
    refused(check_dist(d), "urlkey.duckdb_extension.json says")


@case
def a_wheel_that_is_not_abi3_manylinux_is_refused(tmp: Path) -> None:
    d = fake_dist(tmp)
    old = d / f"urlkey-{VERSION}-cp39-abi3-manylinux_2_34_x86_64.whl"
    old.rename(d / f"urlkey-{VERSION}-cp311-cp311-linux_x86_64.whl")
    sums(d)
    refused(check_dist(d), "not an abi3 (cp39-abi3) manylinux x86_64 wheel")



@case
def a_glibc_newer_than_the_stated_floor_is_refused(tmp: Path) -> None:
    d = fake_dist(tmp)
    manifest = json.loads((d / "dist-manifest.json").read_text())
    manifest["tarball"]["glibc_floor"] = "GLIBC_2.38"
    (d / "dist-manifest.json").write_text(json.dumps(manifest))
    sums(d)
    refused(check_dist(d), "the binary needs GLIBC_2.38, newer than the stated floor")
    d2 = fake_dist(tmp / "two")
    for p in d2.glob("*.whl"):
        p.rename(p.with_name(p.name.replace("manylinux_2_34", "manylinux_2_39")))
    manifest = json.loads((d2 / "dist-manifest.json").read_text())
    for entry in ("urlkey_wheel", "polars_wheel"):
        manifest[entry] = {"file": manifest[entry]["file"].replace("2_34", "2_39"), "auditwheel_tag": "manylinux_2_39_x86_64"}
    (d2 / "dist-manifest.json").write_text(json.dumps(manifest))
    sums(d2)
    refused(check_dist(d2), "needs glibc manylinux_2_39_x86_64, newer than the stated floor")

@case
def a_changed_file_fails_its_sum(tmp: Path) -> None:
    d = fake_dist(tmp)
    with open(d / f"urlkey-{VERSION}-snapshot-{TARGET}.tar.gz", "ab") as f:
        f.write(b"!")
    refused(check_dist(d), "does not match its sum")
    assert run("sha256sum", "--quiet", "-c", "SHA256SUMS", cwd=d).returncode != 0


@case
def a_file_missing_from_the_sums_is_refused(tmp: Path) -> None:
    d = fake_dist(tmp)
    (d / "extra.txt").write_text("x")
    refused(check_dist(d), "SHA256SUMS lists")


@case
def a_snapshot_is_labelled_and_a_release_needs_its_tag(tmp: Path) -> None:
    d = fake_dist(tmp)
    manifest = json.loads((d / "dist-manifest.json").read_text())
    manifest["kind"] = "release"
    (d / "dist-manifest.json").write_text(json.dumps(manifest))
    sums(d)
    refused(check_dist(d), f"needs the tag v{VERSION}")
    manifest["tag"] = f"v{VERSION}"
    (d / "dist-manifest.json").write_text(json.dumps(manifest))
    sums(d)
    # The tarball still says -snapshot: a release's has the bare version.
    refused(check_dist(d), f"expected urlkey-{VERSION}-{TARGET}.tar.gz")


@case
def the_readme_installs_from_the_release_files_first(tmp: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # The first screen: its two quick-start commands, unchanged, come before anything else.
    first = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line for line in first.splitlines() if line and not line.startswith("#")]
    assert commands == ["cargo run --release -p urlkey-cli -- map examples/legacy-urls.txt", "scripts/test.sh"], commands
    assert readme.index("## Quick start") < readme.index("## Install")
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    tarball = section.index(f"tar xzf urlkey-VERSION-{TARGET}.tar.gz")
    wheels = section.index("pip install urlkey-*.whl urlkey_polars-*.whl")
    duckdb = section.index("INSTALL '/path/to/urlkey.duckdb_extension'; LOAD urlkey;")
    source = section.index("cargo build --release -p urlkey-cli")
    assert tarball < wheels < duckdb < source, "the release files come first, then the source build"
    # Nothing is published: no registry install is given as working, anywhere in the README.
    registry = re.compile(r"cargo install|pip install (urlkey|urlkey[-_]polars)(\s|\[|$)|cargo add urlkey", re.M)
    assert not registry.search(readme), registry.search(readme)


def main() -> int:
    for fn in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                fn(Path(tmp))
            except AssertionError as e:
                print(f"FAILED {fn.__name__}: {e}", file=sys.stderr)
                return 1
        print(f"ok {fn.__name__}")
    print(f"{len(CASES)} release checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
