"""w3lib canonicalize_url over every line of a file (bench/compare.sh).

usage: python w3lib_canonicalize.py FILE > OUT
Reads the file as UTF-8 (a leading BOM removed), skips blank lines as urlkey does, and
writes one canonical URL per line (an empty line when w3lib raises).
"""
import sys

from w3lib.url import canonicalize_url


def main() -> None:
    out = []
    with open(sys.argv[1], encoding="utf-8-sig", newline="") as f:
        for line in f:
            url = line.rstrip("\n").rstrip("\r")
            if not url.strip():
                continue
            try:
                out.append(canonicalize_url(url))
            except Exception:  # noqa: BLE001 - a failure is an empty line, as urlkey's
                out.append("")
    sys.stdout.write("\n".join(out))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
