#!/usr/bin/env python3
"""Inclusive instruction counts per item for chosen functions, from callgrind files.

usage: cg_table.py ITEMS FILE[=label] ... -- FUNC ...
Runs `callgrind_annotate --inclusive=yes` on each FILE and prints, for each FUNC (an
exact function name as callgrind shows it, e.g. urlkey::policy::Policy::finish), the
largest inclusive count divided by ITEMS, as a Markdown table.
"""
import re
import subprocess
import sys


def inclusive(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", path],
                         capture_output=True, text=True).stdout
    best = {}
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+) \([ \d.]+%\)\s+(?:\S*?:)?(.+?)(?: \[[^\]]*\])?\s*$", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        name = m.group(2).strip()
        best[name] = max(best.get(name, 0), n)
    return best


def main():
    args = sys.argv[1:]
    items = int(args[0])
    sep = args.index("--")
    files = args[1:sep]
    funcs = args[sep + 1:]
    tables = []
    labels = []
    for f in files:
        path, _, label = f.partition("=")
        labels.append(label or path)
        tables.append(inclusive(path))
    print("| function | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    for fn in funcs:
        cells = []
        for t in tables:
            hits = [v for k, v in t.items() if k == fn or k.endswith(fn)]
            cells.append(f"{max(hits) / items:.0f}" if hits else "")
        print(f"| `{fn}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
