"""The DuckDB extension (crates/urlkey-duckdb) in the `duckdb` wheel, against the Python
module and the command line: the same keys, the same outcome fields, `urlkey map`'s rows
from the SQL recipe (crates/urlkey-duckdb/sql/map.sql).

The extension is `$URLKEY_DUCKDB_EXTENSION`, else target/duckdb/urlkey.duckdb_extension
(scripts/test-python.sh builds it with scripts/build-duckdb-extension.sh). A missing file
fails the tests; nothing skips.

duckdb 2's Python API keeps a result open until it is fetched to the end: every
statement here is fetched with fetchall().
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Dict, List, Tuple

import duckdb
import pyarrow as pa
import pytest

import corpus
import urlkey

SAMPLE_STRIDE = 40
OUTCOME_FIELDS = [
    "policy",
    "status",
    "key",
    "canonical",
    "error_code",
    "error_message",
    "removed_params",
    "transformations",
    "facts",
    "host",
    "signature",
    "registrable_domain",
    "psl_version",
]
SCALARS = ["urlkey_key", "urlkey_outcome", "urlkey_clean", "urlkey_registrable_domain"]
WRAPPED = "https://www.google.com/url?q=https://news.example.org/a&sa=D"
MAP_SQL = corpus.REPO / "crates" / "urlkey-duckdb" / "sql" / "map.sql"


def extension_path() -> Path:
    p = Path(
        os.environ.get(
            "URLKEY_DUCKDB_EXTENSION",
            corpus.REPO / "target" / "duckdb" / "urlkey.duckdb_extension",
        )
    )
    if not p.is_file():
        raise FileNotFoundError(
            f"the DuckDB extension is not at {p}: run scripts/build-duckdb-extension.sh "
            "(or set URLKEY_DUCKDB_EXTENSION)"
        )
    return p


def connect(**config: str) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(config={"allow_unsigned_extensions": "true", **config})


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = connect()
    c.execute(f"LOAD '{extension_path()}'").fetchall()
    yield c
    c.close()


@pytest.fixture(scope="module")
def sample(corpus_records) -> List[str]:
    """Every 40th record of the corpus (about 5,000 URLs, valid and invalid)."""
    return [text for _, text in corpus_records[::SAMPLE_STRIDE]]


def urls_table(con: duckdb.DuckDBPyConnection, name: str, urls: List[str]) -> None:
    con.register(name, pa.table({"i": list(range(len(urls))), "url": urls}))


def error_text(excinfo: pytest.ExceptionInfo) -> str:
    return str(excinfo.value)


def test_the_wheel_is_the_pinned_engine():
    assert duckdb.__version__ == "2.0.1"


def test_null_in_null_out(con):
    for f in SCALARS:
        assert con.execute(f"SELECT {f}(NULL)").fetchall()[0] == (None,), f
        if f != "urlkey_clean":
            got = con.execute(f"SELECT {f}('https://example.com/', NULL)").fetchall()[0]
            assert got == (None,), f
            got = con.execute(f"SELECT {f}(NULL, 'webkey@1')").fetchall()[0]
            assert got == (None,), f
    assert con.execute("SELECT count(*) FROM urlkey_query_pairs(NULL)").fetchall()[0] == (0,)
    # NULL rows among others, in one chunk: only those rows are NULL.
    rows = con.execute(
        "SELECT urlkey_key(u), urlkey_outcome(u) IS NULL FROM "
        "(VALUES (1, 'https://a.example/x'), (2, NULL), (3, 'https://b.example/')) t(i, u) "
        "ORDER BY i"
    ).fetchall()
    assert rows == [
        ("https://a.example/x", False),
        (None, True),
        ("https://b.example/", False),
    ]


def test_an_invalid_url_is_a_row_with_its_code(con):
    for url in ["mailto:someone@example.net", "not a url", "", "https://exa mple.com/"]:
        want = urlkey.key(url)
        assert want["status"] == "invalid", url
        key, o = con.execute("SELECT urlkey_key(?), urlkey_outcome(?)", [url, url]).fetchall()[0]
        assert key is None, url
        assert o["status"] == "invalid", url
        assert o["key"] is None and o["canonical"] is None, url
        assert o["error_code"] == want["error"]["code"], url
        assert o["error_message"] == want["error"]["message"], url
        assert o["psl_version"] == urlkey.psl_version(), url


def test_every_builtin_key_equals_the_python_module(con, sample):
    urls_table(con, "s", sample)
    assert corpus.BUILTIN_POLICIES, "no builtin policies listed"
    for policy in corpus.BUILTIN_POLICIES:
        got = con.execute("SELECT urlkey_key(url, ?) FROM s ORDER BY i", [policy]).fetchall()
        want = [urlkey.key(u, policy)["key"] for u in sample]
        assert len(got) == len(want) == len(sample)
        diff = [(u, g[0], w) for u, g, w in zip(sample, got, want) if g[0] != w]
        assert not diff, f"{policy}: {len(diff)} differ, first {diff[:3]}"
        assert any(w is not None for w in want) and any(w is None for w in want), policy
    # The default policy is the command's and the module's.
    got = [r[0] for r in con.execute("SELECT urlkey_key(url) FROM s ORDER BY i").fetchall()]
    assert got == [urlkey.key(u)["key"] for u in sample]
    assert urlkey.DEFAULT_POLICIES["key"] == urlkey.key(sample[0])["policy"]


def python_outcome(url: str, policy: str, keyed: Dict[str, list], i: int) -> dict:
    """The Python record in the extension's field names (host and signature from
    ``urlkey.keys``, which has them)."""
    r = urlkey.key(url, policy)
    err = r["error"] or {}
    return {
        "policy": r["policy"],
        "status": r["status"],
        "key": r["key"],
        "canonical": r["canonical"],
        "error_code": err.get("code"),
        "error_message": err.get("message"),
        "removed_params": r["removed_params"],
        "transformations": [
            {
                "rule": t["rule"],
                "component": t["component"],
                "before": t["before"],
                "after": t["after"],
                "wrapper": t.get("wrapper"),
            }
            for t in r["transformations"]
        ],
        "facts": r["facts"],
        "host": keyed["host"][i],
        "signature": keyed["signature"][i],
    }


def test_the_outcome_fields_equal_the_python_record(con, sample):
    urls_table(con, "s", sample)
    # The STRUCT's fields, in order (a fetched struct is a dict in field order).
    o = con.execute("SELECT urlkey_outcome('https://example.com/?utm_source=x#y')").fetchall()
    o = o[0][0]
    assert list(o.keys()) == OUTCOME_FIELDS
    assert o["transformations"], o
    t_fields = ["rule", "component", "before", "after", "wrapper"]
    assert list(o["transformations"][0].keys()) == t_fields
    psl = urlkey.psl_version()
    for policy in corpus.BUILTIN_POLICIES:
        rows = con.execute(
            "SELECT urlkey_outcome(url, ?) FROM s ORDER BY i", [policy]
        ).fetchall()
        keyed = urlkey.keys(sample, policy).to_pydict()
        assert len(rows) == len(sample)
        for i, (url, (o,)) in enumerate(zip(sample, rows)):
            assert list(o.keys()) == OUTCOME_FIELDS
            want = python_outcome(url, policy, keyed, i)
            got = {k: o[k] for k in want}
            assert got == want, f"{policy} {url!r}"
            assert o["psl_version"] == psl
            if o["registrable_domain"] is not None:
                host = o["host"].rstrip(".")
                assert host == o["registrable_domain"] or host.endswith(
                    "." + o["registrable_domain"]
                ), (policy, url, o["registrable_domain"])
    # The wrapper field is filled where an unwrap happened.
    o = con.execute("SELECT urlkey_outcome(?, 'clean@1')", [WRAPPED]).fetchall()[0][0]
    unwraps = [t for t in o["transformations"] if t["rule"] == "unwrap-redirect"]
    assert unwraps and unwraps[0]["wrapper"], o
    assert o["key"] == urlkey.key(WRAPPED, "clean@1")["key"]


def test_clean_is_the_key_under_clean(con, sample):
    urls_table(con, "s", sample)
    got = [r[0] for r in con.execute("SELECT urlkey_clean(url) FROM s ORDER BY i").fetchall()]
    assert got == [urlkey.key(u, "clean@1")["key"] for u in sample]
    url = "https://news.example.org/a?utm_source=x&fbclid=y&id=3#top"
    got = con.execute("SELECT urlkey_clean(?)", [url]).fetchall()
    assert got == [(urlkey.key(url, "clean@1")["key"],)]
    # clean@1 keeps the fragment (a clean link still opens at the same place).
    assert got[0][0] == "https://news.example.org/a?id=3#top"


def test_registrable_domain(con):
    cases = [
        ("https://www.bbc.co.uk/news/?utm_source=x", None, "bbc.co.uk"),
        ("https://a.b.example.com./x", None, "example.com"),
        ("http://127.0.0.1/x", None, None),
        ("https://[::1]/x", None, None),
        ("https://co.uk/x", None, None),
        ("mailto:someone@example.net", None, None),
        (WRAPPED, "clean@1", "example.org"),
        (WRAPPED, "citation@1", "google.com"),
    ]
    for url, policy, want in cases:
        if policy is None:
            got = con.execute("SELECT urlkey_registrable_domain(?)", [url]).fetchall()[0][0]
        else:
            got = con.execute(
                "SELECT urlkey_registrable_domain(?, ?)", [url, policy]
            ).fetchall()[0][0]
        assert got == want, (url, policy)
        o = con.execute(
            "SELECT urlkey_outcome(?, ?)", [url, policy or urlkey.DEFAULT_POLICIES["key"]]
        ).fetchall()[0][0]
        assert o["registrable_domain"] == want, (url, policy)


def test_query_pairs(con):
    for url in [
        "https://e.example/?a=1&b=&a=2&c+d=x%2By",
        "https://e.example/p",
        "https://e.example/?&&x",
        "https://e.example/?q=caf%C3%A9#frag",
    ]:
        rows = con.execute("SELECT * FROM urlkey_query_pairs(?)", [url]).fetchall()
        want = [(i + 1, n, v) for i, (n, v) in enumerate(urlkey.query_pairs(url))]
        assert rows == want, url
    res = con.execute("SELECT * FROM urlkey_query_pairs('https://e.example/?a=1')")
    cols = [d[0] for d in res.description]
    assert res.fetchall() == [(1, "a", "1")]
    assert cols == ["position", "name", "value"]
    # More pairs than one chunk holds (2,048 rows).
    many = "https://e.example/?" + "&".join(f"k{i}={i}" for i in range(5000))
    n, last = con.execute(
        "SELECT count(*), max(position) FROM urlkey_query_pairs(?)", [many]
    ).fetchall()[0]
    assert (n, last) == (5000, 5000)
    with pytest.raises(duckdb.Error) as e:
        con.execute("SELECT * FROM urlkey_query_pairs('not a url')").fetchall()
    with pytest.raises(urlkey.InvalidUrlError) as py:
        urlkey.query_pairs("not a url")
    assert re.search(r"(^|Error: )" + re.escape(py.value.code) + ": ", error_text(e)), error_text(e)


def py_pair_list(url):
    """What the scalar `urlkey_query_pairs` gives for `url`: Python's pairs as structs,
    None for None and for text that is not an absolute URL."""
    if url is None:
        return None
    try:
        pairs = urlkey.query_pairs(url)
    except urlkey.InvalidUrlError:
        return None
    return [{"name": n, "value": v} for n, v in pairs]


PAIR_URLS = [
    "https://e.example/?a=1&b=&a=2&c+d=x%2By",
    None,
    "not a url",
    "https://e.example/p",
    "https://e.example/?&&x",
    "https://e.example/?q=a+b%2Bc&q=&q=a+b%2Bc#frag",
    "https://e.example/?q=caf%C3%A9&=v&n=",
    "mailto:someone@example.net",
]


def test_query_pairs_over_a_column(con):
    """The scalar form: a list per row, equal to Python's `query_pairs` row by row; NULL
    for NULL and for text that is not an absolute URL (where the table function and
    Python raise), [] for a URL without a query."""
    urls_table(con, "pair_urls", PAIR_URLS)
    rows = con.execute(
        "SELECT i, urlkey_query_pairs(url) FROM pair_urls ORDER BY i"
    ).fetchall()
    assert [r[1] for r in rows] == [py_pair_list(u) for u in PAIR_URLS]
    assert rows[3][1] == [] and rows[1][1] is None and rows[2][1] is None
    # unnest(..., recursive := true): one row per pair, in the table's order (DuckDB's
    # preserve_insertion_order) and each URL's pair order; no row for NULL, an invalid
    # URL or a URL without a query.
    res = con.execute(
        "SELECT url, unnest(urlkey_query_pairs(url), recursive := true) FROM pair_urls"
    )
    assert [d[0] for d in res.description] == ["url", "name", "value"]
    want = [(u, p["name"], p["value"]) for u in PAIR_URLS for p in py_pair_list(u) or []]
    assert res.fetchall() == want
    # The table function still takes only a constant (no lateral table functions in
    # DuckDB's C API): the reason for the scalar form.
    with pytest.raises(duckdb.BinderException) as e:
        con.execute("SELECT * FROM pair_urls, urlkey_query_pairs(pair_urls.url)").fetchall()
    assert "only supports literals as parameters" in error_text(e), error_text(e)
    ty = con.execute("SELECT typeof(urlkey_query_pairs('https://e.example/'))").fetchall()
    assert ty == [('STRUCT("name" VARCHAR, "value" VARCHAR)[]',)]
    assert con.execute("SELECT urlkey_query_pairs(NULL)").fetchall() == [(None,)]
    # The same name is both functions (as DuckDB's own `range`).
    kinds = con.execute(
        "SELECT function_type FROM duckdb_functions() "
        "WHERE function_name = 'urlkey_query_pairs' ORDER BY function_type"
    ).fetchall()
    assert kinds == [("scalar",), ("table",)]
    same_as_range = con.execute(
        "SELECT DISTINCT function_type FROM duckdb_functions() "
        "WHERE function_name = 'range' ORDER BY function_type"
    ).fetchall()
    assert same_as_range == kinds


def test_query_pairs_over_more_than_one_chunk(con):
    """More rows than one DuckDB vector (2,048), and one URL of 5,000 pairs (more list
    items than a vector holds)."""
    many = "https://e.example/?" + "&".join(f"k{i}=v+{i}" for i in range(5000))
    urls = [
        PAIR_URLS[i % len(PAIR_URLS)] if i % len(PAIR_URLS) in (1, 2)
        else f"https://e.example/{i}?row={i}&x=%2B{i}&x=&r+{i}=" + "y" * (i % 20)
        for i in range(5000)
    ]
    urls[3000] = many
    urls_table(con, "many_pair_urls", urls)
    rows = con.execute(
        "SELECT urlkey_query_pairs(url) FROM many_pair_urls ORDER BY i"
    ).fetchall()
    assert len(rows) == len(urls)
    for u, (got,) in zip(urls, rows):
        assert got == py_pair_list(u), u
    assert len(rows[3000][0]) == 5000
    got = con.execute(
        "SELECT url, unnest(urlkey_query_pairs(url), recursive := true) FROM many_pair_urls"
    ).fetchall()
    want = [(u, p["name"], p["value"]) for u in urls for p in py_pair_list(u) or []]
    assert len(want) > 5000 + 2 * 2048
    assert got == want


def test_an_unknown_policy_is_an_error_with_its_code(con):
    for sql in [
        "SELECT urlkey_key('https://example.com/', 'nope@1')",
        "SELECT urlkey_outcome('https://example.com/', 'nope@1')",
        "SELECT urlkey_registrable_domain('https://example.com/', 'nope@1')",
    ]:
        with pytest.raises(duckdb.Error) as e:
            con.execute(sql).fetchall()
        text = error_text(e)
        assert re.search(r"(^|Error: )policy\.unknown: ", text), text
        for p in corpus.BUILTIN_POLICIES:
            assert p in text, (p, text)


def test_descriptions(con):
    listed = con.execute(
        "SELECT function_name, description FROM urlkey_functions() ORDER BY function_name"
    ).fetchall()
    registered = {
        r[0]
        for r in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_name LIKE 'urlkey%'"
        ).fetchall()
    }
    assert {n for n, _ in listed} == registered
    assert set(SCALARS) | {"urlkey_query_pairs", "urlkey_functions"} == registered
    # urlkey_query_pairs is a table and a scalar function: a row for each.
    assert [n for n, _ in listed].count("urlkey_query_pairs") == 2
    for name, description in listed:
        assert description and len(description) > 20, name
    # The C extension API cannot set duckdb_functions().description (README): should a
    # DuckDB version fill it, this fails and the docs must say so.
    described = con.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'urlkey%' "
        "AND description IS NOT NULL"
    ).fetchall()[0][0]
    assert described == 0


def test_install_then_load_by_name(tmp_path):
    c = connect(extension_directory=str(tmp_path / "extensions"))
    try:
        c.execute(f"INSTALL '{extension_path()}'").fetchall()
        c.execute("LOAD urlkey").fetchall()
        assert c.execute("SELECT urlkey_key('HTTPS://Example.COM/a/#x')").fetchall()[0] == (
            urlkey.key("HTTPS://Example.COM/a/#x")["key"],
        )
        name, loaded, installed, version = c.execute(
            "SELECT extension_name, loaded, installed, extension_version FROM duckdb_extensions() "
            "WHERE extension_name = 'urlkey'"
        ).fetchall()[0]
        assert (name, loaded, installed) == ("urlkey", True, True)
        assert version == urlkey.__version__
        assert list((tmp_path / "extensions").rglob("urlkey.duckdb_extension"))
    finally:
        c.close()


MAP_COLUMNS = [
    "line",
    "observed",
    "status",
    "key",
    "signature",
    "group",
    "duplicate_of",
    "duplicates",
    "variants",
    "classification",
    "removed_tracking",
    "error_code",
    "error",
]


def map_recipe(con: duckdb.DuckDBPyConnection, path: Path) -> List[Tuple]:
    con.execute("SET VARIABLE urlkey_input = ?", [str(path)]).fetchall()
    con.execute(MAP_SQL.read_text(encoding="utf-8")).fetchall()
    cols = ", ".join(f'"{c}"' for c in MAP_COLUMNS)
    return con.execute(f"SELECT {cols} FROM urlkey_map ORDER BY line").fetchall()


def test_the_map_recipe_gives_the_rows_of_urlkey_map(con, corpus_file, cli_map_records):
    rows = map_recipe(con, corpus_file)
    want = [tuple(r[c] for c in MAP_COLUMNS) for r in cli_map_records]
    assert len(rows) == len(want)
    diff = [(g, w) for g, w in zip(rows, want) if g != w]
    assert not diff, f"{len(diff)} rows differ, first {diff[:3]}"
    classes = {r[MAP_COLUMNS.index("classification")] for r in rows}
    assert classes == {"unique", "duplicate", "review", "invalid"}, classes


def test_the_map_recipe_numbers_lines_as_the_command(con, tmp_path, cli):
    from conftest import read_jsonl, run_cli

    p = tmp_path / "lines.txt"
    p.write_bytes(
        "\ufeffhttps://a.example/x\r\n# comment\r\n\r\n  \t\n/x?a=1&b=2\r/x?b=2&a=1\n"
        "\u00a0# indented comment\nhttps://a.example/x?utm_source=1\n".encode("utf-8")
    )
    rows = map_recipe(con, p)
    want = [
        tuple(r[c] for c in MAP_COLUMNS)
        for r in read_jsonl(run_cli("map", "--format", "jsonl", "--quiet", str(p)).stdout)
    ]
    assert rows == want
    assert [r[0] for r in rows] == [1, 5, 6, 8]


def test_any_vector_shape_and_a_policy_per_row(con, tmp_path):
    # A Parquet scan hands over dictionary vectors, a cross join repeats the policy
    # column, a literal is a constant vector: the extension reads each row as written.
    p = tmp_path / "dict.parquet"
    con.execute(
        "COPY (SELECT i, CASE WHEN i % 3 = 0 THEN 'https://a.example/x/?utm_source=1' "
        "WHEN i % 3 = 1 THEN 'HTTPS://B.example/y#f' END AS url FROM range(10000) t(i)) "
        f"TO '{p}'"
    ).fetchall()
    policies = ["citation@1", "webkey@1", "clean@1"]
    got = con.execute(
        f"SELECT i, p, urlkey_key(url, p), (urlkey_outcome(url, p)).policy FROM '{p}', "
        "(SELECT unnest(?) AS p) ORDER BY i, p",
        [policies],
    ).fetchall()
    assert len(got) == 10000 * len(policies)
    urls = {0: "https://a.example/x/?utm_source=1", 1: "HTTPS://B.example/y#f", 2: None}
    for i, policy, key, resolved in got:
        url = urls[i % 3]
        if url is None:
            assert (key, resolved) == (None, None), (i, policy)
        else:
            assert (key, resolved) == (urlkey.key(url, policy)["key"], policy), (i, policy)
    mixed = con.execute(
        "SELECT urlkey_key('https://a.example/x/', p) FROM (SELECT unnest(?) AS p, "
        "generate_subscripts(?, 1) AS n) ORDER BY n",
        [policies, policies],
    ).fetchall()
    assert mixed == [(urlkey.key("https://a.example/x/", p)["key"],) for p in policies]


def test_the_docs_worked_example(con, tmp_path):
    """docs/scale.md's DuckDB example: its queries, on its four URLs, give what it says."""
    doc = (corpus.REPO / "docs" / "scale.md").read_text(encoding="utf-8")
    queries = [
        "SELECT urlkey_key(url) AS key, count(*) AS n, min(url) AS example\nFROM cites GROUP BY key ORDER BY n DESC;",
        "SELECT o.status, o.error_code, count(*) AS n\nFROM (SELECT urlkey_outcome(url) AS o FROM cites)\nGROUP BY ALL ORDER BY n DESC;",
        "SELECT urlkey_registrable_domain(url) AS publisher, count(DISTINCT urlkey_key(url)) AS pages\nFROM cites GROUP BY publisher ORDER BY pages DESC;",
        "SELECT url, unnest(urlkey_query_pairs(url), recursive := true)\nFROM cites;",
    ]
    for q in queries:
        assert q in doc, q
    csv = tmp_path / "citations.csv"
    csv.write_text(
        "url\nhttps://www.bbc.co.uk/news/?utm_source=x\nhttps://www.bbc.co.uk/news\nmailto:a@b.c\nhttps://example.com/a/#top\n"
    )
    c = connect()
    c.execute(f"LOAD '{extension_path()}'").fetchall()
    create = "CREATE TABLE cites AS SELECT * FROM read_csv('citations.csv', quote='\"', escape='\"');"
    assert create in doc
    c.execute(create.replace("citations.csv", str(csv))).fetchall()
    keys = {row[0]: (row[1], row[2]) for row in c.execute(queries[0]).fetchall()}
    assert keys == {
        "https://www.bbc.co.uk/news": (2, "https://www.bbc.co.uk/news"),
        None: (1, "mailto:a@b.c"),
        "https://example.com/a": (1, "https://example.com/a/#top"),
    }
    assert sorted(c.execute(queries[1]).fetchall(), key=str) == sorted(
        [("ok", None, 3), ("invalid", "citation.unsupported-scheme", 1)], key=str
    )
    assert sorted(c.execute(queries[2]).fetchall(), key=str) == sorted(
        [("bbc.co.uk", 1), ("example.com", 1), (None, 0)], key=str
    )
    assert c.execute(queries[3]).fetchall() == [
        ("https://www.bbc.co.uk/news/?utm_source=x", "utm_source", "x")
    ]
    c.close()


