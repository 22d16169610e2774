"""The Python API: records, errors, inspect, query pairs, policies, vectorized keys."""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pyarrow as pa
import pytest

import corpus
import urlkey
from conftest import cli_path, read_jsonl, run_cli

SAMPLES = [
    "https://research.example.net/report/?gclid=example",
    "HTTP://Example.com:80/a//b?utm_source=x&id=7",
    "/main/scripts.html?script=One",
    "javascript:alert(1)",
    "https://news.Example.com.au/Sport/index.htm?page=2&utm_medium=x",
    "HTTPS://Example.TEST:443/Guide?q=one+two#install",
    "  https://user:pw@b\u00fccher.example/a b?x=1#f  ",
    "github.com/rust-lang?utm_source=x",
    "http://[::1]:8080/x/",
    "",
    "mailto:Someone@Example.com",
    # A redirect wrapper: under clean@1 its transformation names the wrapper
    # (docs/policies.md, the redirect wrappers).
    "https://l.facebook.com/l.php?u=https%3A%2F%2Fa.example%2F%3Fsrsltid%3D1",
]


def test_key_returns_the_jsonl_record():
    r = urlkey.key("https://research.example.net/report/?gclid=example")
    want = {
        "line": None,
        "observed": "https://research.example.net/report/?gclid=example",
        "policy": "citation@1",
        "status": "ok",
        "key": "https://research.example.net/report",
        "canonical": "https://research.example.net/report/",
        "error": None,
        "transformations": [
            {
                "rule": "remove-tracking-parameters",
                "component": "query",
                "before": "?gclid=example",
                "after": "",
            },
            {
                "rule": "remove-trailing-slash",
                "component": "path",
                "before": "/report/",
                "after": "/report",
            },
        ],
        "removed_params": ["gclid"],
        "facts": ["tracking-parameters-removed"],
        "psl": None,
    }
    # The fields in the record's order too (the Rust key table, pinned in
    # urlkey-batch/src/rows/columns.rs).
    assert r == want and list(r) == list(want)


def test_an_invalid_url_is_a_record_not_an_exception():
    r = urlkey.key("javascript:alert(1)")
    assert r["status"] == "invalid"
    assert r["key"] is None and r["canonical"] is None
    assert r["error"]["code"] == "citation.unsupported-scheme"
    assert r["error"]["message"]


@pytest.mark.parametrize("policy", corpus.BUILTIN_POLICIES)
def test_key_equals_the_command_record(tmp_path, policy):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(SAMPLES) + "\n", encoding="utf-8")
    cli = read_jsonl(run_cli("key", "--policy", policy, "--quiet", str(src)).stdout)
    records = corpus.records(SAMPLES)
    assert len(cli) == len(records)
    for (line, text), want in zip(records, cli):
        got = urlkey.key(text, policy=policy)
        assert list(got) == list(want)
        assert want["line"] == line
        assert got == dict(want, line=None), text


def test_key_with_base_equals_the_command():
    base = "https://example.test/dir/page.html"
    got = urlkey.key("../other?b=1#x", policy="whatwg@1", base=base)
    proc = subprocess.run(
        [str(cli_path()), "key", "--policy", "whatwg@1", "--base", base, "--quiet"],
        input=b"../other?b=1#x\n",
        stdout=subprocess.PIPE,
        check=True,
    )
    want = read_jsonl(proc.stdout)[0]
    assert got == dict(want, line=None)
    assert got["key"] == "https://example.test/other?b=1#x"


def test_errors_are_exceptions_with_codes():
    with pytest.raises(urlkey.PolicyError) as e:
        urlkey.key("https://a.test/", policy="nope@1")
    assert e.value.code == "policy.unknown"
    assert "nope@1" in str(e.value)
    assert isinstance(e.value, urlkey.UrlkeyError) and isinstance(e.value, ValueError)
    with pytest.raises(urlkey.PolicyError) as e:
        urlkey.key("https://a.test/", policy="citation@1+nope")
    assert e.value.code == "policy.unknown-option"
    with pytest.raises(urlkey.UsageError) as e:
        urlkey.key("x", policy="citation@1", base="https://a.test/")
    assert e.value.code == "usage.base"
    with pytest.raises(urlkey.InvalidUrlError) as e:
        urlkey.key("x", policy="whatwg@1", base="not a url")
    assert e.value.code == "web.invalid-url"
    with pytest.raises(urlkey.InvalidUrlError) as e:
        urlkey.query_pairs("no scheme")
    assert e.value.code == "web.invalid-url"
    with pytest.raises(urlkey.PolicyError):
        urlkey.keys(["https://a.test/"], policy="nope@1")
    with pytest.raises(TypeError):
        urlkey.key(42)  # type: ignore[arg-type]


def test_query_pairs():
    assert urlkey.query_pairs("https://a.test/?x=&x=2&q=a+b&p=%2B") == [
        ("x", ""),
        ("x", "2"),
        ("q", "a b"),
        ("p", "+"),
    ]
    assert urlkey.query_pairs("https://a.test/") == []


@pytest.mark.parametrize(
    "url",
    [
        "github.com/rust-lang?utm_source=x",
        "https://news.Example.com.au/Sport/index.htm?page=2&utm_medium=x",
        "https://user:pw@xn--bcher-kva.example:8080/a?b=1#c",
        "not a url at all",
    ],
)
def test_inspect_equals_the_command(url):
    want = json.loads(run_cli("inspect", "--format", "json", url).stdout)
    assert urlkey.inspect(url) == want
    want = json.loads(run_cli("inspect", "--format", "json", "--policy", "mapper@1", url).stdout)
    assert urlkey.inspect(url, policy="mapper@1") == want


