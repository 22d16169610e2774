"""urlkey for Apache Spark DataFrames.

- :func:`with_keys` adds the key columns to a DataFrame through ``DataFrame.mapInArrow``:
  every Arrow batch of the URL column goes to :func:`urlkey.keys` (Rust, GIL released) and
  comes back as columns, with no Python object per row.
- :func:`group_report` adds ``urlkey map``'s per-row grouping (the Legacy URL Mapper's
  classes, docs/cli.md "urlkey map"): ``duplicates``, ``variants``, ``classification``
  and, given a line column, ``group`` and ``duplicate_of``, computed with Spark
  aggregations over the ``key`` and ``signature`` columns, equal to ``urlkey map``'s row
  for row.

The package must be importable on the executors (see docs/scale.md: ``--py-files`` with
the wheel, ``spark.submit.pyFiles``, or an environment-wide ``pip install``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional

from ._urlkey import DEFAULT_POLICIES, KEY_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow
    from pyspark.sql import DataFrame

#: The columns :func:`with_keys` adds (each with the prefix): those of :func:`urlkey.keys`
#: after the input's own (``index``, ``observed``, ``policy``), taken from ``KEY_COLUMNS``.
KEY_OUTPUTS: List[str] = [c for c in KEY_COLUMNS if c not in ("index", "observed", "policy")]

#: The columns :func:`group_report` adds after those of :func:`with_keys`.
GROUP_OUTPUTS: List[str] = ["duplicates", "variants", "classification", "group", "duplicate_of"]


def _key_fields(prefix: str):
    import pyarrow as pa
    from pyspark.sql.types import ArrayType, StringType, StructField

    import urlkey

    # The Spark type of each column from keys()'s own Arrow schema: a list of strings or a
    # string, so that a column keys() gains needs no second list here.
    schema = urlkey.keys([]).schema
    return [
        StructField(
            prefix + name,
            ArrayType(StringType(), True) if pa.types.is_list(schema.field(name).type) else StringType(),
            True,
        )
        for name in KEY_OUTPUTS
    ]


def with_keys(
    df: "DataFrame",
    column: str,
    policy: str = DEFAULT_POLICIES["key"],
    prefix: str = "urlkey_",
) -> "DataFrame":
    """``df`` with the key columns of ``column`` under ``policy`` added.

    Added (each named ``prefix + name``): ``status``, ``key``, ``canonical``,
    ``error_code``, ``error_message``, ``host``, ``signature``, ``registrable_domain``,
    ``psl_version`` (strings) and
    ``transformations``, ``removed_params``, ``facts`` (arrays of strings). A null URL is
    an invalid row (``input.missing-field``). Rows keep their order within each partition.

    Raises :class:`urlkey.PolicyError` at once (on the driver) for an unknown policy,
    ``ValueError`` when ``column`` is missing or an added name is already taken, and
    ``TypeError`` when ``column`` is not a string column.
    """
    import urlkey
    from pyspark.sql.types import StringType, StructType

    urlkey.key("", policy=policy)  # raises PolicyError now rather than on an executor
    names = list(df.columns)
    if column not in names:
        raise ValueError(f"no column {column!r} in the DataFrame (columns: {names})")
    field = df.schema[column]
    if not isinstance(field.dataType, StringType):
        raise TypeError(f"column {column!r} is {field.dataType.simpleString()}, not string")
    added = [prefix + n for n in KEY_OUTPUTS]
    taken = sorted(set(added) & set(names))
    if taken:
        raise ValueError(f"columns {taken} exist already: choose another prefix")
    index = names.index(column)
    out_schema = StructType(list(df.schema.fields) + _key_fields(prefix))
    out_names = names + added

    def run(batches: Iterator["pyarrow.RecordBatch"]) -> Iterator["pyarrow.RecordBatch"]:
        import pyarrow as pa

        import urlkey as uk

        for batch in batches:
            keyed = uk.keys(batch.column(index), policy=policy)
            arrays = list(batch.columns) + [keyed.column(n) for n in KEY_OUTPUTS]
            yield pa.RecordBatch.from_arrays(arrays, names=out_names)

    return df.mapInArrow(run, out_schema)


def group_report(
    df: "DataFrame",
    column: str,
    policy: str = DEFAULT_POLICIES["map"],
    prefix: str = "urlkey_",
    line: Optional[str] = None,
) -> "DataFrame":
    """``urlkey map``'s grouping of ``column``, one output row per input row.

    The key columns of :func:`with_keys`, then, each named ``prefix + name``:

    - ``duplicates``: how many rows share this row's key (itself included);
    - ``variants``: how many distinct keys share this row's signature;
    - ``classification``: ``invalid`` (no key), ``review`` (``variants`` > 1),
      ``duplicate`` (``duplicates`` > 1 and ``variants`` == 1) or ``unique``;
    - with ``line`` (a column that numbers the rows, like the command's line numbers; it
      must number each row of ``df`` alone, so for rows read from several files use one
      numbering across them, such as ``urlkey map``'s ``run_line``, not each file's lines):
      ``group``, the smallest ``line`` of the signature group, and ``duplicate_of``, the
      smallest ``line`` with the same key when it is not this row's own.

    ``duplicates``, ``variants``, ``group`` and ``duplicate_of`` are null for invalid rows,
    as in ``urlkey map``'s JSONL. Row order is not kept (sort by ``line`` if needed).

    When ``df`` already has the key columns (``prefix + "key"``: a persisted
    ``with_keys(df, column, policy)`` result), they are used as they are: key them with the
    same ``policy``.

    The counts come from one aggregation over (signature, key) and a smaller one over
    signatures, joined back by key: the work spreads over the cluster even when one
    signature holds millions of rows. Without a persisted input the key columns are
    computed twice (once for the counts, once for the rows); persist
    ``with_keys(df, ...)`` first when that matters.
    """
    from pyspark.sql import functions as F

    key_col, sig_col = prefix + "key", prefix + "signature"
    keyed = df if key_col in df.columns else with_keys(df, column, policy=policy, prefix=prefix)
    for name in GROUP_OUTPUTS:
        if prefix + name in keyed.columns:
            raise ValueError(f"column {prefix + name!r} exists already: choose another prefix")
    if line is not None and line not in keyed.columns:
        raise ValueError(f"no column {line!r} in the DataFrame")

    valid = F.col(key_col).isNotNull() & F.col(sig_col).isNotNull()
    per_key_aggs = [F.count(F.lit(1)).alias("_uk_duplicates")]
    if line is not None:
        per_key_aggs.append(F.min(F.col(line)).alias("_uk_first"))
    per_key = keyed.where(valid).groupBy(sig_col, key_col).agg(*per_key_aggs)
    per_sig_aggs = [F.count(F.lit(1)).alias("_uk_variants")]
    if line is not None:
        per_sig_aggs.append(F.min(F.col("_uk_first")).alias("_uk_group"))
    per_sig = per_key.groupBy(sig_col).agg(*per_sig_aggs)
    stats = per_key.join(per_sig, on=sig_col, how="inner").drop(sig_col)

    joined = keyed.join(stats, on=key_col, how="left")
    is_valid = F.coalesce(valid & F.col("_uk_duplicates").isNotNull(), F.lit(False))

    def when_valid(name: str):
        return F.when(is_valid, F.col(name))

    classification = (
        F.when(~is_valid, F.lit("invalid"))
        .when(F.col("_uk_variants") > 1, F.lit("review"))
        .when(F.col("_uk_duplicates") > 1, F.lit("duplicate"))
        .otherwise(F.lit("unique"))
    )
    out_cols = [F.col(c) for c in keyed.columns] + [
        when_valid("_uk_duplicates").alias(prefix + "duplicates"),
        when_valid("_uk_variants").alias(prefix + "variants"),
        classification.alias(prefix + "classification"),
    ]
    if line is not None:
        out_cols += [
            when_valid("_uk_group").alias(prefix + "group"),
            F.when(is_valid & (F.col("_uk_first") != F.col(line)), F.col("_uk_first")).alias(
                prefix + "duplicate_of"
            ),
        ]
    return joined.select(*out_cols)