# Every function x the SQL types a column may have, in a child process (a crash in the
# extension would end pytest's own process). DuckDB binds the argument types itself:
# what casts implicitly to VARCHAR (ENUM, CHAR, JSON, a string literal) is keyed as its
# text; anything else is a Binder Error naming the type and asking for an explicit cast,
# before the extension is called.
DUCKDB_TYPE_PROBE = r"""
import json, sys
import duckdb
con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
con.execute("LOAD '%(ext)s'").fetchall()
con.execute("CREATE TYPE urls AS ENUM ('https://A.example/x/?utm_source=1&b=2', 'mailto:x@y.z')").fetchall()
TEXT = "https://A.example/x/?utm_source=1&b=2"
columns = {
    "VARCHAR": "'%%s'::VARCHAR" %% TEXT,
    "ENUM": "'%%s'::urls" %% TEXT,
    "CHAR": "'%%s'::CHAR" %% TEXT,
    "JSON": "'%%s'::JSON" %% json.dumps(TEXT),
    "NULL": "NULL",
    "INTEGER": "42::INTEGER",
    "BIGINT": "42::BIGINT",
    "DOUBLE": "1.5::DOUBLE",
    "BOOLEAN": "true",
    "BLOB": "'%%s'::BLOB" %% TEXT,
    "DATE": "DATE '2020-01-01'",
    "TIMESTAMP": "TIMESTAMP '2020-01-01 00:00:00'",
    "UUID": "'00000000-0000-0000-0000-000000000000'::UUID",
    "VARCHAR[]": "['%%s']" %% TEXT,
    "STRUCT": "{'u': '%%s'}" %% TEXT,
}
functions = ["urlkey_key", "urlkey_outcome", "urlkey_clean", "urlkey_registrable_domain", "urlkey_query_pairs"]
for f in functions:
    for t, expr in columns.items():
        # From a table column (a vector), as data arrives, and with the policy argument.
        q = f"SELECT {f}(c) FROM (SELECT {expr} AS c FROM range(3))"
        try:
            got = con.execute(q).fetchall()
            print(json.dumps({"f": f, "t": t, "ok": True, "got": got}, default=str))
        except duckdb.Error as ex:
            print(json.dumps({"f": f, "t": t, "ok": False, "type": type(ex).__name__, "msg": str(ex)}))
        sys.stdout.flush()
print("alive")
"""


