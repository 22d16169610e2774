"""urlkey.spark in PySpark local[2] over the 200,000-line corpus: every key equal to
`urlkey key`'s, every classification equal to `urlkey map`'s."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import arrowcmp
import urlkey
import urlkey.spark as uks


@pytest.fixture(scope="session")
def corpus_df(spark, corpus_records, tmp_path_factory):
    """The corpus records as a Spark DataFrame (line, url) read from four Parquet files."""
    d = tmp_path_factory.mktemp("spark-input")
    lines = [n for n, _ in corpus_records]
    urls = [t for _, t in corpus_records]
    parts = 4
    size = (len(lines) + parts - 1) // parts
    for p in range(parts):
        table = pa.table(
            {
                "line": pa.array(lines[p * size : (p + 1) * size], type=pa.int64()),
                "url": pa.array(urls[p * size : (p + 1) * size], type=pa.string()),
            }
        )
        pq.write_table(table, d / f"part-{p}.parquet")
    return spark.read.parquet(str(d))


def _collect(df, tmp_path) -> pa.Table:
    out = tmp_path / "out"
    df.write.parquet(str(out))
    return pq.read_table(out)


def test_with_keys_equals_the_command(corpus_df, cli_key_columns, corpus_records, tmp_path):
    keyed = uks.with_keys(corpus_df, "url", policy="citation@1")
    assert keyed.columns == ["line", "url"] + ["urlkey_" + c for c in uks.KEY_OUTPUTS]
    table = _collect(keyed, tmp_path).sort_by("line")
    want = cli_key_columns("citation@1")
    assert table.num_rows == len(want["line"])
    texts = [t for _, t in corpus_records]
    pairs = {
        "line": "line",
        "url": "observed",
        "urlkey_key": "key",
        "urlkey_status": "status",
        "urlkey_canonical": "canonical",
        "urlkey_error_code": "error_code",
        "urlkey_transformations": "rules",
        "urlkey_removed_params": "removed_params",
        "urlkey_facts": "facts",
    }
    bad = []
    for got, ref in pairs.items():
        arrowcmp.compare(got, arrowcmp.column(table.column(got)), want[ref], texts, bad)
    assert not bad, f"{len(bad)} columns differ:\n" + "\n".join(bad)


def test_group_report_equals_urlkey_map(corpus_df, cli_map_records, corpus_records, tmp_path):
    report = uks.group_report(corpus_df, "url", policy="mapper@1", line="line")
    table = _collect(report, tmp_path).sort_by("line")
    want = cli_map_records
    assert table.num_rows == len(want)
    texts = [t for _, t in corpus_records]
    types = {"line": pa.int64(), "duplicates": pa.int64(), "variants": pa.int64(), "group": pa.int64(), "duplicate_of": pa.int64()}
    bad = []
    for field in ["line", "key", "signature", "duplicates", "variants", "classification", "group", "duplicate_of", "error_code"]:
        got = arrowcmp.column(table.column(field if field == "line" else "urlkey_" + field))
        ref = arrowcmp.column([w[field] for w in want], types.get(field, pa.string()))
        arrowcmp.compare(field, got, ref, texts, bad)
    assert not bad, f"{len(bad)} columns differ:\n" + "\n".join(bad)
    # The corpus exercises every class.
    counts = {}
    for w in want:
        counts[w["classification"]] = counts.get(w["classification"], 0) + 1
    assert set(counts) == {"invalid", "review", "duplicate", "unique"}, counts


def test_group_report_reuses_keyed_input_and_works_without_lines(corpus_df, cli_map_records):
    keyed = uks.with_keys(corpus_df, "url", policy="mapper@1").persist()
    report = uks.group_report(keyed, "url", policy="mapper@1")
    assert "urlkey_group" not in report.columns
    summary = {
        r["urlkey_classification"]: r["count"]
        for r in report.groupBy("urlkey_classification").count().collect()
    }
    expected = {}
    for w in cli_map_records:
        expected[w["classification"]] = expected.get(w["classification"], 0) + 1
    assert summary == expected
    keyed.unpersist()


def test_with_keys_errors(spark, corpus_df):
    with pytest.raises(urlkey.PolicyError):
        uks.with_keys(corpus_df, "url", policy="nope@1")
    with pytest.raises(ValueError):
        uks.with_keys(corpus_df, "missing")
    with pytest.raises(TypeError):
        uks.with_keys(corpus_df, "line")
    keyed = uks.with_keys(corpus_df, "url")
    with pytest.raises(ValueError):
        uks.with_keys(keyed, "url")  # the prefixed names are taken


def test_with_keys_on_nulls_and_small_frames(spark):
    df = spark.createDataFrame([(1, "https://a.test/x/?utm_source=z"), (2, None)], "id long, u string")
    rows = sorted(uks.with_keys(df, "u", prefix="k_").collect(), key=lambda r: r["id"])
    assert rows[0]["k_key"] == "https://a.test/x"
    assert rows[0]["k_removed_params"] == ["utm_source"]
    assert rows[1]["k_status"] == "invalid"
    assert rows[1]["k_error_code"] == "input.missing-field"
