#!/usr/bin/env python3
"""NEW for `bench/propose.sh`: the new site of a migration, written from OLD (one URL a line).

usage: bench/propose_new.py OLD > NEW

Each old URL i (0-based, by line) becomes, by i % 20 (so the shares are exact and the
output is the same on every run):

  0-1    10%  unchanged: the same URL (`served`)
  2-9    40%  migrated: https, www. dropped, path lowercased, page extensions (.html,
              .php, ...) dropped, utm_* parameters dropped, fragment dropped
  10-12  15%  migrated and moved: the first folder renamed (`/archive/...` added in front)
  13-14  10%  respelled: the same URL with its host uppercased and a trailing slash (the
              same key under webkey@1, another spelling)
  15-16  10%  renamed: migrated, its last segment replaced by `page-<i>`
  17-19  15%  retired: no new page; a page that OLD does not have takes its place

NEW has as many lines as OLD, in a shuffled order (seeded: the same on every run).
"""

import random
import re
import sys

EXT = re.compile(r"\.(?:html?|shtml|php[345]?|aspx?|jsp|cfm)(?=/|$)", re.IGNORECASE)


def split(url):
    """scheme, host, path, query of an absolute URL (fragment dropped)."""
    url = url.split("#", 1)[0]
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/?]*)([^?]*)(?:\?(.*))?$", url)
    if not m:
        return None
    return m.group(1), m.group(2), m.group(3), m.group(4)


def migrated(url):
    parts = split(url)
    if parts is None:
        return url
    _, host, path, query = parts
    host = host.lower()
    if host.startswith("www."):
        host = host[4:]
    host = host.split(":", 1)[0]
    path = EXT.sub("", path.lower()) or "/"
    out = f"https://{host}{path}"
    if query:
        kept = [p for p in query.split("&") if p and not p.lower().startswith("utm_")]
        if kept:
            out += "?" + "&".join(kept)
    return out


def moved(url):
    parts = split(migrated(url))
    if parts is None:
        return url
    _, host, path, query = parts
    return f"https://{host}/archive{path}" + (f"?{query}" if query else "")


def respelled(url):
    parts = split(url)
    if parts is None:
        return url
    scheme, host, path, query = parts
    if not path.endswith("/"):
        path += "/"
    return f"{scheme}://{host.upper()}{path}" + (f"?{query}" if query else "")


def renamed(url, i):
    parts = split(migrated(url))
    if parts is None:
        return url
    _, host, path, _ = parts
    folder = path.rsplit("/", 1)[0] if "/" in path.strip("/") else ""
    return f"https://{host}{folder}/page-{i}"


def main():
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        old = [line.rstrip("\r\n").lstrip("\ufeff") for line in f]
    new = []
    for i, url in enumerate(old):
        r = i % 20
        if r < 2:
            new.append(url)
        elif r < 10:
            new.append(migrated(url))
        elif r < 13:
            new.append(moved(url))
        elif r < 15:
            new.append(respelled(url))
        elif r < 17:
            new.append(renamed(url, i))
        else:
            new.append(f"https://new-pages.example.com/launch/{i}/offer-{i % 997}")
    random.Random(1).shuffle(new)
    sys.stdout.write("\n".join(new) + "\n")


if __name__ == "__main__":
    main()
