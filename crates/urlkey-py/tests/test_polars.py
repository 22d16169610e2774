"""urlkey_polars, the Polars expression plugin: every expression against the Python package
(the same core) and the command line, null and invalid input, the namespace, lazy and
streaming queries, chunked frames and policy files."""

from __future__ import annotations

import json

import polars as pl
import pytest

import corpus
import urlkey
import urlkey_polars as ukp
from conftest import run_cli

SAMPLE = [
    "https://Example.com/a/?utm_source=x&b=2&a=1#top",
    "HTTP://www.Example.co.uk:80/x//y?gclid=1",
    "https://www.google.com/url?q=https://news.example.org/a%3Futm_source%3Dx&sa=D",
    "mailto:someone@example.net",
    "javascript:alert(1)",
    "not a url",
    "",
    "/relative/path?b=1&a=2",
    "https://[::1]:8080/x",
    "https://192.168.0.1/?fbclid=abc",
    "https://xn--nxasmq6b.com/α?q=β",
    None,
]


def frame() -> pl.DataFrame:
    return pl.DataFrame({"url": SAMPLE}, schema={"url": pl.String})


def record_fields(rec: dict) -> dict:
    """The fields a Python `urlkey.key()` record shares with the outcome struct."""
    err = rec["error"] or {}
    return {
        "policy": rec["policy"],
        "status": rec["status"],
        "key": rec["key"],
        "canonical": rec["canonical"],
        "error_code": err.get("code"),
        "error_message": err.get("message"),
        "removed_params": rec["removed_params"],
        "transformations": [
            {
                "rule": t["rule"],
                "component": t["component"],
                "before": t["before"],
                "after": t["after"],
                "wrapper": t.get("wrapper"),
            }
            for t in rec["transformations"]
        ],
        "facts": rec["facts"],
    }


@pytest.mark.parametrize("policy", corpus.BUILTIN_POLICIES)
def test_outcome_equals_the_python_record_for_every_builtin(policy):
    out = frame().select(o=pl.col("url").urlkey.outcome(policy=policy))["o"].to_list()
    assert list(ukp.OUTCOME_FIELDS) == list(out[0].keys())
    for url, got in zip(SAMPLE, out):
        if url is None:
            assert got is None
            continue
        want = record_fields(urlkey.key(url, policy=policy))
        assert {k: got[k] for k in want} == want, url
        assert got["psl_version"] == urlkey.psl_version()
        assert got["status"] in ("ok", "invalid")
        if got["status"] == "invalid":
            assert got["key"] is None and got["error_code"], url


def test_null_in_null_out_and_invalid_is_never_an_empty_string():
    df = frame().with_columns(
        key=pl.col("url").urlkey.key(),
        clean=pl.col("url").urlkey.clean(),
        rd=pl.col("url").urlkey.registrable_domain(),
        qp=pl.col("url").urlkey.query_pairs(),
        o=pl.col("url").urlkey.outcome(),
        i=pl.col("url").urlkey.inspect(),
    )
    last = df.row(len(SAMPLE) - 1, named=True)
    assert all(last[c] is None for c in ["key", "clean", "rd", "qp", "o", "i"])
    keys = df["key"].to_list()
    assert "" not in keys
    invalid = df.filter(pl.col("o").struct.field("status") == "invalid")
    assert invalid.height >= 4
    assert invalid["key"].null_count() == invalid.height
    codes = invalid["o"].struct.field("error_code").to_list()
    assert all(c and "." in c for c in codes), codes
    assert "citation.unsupported-scheme" in codes


def test_key_clean_and_registrable_domain_values():
    df = frame().with_columns(
        key=ukp.key("url", "citation@1"),
        clean=ukp.clean(pl.col("url")),
        rd=ukp.registrable_domain("url", "clean@1"),
    )
    for url, k, c, rd in zip(SAMPLE, df["key"], df["clean"], df["rd"]):
        if url is None:
            continue
        assert k == urlkey.key(url, policy="citation@1")["key"]
        assert c == urlkey.key(url, policy="clean@1")["key"]
        if c is not None and urlkey.inspect(c)["valid"]:
            assert rd == urlkey.inspect(c)["registrable_domain"], url
    by_url = dict(zip(SAMPLE, df["rd"]))
    assert by_url[SAMPLE[1]] == "example.co.uk"
    assert by_url[SAMPLE[2]] == "example.org"  # the wrapper's target, after the unwrap
    assert by_url[SAMPLE[8]] is None  # an IP host


