"""urlkey in Polars: named, versioned URL keys and their reasons, as expressions.

Every function takes a column (a name or an expression) and returns an expression that
runs in Rust on Polars' threads, without the GIL, in eager, lazy and streaming queries
(the expressions are elementwise). The same functions hang off expressions as the
``urlkey`` namespace once this package is imported::

    import polars as pl
    import urlkey_polars

    df = pl.DataFrame({"url": ["https://Example.com/a/?utm_source=x", None, "mailto:x@y.z"]})
    df.with_columns(key=pl.col("url").urlkey.key(policy="citation@1"))

Null in, null out. An invalid URL has a null ``key``; ``outcome`` says
``status == "invalid"`` and gives its stable ``error_code``: never an empty string. The
column is String, Categorical or Enum (keyed as the same text); another type fails when the
query's schema is resolved, naming the type. One URL is at most 64 KiB (``input.too-long``).

``policy`` is a builtin id (``urlkey policies`` lists them) or an id that ``policy_file``
(a TOML policy file, read here, once, when the expression is built) defines. A policy that
cannot be had, or a policy file that cannot be read, raises :class:`PolicyError` (with
``.code``) when the expression is built, not at ``collect()``. The policy's id and version ride in every ``outcome`` row
(``policy``, ``psl_version``); :func:`policy_info` describes a policy.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any, Dict, Optional, Union

import polars as pl
from polars.plugins import register_plugin_function

from ._internal import (
    DEFAULT_POLICIES,
    OUTCOME_FIELDS,
    TRANSFORMATION_FIELDS,
    PolicyError,
    __version__,
    check_policy,
)

__all__ = [
    "DEFAULT_POLICIES",
    "OUTCOME_FIELDS",
    "TRANSFORMATION_FIELDS",
    "PolicyError",
    "__version__",
    "clean",
    "explain",
    "inspect",
    "key",
    "outcome",
    "policy_info",
    "query_pairs",
    "registrable_domain",
]

IntoExpr = Union[str, pl.Expr]
PolicyFile = Optional[Union[str, "PathLike[str]"]]

# The directory holding the plugin library (this package's `_internal` module).
_PLUGIN = Path(__file__).parent


def _policy_file_error(path: Path, why: str) -> PolicyError:
    # The command's wording (`urlkey key --policy-file`): the path, then why.
    err = PolicyError(f"{path}: cannot read the policy file: {why}")
    err.code = "policy.file"
    return err


def _read_policy_file(policy_file: Union[str, "PathLike[str]"]) -> str:
    path = Path(policy_file)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise _policy_file_error(path, f"it is not UTF-8 text ({e.reason} at byte {e.start})") from e
    except OSError as e:
        raise _policy_file_error(path, e.strerror or str(e)) from e
    except ValueError as e:  # a path Python cannot open at all (a NUL byte)
        raise _policy_file_error(path, str(e)) from e


def _policy_args(policy: str, policy_file: PolicyFile) -> Dict[str, Any]:
    text = origin = None
    if policy_file is not None:
        text = _read_policy_file(policy_file)
        origin = str(Path(policy_file))
    check_policy(policy, text, origin)
    return {"policy": policy, "policy_text": text, "policy_origin": origin}


def _call(name: str, args: list, kwargs: Optional[Dict[str, Any]] = None) -> pl.Expr:
    return register_plugin_function(
        plugin_path=_PLUGIN,
        function_name=name,
        args=args,
        kwargs=kwargs,
        is_elementwise=True,
    )


def policy_info(policy: str = DEFAULT_POLICIES["key"], *, policy_file: PolicyFile = None) -> Dict[str, Any]:
    """The policy as the expressions resolve it: ``id``, ``description``, ``builtin``,
    ``urlkey_version`` and ``psl_version``. Raises :class:`PolicyError`."""
    args = _policy_args(policy, policy_file)
    return check_policy(args["policy"], args["policy_text"], args["policy_origin"])


def key(expr: IntoExpr, policy: str = DEFAULT_POLICIES["key"], *, policy_file: PolicyFile = None) -> pl.Expr:
    """The comparison key under ``policy`` (String); null for null and for an invalid URL."""
    return _call("key", [expr], _policy_args(policy, policy_file))


def outcome(expr: IntoExpr, policy: str = DEFAULT_POLICIES["key"], *, policy_file: PolicyFile = None) -> pl.Expr:
    """Everything the policy says of each URL, as a Struct with the fields
    ``OUTCOME_FIELDS``: policy, status (``ok``/``invalid``), key, canonical, error_code,
    error_message, removed_params, transformations (list of {rule, component, before,
    after, wrapper}), facts, host, signature, registrable_domain, psl_version."""
    return _call("outcome", [expr], _policy_args(policy, policy_file))


def registrable_domain(
    expr: IntoExpr, policy: str = DEFAULT_POLICIES["key"], *, policy_file: PolicyFile = None
) -> pl.Expr:
    """The registrable domain (Public Suffix List) of the key's host: the publisher, after
    any unwrap. Null for an invalid URL, an IP host, or a host that is a public suffix."""
    return _call("registrable_domain", [expr], _policy_args(policy, policy_file))


def clean(expr: IntoExpr) -> pl.Expr:
    """The key under ``clean@1``: the URL without its tracking parameters and redirect
    wrappers, otherwise as written by the WHATWG serializer."""
    return _call("clean", [expr])


def query_pairs(expr: IntoExpr) -> pl.Expr:
    """The query as an ordered list of {name, value}, form-decoded, blanks and repeats kept;
    null for text that is not an absolute URL."""
    return _call("query_pairs", [expr])


def inspect(expr: IntoExpr, policy: str = DEFAULT_POLICIES["inspect"], *, policy_file: PolicyFile = None) -> pl.Expr:
    """The facts about each URL (valid, error_code, href, canonical, is_website,
    looks_like_web_address, facts, registrable_domain, public_suffix, key) and, in ``json``,
    the whole of ``urlkey inspect --format json``."""
    return _call("inspect", [expr], _policy_args(policy, policy_file))


def explain(
    a: IntoExpr, b: IntoExpr, policy: str = DEFAULT_POLICIES["explain"], *, policy_file: PolicyFile = None
) -> pl.Expr:
    """``urlkey explain A B`` per row: same_key, key_a, key_b, the rules that made them
    meet, or the first component where they differ (differs_in, value_a, value_b), and the
    builtins under which they share a key (same_key_under)."""
    return _call("explain", [a, b], _policy_args(policy, policy_file))


@pl.api.register_expr_namespace("urlkey")
class UrlkeyExpr:
    """``pl.col("url").urlkey.key(...)`` and the rest of this module on an expression."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def key(self, policy: str = DEFAULT_POLICIES["key"], *, policy_file: PolicyFile = None) -> pl.Expr:
        return key(self._expr, policy, policy_file=policy_file)

    def outcome(self, policy: str = DEFAULT_POLICIES["key"], *, policy_file: PolicyFile = None) -> pl.Expr:
        return outcome(self._expr, policy, policy_file=policy_file)

    def registrable_domain(self, policy: str = DEFAULT_POLICIES["key"], *, policy_file: PolicyFile = None) -> pl.Expr:
        return registrable_domain(self._expr, policy, policy_file=policy_file)

    def clean(self) -> pl.Expr:
        return clean(self._expr)

    def query_pairs(self) -> pl.Expr:
        return query_pairs(self._expr)

    def inspect(self, policy: str = DEFAULT_POLICIES["inspect"], *, policy_file: PolicyFile = None) -> pl.Expr:
        return inspect(self._expr, policy, policy_file=policy_file)

    def explain(
        self, other: IntoExpr, policy: str = DEFAULT_POLICIES["explain"], *, policy_file: PolicyFile = None
    ) -> pl.Expr:
        return explain(self._expr, other, policy, policy_file=policy_file)