def test_every_function_takes_text_types_and_refuses_the_rest(tmp_path):
    import json
    import subprocess
    import sys

    code = DUCKDB_TYPE_PROBE % {"ext": extension_path()}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/tmp", timeout=300)
    assert res.returncode == 0, f"the child died (exit {res.returncode}): {res.stderr[-2000:]}"
    lines = res.stdout.splitlines()
    assert lines[-1] == "alive"
    got = {(r["f"], r["t"]): r for r in map(json.loads, lines[:-1])}
    text = "https://A.example/x/?utm_source=1&b=2"
    assert len(got) == 5 * 15
    for (f, t), r in got.items():
        if t in ("VARCHAR", "ENUM", "CHAR"):
            assert r["ok"] and r["got"] == got[(f, "VARCHAR")]["got"], (f, t, r)
        elif t == "JSON":  # a JSON string is keyed as its JSON text, quotes and all
            assert r["ok"], r
        elif t == "NULL":
            assert r["ok"] and r["got"] == [[None]] * 3, (f, t, r)
        else:
            assert not r["ok"] and r["type"] == "BinderException", (f, t, r)
            assert f"{f}(" in r["msg"] and "explicit type casts" in r["msg"], r["msg"]
    assert got[("urlkey_key", "ENUM")]["got"] == [[urlkey.key(text)["key"]]] * 3
    assert got[("urlkey_query_pairs", "ENUM")]["got"][0] == [[{"name": "utm_source", "value": "1"}, {"name": "b", "value": "2"}]]
    assert got[("urlkey_key", "JSON")]["got"] == [[urlkey.key(json.dumps(text))["key"]]] * 3