def test_query_pairs_and_inspect_equal_the_python_package():
    df = frame().with_columns(qp=pl.col("url").urlkey.query_pairs(), i=pl.col("url").urlkey.inspect())
    for url, qp, i in zip(SAMPLE, df["qp"], df["i"]):
        if url is None:
            continue
        try:
            want = urlkey.query_pairs(url)
        except urlkey.InvalidUrlError:
            assert qp is None, url
        else:
            assert [(p["name"], p["value"]) for p in qp] == want, url
        want_i = urlkey.inspect(url, policy=ukp.DEFAULT_POLICIES["inspect"])
        assert json.loads(i["json"]) == want_i, url
        assert i["valid"] == want_i["valid"]
        assert i["key"] == want_i["key"]
        assert i["facts"] == want_i["facts"]
        assert i["registrable_domain"] == want_i["registrable_domain"]


def test_explain_equals_the_command():
    pairs = [
        ("https://example.com/a?utm_source=x", "https://Example.com/a"),
        ("https://example.com/a", "https://example.com/b"),
        ("https://example.com/a?x=1", "mailto:x@y.z"),
    ]
    df = pl.DataFrame({"a": [p[0] for p in pairs], "b": [p[1] for p in pairs]})
    out = df.select(e=pl.col("a").urlkey.explain(pl.col("b"), policy="citation@1"))["e"].to_list()
    for (a, b), got in zip(pairs, out):
        res = run_cli("explain", "--policy", "citation@1", "--format", "json", a, b, check=False)
        want = json.loads(res.stdout)
        assert got["same_key"] == want["same_key"]
        assert [got["key_a"], got["key_b"]] == want["keys"]
        assert got["rules"] == want["rules"]
        assert got["differs_in"] == want["differs_in"]
        assert [got["value_a"], got["value_b"]] == (want["differing_values"] or [None, None])
        assert got["same_key_under"] == want["same_key_under"]
    assert out[0]["same_key"] is True and "remove-tracking-parameters" in out[0]["rules"]
    assert out[1]["differs_in"] == "path"


def test_lazy_streaming_and_chunked_frames_give_the_eager_result():
    urls = [u for u in SAMPLE if u is not None] * 500
    eager = pl.DataFrame({"url": urls}).with_columns(k=pl.col("url").urlkey.key(), o=pl.col("url").urlkey.outcome())
    lazy = pl.LazyFrame({"url": urls}).with_columns(k=pl.col("url").urlkey.key(), o=pl.col("url").urlkey.outcome())
    assert lazy.collect().equals(eager)
    assert lazy.collect(engine="streaming").equals(eager)
    # Many chunks: Polars hands the plugin one chunk at a time, in parallel.
    chunked = pl.concat([pl.DataFrame({"url": urls[i : i + 97]}) for i in range(0, len(urls), 97)], rechunk=False)
    assert chunked["url"].n_chunks() > 1
    got = chunked.with_columns(k=pl.col("url").urlkey.key(), o=pl.col("url").urlkey.outcome())
    assert got.equals(eager)
    # A filter and a group_by over the key, as analysts use it.
    groups = lazy.group_by("k").agg(pl.len()).collect(engine="streaming")
    assert groups["len"].sum() == len(urls)


def test_a_column_of_nulls_and_other_types():
    nulls = pl.DataFrame({"url": [None, None]})
    assert nulls.select(pl.col("url").urlkey.key())["url"].to_list() == [None, None]
    with pytest.raises(pl.exceptions.PolarsError, match="cast it first"):
        pl.DataFrame({"url": [1, 2]}).select(pl.col("url").urlkey.key())


