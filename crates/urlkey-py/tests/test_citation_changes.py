"""scripts/citation-changes.py: the keys that change from citation@1 to citation@2.

On a synthetic file (written here for this test; BOM, CRLF, a comment, a tab inside a URL,
no final newline), every changed record and its removed parameters, counted by hand; on
../shared/datasets (read in place, never copied), the counts CHANGELOG.md states.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import corpus
from conftest import cli_path

SCRIPT = corpus.REPO / "scripts" / "citation-changes.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--urlkey", str(cli_path()), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_changed_keys_of_a_synthetic_file(tmp_path: Path):
    src = tmp_path / "synthetic.txt"
    src.write_bytes(
        "\ufeffhttps://shop.example/p/?srsltid=AfmBO1&variant=7\r\n"
        "https://shop.example/p?variant=7\r\n"
        "# a comment line\r\n"
        "https://example.com/a?gbraid=1&_GL=2&utm_source=x&id=3\r\n"
        "ftp://example.com/?srsltid=1\r\n"
        "https://example.com/a?yclid=1&yclid=2\r\n"
        "https://example.com/\tb?ttclid=1".encode("utf-8")
    )
    out = tmp_path / "changes.tsv"
    res = run("-o", str(out), str(src))
    assert res.returncode == 0, res.stderr
    lines = out.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""
    s = str(src)
    assert lines[:-1] == [
        "# keys that change from citation@1 to citation@2 (scripts/citation-changes.py)",
        f"# inputs: {s}",
        "# records: 6; changed: 4",
        "# changed records per removed parameter: _gl 1, gbraid 1, srsltid 1, ttclid 1, yclid 1",
        "source\tline\tobserved\tkey_from\tkey_to\tremoved",
        f"{s}\t1\thttps://shop.example/p/?srsltid=AfmBO1&variant=7\thttps://shop.example/p?srsltid=AfmBO1&variant=7\thttps://shop.example/p?variant=7\tsrsltid",
        f"{s}\t4\thttps://example.com/a?gbraid=1&_GL=2&utm_source=x&id=3\thttps://example.com/a?_GL=2&gbraid=1&id=3\thttps://example.com/a?id=3\tgbraid,_GL",
        f"{s}\t6\thttps://example.com/a?yclid=1&yclid=2\thttps://example.com/a?yclid=1&yclid=2\thttps://example.com/a\tyclid",
        f"{s}\t7\thttps://example.com/\\tb?ttclid=1\thttps://example.com/b?ttclid=1\thttps://example.com/b\tttclid",
    ]
    # The same policy on both sides changes nothing.
    res = run("--to", "citation@1", str(src))
    assert res.returncode == 0, res.stderr
    assert "# records: 6; changed: 0\n" in res.stdout
    # A missing input is a usage error that names it, and writes nothing.
    res = run("-o", str(tmp_path / "none.tsv"), str(tmp_path / "missing.txt"))
    assert res.returncode == 2 and "missing.txt" in res.stderr
    assert not (tmp_path / "none.tsv").exists()


def test_the_shared_datasets_give_the_changelogs_counts():
    res = run()
    assert res.returncode == 0, res.stderr
    head = res.stdout.split("\n")[:4]
    assert head[1] == "# inputs: " + ", ".join(corpus.DATASET_FILES)
    counts = head[2].lstrip("# ")
    changelog = (corpus.REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"`{counts}`" in changelog, f"CHANGELOG.md does not state {counts!r}"
    # Every changed record has its row.
    changed = int(counts.rsplit(" ", 1)[1])
    assert len(res.stdout.split("\n")) == 4 + 1 + changed + 1
