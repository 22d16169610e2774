"""Shared fixtures: the CLI binary, the 200,000-line corpus and its CLI outputs, Spark.

Nothing here skips: a missing binary, dataset or package fails the test that needs it with
a message naming what is missing (scripts/test-python.sh installs and builds everything).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402


def cli_path() -> Path:
    p = Path(os.environ.get("URLKEY_BIN", corpus.REPO / "target" / "release" / "urlkey"))
    if not p.is_file():
        raise FileNotFoundError(
            f"the urlkey binary is not at {p}: run `cargo build --release -p urlkey-cli` "
            "(or set URLKEY_BIN)"
        )
    return p


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the urlkey command; output in bytes."""
    cmd = [str(cli_path()), *args]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and res.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} exited {res.returncode}: {res.stderr.decode(errors='replace')}"
        )
    return res


def read_jsonl(data: bytes) -> List[dict]:
    # JSON Lines end at "\n" only: str.splitlines() also splits at U+0085, U+2028 and the
    # other separators a JSON string holds unescaped (inputs of the golden fixtures do).
    return [json.loads(line) for line in data.decode("utf-8").split("\n") if line]


@pytest.fixture(scope="session")
def cli() -> Path:
    return cli_path()


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus-200k.txt"
    corpus.write_corpus(path)
    return path


@pytest.fixture(scope="session")
def corpus_records(corpus_file) -> List[Tuple[int, str]]:
    """(line, text) of every record of the corpus, as the command numbers them."""
    lines = corpus_file.read_bytes().decode("utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    return corpus.records(lines)


_cli_key_output_cache: Dict[str, bytes] = {}
_cli_key_cache: Dict[str, List[dict]] = {}
_cli_key_columns_cache: Dict[str, dict] = {}


@pytest.fixture(scope="session")
def cli_key_output(corpus_file):
    """policy -> the stdout of `urlkey key --policy P` on the corpus (JSON Lines, cached)."""

    def get(policy: str) -> bytes:
        if policy not in _cli_key_output_cache:
            res = run_cli("key", "--policy", policy, "--quiet", str(corpus_file))
            _cli_key_output_cache[policy] = res.stdout
        return _cli_key_output_cache[policy]

    return get


@pytest.fixture(scope="session")
def cli_key_records(cli_key_output):
    """policy -> the JSONL records of `urlkey key --policy P` on the corpus (cached)."""

    def get(policy: str) -> List[dict]:
        if policy not in _cli_key_cache:
            _cli_key_cache[policy] = read_jsonl(cli_key_output(policy))
        return _cli_key_cache[policy]

    return get


@pytest.fixture(scope="session")
def cli_key_columns(cli_key_output):
    """policy -> the same records as Arrow columns (arrowcmp.read_key_jsonl), cached."""
    import arrowcmp

    def get(policy: str) -> dict:
        if policy not in _cli_key_columns_cache:
            _cli_key_columns_cache[policy] = arrowcmp.read_key_jsonl(cli_key_output(policy))
        return _cli_key_columns_cache[policy]

    return get


@pytest.fixture(scope="session")
def cli_map_output(corpus_file) -> bytes:
    """The stdout of `urlkey map --format jsonl` (mapper@1) on the corpus."""
    return run_cli("map", "--format", "jsonl", "--quiet", str(corpus_file)).stdout


@pytest.fixture(scope="session")
def cli_map_records(cli_map_output) -> List[dict]:
    """The JSONL rows of `urlkey map` (mapper@1) on the corpus."""
    return read_jsonl(cli_map_output)


@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("urlkey-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
