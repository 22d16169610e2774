"""`urlkey ledger report`'s run-to-run stability equals the Python reference written from
docs/ledger.md's definitions (stability_reference.py), on a generated synthetic ledger
(reserved `.example` domains, every row labelled `fixture=synthetic`) and on the docs'
worked example.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from conftest import read_jsonl, run_cli

import corpus
import stability_reference as ref

FIXTURE = corpus.REPO / "crates/urlkey-ledger/tests/fixtures/synthetic-stability.csv"


def synthetic_citations(path: Path, seed: int = 51) -> int:
    """A ledger input where prompts are asked 1 to 5 times by three answer systems in two
    markets, two prompt-set versions and two collections, citing keys from a small pool
    (so runs overlap), with spellings that merge into one key, invalid URLs, rows without
    a prompt_id, answers stamped with the same second in both collections, and runs without a
    collection, and a prompt id reused across markets and versions. Returns the number of rows."""
    rnd = random.Random(seed)
    hosts = [f"{h}.example" for h in ("alpha", "beta", "gamma", "delta", "eps")] + [
        "www.alpha.example",
        "news.beta.example",
    ]
    rows = []
    n = 0
    for system in ("engine-a", "engine-b", "engine-c"):
        for market in ("us", "fr"):
            for version in ("ps-1", "ps-2"):
                for p in range(12):
                    prompt = f"q{p:02d}"
                    favourites = [
                        f"https://{rnd.choice(hosts)}/page/{rnd.randrange(6)}" for _ in range(4)
                    ]
                    runs = []
                    for run in range(rnd.choice([1, 1, 2, 3, 4, 5])):
                        day = 1 + run * 2 + rnd.randrange(2)
                        stamp = f"2026-12-{day:02d}T{9 + p % 8:02d}:00:00Z"
                        collection = "c-1" if day <= 5 else "c-2"
                        if rnd.random() < 0.05:
                            collection = ""  # no collection: ordered before one
                        runs.append((stamp, collection))
                        if rnd.random() < 0.2:
                            # Another answer in the same second, in another collection: the
                            # collection orders the two runs.
                            other = {"c-1": "c-2", "c-2": "c-1", "": "c-1"}[collection]
                            runs.append((stamp, other))
                    for stamp, collection in runs:
                        cited = [u for u in favourites if rnd.random() < 0.7]
                        cited += [
                            f"https://{rnd.choice(hosts)}/other/{rnd.randrange(20)}"
                            for _ in range(rnd.randrange(3))
                        ] or [favourites[0]]
                        for url in cited:
                            if rnd.random() < 0.15:
                                url += "?utm_source=chat"
                            if rnd.random() < 0.05:
                                url = "not a url"
                            n += 1
                            rows.append(
                                {
                                    "observation_id": f"s-{n:05d}",
                                    "prompt_id": "" if rnd.random() < 0.03 else prompt,
                                    "prompt_version": version,
                                    "answer_system": system,
                                    "market": market,
                                    "collection": collection,
                                    "run_timestamp": stamp,
                                    "observed_url": url,
                                    "fixture": "synthetic",
                                }
                            )
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return len(rows)


def ledger_of(tmp_path: Path, source: Path) -> Path:
    db = tmp_path / "ledger.sqlite"
    run_cli("ledger", "--db", str(db), "ingest", str(source))
    return db


def report(db: Path, *args: str, top_keys: str = "0") -> dict:
    res = run_cli(
        "ledger", "--db", str(db), "report", "--format", "json", "--top", "0",
        "--top-keys", top_keys, *args,
    )
    return json.loads(res.stdout)


def exported(db: Path) -> list:
    return read_jsonl(run_cli("ledger", "--db", str(db), "export", "--format", "jsonl").stdout)


def test_the_report_equals_the_reference_on_a_synthetic_ledger(tmp_path):
    source = tmp_path / "synthetic-citations.csv"
    n = synthetic_citations(source)
    db = ledger_of(tmp_path, source)
    rows = exported(db)
    assert len(rows) == n
    want = ref.stability(rows)
    got = report(db)["stability"]
    assert got == want
    # The sample is not empty, and a prompt is measured more than once in each system: the
    # comparison would prove nothing otherwise.
    for s in got:
        assert s["sample"]["prompts"] > 5 and s["keys"]["come_and_go"] > 0, s["sample"]
        assert 0 < s["keys"]["mean_jaccard"] < 1
    # Per group: the rows of each group through the same reference.
    for by in ("market", "prompt_version", "collection"):
        for g in report(db, "--by", by)["groups"]:
            part = [r for r in rows if r[by] == g["value"]]
            assert g["stability"] == ref.stability(part), (by, g["value"])
    # Cut lists: the first --top-keys / --top of the full ones.
    cut = report(db, top_keys="3")  # --top stays 0: all publishers
    assert cut["stability"] == ref.stability(rows, top_keys=3)
    # --compare: each collection on its own, then the change.
    c = report(db, "--compare", "c-1", "c-2")
    side = {k: ref.stability([r for r in rows if r["collection"] == k]) for k in ("c-1", "c-2")}
    assert c["a"]["stability"] == side["c-1"]
    assert c["b"]["stability"] == side["c-2"]
    assert c["stability"] == ref.compare(side["c-1"], side["c-2"])


def test_the_report_equals_the_reference_on_the_worked_example(tmp_path):
    db = ledger_of(tmp_path, FIXTURE)
    got = report(db)["stability"]
    assert got == ref.stability(exported(db))
    # The docs' hand count, as a check of the reference itself.
    a = got[0]
    assert (a["keys"]["mean_jaccard"], a["publishers"]["mean_jaccard"]) == (0.5556, 0.5)
    assert (a["keys"]["in_every_run"], a["keys"]["cited"]) == (4, 8)
