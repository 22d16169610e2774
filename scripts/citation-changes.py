#!/usr/bin/env python3
"""The keys that change from one policy to another (by default `citation@1` to `citation@2`).

Keys every record of each input under both policies with `urlkey key` (one JSON record per
input record, in input order, whatever the input's format) and writes one TSV row per record
whose key or validity differs:

    source  line  observed  key_from  key_to  removed

`removed` is the parameters the second policy removed and the first kept (comma-separated,
in query order). Before the rows, `#` lines give the policies, the inputs, the records read,
the records changed and the changed records per removed parameter, so that the file says
what it counts. Tabs, line feeds, carriage returns and backslashes in a cell are written
`\\t`, `\\n`, `\\r`, `\\\\` (as in the golden fixtures).

Usage:
    python3 scripts/citation-changes.py [--from ID] [--to ID] [--urlkey BIN] [-o OUT] [FILE...]

Without FILE, the four files of ../shared/datasets/ada-url-various-datasets (beside the
repository, or $URLKEY_DATASETS), named relative to that directory in the output. The
binary is --urlkey, else $URLKEY_BIN, else target/release/urlkey. -o writes through a
temporary file renamed into place; without it, standard output. Exit 0 on success, 2 on a
usage error, 1 when a run of urlkey fails or the two runs do not give one record each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

REPO = Path(__file__).resolve().parents[1]
DATASET_FILES = [
    "others/kasztp.txt",
    "others/userbait.txt",
    "files/node_files.txt",
    "files/isaacs_files.txt",
]
HEADER = ["source", "line", "observed", "key_from", "key_to", "removed"]


class Failure(Exception):
    """A run that cannot give a complete answer."""


def dataset_dir() -> Path:
    env = os.environ.get("URLKEY_DATASETS")
    base = Path(env) if env else REPO.parent / "shared" / "datasets"
    return base / "ada-url-various-datasets"


def escape(cell: str) -> str:
    return cell.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def records(binary: str, policy: str, path: Path) -> List[dict]:
    res = subprocess.run(
        [binary, "key", "--policy", policy, "--format", "jsonl", "--quiet", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if res.returncode != 0:
        raise Failure(
            f"{binary} key --policy {policy} {path} exited {res.returncode}: "
            f"{res.stderr.decode(errors='replace').strip()}"
        )
    return [json.loads(line) for line in res.stdout.decode("utf-8").splitlines() if line]


def changes(
    binary: str, policy_from: str, policy_to: str, inputs: Iterable[Tuple[str, Path]]
) -> Tuple[int, List[List[str]], Counter]:
    """(records read, one row per changed record, changed records per removed parameter)."""
    total, rows, by_param = 0, [], Counter()
    for name, path in inputs:
        a, b = records(binary, policy_from, path), records(binary, policy_to, path)
        if len(a) != len(b) or any(x["line"] != y["line"] for x, y in zip(a, b)):
            raise Failure(f"{path}: {len(a)} records under {policy_from}, {len(b)} under {policy_to}")
        total += len(a)
        for x, y in zip(a, b):
            if (x["key"], x["status"]) == (y["key"], y["status"]):
                continue
            kept = {p.lower() for p in x["removed_params"]}
            removed: List[str] = []
            for p in y["removed_params"]:
                if p.lower() not in kept and p not in removed:
                    removed.append(p)
            for p in {p.lower() for p in removed} or {"(none)"}:
                by_param[p] += 1
            rows.append(
                [name, str(x["line"]), x["observed"], x["key"] or "", y["key"] or "", ",".join(removed)]
            )
    return total, rows, by_param


def render(
    policy_from: str, policy_to: str, names: List[str], total: int, rows: List[List[str]], by_param: Counter
) -> str:
    out = [
        f"# keys that change from {policy_from} to {policy_to} (scripts/citation-changes.py)",
        f"# inputs: {', '.join(names)}",
        f"# records: {total}; changed: {len(rows)}",
        "# changed records per removed parameter: "
        + (", ".join(f"{p} {n}" for p, n in sorted(by_param.items(), key=lambda kv: (-kv[1], kv[0]))) or "none"),
        "\t".join(HEADER),
    ]
    out += ["\t".join(escape(c) for c in row) for row in rows]
    return "\n".join(out) + "\n"


def write(path: str, text: str) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="policy_from", default="citation@1")
    ap.add_argument("--to", dest="policy_to", default="citation@2")
    ap.add_argument("--urlkey", default=os.environ.get("URLKEY_BIN", str(REPO / "target" / "release" / "urlkey")))
    ap.add_argument("-o", "--output")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.files:
        inputs = [(f, Path(f)) for f in a.files]
    else:
        d = dataset_dir()
        inputs = [(f, d / f) for f in DATASET_FILES]
    missing = [str(p) for _, p in inputs if not p.is_file()]
    if missing:
        print(f"citation-changes: no such file: {', '.join(missing)} (the datasets are ../shared/datasets beside the repository, or $URLKEY_DATASETS)", file=sys.stderr)
        return 2
    if not Path(a.urlkey).is_file():
        print(f"citation-changes: no urlkey binary at {a.urlkey}: cargo build --release -p urlkey-cli, or --urlkey BIN", file=sys.stderr)
        return 2
    try:
        total, rows, by_param = changes(a.urlkey, a.policy_from, a.policy_to, inputs)
    except Failure as e:
        print(f"citation-changes: {e}", file=sys.stderr)
        return 1
    text = render(a.policy_from, a.policy_to, [n for n, _ in inputs], total, rows, by_param)
    if a.output:
        write(a.output, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
