"""The Python API against the Rust golden fixtures (crates/urlkey/tests/golden/*.tsv)."""

from __future__ import annotations

import pytest

import corpus
import urlkey

FILES = corpus.golden_files()


def test_every_builtin_policy_has_a_fixture():
    for policy in corpus.BUILTIN_POLICIES:
        assert policy in FILES, f"no golden fixture for {policy} in {sorted(FILES)}"


def test_unescape_reverses_the_fixture_escapes():
    assert corpus.unescape(r"a\\b\tc\nd\re\u{20}\u{1F600}") == "a\\b\tc\nd\re \U0001F600"
    assert corpus.unescape(r"\\u{20}") == "\\u{20}"
    with pytest.raises(ValueError):
        corpus.unescape(r"bad\q")


@pytest.mark.parametrize("policy", sorted(FILES))
def test_key_matches_the_golden_fixture(policy):
    cases = list(corpus.golden_cases(FILES[policy]))
    assert len(cases) >= 150, f"{FILES[policy]}: only {len(cases)} cases"
    mismatches = []
    for line, inp, (kind, expected) in cases:
        r = urlkey.key(inp, policy=policy)
        got = ("key", r["key"]) if r["status"] == "ok" else ("error", r["error"]["code"])
        if got != (kind, expected):
            mismatches.append(f"{FILES[policy].name}:{line}: {inp!r}: got {got}, want {(kind, expected)}")
    assert not mismatches, "\n".join(mismatches[:50])


@pytest.mark.parametrize("policy", sorted(FILES))
def test_keys_matches_the_golden_fixture(policy):
    cases = list(corpus.golden_cases(FILES[policy]))
    batch = urlkey.keys([inp for _, inp, _ in cases], policy=policy)
    assert batch.num_rows == len(cases)
    keys = batch.column("key").to_pylist()
    codes = batch.column("error_code").to_pylist()
    for (line, inp, (kind, expected)), k, code in zip(cases, keys, codes):
        got = ("key", k) if k is not None else ("error", code)
        assert got == (kind, expected), f"{FILES[policy].name}:{line}: {inp!r}"
