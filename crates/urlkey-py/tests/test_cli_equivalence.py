"""keys() and key() against `urlkey key` on the 200,000-line corpus, for every builtin policy."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowcmp
import corpus
import urlkey


def test_the_corpus_is_200k_lines_with_skips(corpus_file, corpus_records):
    lines = corpus_file.read_bytes().decode("utf-8").split("\n")
    assert lines[-1] == ""
    assert len(lines) - 1 == corpus.TOTAL_LINES
    skipped = corpus.TOTAL_LINES - len(corpus_records)
    assert skipped >= 20  # comment and blank lines, counted in line numbers


@pytest.mark.parametrize("policy", corpus.BUILTIN_POLICIES)
def test_keys_equals_the_command_on_200k_lines(policy, corpus_records, cli_key_columns):
    want = cli_key_columns(policy)
    assert len(want["line"]) == len(corpus_records)
    texts = [t for _, t in corpus_records]
    problems = []
    arrowcmp.compare("line", want["line"], arrowcmp.column([n for n, _ in corpus_records], pa.int64()), texts, problems)
    assert not problems, problems
    batch = urlkey.keys(texts, policy=policy)
    # Every field of the record: the error as its code and message, the transformations as
    # the rules that ran (what the Arrow batch carries of them).
    fields = {
        "observed": "observed",
        "status": "status",
        "key": "key",
        "canonical": "canonical",
        "error_code": "error_code",
        "error_message": "error_message",
        "transformations": "rules",
        "removed_params": "removed_params",
        "facts": "facts",
    }
    for got, ref in fields.items():
        g = arrowcmp.column(batch.column(got))
        row = arrowcmp.first_difference(g, want[ref])
        if row is not None:
            where = f"line {corpus_records[row][0]}: " if 0 <= row < len(texts) else ""
            problems.append(where + arrowcmp.describe(got, g, want[ref], texts, row))
    assert not problems, f"{len(problems)} columns differ:\n" + "\n".join(problems)
    assert pc.sum(pc.equal(want["status"], "ok")).as_py() > 0


@pytest.mark.parametrize("policy", corpus.BUILTIN_POLICIES)
def test_key_equals_the_command_record_on_a_sample(policy, corpus_records, cli_key_output):
    # Only the sampled records are parsed (JSON Lines end at "\n" only: conftest.read_jsonl).
    lines = cli_key_output(policy).decode("utf-8").split("\n")
    assert lines.pop() == ""
    assert len(lines) == len(corpus_records)
    for (line, text), raw in list(zip(corpus_records, lines))[::97]:
        want = json.loads(raw)
        assert urlkey.key(text, policy=policy) == dict(want, line=None), f"line {line}"
