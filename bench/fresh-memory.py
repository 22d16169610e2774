#!/usr/bin/env python3
"""The price of memory a process touches for the first time, in ms a MiB (docs/benchmarks.md,
issue 19's fourteenth round).

usage: bench/fresh-memory.py [--mib N] [--pages huge|4k|both] [--pause SECONDS]

Maps N MiB (default 256) of anonymous memory, advises huge pages (as mimalloc, `urlkey`'s
allocator, does for its arenas) or 4 KB pages, and writes one byte a 4 KB page, timing the
writes: every write to a new page faults it in, and the kernel zeroes it. On a plain machine
that is about 0.1-0.3 ms a MiB. On a virtual machine that gives free memory back to its host
(free page reporting), a page the host took back is faulted in from the host too, which is
what `urlkey map`'s tables pay on this kind of machine. --pause sleeps before each
measurement so that memory freed just before has been given back (default 6 s).

Prints one line per page size: `fresh-memory PAGES N MiB: S s, P ms/MiB`.
"""

import argparse
import mmap
import time

PAGE = 4096
HUGE = 2 << 20


def price(mib: int, huge: bool) -> float:
    """Seconds to fault in `mib` MiB of fresh anonymous memory."""
    size = mib << 20
    # One huge page more, so that the range starts on a huge-page boundary.
    m = mmap.mmap(-1, size + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        m.madvise(mmap.MADV_HUGEPAGE if huge else mmap.MADV_NOHUGEPAGE)
        start = time.perf_counter()
        for at in range(0, size, PAGE):
            m[at] = 1
        return time.perf_counter() - start
    finally:
        m.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--pages", choices=["huge", "4k", "both"], default="huge")
    ap.add_argument("--pause", type=float, default=6.0)
    args = ap.parse_args()
    if args.mib <= 0:
        ap.error("--mib must be positive")
    kinds = ["huge", "4k"] if args.pages == "both" else [args.pages]
    for kind in kinds:
        time.sleep(args.pause)
        s = price(args.mib, kind == "huge")
        print(f"fresh-memory {kind} {args.mib} MiB: {s:.3f} s, {s * 1000 / args.mib:.2f} ms/MiB")


if __name__ == "__main__":
    main()
