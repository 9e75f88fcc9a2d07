#!/usr/bin/env python3
"""Cycles by kernel function in --trace --trace-insns output (the reference
traces in traces/), side by side for two traces: what a change to a guest
kernel path made each function cost (docs/fidelity.md).

    python3 scripts/function-cycles.py OLD.txt NEW.txt
    python3 scripts/function-cycles.py <(git show REV:traces/pentium4.txt) traces/pentium4.txt
"""
import re
import sys

LINE = re.compile(r"^\s*[0-9a-f]+ k (\S+)\s.*\s\+(\d+\.\d+)\s+\d+\.\d+\s*$")


def by_function(path):
    sums = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                name = m.group(1).split("+")[0]
                sums[name] = sums.get(name, 0.0) + float(m.group(2))
    return sums


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: function-cycles.py OLD_TRACE NEW_TRACE")
    old, new = by_function(argv[1]), by_function(argv[2])
    names = list(dict.fromkeys(list(old) + list(new)))
    print(f"{'function':28s} {'before':>9s} {'after':>9s} {'change':>9s}")
    for n in names:
        a, b = old.get(n, 0.0), new.get(n, 0.0)
        if a != b:
            print(f"{n:28s} {a:9.2f} {b:9.2f} {b - a:+9.2f}")
    print(f"{'all kernel code':28s} {sum(old.values()):9.2f} {sum(new.values()):9.2f} "
          f"{sum(new.values()) - sum(old.values()):+9.2f}")


if __name__ == "__main__":
    main(sys.argv)
