"""`--format parquet` of `urlkey key` and `urlkey map`, read back with pyarrow and compared
with the JSONL output of the same run."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import read_jsonl, run_cli

TRANSFORMATION = pa.struct(
    [
        pa.field("rule", pa.string(), nullable=False),
        pa.field("component", pa.string(), nullable=False),
        pa.field("before", pa.string(), nullable=False),
        pa.field("after", pa.string(), nullable=False),
    ]
)


def _compare(parquet_rows, jsonl_rows):
    assert len(parquet_rows) == len(jsonl_rows)
    bad = [
        (i, p, j) for i, (p, j) in enumerate(zip(parquet_rows, jsonl_rows)) if p != j
    ]
    assert not bad, f"{len(bad)} rows differ, first: {bad[0]}"


@pytest.mark.parametrize("policy", ["citation@1", "webkey@1", "mapper@1"])
def test_key_parquet_equals_jsonl(tmp_path, corpus_file, cli_key_records, policy):
    out = tmp_path / "keys.parquet"
    # Two threads: the workers build the outcomes, the writing thread writes them in order.
    run_cli("key", "--policy", policy, "--format", "parquet", "-o", str(out), "--quiet", "--threads", "2", str(corpus_file))
    table = pq.read_table(out)
    jsonl = cli_key_records(policy)
    assert table.column_names == list(jsonl[0])
    schema = table.schema
    assert schema.field("line").type == pa.int64()
    assert schema.field("error").type == pa.struct(
        [pa.field("code", pa.string(), nullable=False), pa.field("message", pa.string(), nullable=False)]
    )
    assert schema.field("transformations").type.value_type == TRANSFORMATION
    assert schema.field("removed_params").type == pa.list_(pa.string())
    assert pq.ParquetFile(out).metadata.num_row_groups >= 2
    _compare(table.to_pylist(), jsonl)


@pytest.mark.parametrize("groups", [False, True])
def test_map_parquet_equals_jsonl(tmp_path, corpus_file, cli_map_records, groups):
    out = tmp_path / "map.parquet"
    extra = ["--groups"] if groups else []
    run_cli("map", *extra, "--format", "parquet", "-o", str(out), "--quiet", "--threads", "2", str(corpus_file))
    if groups:
        jsonl = read_jsonl(
            run_cli("map", *extra, "--format", "jsonl", "--quiet", str(corpus_file)).stdout
        )
    else:
        jsonl = cli_map_records
    table = pq.read_table(out)
    assert table.column_names == list(jsonl[0])
    _compare(table.to_pylist(), jsonl)
    if not groups:
        classes = set(table.column("classification").to_pylist())
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
