#!/usr/bin/env python3
"""Checks two rules of CONTRIBUTING.md ("The house") on the sources of every crate:

1. No import cycle between modules inside a crate: an edge A -> B when code of module A
   (comments and strings left out) names a path into module B (`crate::`, `super::`,
   `self::`); a parent naming its own child is the module tree, not an edge. A cycle is a
   strongly connected set of two or more modules.
2. No source file over 1,000 lines outside tests (`tests/`, `tests.rs`, and the
   `#[cfg(test)]` tail of a file) and data tables (`data/`).

Prints what it finds and exits 1 when either rule is broken.
    python3 scripts/check-house.py [REPO]
"""
import os
import re
import sys

MAX_LINES = 1000


def modules(src):
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if f.endswith(".rs"):
                path = os.path.join(dirpath, f)
                parts = os.path.relpath(path, src)[:-3].split(os.sep)
                if parts[-1] in ("mod", "lib", "main"):
                    parts = parts[:-1]
                mods[tuple(parts)] = path
    return mods


def code_of(text):
    cut = text.find("#[cfg(test)]")
    if cut >= 0:
        text = text[:cut]
    text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("//"))
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)


def edges_of(mods):
    edges = set()
    for m, path in mods.items():
        code = code_of(open(path, encoding="utf-8").read())
        for p in re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", code):
            segs = p.split("::")
            base = [] if segs[0] == "crate" else list(m)
            if segs[0] == "crate":
                segs = segs[1:]
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
            full = base + segs
            target = next(
                (tuple(full[:n]) for n in range(len(full), -1, -1) if tuple(full[:n]) in mods), ()
            )
            if target != m and target[: len(m)] != m:
                edges.add((m, target))
    return edges


def cycles(edges):
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted("/".join(x) or "<root>" for x in comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return found


def long_files(src):
    out = []
    for dirpath, _, files in os.walk(src):
        if os.sep + "data" in dirpath:
            continue
        for f in files:
            if f.endswith(".rs") and f != "tests.rs":
                path = os.path.join(dirpath, f)
                text = open(path, encoding="utf-8").read()
                cut = text.find("#[cfg(test)]")
                n = (text if cut < 0 else text[:cut]).count("\n")
                if n > MAX_LINES:
                    out.append((path, n))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    bad = False
    crates = os.path.join(root, "crates")
    for crate in sorted(os.listdir(crates)):
        src = os.path.join(crates, crate, "src")
        if not os.path.isdir(src):
            continue
        found = cycles(edges_of(modules(src)))
        longs = long_files(src)
        for c in found:
            print(f"check-house: {crate}: import cycle between {', '.join(c)}")
        for path, n in longs:
            print(f"check-house: {os.path.relpath(path, root)}: {n} lines (at most {MAX_LINES})")
        bad |= bool(found or longs)
    print("check-house: " + ("FAILED" if bad else "no import cycle, no source file over 1,000 lines"))
    sys.exit(1 if bad else 0)


main()