# Every expression x every plausible input dtype, eager and lazy, in a child process: a
# panic that crossed the FFI boundary aborted the whole interpreter (Categorical at
# `collect_schema()`), which in pytest's own process would end the run instead of failing
# a test. The child prints one JSON line per (expression, mode).
DTYPE_PROBE = r"""
import datetime, json, sys
import polars as pl
import pyarrow as pa
import urlkey_polars as ukp

TEXTS = %(texts)r
kind = sys.argv[1]
non_null = sorted({t for t in TEXTS if t is not None})
def frame(kind):
    s = pl.Series("url", TEXTS, dtype=pl.String)
    n = len(TEXTS)
    if kind == "String":
        return s.to_frame()
    if kind == "Categorical":
        return s.cast(pl.Categorical).to_frame()
    if kind == "Enum":
        return s.cast(pl.Enum(non_null)).to_frame()
    if kind == "ArrowDictionary":  # what pyarrow dictionary strings become
        return pl.from_arrow(pa.table({"url": pa.array(TEXTS).dictionary_encode()}))
    if kind == "Null":
        return pl.DataFrame({"url": [None] * n})
    values = {
        "Int64": [1] * n,
        "Float64": [1.5] * n,
        "Boolean": [True] * n,
        "Binary": [b"https://example.com/"] * n,
        "List(String)": [["https://example.com/"]] * n,
        "Struct": [{"u": "https://example.com/"}] * n,
        "Date": [datetime.date(2020, 1, 1)] * n,
    }[kind]
    return pl.DataFrame({"url": values})

df = frame(kind)
exprs = {
    "key": pl.col("url").urlkey.key(),
    "clean": pl.col("url").urlkey.clean(),
    "registrable_domain": pl.col("url").urlkey.registrable_domain(),
    "outcome": pl.col("url").urlkey.outcome(),
    "query_pairs": pl.col("url").urlkey.query_pairs(),
    "inspect": pl.col("url").urlkey.inspect(),
    "explain": pl.col("url").urlkey.explain(pl.col("url")),
}
for name, e in exprs.items():
    for mode in ["schema", "eager", "streaming"]:
        try:
            if mode == "schema":
                got = str(df.lazy().select(e).collect_schema()["url"])
            elif mode == "eager":
                got = df.select(e)["url"].to_list()
            else:
                got = df.lazy().select(e).collect(engine="streaming")["url"].to_list()
            print(json.dumps({"expr": name, "mode": mode, "ok": True, "got": got}, default=str))
        except Exception as ex:
            print(json.dumps({"expr": name, "mode": mode, "ok": False, "type": type(ex).__name__, "msg": str(ex)}))
        sys.stdout.flush()
print("alive")
"""

PROBE_TEXTS = SAMPLE[:6] + [None, SAMPLE[2], SAMPLE[0]]
TAKEN = ["String", "Categorical", "Enum", "ArrowDictionary", "Null"]
REFUSED = ["Int64", "Float64", "Boolean", "Binary", "List(String)", "Struct", "Date"]


def probe_dtype(kind: str) -> dict:
    import subprocess
    import sys

    res = subprocess.run(
        [sys.executable, "-c", DTYPE_PROBE % {"texts": PROBE_TEXTS}, kind],
        capture_output=True,
        text=True,
        cwd="/tmp",
        timeout=300,
    )
    assert res.returncode == 0, f"{kind}: the child died (exit {res.returncode}): {res.stderr[-2000:]}"
    lines = res.stdout.splitlines()
    assert lines[-1] == "alive", res.stdout
    return {(r["expr"], r["mode"]): r for r in map(json.loads, lines[:-1])}


@pytest.fixture(scope="module")
def string_results():
    return probe_dtype("String")


@pytest.mark.parametrize("kind", TAKEN)
def test_text_dtypes_are_keyed_as_the_same_text_as_string(kind, string_results):
    """Categorical, Enum and pyarrow dictionary strings (what many Parquet files become)
    give, for every expression, eager, lazy and streaming, what String gives; a column of
    nulls gives nulls."""
    got = probe_dtype(kind)
    assert set(got) == set(string_results) and len(got) == 21
    for k, r in got.items():
        want = string_results[k]
        assert r["ok"] and want["ok"], (kind, k, r, want)
        if kind == "Null" and k[1] != "schema":
            assert r["got"] == [None] * len(PROBE_TEXTS), (kind, k)
        else:
            assert r["got"] == want["got"], (kind, k)
    assert got[("key", "eager")]["got"] == [
        None if t is None else urlkey.key(t)["key"] for t in PROBE_TEXTS
    ] or kind == "Null"


@pytest.mark.parametrize("kind", REFUSED)
def test_other_dtypes_are_refused_at_schema_time_naming_the_dtype(kind):
    """Every expression refuses a column that is not text with a Python exception, already
    at `collect_schema()` (it said String for an integer column before), naming the dtype
    and saying to cast it; never an abort, never "the plugin panicked"."""
    got = probe_dtype(kind)
    assert len(got) == 21
    for (expr, mode), r in got.items():
        assert not r["ok"], (kind, expr, mode, r)
        assert r["type"] == "ComputeError", r  # as the README says
        assert f"is {kind}, not String" in r["msg"], r["msg"]
        assert "cast it first" in r["msg"] and f"urlkey.{expr}" in r["msg"], r["msg"]
        assert "panicked" not in r["msg"], r["msg"]


