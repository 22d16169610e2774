"""urlkey: explainable, versioned comparison keys for URLs.

The same library as the ``urlkey`` command (Rust, WHATWG URL parsing through ada), with the
same policies, records and error codes:

>>> import urlkey
>>> urlkey.key("https://research.example.net/report/?gclid=example")["key"]
'https://research.example.net/report'

- :func:`key` -- one record as a dict (the fields of ``urlkey key``'s JSONL record).
- :func:`keys` -- many values at once, as a ``pyarrow.RecordBatch`` (needs pyarrow).
- :func:`inspect`, :func:`query_pairs`, :func:`policies`, :func:`psl_version`,
  :func:`error_codes`.
- :mod:`urlkey.spark` -- ``with_keys`` and ``group_report`` for Apache Spark DataFrames.
- ``DEFAULT_POLICIES`` -- each command's default policy by name (``key``, ``map``,
  ``inspect``, ...), the same as the ``urlkey`` command's.

Errors are exceptions carrying the stable code in ``.code``: :class:`PolicyError`,
:class:`InvalidUrlError`, :class:`UsageError`, all subclasses of :class:`UrlkeyError`
(itself a ``ValueError``). An invalid URL given to :func:`key` or :func:`keys` is not an
exception: its record says ``status == "invalid"``, as the command does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from ._urlkey import (
    DEFAULT_POLICIES,
    KEY_COLUMNS,
    InvalidUrlError,
    PolicyError,
    UrlkeyError,
    UsageError,
    __version__,
    _keys,
    error_codes,
    inspect,
    key,
    policies,
    psl_version,
    query_pairs,
)

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow

__all__ = [
    "DEFAULT_POLICIES",
    "KEY_COLUMNS",
    "InvalidUrlError",
    "PolicyError",
    "UrlkeyError",
    "UsageError",
    "__version__",
    "error_codes",
    "inspect",
    "key",
    "keys",
    "policies",
    "psl_version",
    "query_pairs",
]


def _string_array(values: Any) -> Any:
    """A pyarrow array of strings for ``values`` (no copy when it already is one)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    elif not isinstance(values, pa.Array):
        if hasattr(values, "__arrow_c_array__"):
            values = pa.array(values)
        else:
            if not isinstance(values, (list, tuple)) and not hasattr(values, "__array__"):
                values = list(values)
            values = pa.array(values, type=pa.string())
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if not (
        pa.types.is_string(values.type)
        or pa.types.is_large_string(values.type)
        or (hasattr(pa.types, "is_string_view") and pa.types.is_string_view(values.type))
        or pa.types.is_null(values.type)
    ):
        raise TypeError(
            f"keys() takes strings (string, large_string or string_view), not {values.type}"
        )
    return values


def keys(
    values: Union["pyarrow.Array", "pyarrow.ChunkedArray", Iterable[Optional[str]]],
    policy: str = DEFAULT_POLICIES["key"],
    base: Optional[str] = None,
) -> "pyarrow.RecordBatch":
    """Keys many values at once: one row per value, in order.

    ``values`` is a pyarrow string array (``string``, ``large_string``, ``string_view``,
    or a dictionary of strings), a chunked array, or any iterable of ``str``/``None``.
    The array crosses into Rust through the Arrow C data interface (no Python object per
    row) and the keys are computed with the GIL released.

    Columns (see ``KEY_COLUMNS``): ``index`` (0-based position), ``observed``,
    ``policy``, ``status`` (``ok``/``invalid``), ``key``, ``canonical``, ``error_code``,
    ``error_message``, ``host``, ``signature`` (the grouping signature of ``urlkey map``),
    ``transformations`` (the rule names, in order), ``removed_params``, ``facts``,
    ``registrable_domain`` (of the key's host), ``psl_version`` (the embedded Public Suffix
    List's version, on every row).
    A null value is an invalid row with ``error_code == "input.missing-field"``.

    Raises :class:`PolicyError` for an unknown policy, :class:`UsageError` when ``base``
    is given to a policy that does not resolve relative input, ``TypeError`` for values
    that are not strings.
    """
    return _keys(_string_array(values), policy, base)
