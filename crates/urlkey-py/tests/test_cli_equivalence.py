"""keys() and key() against `urlkey key` on the 200,000-line corpus, for every builtin policy."""

from __future__ import annotations

import pytest

import corpus
import urlkey


def test_the_corpus_is_200k_lines_with_skips(corpus_file, corpus_records):
    lines = corpus_file.read_bytes().decode("utf-8").split("\n")
    assert lines[-1] == ""
    assert len(lines) - 1 == corpus.TOTAL_LINES
    skipped = corpus.TOTAL_LINES - len(corpus_records)
    assert skipped >= 20  # comment and blank lines, counted in line numbers


@pytest.mark.parametrize("policy", corpus.BUILTIN_POLICIES)
def test_keys_equals_the_command_on_200k_lines(policy, corpus_records, cli_key_records):
    cli = cli_key_records(policy)
    assert len(cli) == len(corpus_records)
    texts = [t for _, t in corpus_records]
    batch = urlkey.keys(texts, policy=policy)
    cols = {name: batch.column(name).to_pylist() for name in urlkey.KEY_COLUMNS}
    mismatches = []
    statuses = {"ok": 0, "invalid": 0}
    for i, ((line, text), want) in enumerate(zip(corpus_records, cli)):
        assert want["line"] == line
        got = {
            "observed": cols["observed"][i],
            "status": cols["status"][i],
            "key": cols["key"][i],
            "canonical": cols["canonical"][i],
            "error": (
                None
                if cols["error_code"][i] is None
                else {"code": cols["error_code"][i], "message": cols["error_message"][i]}
            ),
            "transformations": cols["transformations"][i],
            "removed_params": cols["removed_params"][i],
            "facts": cols["facts"][i],
        }
        expected = {
            "observed": want["observed"],
            "status": want["status"],
            "key": want["key"],
            "canonical": want["canonical"],
            "error": want["error"],
            "transformations": [t["rule"] for t in want["transformations"]],
            "removed_params": want["removed_params"],
            "facts": want["facts"],
        }
        statuses[want["status"]] += 1
        if got != expected:
            mismatches.append(f"line {line}: {text!r}: {got} != {expected}")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:20])
    assert statuses["ok"] > 0


@pytest.mark.parametrize("policy", corpus.BUILTIN_POLICIES)
def test_key_equals_the_command_record_on_a_sample(policy, corpus_records, cli_key_records):
    cli = cli_key_records(policy)
    for (line, text), want in list(zip(corpus_records, cli))[::97]:
        assert urlkey.key(text, policy=policy) == dict(want, line=None), f"line {line}"