def test_the_input_limit_applies_to_query_pairs_with_the_command_s_message(con, tmp_path):
    """64 KiB, as `urlkey key`: the outcome's error and the table function's error carry the
    command's code and message; the scalar query_pairs gives NULL over it, the pairs at it."""
    from conftest import read_jsonl, run_cli

    limit = 64 * 1024
    head = "https://example.com/?a="
    at = head + "x" * (limit - len(head))
    over = at + "x"
    inp = tmp_path / "long.txt"
    inp.write_text(at + "\n" + over + "\n", encoding="utf-8")
    cli = read_jsonl(run_cli("key", "--quiet", str(inp)).stdout)
    assert cli[0]["status"] == "ok"
    want = cli[1]["error"]
    assert want == {"code": "input.too-long", "message": f"the line is {limit + 1} bytes; the limit is {limit} bytes"}
    o = con.execute("SELECT urlkey_outcome(?)", [over]).fetchall()[0][0]
    assert (o["error_code"], o["error_message"]) == (want["code"], want["message"])
    rows = con.execute("SELECT urlkey_query_pairs(u) FROM (VALUES (?), (?)) t(u)", [at, over]).fetchall()
    assert rows == [([{"name": "a", "value": "x" * (limit - len(head))}],), (None,)]
    assert con.execute(f"SELECT count(*) FROM urlkey_query_pairs('{at}')").fetchall() == [(1,)]
    with pytest.raises(duckdb.Error) as e:
        con.execute(f"SELECT * FROM urlkey_query_pairs('{over}')").fetchall()
    assert f"{want['code']}: {want['message']}" in error_text(e)


