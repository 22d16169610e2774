"""One test of every engine against the command line: `urlkey key` (the reference), the
Python package (`urlkey.keys`, Arrow), PySpark (`urlkey.spark.with_keys`, local[2]), the
Polars plugin (`urlkey_polars`) and the DuckDB extension (`urlkey.duckdb_extension`), for
every builtin policy, on every input of the WPT URL test data, the inputs of citation@2's
golden fixture (the click and session ids it adds, which neither of the others holds) and the
200,000-line corpus built from ../shared/datasets.

Equal, byte for byte, on every row: the key, the status, the canonical form, the error
code, the removed parameters, the facts and the rules that ran (each engine that carries
them). The engines that carry each transformation in full (the CLI, Polars, DuckDB) agree
on every one of its fields; those that carry the host, the grouping signature and the
registrable domain agree on them; and the Public Suffix List version is the CLI's
wherever the CLI states one.
"""

from __future__ import annotations

import json
from typing import Dict, List

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import arrowcmp
import corpus
import urlkey
import urlkey.spark as uks
import urlkey_polars  # noqa: F401  (registers the .urlkey namespace)
from conftest import run_cli
from test_duckdb import connect, extension_path

POLICIES = corpus.BUILTIN_POLICIES
WPT = corpus.REPO.parent / "shared" / "wpt" / "urltestdata.json"


def wpt_inputs() -> List[str]:
    """Every distinct `input` of the WPT URL test data, in file order."""
    if not WPT.is_file():
        raise FileNotFoundError(f"the WPT data is not at {WPT} (../shared/wpt beside the repository)")
    seen, out = set(), []
    for case in json.loads(WPT.read_text(encoding="utf-8")):
        if isinstance(case, dict) and isinstance(case.get("input"), str) and case["input"] not in seen:
            seen.add(case["input"])
            out.append(case["input"])
    return out


def citation_2_inputs(seen: set) -> List[str]:
    """The inputs of tests/golden/citation@2.tsv not in `seen`, in file order."""
    out = []
    for _, text, _ in corpus.golden_cases(corpus.golden_files()["citation@2"]):
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


@pytest.fixture(scope="module")
def inputs(corpus_records, tmp_path_factory):
    """(texts, CLI records per policy): the WPT inputs and citation@2's fixture inputs (one
    JSON Lines file, "wpt" below), then the corpus records."""
    wpt = wpt_inputs()
    added = citation_2_inputs(set(wpt))
    assert any("srsltid" in t for t in added), "citation@2's fixture has its click ids"
    wpt += added
    d = tmp_path_factory.mktemp("cross-engine")
    wpt_file = d / "wpt.jsonl"
    # JSON lines carry every input exactly (tabs, new lines, spaces at either end).
    wpt_file.write_text("".join(json.dumps({"url": t}) + "\n" for t in wpt), encoding="utf-8")
    texts = wpt + [t for _, t in corpus_records]
    return {"texts": texts, "wpt": wpt, "wpt_file": wpt_file}


_cli: Dict[str, dict] = {}


def cli_columns(policy: str, inputs, cli_key_columns) -> dict:
    """The CLI's records of every input (the WPT file, then the corpus) as Arrow columns."""
    if policy not in _cli:
        res = run_cli("key", "--policy", policy, "--field", "url", "--quiet", str(inputs["wpt_file"]))
        wpt = arrowcmp.read_key_jsonl(res.stdout)
        assert len(wpt["line"]) == len(inputs["wpt"])
        _cli[policy] = arrowcmp.concat([wpt, cli_key_columns(policy)])
    return _cli[policy]


@pytest.fixture(scope="module")
def spark_table(spark, inputs, tmp_path_factory) -> pa.Table:
    """Every policy's key columns from one Spark job (prefix `p<i>_`), sorted by row."""
    d = tmp_path_factory.mktemp("cross-engine-spark")
    texts = inputs["texts"]
    parts = 4
    size = (len(texts) + parts - 1) // parts
    for p in range(parts):
        rows = range(p * size, min((p + 1) * size, len(texts)))
        pq.write_table(
            pa.table({"row": pa.array(list(rows), pa.int64()), "url": pa.array([texts[i] for i in rows], pa.string())}),
            d / f"in-{p}.parquet",
        )
    df = spark.read.parquet(str(d / "in-*.parquet"))
    for i, policy in enumerate(POLICIES):
        df = uks.with_keys(df, "url", policy=policy, prefix=f"p{i}_")
    df.drop("url").write.parquet(str(d / "out"))
    return pq.read_table(d / "out").sort_by("row")


@pytest.fixture(scope="module")
def polars_frame(inputs) -> pl.DataFrame:
    urls = pl.DataFrame({"url": inputs["texts"]}, schema={"url": pl.String})
    return urls.lazy().select(
        [pl.col("url").urlkey.outcome(policy=p).alias(p) for p in POLICIES]
        # `key` takes the lean key path (the CLI's `--format key`), apart from the outcome's.
        + [pl.col("url").urlkey.key(policy=p).alias(p + " key") for p in POLICIES]
    ).collect(engine="streaming")


