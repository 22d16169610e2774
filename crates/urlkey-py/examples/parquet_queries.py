"""Polars and DuckDB on the Parquet output of `urlkey map` and `urlkey key` (docs/scale.md).

    urlkey map --format parquet -o map.parquet urls.txt
    urlkey key --policy citation@1 --format parquet -o keys.parquet urls.txt
    python crates/urlkey-py/examples/parquet_queries.py   # in the directory of the two files

Needs `pip install polars duckdb`.
"""

import polars as pl

# Polars: classification counts, and the largest review groups.
rows = pl.read_parquet("map.parquet")
print(rows.group_by("classification").len().sort("len", descending=True))
print(
    rows.filter(pl.col("classification") == "review")
    .group_by("signature")
    .agg(pl.len().alias("rows"), pl.col("key").n_unique().alias("keys"), pl.col("line").min().alias("group"))
    .sort("rows", descending=True)
    .head(5)
)
# Which rules changed the citation keys, and how often.
keys = pl.read_parquet("keys.parquet")
print(
    keys.select(pl.col("transformations").list.eval(pl.element().struct.field("rule")).alias("rule"))
    .explode("rule")
    .drop_nulls()
    .group_by("rule")
    .len()
    .sort("len", descending=True)
)

import duckdb

# DuckDB: the same file, in SQL; struct fields with a dot, lists with unnest.
print(duckdb.sql("""
    SELECT classification, count(*) AS rows, count(DISTINCT key) AS keys
    FROM 'map.parquet' GROUP BY classification ORDER BY rows DESC
"""))
print(duckdb.sql("""
    SELECT error.code AS code, count(*) AS rows
    FROM 'keys.parquet' WHERE status = 'invalid'
    GROUP BY code ORDER BY rows DESC
"""))
print(duckdb.sql("""
    SELECT t.rule, count(*) AS n
    FROM (SELECT unnest(transformations) AS t FROM 'keys.parquet')
    GROUP BY t.rule ORDER BY n DESC
"""))
