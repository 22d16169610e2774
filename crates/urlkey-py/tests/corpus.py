"""The test corpus: 200,000 lines built deterministically from ../shared/datasets.

The four files of ada-url-various-datasets (in SOURCE.md's order: kasztp, userbait,
node_files, isaacs_files; 109,062 lines) come first, unchanged but for kasztp's byte-order
mark. The remaining lines are variants of the web URLs (kasztp and userbait), chosen by a
fixed stride and varied by one of ten rewrites (upper-case scheme and host, a fragment, a
tracking parameter, a trailing slash, a second query parameter with one of three values,
a doubled slash, a default port, parameters reordered, an exact repeat), so that every
policy sees duplicates, review groups (same signature, distinct keys) and invalid lines.
A comment line every 10,000 lines and a blank line every 25,000 exercise the command's
line numbering (skipped lines are counted, never output).

Also the golden fixture reader (crates/urlkey/tests/golden/*.tsv) with its escape scheme.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import urlkey

REPO = Path(__file__).resolve().parents[3]
DATASET_FILES = [
    "others/kasztp.txt",
    "others/userbait.txt",
    "files/node_files.txt",
    "files/isaacs_files.txt",
]
TOTAL_LINES = 200_000
# The builtins as the module lists them (the Rust registry): no list is kept here.
BUILTIN_POLICIES = [p["id"] for p in urlkey.policies() if p["builtin"]]


def dataset_dir() -> Path:
    """``../shared/datasets/ada-url-various-datasets`` beside the repository."""
    env = os.environ.get("URLKEY_DATASETS")
    base = Path(env) if env else REPO.parent / "shared" / "datasets"
    d = base / "ada-url-various-datasets"
    missing = [f for f in DATASET_FILES if not (d / f).is_file()]
    if missing:
        raise FileNotFoundError(
            f"the test corpus needs {', '.join(missing)} under {d} "
            "(../shared/datasets beside the repository, or $URLKEY_DATASETS)"
        )
    return d


def _read_lines(path: Path) -> List[str]:
    text = path.read_bytes().decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _split_url(u: str) -> Optional[Tuple[str, str, str, str]]:
    """(scheme, host[:port], path, rest) of an http(s) URL, or None."""
    m = re.match(r"^(https?)://([^/?#]*)([^?#]*)(.*)$", u, re.IGNORECASE)
    if not m:
        return None
    return m.group(1), m.group(2), m.group(3), m.group(4)


def _vary(u: str, i: int) -> str:
    kind = i % 10
    parts = _split_url(u)
    if parts is None:
        return u
    scheme, host, path, rest = parts
    query, frag = rest, ""
    if "#" in rest:
        query, frag = rest.split("#", 1)
        frag = "#" + frag
    sep = "&" if query.startswith("?") and len(query) > 1 else "?"
    if query == "?":
        sep = ""
    if kind == 0:
        return u
    if kind == 1:
        return f"{scheme.upper()}://{host.upper()}{path}{rest}"
    if kind == 2:
        return f"{scheme}://{host}{path}{query}#section-{i % 5}"
    if kind == 3:
        return f"{scheme}://{host}{path}{query}{sep}utm_source=news&fbclid=x{i % 7}{frag}"
    if kind == 4:
        if path.endswith("/") and len(path) > 1:
            return f"{scheme}://{host}{path[:-1]}{rest}"
        return f"{scheme}://{host}{path or '/'}{'' if (path or '/').endswith('/') else '/'}{rest}"
    if kind == 5:
        return f"{scheme}://{host}{path or '/'}{query}{sep}page={i % 3}{frag}"
    if kind == 6:
        return f"{scheme}://{host}/{path or '/'}{rest}"
    if kind == 7:
        port = ":443" if scheme.lower() == "https" else ":80"
        if ":" in host.split("@")[-1]:
            return u
        return f"{scheme}://{host}{port}{path}{rest}"
    if kind == 8:
        if query.startswith("?") and "&" in query:
            params = query[1:].split("&")
            return f"{scheme}://{host}{path}?{'&'.join(reversed(params))}{frag}"
        return f"{scheme}://{host}{path}{query}{sep}b=2&a=1{frag}"
    return u + ("" if frag else "#")


def corpus_lines(total: int = TOTAL_LINES) -> List[str]:
    """The corpus as a list of lines (without line endings)."""
    d = dataset_dir()
    files = [_read_lines(d / f) for f in DATASET_FILES]
    base: List[str] = [line for lines in files for line in lines]
    web: List[str] = files[0] + files[1]
    out: List[str] = []
    extra = 0
    n = len(web)
    i = 0
    while len(out) < total:
        line_no = len(out) + 1
        if line_no % 25_000 == 0:
            out.append("")
            continue
        if line_no % 10_000 == 0:
            out.append(f"# urlkey test corpus, line {line_no}")
            continue
        if i < len(base):
            out.append(base[i])
        else:
            j = (extra * 7919) % n
            out.append(_vary(web[j], extra))
            extra += 1
        i += 1
    return out


def write_corpus(path: Path, total: int = TOTAL_LINES) -> List[str]:
    """Writes the corpus (LF line ends) and returns its lines."""
    lines = corpus_lines(total)
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return lines


def records(lines: List[str]) -> List[Tuple[int, str]]:
    """(line number, text) of every line the command turns into a record: blank lines and
    lines whose first non-space character is ``#`` are skipped, but counted."""
    out = []
    for n, text in enumerate(lines, start=1):
        t = text.strip(" \t\n\x0c\r")
        if not t or t.startswith("#"):
            continue
        out.append((n, text))
    return out


# ---------------------------------------------------------------------------------------
# Golden fixtures (crates/urlkey/tests/golden/<policy>.tsv)

_ESCAPE = re.compile(r"\\(\\|t|n|r|u\{([0-9A-Fa-f]{1,6})\})")


def unescape(col: str) -> str:
    """Reverses the fixtures' escapes: ``\\\\``, ``\\t``, ``\\n``, ``\\r``, ``\\u{HEX}``."""

    def one(m: "re.Match[str]") -> str:
        c = m.group(1)
        if c == "\\":
            return "\\"
        if c == "t":
            return "\t"
        if c == "n":
            return "\n"
        if c == "r":
            return "\r"
        return chr(int(m.group(2), 16))

    rest = _ESCAPE.sub("", col)
    if "\\" in rest:
        raise ValueError(f"unknown escape in {col!r}")
    return _ESCAPE.sub(one, col)


def golden_files() -> Dict[str, Path]:
    d = REPO / "crates" / "urlkey" / "tests" / "golden"
    return {p.stem: p for p in sorted(d.glob("*.tsv"))}


def golden_cases(path: Path) -> Iterator[Tuple[int, str, Tuple[str, str]]]:
    """(line, input, ("key", key) | ("error", code)) for every data line of a fixture."""
    for n, raw in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if raw == "" or raw.startswith("#"):
            continue
        cols = raw.split("\t")
        if len(cols) != 2:
            raise ValueError(f"{path.name}:{n}: expected input<TAB>expected, got {raw!r}")
        inp, exp = cols
        if exp.startswith("!"):
            yield n, unescape(inp), ("error", exp[1:])
        else:
            yield n, unescape(inp), ("key", unescape(exp))