def test_a_lazy_integer_column_fails_at_collect_schema():
    lf = pl.LazyFrame({"url": [1, 2]}).with_columns(k=pl.col("url").urlkey.key())
    with pytest.raises(pl.exceptions.PolarsError, match=r"is Int64, not String.*cast it first"):
        lf.collect_schema()


def test_explain_checks_both_columns():
    df = pl.DataFrame({"a": ["https://a.example/"], "b": [3]})
    with pytest.raises(pl.exceptions.PolarsError, match=r'urlkey.explain: the column "b" is Int64'):
        df.lazy().select(pl.col("a").urlkey.explain(pl.col("b"))).collect_schema()
    both = df.with_columns(c=pl.col("a").cast(pl.Categorical))
    got = both.select(pl.col("a").urlkey.explain(pl.col("c")))["a"].item()
    assert got["same_key"] is True


PANIC_PROBE = r"""
import polars as pl
from polars.plugins import register_plugin_function
import urlkey_polars
from pathlib import Path

def probe(col):
    return register_plugin_function(
        plugin_path=Path(urlkey_polars.__file__).parent,
        function_name="selftest_panic",
        args=[pl.col(col)],
        is_elementwise=True,
    )

for col, run in [("panic_at_schema", lambda lf: lf.collect_schema()), ("url", lambda lf: lf.collect())]:
    lf = pl.LazyFrame({col: ["https://example.com/"]}).select(probe(col))
    try:
        run(lf)
        print("no error", col)
    except Exception as ex:
        print(type(ex).__name__, col, "panicked" in str(ex))
# The plugin still works after both panics.
print(pl.DataFrame({"url": ["https://Example.com/a/"]}).select(pl.col("url").urlkey.key())["url"].item())
"""


def test_a_rust_panic_in_the_plugin_is_a_python_exception():
    """Every entry point runs under catch_unwind: the plugin's probe panics at schema time
    and when it runs, and both are Python exceptions; the process lives on and keys."""
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-c", PANIC_PROBE], capture_output=True, text=True, cwd="/tmp")
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.splitlines() == [
        "ComputeError panic_at_schema True",
        "ComputeError url True",
        "https://example.com/a",
    ]


def test_the_input_limit_is_the_command_s_with_its_message(tmp_path):
    """64 KiB, as `urlkey key`: the same code and message in `outcome`, and `query_pairs`
    applies it too (null over it, the pairs at it)."""
    limit = 64 * 1024
    head = "https://example.com/?a="
    at = head + "x" * (limit - len(head))
    over = at + "x"
    inp = tmp_path / "long.txt"
    inp.write_text(at + "\n" + over + "\n", encoding="utf-8")
    cli = [json.loads(l) for l in run_cli("key", "--quiet", str(inp)).stdout.decode().splitlines()]
    df = pl.DataFrame({"url": [at, over]}).select(
        o=pl.col("url").urlkey.outcome(), qp=pl.col("url").urlkey.query_pairs()
    )
    o = df["o"].to_list()
    assert cli[0]["status"] == "ok" and o[0]["status"] == "ok"
    assert cli[1]["error"]["code"] == "input.too-long"
    assert (o[1]["error_code"], o[1]["error_message"]) == (cli[1]["error"]["code"], cli[1]["error"]["message"])
    assert o[1]["error_message"] == f"the line is {limit + 1} bytes; the limit is {limit} bytes"
    qp = df["qp"].to_list()
    assert qp[0] == [{"name": "a", "value": "x" * (limit - len(head))}]
    assert qp[1] is None


def test_a_policy_file_that_cannot_be_read_is_a_policy_error(tmp_path):
    """A missing file, a directory and a file that is not UTF-8 raise PolicyError with
    `policy.file` (as the README says), not FileNotFoundError/IsADirectoryError, from every
    expression that takes a policy and from policy_info."""
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(b'[[policy]]\nid = "caf\xe9@1"\n')
    cases = [tmp_path / "missing.toml", tmp_path, latin1, str(tmp_path / "missing.toml")]
    builders = [
        lambda f: ukp.key("url", "x@1", policy_file=f),
        lambda f: ukp.outcome("url", "x@1", policy_file=f),
        lambda f: ukp.registrable_domain("url", "x@1", policy_file=f),
        lambda f: ukp.inspect("url", "x@1", policy_file=f),
        lambda f: ukp.explain("url", "url", "x@1", policy_file=f),
        lambda f: pl.col("url").urlkey.key("x@1", policy_file=f),
        lambda f: ukp.policy_info("x@1", policy_file=f),
    ]
    for f in cases:
        for build in builders:
            with pytest.raises(ukp.PolicyError) as e:
                build(f)
            assert e.value.code == "policy.file", (f, e.value)
            assert str(f) in str(e.value) and "cannot read the policy file" in str(e.value)
            assert isinstance(e.value, ValueError)