def test_psl_version_is_the_list_of_the_command_s_psl(con, tmp_path):
    """`psl_version` (every non-NULL outcome row) names the list the row's
    `registrable_domain` was looked up in; the command's `psl` is the same version, given
    only when the policy's key used the list (webkey@1), null otherwise (docs say so)."""
    from conftest import read_jsonl, run_cli

    inp = tmp_path / "u.txt"
    inp.write_text("https://www.Example.co.uk/a?utm_source=1\n", encoding="utf-8")
    for policy, used in [("webkey@1", True), ("citation@1", False)]:
        rec = read_jsonl(run_cli("key", "--policy", policy, "--quiet", str(inp)).stdout)[0]
        o = con.execute("SELECT urlkey_outcome(?, ?)", [rec["observed"], policy]).fetchall()[0][0]
        assert o["psl_version"] == urlkey.psl_version()
        assert rec["psl"] == (o["psl_version"] if used else None), policy
        assert o["registrable_domain"] == "example.co.uk"


def test_the_docs_python_lines_for_the_map_recipe_run(tmp_path):
    """docs/scale.md gives the pip `duckdb` package's lines for map.sql (no `duckdb`
    command, no `.read` there): run them as written, from the repository's root, with the
    extension path of this run, and compare with `urlkey map`."""
    import subprocess
    import sys

    from conftest import read_jsonl, run_cli

    doc = (corpus.REPO / "docs" / "scale.md").read_text(encoding="utf-8")
    m = re.search(r"```python\n((?:(?!```).)*?sql/map\.sql(?:(?!```).)*)```", doc, re.S)
    assert m, "docs/scale.md shows the Python lines of the map recipe"
    code = m.group(1)
    assert code.startswith("import duckdb"), code
    assert "target/duckdb/urlkey.duckdb_extension" in code
    assert not re.search(r"^\.read", code, re.M), "a dot-command is not Python"
    code = code.replace("target/duckdb/urlkey.duckdb_extension", str(extension_path()))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=corpus.REPO)
    assert res.returncode == 0, res.stderr[-2000:]
    want = read_jsonl(run_cli("map", "--format", "jsonl", "--quiet", str(corpus.REPO / "examples" / "legacy-urls.txt")).stdout)
    got = res.stdout.strip().splitlines()
    assert len(got) == len(want) and len(want) > 3
    for line, rec in zip(got, want):
        assert line.split("\t") == [str(rec["line"]), str(rec["key"]), str(rec["group"]), str(rec["duplicate_of"]), rec["classification"]]


