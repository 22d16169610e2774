"""One side of bench/polars.sh, run in its own process so that POLARS_MAX_THREADS holds
from the import of polars on: times one way of keying the lines of FILE and prints one
JSON object (seconds of each run, rows, peak RSS of this process).

usage: polars_bench.py WAY FILE RUNS
  WAY: plugin-key      pl.col("url").urlkey.key("citation@1") on a frame in memory
       plugin-e2e      read FILE with Polars, key it, write the keys to a file
       plugin-outcome  pl.col("url").urlkey.outcome("citation@1") in memory
       str-methods     Polars' own string expressions (lower-case, drop the fragment,
                       the query and a final slash): what users write without urlkey
       python-urllib   urllib.parse.urlsplit per row (map_elements), the pure-Python way
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path


def status(field: str) -> float:
    """A /proc/self/status memory field in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def main() -> None:
    way, file, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    import polars as pl

    import urlkey_polars  # noqa: F401

    def read():
        return pl.read_csv(
            file, has_header=False, new_columns=["url"], separator="\x1f", quote_char=None,
            schema_overrides={"url": pl.String},
        )

    df = read()
    loaded = status("VmRSS")
    # Peak RSS from here on: what the keying adds to a frame already in memory.
    Path("/proc/self/clear_refs").write_text("5")

    def plugin_key():
        return df.select(pl.col("url").urlkey.key("citation@1"))

    def plugin_outcome():
        return df.select(pl.col("url").urlkey.outcome("citation@1"))

    out_dir = Path(tempfile.mkdtemp())

    def plugin_e2e():
        keyed = read().select(pl.col("url").urlkey.key("citation@1"))
        keyed.write_csv(out_dir / "keys.csv", include_header=False)
        return keyed

    def str_methods():
        return df.select(
            pl.col("url")
            .str.to_lowercase()
            .str.replace(r"#.*$", "")
            .str.replace(r"\?.*$", "")
            .str.replace(r"/$", "")
        )

    def python_urllib():
        from urllib.parse import urlsplit, urlunsplit

        def norm(u: str) -> str:
            try:
                p = urlsplit(u.strip())
                return urlunsplit((p.scheme.lower(), p.netloc.lower(), p.path.rstrip("/"), "", ""))
            except ValueError:
                return None

        return df.select(pl.col("url").map_elements(norm, return_dtype=pl.String))

    fn = {
        "plugin-key": plugin_key,
        "plugin-e2e": plugin_e2e,
        "plugin-outcome": plugin_outcome,
        "str-methods": str_methods,
        "python-urllib": python_urllib,
    }[way]
    times = []
    rows = 0
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
        rows = out.height
    print(
        json.dumps(
            {
                "way": way,
                "rows": rows,
                "seconds": times,
                "rss_with_frame_mib": loaded,
                "peak_rss_mib": status("VmHWM"),
                "threads": pl.thread_pool_size(),
            }
        )
    )


if __name__ == "__main__":
    main()
