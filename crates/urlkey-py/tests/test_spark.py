"""urlkey.spark in PySpark local[2] over the 200,000-line corpus: every key equal to
`urlkey key`'s, every classification equal to `urlkey map`'s."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

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


def test_with_keys_equals_the_command(corpus_df, cli_key_records, tmp_path):
    keyed = uks.with_keys(corpus_df, "url", policy="citation@1")
    assert keyed.columns == ["line", "url"] + ["urlkey_" + c for c in uks.KEY_OUTPUTS]
    table = _collect(keyed, tmp_path).sort_by("line")
    cli = cli_key_records("citation@1")
    assert table.num_rows == len(cli)
    rows = table.to_pylist()
    bad = []
    for got, want in zip(rows, cli):
        if (
            got["line"] != want["line"]
            or got["url"] != want["observed"]
            or got["urlkey_key"] != want["key"]
            or got["urlkey_status"] != want["status"]
            or got["urlkey_canonical"] != want["canonical"]
            or got["urlkey_error_code"] != (want["error"] or {}).get("code")
            or got["urlkey_transformations"] != [t["rule"] for t in want["transformations"]]
            or got["urlkey_removed_params"] != want["removed_params"]
            or got["urlkey_facts"] != want["facts"]
        ):
            bad.append((got, want))
    assert not bad, f"{len(bad)} rows differ, first: {bad[0]}"


def test_group_report_equals_urlkey_map(corpus_df, cli_map_records, tmp_path):
    report = uks.group_report(corpus_df, "url", policy="mapper@1", line="line")
    table = _collect(report, tmp_path).sort_by("line")
    want = cli_map_records
    assert table.num_rows == len(want)
    rows = table.to_pylist()
    counts = {}
    bad = []
    for got, w in zip(rows, want):
        counts[w["classification"]] = counts.get(w["classification"], 0) + 1
        g = {
            "line": got["line"],
            "key": got["urlkey_key"],
            "signature": got["urlkey_signature"],
            "duplicates": got["urlkey_duplicates"],
            "variants": got["urlkey_variants"],
            "classification": got["urlkey_classification"],
            "group": got["urlkey_group"],
            "duplicate_of": got["urlkey_duplicate_of"],
            "error_code": got["urlkey_error_code"],
        }
        e = {k: w[k] for k in g}
        if g != e:
            bad.append((g, e))
    assert not bad, f"{len(bad)} rows differ, first: {bad[:3]}"
    # The corpus exercises every class.
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