def test_read_csv_with_the_documented_quote_and_escape_keeps_every_url(con, tmp_path):
    """docs/scale.md reads CSV with quote='"', escape='"'. On a file whose quoted URLs come
    after the rows read_csv's sniffer samples, the default sniffs no quote character and
    keeps the quotes (changed keys, no error); with the documented options every URL comes
    back as written (doubled quotes inside quoted fields, as RFC 4180 and the csv module
    write them) and keys as the command keys it."""
    import csv

    quoted = [
        'https://a.example/search?q="exact phrase"&utm_source=x',
        'https://c.example/"quoted"/',
        "https://b.example/a;b/?x=1",
    ]
    urls = [f"https://d.example/plain/{i}" for i in range(30000)] + quoted * 10
    p = tmp_path / "cites.csv"
    with p.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url"])
        for u in urls:
            w.writerow([u])
    doc = (corpus.REPO / "docs" / "scale.md").read_text(encoding="utf-8")
    assert "read_csv('citations.csv', quote='\"', escape='\"')" in doc
    sniffed = [r[0] for r in con.execute(f"SELECT url FROM read_csv('{p}')").fetchall()]
    changed = [(a, b) for a, b in zip(sniffed, urls) if a != b]
    assert len(sniffed) == len(urls) and len(changed) == 20, changed[:3]
    assert changed[0][0] == '"https://a.example/search?q=""exact phrase""&utm_source=x"'
    rows = con.execute(f"SELECT url, urlkey_key(url) FROM read_csv('{p}', quote='\"', escape='\"')").fetchall()
    assert [r[0] for r in rows] == urls
    tail = rows[30000:]
    assert [r[1] for r in tail] == [urlkey.key(u)["key"] for u in urls[30000:]]
