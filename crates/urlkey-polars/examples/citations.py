"""docs/scale.md's Polars example: citations of AI answers counted by publisher and by
document, invalid rows kept with their reason, and why two spellings met.
(crates/urlkey-py/tests/test_polars.py runs it and checks what it prints.)"""

import polars as pl

import urlkey_polars  # noqa: F401  (registers pl.col(...).urlkey)

answers = pl.LazyFrame(
    {
        "answer_id": [1, 1, 2, 2, 3],
        "cited_url": [
            "https://www.bbc.co.uk/news/science-1?utm_source=chatgpt.com",
            "https://www.bbc.co.uk/news/science-1/",
            "https://news.example.org/report#results",
            "HTTPS://News.Example.org/report",
            "mailto:press@example.org",
        ],
    }
)
keyed = answers.with_columns(o=pl.col("cited_url").urlkey.outcome(policy="citation@1")).with_columns(
    key=pl.col("o").struct.field("key"),
    publisher=pl.col("o").struct.field("registrable_domain"),
)

# Documents and citations per publisher (the registrable domain of the key's host).
by_publisher = (
    keyed.filter(pl.col("key").is_not_null())
    .group_by("publisher")
    .agg(pl.col("key").n_unique().alias("documents"), pl.len().alias("citations"))
    .sort("publisher")
    .collect(engine="streaming")
)
print(by_publisher.rows())
# [('bbc.co.uk', 1, 2), ('example.org', 1, 2)]

# Invalid rows stay, with their reason (never an empty key).
invalid = keyed.filter(pl.col("o").struct.field("status") == "invalid")
print(invalid.select("cited_url", pl.col("o").struct.field("error_code")).collect().rows())
# [('mailto:press@example.org', 'citation.unsupported-scheme')]

# Why two spellings share a key.
why = pl.select(pl.lit("https://Example.com/a/?utm_source=x").urlkey.explain(pl.lit("https://example.com/a"))).item()
print(why["same_key"], why["rules"])
# True ['whatwg-parse', 'remove-tracking-parameters', 'remove-trailing-slash']
