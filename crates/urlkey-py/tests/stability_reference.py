"""A reference for the ledger report's run-to-run stability, written from docs/ledger.md
("Run-to-run stability") alone, not from the Rust code: exact fractions, rounded to 4
places (half away from zero) at the end.

Input: the rows of `urlkey ledger export --format jsonl` (dicts). Output: the report's
`stability` list (one entry per answer system, sorted), and `compare(a, b)` for two of them.
Publishers are hostnames (`publisher_hostname`), the report's default unit.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from typing import Dict, Iterable, List, Optional, Tuple


def round4(x: Fraction) -> float:
    """Half away from zero, 4 places (the values here are never negative but changes)."""
    sign = -1 if x < 0 else 1
    n = math.floor(abs(x) * 10000 + Fraction(1, 2))
    return float(Fraction(sign * n, 10000))


def _steadiness(prompts: List[List[frozenset]], top: int) -> dict:
    """`prompts`: per measured prompt, its runs' sets in time order."""
    means: List[Fraction] = []
    cited = every = 0
    flicker: Dict[str, List[int]] = defaultdict(lambda: [0, 0, 0])
    for runs in prompts:
        pairs = list(zip(runs, runs[1:]))
        js = [Fraction(len(a & b), len(a | b)) for a, b in pairs]
        means.append(sum(js, Fraction(0)) / len(pairs))
        for name in set().union(*runs):
            n_cited = sum(1 for r in runs if name in r)
            cited += 1
            if n_cited == len(runs):
                every += 1
            else:
                f = flicker[name]
                f[0] += 1
                f[1] += n_cited
                f[2] += len(runs)
    listed = sorted(flicker.items(), key=lambda kv: (-kv[1][0], -kv[1][2], kv[0]))
    if top > 0:
        listed = listed[:top]
    return {
        "mean_jaccard": round4(sum(means, Fraction(0)) / len(means)) if means else None,
        "cited": cited,
        "in_every_run": every,
        "in_every_run_share": round4(Fraction(every, cited)) if cited else None,
        "come_and_go": cited - every,
        "come_and_go_distinct": len(flicker),
        "top_come_and_go": [
            {"name": k, "prompts": v[0], "runs_cited": v[1], "runs": v[2]} for k, v in listed
        ],
    }


def _run_order(run: Tuple[str, Optional[str]]) -> tuple:
    """By run_timestamp, then collection, none first."""
    t, c = run
    return (t, 0, "") if c is None else (t, 1, c)


def stability(rows: Iterable[dict], top_keys: int = 0, top_publishers: int = 0) -> List[dict]:
    valid: Dict[str, int] = defaultdict(int)
    without_prompt: Dict[str, int] = defaultdict(int)
    # system -> prompt -> run -> [(key, publisher)]
    runs: Dict[str, Dict[tuple, Dict[tuple, list]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for r in rows:
        if not r.get("normalized_key"):
            continue  # invalid: in no run
        system = r["answer_system"]
        valid[system] += 1
        if not r.get("prompt_id"):
            without_prompt[system] += 1
            continue
        prompt = (r["prompt_version"], system, r["market"], r["prompt_id"])
        run = (r["run_timestamp"], r.get("collection") or None)
        runs[system][prompt][run].append((r["normalized_key"], r["publisher_hostname"]))
    out = []
    for system in sorted(valid):
        sample = {
            "valid_observations": valid[system],
            "prompts": 0,
            "runs": 0,
            "pairs": 0,
            "observations": 0,
            "prompts_asked_once": 0,
            "observations_asked_once": 0,
            "observations_without_prompt_id": without_prompt[system],
        }
        key_sets, pub_sets = [], []
        for prompt, its_runs in runs[system].items():
            n_obs = sum(len(v) for v in its_runs.values())
            if len(its_runs) < 2:
                sample["prompts_asked_once"] += 1
                sample["observations_asked_once"] += n_obs
                continue
            ordered = [its_runs[k] for k in sorted(its_runs, key=_run_order)]
            sample["prompts"] += 1
            sample["runs"] += len(ordered)
            sample["pairs"] += len(ordered) - 1
            sample["observations"] += n_obs
            key_sets.append([frozenset(k for k, _ in run) for run in ordered])
            pub_sets.append([frozenset(p for _, p in run) for run in ordered])
        out.append(
            {
                "answer_system": system,
                "sample": sample,
                "keys": _steadiness(key_sets, top_keys),
                "publishers": _steadiness(pub_sets, top_publishers),
            }
        )
    return out


COMPARED = [
    ("sample.prompts", False),
    ("sample.runs", False),
    ("sample.pairs", False),
    ("keys.mean_jaccard", True),
    ("keys.in_every_run_share", True),
    ("keys.come_and_go", False),
    ("publishers.mean_jaccard", True),
    ("publishers.in_every_run_share", True),
    ("publishers.come_and_go", False),
]


def compare(a: List[dict], b: List[dict]) -> List[dict]:
    """The compared rows: every system of either side, each figure in A, B and the change."""
    by_a = {s["answer_system"]: s for s in a}
    by_b = {s["answer_system"]: s for s in b}
    out = []
    for system in sorted(set(by_a) | set(by_b)):
        for figure, is_ratio in COMPARED:
            part, field = figure.split(".")

            def read(side):
                s = side.get(system)
                if s is None:
                    return None if is_ratio else 0
                return s[part][field]

            x, y = read(by_a), read(by_b)
            if x is None or y is None:
                change = None
            elif is_ratio:
                change = round4(Fraction(str(y)) - Fraction(str(x)))
            else:
                change = y - x
            out.append(
                {"answer_system": system, "figure": figure, "a": x, "b": y, "change": change}
            )
    return out
