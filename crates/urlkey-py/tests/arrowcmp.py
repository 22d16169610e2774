"""Whole-column comparisons in Arrow, for the tests that compare engines on 200,000+ rows.

Converting every column of every engine to Python lists cost most of the Python layer's CPU
in CI; Arrow compares two columns in C. Only when they differ do the tests go to Python
values, to name the first differing row.

`same_type` normalizes what differs between engines without changing a value (string,
large_string and string_view are one string type; list and large_list one list type;
nullability flags dropped), so that a comparison fails on values, or on a real difference
of type (a number where a string is expected), never on Arrow's physical layout.
"""

from __future__ import annotations

import io
from typing import Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

_STRINGS = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
_LISTS = (pa.types.is_list, pa.types.is_large_list, pa.types.is_list_view, pa.types.is_large_list_view)


def same_type(t: pa.DataType) -> pa.DataType:
    """The type every engine's column is cast to before a comparison."""
    if any(f(t) for f in _STRINGS):
        return pa.string()
    if pa.types.is_integer(t):
        return pa.int64()
    if any(f(t) for f in _LISTS):
        return pa.list_(same_type(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(t.field(i).name, same_type(t.field(i).type)) for i in range(t.num_fields)])
    return t


def column(values, type: Optional[pa.DataType] = None) -> pa.Array:
    """One contiguous Arrow array of `values` (an Array, a ChunkedArray, a Polars Series or
    a Python list, the latter typed with `type`) in its normalized type."""
    if isinstance(values, list):
        values = pa.array(values, type=type)
    elif hasattr(values, "to_arrow") and not isinstance(values, (pa.Array, pa.ChunkedArray)):
        values = values.to_arrow()  # a Polars Series
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    target = same_type(values.type)
    return values if values.type == target else values.cast(target)


def first_difference(got: pa.Array, want: pa.Array) -> Optional[int]:
    """None when equal (type, length, every value and null); else the first differing row
    (the shorter length when only the lengths differ, -1 when only the types do)."""
    if got.type != want.type:
        return -1
    n = min(len(got), len(want))
    if len(got) == len(want) and got.equals(want):
        return None
    step = 4096
    for start in range(0, n, step):
        g, w = got.slice(start, step), want.slice(start, step)
        if not g.equals(w):
            gl, wl = g.to_pylist(), w.to_pylist()
            for k in range(len(gl)):
                if gl[k] != wl[k]:
                    return start + k
    return n


def describe(name: str, got: pa.Array, want: pa.Array, texts: Sequence[str], row: int) -> str:
    """The failure message of one column: the row, its input and both values."""
    if row == -1:
        return f"{name}: type {got.type} != {want.type}"
    if row >= min(len(got), len(want)):
        if len(got) == len(want):
            return f"{name}: equal as Python values, not as Arrow arrays ({got.type})"
        return f"{name}: {len(got)} rows != {len(want)}"
    return f"{name} row {row} {texts[row]!r}: {got[row].as_py()!r} != {want[row].as_py()!r}"


def compare(name: str, got: pa.Array, want: pa.Array, texts: Sequence[str], problems: list) -> None:
    """Appends to `problems` the message naming the first row where `got` differs."""
    row = first_difference(got, want)
    if row is not None:
        problems.append(describe(name, got, want, texts, row))


def all_equal_to(values: pa.Array, value: str) -> bool:
    """Every row is `value` (no null, at least one row)."""
    return len(values) > 0 and values.null_count == 0 and pc.all(pc.equal(values, value)).as_py()


def list_field(lists: pa.Array, field: str) -> pa.Array:
    """list<struct> -> list<field's type>: e.g. the rule of each transformation, per row."""
    lists = column(lists)
    offsets = lists.offsets
    values = lists.values.field(field)
    return column(pa.ListArray.from_arrays(offsets, values, mask=lists.is_null() if lists.null_count else None))


TRANSFORMATION = pa.struct(
    [("rule", pa.string()), ("component", pa.string()), ("before", pa.string()), ("after", pa.string()), ("wrapper", pa.string())]
)
STRINGS = pa.list_(pa.string())
#: The fields of `urlkey key`'s JSON Lines records, typed.
KEY_RECORD = pa.schema(
    [
        ("line", pa.int64()),
        ("observed", pa.string()),
        ("policy", pa.string()),
        ("status", pa.string()),
        ("key", pa.string()),
        ("canonical", pa.string()),
        ("error", pa.struct([("code", pa.string()), ("message", pa.string())])),
        ("transformations", pa.list_(TRANSFORMATION)),
        ("removed_params", STRINGS),
        ("facts", STRINGS),
        ("psl", pa.string()),
    ]
)


def read_jsonl_table(data: bytes, schema: pa.Schema, optional: Sequence[str] = ()) -> pa.Table:
    """JSON Lines output of the command as an Arrow table of `schema`.

    pyarrow.json parses in C what json.loads per line took seconds of CPU for; with the
    explicit schema, a field or nested key the schema does not name, or a value of another
    type, is an error. What it would not see is checked on the bytes: a field missing from a
    record (it would read as null), unless it is `optional`, or an explicit
    `"wrapper":null` (the engines' null wrapper stands for "no wrapper key"). A top-level
    key appears as `{"k":` or `,"k":`, which no JSON string holds unescaped; no nested key of
    these records shares a name with a top-level one."""
    n = data.count(b"\n")
    assert data.endswith(b"\n") or not data, "the JSON Lines output ends with a new line"
    for name in schema.names:
        if name in optional:
            continue
        seen = data.count(b',"' + name.encode() + b'":')
        if seen != n:  # the first field of each record
            seen += data.count(b'{"' + name.encode() + b'":')
        assert seen == n, f"{n} records but {seen} with the field {name!r}"
    assert b'"wrapper":null' not in data, "a transformation states a null wrapper"
    options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
    table = pj.read_json(io.BytesIO(data), read_options=pj.ReadOptions(block_size=16 << 20), parse_options=options)
    assert table.num_rows == n
    return table


def read_key_jsonl(data: bytes) -> dict:
    """The records of `urlkey key --format jsonl` (its stdout) as Arrow columns: every field
    of the record, `error` split into `error_code` and `error_message`, `rules` (the rule of
    each transformation) and `transformations` in full (`wrapper` null where the record has
    none, as the engines' structs carry it). `psl` may be absent (null, as `r.get("psl")`)."""
    table = read_jsonl_table(data, KEY_RECORD, optional=("psl",))
    out = {name: column(table.column(name)) for name in KEY_RECORD.names if name != "error"}
    error = table.column("error")
    out["error_code"] = column(pc.struct_field(error, "code"))
    out["error_message"] = column(pc.struct_field(error, "message"))
    out["rules"] = list_field(out["transformations"], "rule")
    return out


def compare_tables(got: pa.Table, want: pa.Table, texts: Sequence[str]) -> list:
    """The message of every column of `want` whose values differ in `got` (same names)."""
    problems: list = []
    for name in want.column_names:
        compare(name, column(got.column(name)), column(want.column(name)), texts, problems)
    return problems


def relaxed(schema: pa.Schema) -> pa.Schema:
    """`schema` with every type normalized (`same_type`) and every field nullable."""
    return pa.schema([pa.field(f.name, same_type(f.type)) for f in schema])


def concat(parts: Sequence[dict]) -> dict:
    """The columns of several references, one after the other."""
    return {k: pa.concat_arrays([p[k] for p in parts]) for k in parts[0]}