def test_unknown_policy_and_bad_policy_file_fail_when_the_expression_is_built(tmp_path):
    with pytest.raises(ukp.PolicyError) as e:
        pl.col("url").urlkey.key(policy="citation@9")
    assert e.value.code == "policy.unknown"
    bad = tmp_path / "bad.toml"
    bad.write_text('[[policy]]\nid = "x@1"\nparser = "whatwg"\nkey = "url"\nrules = [{ rule = "nope" }]\n')
    with pytest.raises(ukp.PolicyError) as e:
        pl.col("url").urlkey.key(policy="x@1", policy_file=bad)
    assert e.value.code == "policy.file"
    assert str(bad) in str(e.value)


def test_a_policy_file_keys_as_the_command_does(tmp_path, corpus_records):
    pf = tmp_path / "mine.toml"
    pf.write_text(
        '[[policy]]\nid = "mine@1"\ndescription = "sorted query, no fragment"\nparser = "whatwg"\n'
        'key = "url"\nrules = [{ rule = "sort-query" }, { rule = "remove-fragment" }]\n'
    )
    texts = [t for _, t in corpus_records[:5000]]
    got = pl.DataFrame({"url": texts}).select(k=pl.col("url").urlkey.key("mine@1", policy_file=pf))["k"].to_list()
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps({"url": t}) + "\n" for t in texts), encoding="utf-8")
    res = run_cli(
        "key", "--policy-file", str(pf), "--policy", "mine@1", "--field", "url", "--quiet", str(inp)
    )
    want = [json.loads(line)["key"] for line in res.stdout.decode().splitlines()]
    assert got == want
    info = ukp.policy_info("mine@1", policy_file=pf)
    assert info["id"] == "mine@1" and info["builtin"] is False
    assert info["psl_version"] == urlkey.psl_version()
    assert ukp.policy_info("citation@1")["builtin"] is True


def test_the_docs_example_prints_what_the_docs_say():
    """docs/scale.md shows crates/urlkey-polars/examples/citations.py with its output as
    comments: run it and compare each printed line with the comment under its print."""
    import subprocess
    import sys

    example = corpus.REPO / "crates" / "urlkey-polars" / "examples" / "citations.py"
    text = example.read_text(encoding="utf-8")
    assert text.split('"""', 2)[2].lstrip("\n") in (corpus.REPO / "docs" / "scale.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    expected = [lines[i + 1].removeprefix("# ") for i, l in enumerate(lines) if l.startswith("print(")]
    res = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, cwd="/tmp")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == expected


def test_the_readme_one_liner_runs_and_keys_as_the_command():
    import re
    import subprocess
    import sys

    readme = (corpus.REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^python -c '(import polars as pl, urlkey_polars; .*)'$", readme, re.M)
    assert m, "README shows the Polars one-liner"
    res = subprocess.run([sys.executable, "-c", m.group(1)], capture_output=True, text=True, cwd=corpus.REPO)
    assert res.returncode == 0, res.stderr
    assert "example.org/about" in res.stdout
    frame = pl.read_csv(corpus.REPO / "examples" / "site-after.csv")
    got = frame.select(pl.col("Address").urlkey.key(policy="webkey@1"))["Address"].to_list()
    want = [urlkey.key(u, policy="webkey@1")["key"] for u in frame["Address"]]
    assert got == want


def test_python_threads_run_while_the_plugin_keys(corpus_records):
    """The plugin runs without the GIL: a Python thread keeps running while a query keys
    the corpus (if the expression held the GIL, the counter could not move meanwhile)."""
    import threading
    import time

    urls = pl.DataFrame({"url": [t for _, t in corpus_records]})
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())

    t = threading.Thread(target=count)
    t.start()
    try:
        start = time.perf_counter()
        out = urls.select(pl.col("url").urlkey.outcome(policy="clean@1"))
        end = time.perf_counter()
    finally:
        done.set()
        t.join()
    assert out.height == urls.height
    during = [x for x in ticks if start < x < end]
    assert len(during) > 100, (len(during), end - start)