@pytest.fixture(scope="module")
def duckdb_table(inputs) -> pa.Table:
    con = connect()
    con.execute(f"LOAD '{extension_path()}'").fetchall()
    urls = pa.table({"row": pa.array(range(len(inputs["texts"])), pa.int64()), "url": inputs["texts"]})
    con.register("urls", urls)
    cols = ", ".join(
        f"urlkey_outcome(url, '{p}') AS \"{p}\", urlkey_key(url, '{p}') AS \"{p} key\"" for p in POLICIES
    )
    return con.sql(f"SELECT row, {cols} FROM urls ORDER BY row").to_arrow_table()


def _fields(struct) -> Dict[str, pa.Array]:
    """Every field of an outcome struct column (Arrow or Polars) as a normalized array."""
    struct = arrowcmp.column(struct)
    return {struct.type.field(k).name: arrowcmp.column(struct.field(k)) for k in range(struct.type.num_fields)}


@pytest.mark.parametrize("policy", POLICIES)
def test_every_engine_gives_the_cli_outcome(
    policy, inputs, cli_key_columns, spark_table, polars_frame, duckdb_table
):
    texts = inputs["texts"]
    n = len(texts)
    assert n >= 100_000 + len(inputs["wpt"])
    reference = cli_columns(policy, inputs, cli_key_columns)
    assert len(reference["key"]) == n
    problems: List[str] = []
    arrowcmp.compare("cli.observed", reference["observed"], arrowcmp.column(texts, pa.string()), texts, problems)
    assert not problems, problems

    py = urlkey.keys(texts, policy=policy)
    python = {c: arrowcmp.column(py.column(c)) for c in urlkey.KEY_COLUMNS}
    python["rules"] = python["transformations"]

    i = POLICIES.index(policy)
    spark = {c: arrowcmp.column(spark_table.column(f"p{i}_{c}")) for c in uks.KEY_OUTPUTS}
    spark["rules"] = spark["transformations"]

    # One field list, in one order, in both engines.
    duck_type = duckdb_table.schema.field(policy).type
    assert [duck_type.field(k).name for k in range(duck_type.num_fields)] == list(urlkey_polars.OUTCOME_FIELDS)
    assert [f.name for f in polars_frame.schema[policy].fields] == list(urlkey_polars.OUTCOME_FIELDS)
    polars = _fields(polars_frame[policy])
    duck = _fields(duckdb_table.column(policy))
    for engine in (polars, duck):
        engine["rules"] = arrowcmp.list_field(engine["transformations"], "rule")

    # The lean key path of each engine (`key`, `urlkey_key`).
    arrowcmp.compare("polars key", arrowcmp.column(polars_frame[policy + " key"]), reference["key"], texts, problems)
    arrowcmp.compare("duckdb urlkey_key", arrowcmp.column(duckdb_table.column(policy + " key")), reference["key"], texts, problems)

    engines = {"python": python, "spark": spark, "polars": polars, "duckdb": duck}
    for field in ["key", "status", "canonical", "error_code", "removed_params", "facts", "rules"]:
        for name, got in engines.items():
            arrowcmp.compare(f"{name}.{field}", got[field], reference[field], texts, problems)
    for name in ["polars", "duckdb"]:
        # Every field of every transformation (`wrapper` null but on an unwrap, as the CLI's).
        arrowcmp.compare(f"{name}.transformations", engines[name]["transformations"], reference["transformations"], texts, problems)
        if not arrowcmp.all_equal_to(engines[name]["policy"], policy):
            problems.append(f"{name}.policy is not {policy} on every row")
    for field in ["host", "signature", "registrable_domain", "psl_version"]:
        for name in ["spark", "polars", "duckdb"]:
            arrowcmp.compare(f"{name}.{field}", engines[name][field], python[field], texts, problems)
    arrowcmp.compare("duckdb.registrable_domain", duck["registrable_domain"], polars["registrable_domain"], texts, problems)
    psl = urlkey.psl_version()
    stated = set(pc.unique(reference["psl"].drop_null()).to_pylist()) - {""}
    assert stated <= {psl}, stated
    for name in ["polars", "duckdb"]:
        if not arrowcmp.all_equal_to(engines[name]["psl_version"], psl):
            problems.append(f"{name}.psl_version is not {psl} on every row")
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:30])
    # The comparison saw both kinds of row.
    assert 0 < pc.sum(pc.equal(reference["status"], "invalid")).as_py() < n


def test_registrable_domains_are_those_of_the_keys(polars_frame):
    """The registrable domain both engines agree on is the key's host's, as `inspect`
    finds it (a sample of every policy whose keys are URLs)."""
    for policy in ["citation@1", "clean@1", "webkey@1"]:
        o = polars_frame[policy].struct
        keys = o.field("key").to_list()
        domains = o.field("registrable_domain").to_list()
        checked = 0
        for k, d in list(zip(keys, domains))[::211]:
            if k is None:
                assert d is None
                continue
            i = urlkey.inspect(k)
            if i["valid"]:
                assert d == i["registrable_domain"], (policy, k)
                checked += 1
        assert checked > 500, checked
