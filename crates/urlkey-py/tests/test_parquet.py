"""`--format parquet` of `urlkey key` and `urlkey map`, read back with pyarrow and compared
with the JSONL output of the same run."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import arrowcmp
from conftest import run_cli

TRANSFORMATION = pa.struct(
    [
        pa.field("rule", pa.string(), nullable=False),
        pa.field("component", pa.string(), nullable=False),
        pa.field("before", pa.string(), nullable=False),
        pa.field("after", pa.string(), nullable=False),
    ]
)


class _Observed:
    """What names a row in the failure message (read only when a row differs): its input,
    or the first field where the output has no `observed` (`map --groups`)."""

    def __init__(self, table: pa.Table):
        self.table = table

    def __getitem__(self, row: int) -> str:
        names = self.table.column_names
        name = "observed" if "observed" in names else names[0]
        return f"{name}={self.table.column(name)[row].as_py()!r}"


def _compare(table: pa.Table, jsonl: bytes):
    """Every column of the Parquet table equal to the JSON Lines output of the same run,
    read in the Parquet file's types (field names and order as the JSON records')."""
    first = json.loads(jsonl[: jsonl.index(b"\n")])
    assert table.column_names == list(first)
    want = arrowcmp.read_jsonl_table(jsonl, arrowcmp.relaxed(table.schema))
    assert table.num_rows == want.num_rows
    bad = arrowcmp.compare_tables(table, want, _Observed(want))
    assert not bad, f"{len(bad)} columns differ:\n" + "\n".join(bad)


@pytest.mark.parametrize("policy", ["citation@1", "webkey@1", "mapper@1"])
def test_key_parquet_equals_jsonl(tmp_path, corpus_file, cli_key_output, policy):
    out = tmp_path / "keys.parquet"
    # Two threads: the workers build the outcomes, the writing thread writes them in order.
    run_cli("key", "--policy", policy, "--format", "parquet", "-o", str(out), "--quiet", "--threads", "2", str(corpus_file))
    table = pq.read_table(out)
    schema = table.schema
    assert schema.field("line").type == pa.int64()
    assert schema.field("error").type == pa.struct(
        [pa.field("code", pa.string(), nullable=False), pa.field("message", pa.string(), nullable=False)]
    )
    assert schema.field("transformations").type.value_type == TRANSFORMATION
    assert schema.field("removed_params").type == pa.list_(pa.string())
    assert pq.ParquetFile(out).metadata.num_row_groups >= 2
    _compare(table, cli_key_output(policy))


@pytest.mark.parametrize("groups", [False, True])
def test_map_parquet_equals_jsonl(tmp_path, corpus_file, cli_map_output, groups):
    out = tmp_path / "map.parquet"
    extra = ["--groups"] if groups else []
    run_cli("map", *extra, "--format", "parquet", "-o", str(out), "--quiet", "--threads", "2", str(corpus_file))
    if groups:
        jsonl = run_cli("map", *extra, "--format", "jsonl", "--quiet", str(corpus_file)).stdout
    else:
        jsonl = cli_map_output
    table = pq.read_table(out)
    _compare(table, jsonl)
    if not groups:
        classes = set(pc.unique(table.column("classification")).to_pylist())
        assert classes == {"invalid", "review", "duplicate", "unique"}


def test_parquet_of_an_empty_input_has_the_schema(tmp_path):
    src = tmp_path / "empty.txt"
    src.write_text("# only a comment\n\n", encoding="utf-8")
    for cmd in ("key", "map"):
        out = tmp_path / f"{cmd}.parquet"
        run_cli(cmd, "--format", "parquet", "-o", str(out), "--quiet", str(src))
        table = pq.read_table(out)
        assert table.num_rows == 0
        assert "line" in table.column_names and "key" in table.column_names


@pytest.mark.parametrize("cmd", ["key", "map"])
def test_parquet_needs_an_output_file(tmp_path, cmd):
    src = tmp_path / "in.txt"
    src.write_text("https://a.test/\n", encoding="utf-8")
    res = run_cli(cmd, "--format", "parquet", str(src), check=False)
    assert res.returncode == 2
    assert res.stdout == b""
    assert b"-o FILE" in res.stderr