def test_policies_and_psl_version_equal_the_command():
    want = json.loads(run_cli("policies", "--format", "json").stdout)
    assert urlkey.policies() == want["policies"]
    assert urlkey.psl_version() == want["psl"]
    assert corpus.BUILTIN_POLICIES == [p["id"] for p in want["policies"] if p["builtin"]]


def test_default_policies_are_the_commands():
    """The wrappers' default policies are the command's: both read urlkey::policy::defaults."""
    import inspect as pyinspect

    import urlkey.spark as uks

    d = urlkey.DEFAULT_POLICIES
    url = "https://a.example/x/?utm_source=y"
    assert urlkey.inspect(url)["policy"] == d["inspect"]
    assert json.loads(run_cli("inspect", "--format", "json", url).stdout)["policy"] == d["inspect"]
    explained = json.loads(run_cli("explain", "--format", "json", url, url).stdout)
    assert explained["policy"] == d["explain"] == d["key"]
    assert urlkey.key(url)["policy"] == d["key"]
    assert urlkey.keys([url]).column("policy").to_pylist() == [d["key"]]
    for fn, name in [
        (urlkey.keys, "key"),
        (uks.with_keys, "key"),
        (uks.group_report, "map"),
    ]:
        assert pyinspect.signature(fn).parameters["policy"].default == d[name], fn


def test_error_codes_are_the_documented_ones():
    codes = urlkey.error_codes()
    assert "web.invalid-url" in codes and "input.missing-field" in codes
    doc = (corpus.REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for code in codes:
        assert f"`{code}`" in doc, code


def _rows(batch: pa.RecordBatch):
    return batch.to_pylist()


def test_keys_columns_and_rows_match_key():
    batch = urlkey.keys(SAMPLES + [None], policy="mapper@1")
    assert isinstance(batch, pa.RecordBatch)
    assert batch.schema.names == urlkey.KEY_COLUMNS
    assert batch.schema.field("index").type == pa.int64()
    assert batch.schema.field("transformations").type == pa.list_(pa.string())
    rows = _rows(batch)
    assert len(rows) == len(SAMPLES) + 1
    for i, (text, row) in enumerate(zip(SAMPLES, rows)):
        r = urlkey.key(text, policy="mapper@1")
        assert row["index"] == i
        assert row["observed"] == text
        assert row["policy"] == "mapper@1"
        assert row["status"] == r["status"]
        assert row["key"] == r["key"]
        assert row["canonical"] == r["canonical"]
        assert row["error_code"] == (r["error"] or {}).get("code")
        assert row["error_message"] == (r["error"] or {}).get("message")
        assert row["transformations"] == [t["rule"] for t in r["transformations"]]
        assert row["removed_params"] == r["removed_params"]
        assert row["facts"] == r["facts"]
    last = rows[-1]
    assert last["observed"] is None and last["status"] == "invalid"
    assert last["error_code"] == "input.missing-field"
    assert rows[1]["signature"] == "example.com/a/b?id"
    assert rows[1]["host"] == "example.com"


def test_keys_accepts_arrays_chunks_and_iterables():
    values = ["https://a.test/x/", "https://b.test/?utm_source=1", None]
    want = urlkey.keys(values).column("key").to_pylist()
    assert want == ["https://a.test/x", "https://b.test/", None]
    inputs = [
        pa.array(values),
        pa.array(values, type=pa.large_string()),
        pa.chunked_array([values[:1], values[1:]]),
        pa.chunked_array([values]),
        pa.array(values).dictionary_encode(),
        tuple(values),
        (v for v in values),
        iter(values),
    ]
    if hasattr(pa, "string_view"):
        inputs.append(pa.array(values, type=pa.string_view()))
    for v in inputs:
        assert urlkey.keys(v).column("key").to_pylist() == want, type(v)
    assert urlkey.keys([]).num_rows == 0
    assert urlkey.keys(pa.array([None, None])).column("status").to_pylist() == ["invalid"] * 2


def test_keys_refuses_what_is_not_text():
    with pytest.raises(TypeError):
        urlkey.keys(pa.array([1, 2, 3]))
    with pytest.raises((TypeError, pa.ArrowInvalid)):
        urlkey.keys([1, 2, 3])


def test_keys_releases_the_gil():
    """While keys() runs in one thread, another Python thread keeps running: with the GIL
    held for the whole call, the main thread could not run in the middle of the call."""
    values = pa.array(["https://example.test/a/b/?utm_source=x&z=1&a=2#f"] * 200_000)
    urlkey.keys(values.slice(0, 10))
    done = threading.Event()
    window = {}

    def work():
        window["start"] = time.perf_counter()
        window["rows"] = urlkey.keys(values, policy="webkey@1").num_rows
        window["end"] = time.perf_counter()
        done.set()

    stamps = []
    spins = 0
    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        spins += 1
        if spins % 64 == 0:
            stamps.append(time.perf_counter())
    t.join()
    assert window["rows"] == 200_000
    start, end = window["start"], window["end"]
    duration = end - start
    assert duration > 0.02, duration
    middle = [s for s in stamps if start + 0.25 * duration <= s <= start + 0.75 * duration]
    assert middle, f"the main thread never ran in the middle of a {duration:.3f} s keys() call"
