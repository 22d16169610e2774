"""A complete Spark job: read URLs (CSV or Parquet), add urlkey's keys, write the per-row
grouping report and a per-group summary as Parquet.

    spark-submit --master local[2] crates/urlkey-py/examples/spark_job.py \\
        --input urls.csv --column url --output out/ [--policy mapper@1] [--line line]

The CSV needs a header row. Without --line, a line number is made from the input order
(`monotonically_increasing_id`, unique but not consecutive across partitions).
Outputs: out/rows (every input row with urlkey_* columns) and out/groups (one row per
signature group: members, distinct keys, classification, first line).
"""

from __future__ import annotations

import argparse

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import urlkey
import urlkey.spark as uks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True, help="a CSV file (with header) or Parquet path")
    ap.add_argument("--column", default="url", help="the column that holds the URLs")
    ap.add_argument("--line", default=None, help="a column numbering the rows (optional)")
    ap.add_argument("--policy", default="mapper@1")
    ap.add_argument("--output", required=True)
    a = ap.parse_args()

    spark = SparkSession.builder.appName("urlkey-report").getOrCreate()
    if a.input.endswith(".csv"):
        # RFC 4180 CSV (quotes doubled inside quoted fields, as the urlkey command reads and
        # writes it): Spark's default escape character is a backslash, not a quote.
        df = spark.read.options(header=True, escape='"', multiLine=True).csv(a.input)
    else:
        df = spark.read.parquet(a.input)
    line = a.line
    if line is None:
        line = "line"
        df = df.withColumn(line, F.monotonically_increasing_id())
    else:
        df = df.withColumn(line, F.col(line).cast("long"))  # CSV columns are strings

    # Keys once, persisted: group_report reuses the urlkey_* columns instead of keying twice.
    keyed = uks.with_keys(df, a.column, policy=a.policy).persist()
    report = uks.group_report(keyed, a.column, policy=a.policy, line=line)
    report.write.mode("overwrite").parquet(f"{a.output}/rows")

    groups = (
        report.where(F.col("urlkey_classification") != "invalid")
        .groupBy("urlkey_signature")
        .agg(
            F.count(F.lit(1)).alias("members"),
            F.countDistinct("urlkey_key").alias("distinct_keys"),
            F.min(line).alias("group"),
            F.first("urlkey_classification").alias("classification"),
        )
    )
    groups.write.mode("overwrite").parquet(f"{a.output}/groups")

    counts = {r["urlkey_classification"]: r["count"] for r in report.groupBy("urlkey_classification").count().collect()}
    print(f"urlkey {urlkey.__version__}, policy {a.policy}: {counts}")
    keyed.unpersist()
    spark.stop()


if __name__ == "__main__":
    main()
