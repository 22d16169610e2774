"""Type stubs of the native module ``urlkey._urlkey`` (re-exported by ``urlkey``)."""

from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict

import pyarrow

__version__: str
KEY_COLUMNS: List[str]
#: Each command's default policy by name (``key``, ``map``, ``inspect``, ``explain``,
#: ``ledger``, ``diff_from``, ``diff_to``): the same as the ``urlkey`` command's.
DEFAULT_POLICIES: Dict[str, str]

class UrlkeyError(ValueError):
    """Base class of urlkey's errors."""

    code: str
    message: str

class PolicyError(UrlkeyError):
    """Unknown policy (``policy.unknown``) or option (``policy.unknown-option``)."""

class InvalidUrlError(UrlkeyError):
    """Text that is not a URL where one is required (``web.invalid-url``, ...)."""

class UsageError(UrlkeyError):
    """``base`` with a policy that does not resolve relative input (``usage.base``)."""

class KeyErrorInfo(TypedDict):
    code: str
    message: str

class TransformationInfo(TypedDict):
    rule: str
    component: str
    before: str
    after: str

class KeyRecord(TypedDict):
    line: Optional[int]
    observed: str
    policy: str
    status: Literal["ok", "invalid"]
    key: Optional[str]
    canonical: Optional[str]
    error: Optional[KeyErrorInfo]
    transformations: List[TransformationInfo]
    removed_params: List[str]
    facts: List[str]
    psl: Optional[str]

class PolicyInfo(TypedDict):
    id: str
    description: str
    builtin: bool
    uses_psl: bool

def key(url: str, policy: str = ..., base: Optional[str] = None) -> KeyRecord:
    """The key record of one URL: the fields of ``urlkey key``'s JSONL record.

    ``policy`` defaults to ``DEFAULT_POLICIES["key"]``."""

def inspect(url: str, policy: str = ...) -> Dict[str, Any]:
    """``urlkey inspect --format json`` as a dict.

    ``policy`` defaults to ``DEFAULT_POLICIES["inspect"]``."""

def query_pairs(url: str) -> List[Tuple[str, str]]:
    """Ordered, form-decoded (name, value) pairs of the URL's query."""

def policies() -> List[PolicyInfo]:
    """Every builtin policy."""

def psl_version() -> str:
    """The embedded Public Suffix List's version."""

def error_codes() -> Dict[str, str]:
    """Every stable error code with its description."""

def _keys(
    values: pyarrow.Array, policy: str = ..., base: Optional[str] = None
) -> pyarrow.RecordBatch: ...
