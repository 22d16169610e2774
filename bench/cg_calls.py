#!/usr/bin/env python3
"""Sum callgrind call counts to named functions (e.g. malloc) in a callgrind.out file.

usage: cg_calls.py FILE [NAME ...]   (default names: malloc free realloc calloc operator new)
Prints, per name, the total number of calls recorded (inside the collected region).
"""
import re
import sys

def main():
    path = sys.argv[1]
    names = sys.argv[2:] or ["malloc", "free", "realloc", "calloc", "operator new(unsigned long)"]
    fn_names = {}
    totals = {n: 0 for n in names}
    cfn = None
    pending = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line)
            if m:
                fid, name = m.group(1), m.group(2)
                if name is not None:
                    fn_names[fid] = name
                if line.startswith("cfn="):
                    cfn = fn_names.get(fid)
                continue
            if line.startswith("calls="):
                n = int(line[6:].split()[0])
                if cfn in totals:
                    totals[cfn] += n
    for n in names:
        print(f"{n}\t{totals[n]}")

if __name__ == "__main__":
    main()
