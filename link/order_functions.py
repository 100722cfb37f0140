#!/usr/bin/env python3
"""Writes link/function-order.txt: the grundy binary's functions in the
order the linker should lay them out (build.rs passes the file to lld).

Runs a release binary under valgrind's callgrind on a sample of what users
run (every bench workload's rule file at its default size, or a smaller
one for the slow ones, so that the paths of large values and of growing
tables are in it; a loopy game, a table, --explain, an error, a REPL
session, `grundy test`), and lists the functions executed: those that
most runs execute first, and among those that as many runs execute, the
ones the same runs execute together. The code a run touches then lies on
few pages of the file, and a run's memory is not mostly code paged in
around scattered functions.

The symbols carry hashes that change with the release profile, the
toolchain and the dependencies: run this again after changing any of
them (the bench prints how many of the listed symbols the binary has).

    cargo build --release && python3 link/order_functions.py
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "..", "shared", "bench", "rules")

# (arguments to grundy, text for its standard input)
RUNS = [
    (["run", f"{RULES}/nim3pass.game", "--set", "N=40"], None),
    (["run", f"{RULES}/emptydivide.game", "--set", "N=400"], None),
    (["run", f"{RULES}/welter4.game", "--set", "N=24"], None),
    (["run", f"{RULES}/chocolate3d.game", "--set", "N=60"], None),
    (["run", f"{RULES}/dawson.game", "--set", "N=20000"], None),
    (["run", f"{RULES}/subtract125.game", "--set", "N=1000000"], None),
    (["run", f"{RULES}/grundy.game", "--set", "N=20000"], None),
    (["run", f"{RULES}/cram.game", "--set", "N=5"], None),
    (["run", f"{RULES}/kayles_misere.game", "--set", "N=30"], None),
    (["run", f"{RULES}/subtract_squares.game", "--set", "N=100000"], None),
    (["run", f"{RULES}/fibonacci_nim.game", "--set", "N=600"], None),
    (["run", f"{RULES}/staircase.game", "--set", "N=20"], None),
    (["run", f"{RULES}/pass_emptydivide.game", "--set", "N=400"], None),
    (["run", f"{RULES}/geography.game", "--set", "N=6"], None),
    (["run", f"{RULES}/officers.game", "--set", "N=20000"], None),
    (["run", f"{RULES}/subtract_fib.game", "--set", "N=1000000"], None),
    (["run", f"{ROOT}/benches/loopy_grid.game", "--set", "N=20"], None),
    (["run", f"{ROOT}/examples/course/nim.game", "--explain"], None),
    (["run", f"{ROOT}/examples/errors/type_error.game"], None),
    (["run", f"{ROOT}/examples/errors/syntax_error.game"], None),
    (["test", f"{ROOT}/examples/course"], None),
    (
        ["repl"],
        "game H(n) where n >= 0 { move take(k in 1..=n) -> H(n - k) }\n"
        "sg(H(5))\ntable(sg(H(n)) for n in 0..10)\noutcome(H(3) + H(3))\n:quit\n",
    ),
]


def executed(binary, args, stdin, workdir):
    """The symbols of the functions one run executes."""
    out = os.path.join(workdir, "callgrind.out")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", binary]
        + args,
        input=(stdin or "").encode(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    names = set()
    with open(out) as f:
        for line in f:
            m = re.match(r"c?fn=\(\d+\) (\S+)", line)
            if m:
                names.add(m.group(1))
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/grundy"))
    parser.add_argument("--out", default=os.path.join(ROOT, "link/function-order.txt"))
    opts = parser.parse_args()
    listed = subprocess.run(["nm", opts.binary], capture_output=True, text=True, check=True)
    in_binary = {p[2] for p in (l.split() for l in listed.stdout.splitlines()) if len(p) == 3}
    runs_using = collections.Counter()
    first_seen = {}
    used_by = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as workdir:
        for i, (args, stdin) in enumerate(RUNS):
            for name in executed(opts.binary, args, stdin, workdir):
                runs_using[name] += 1
                used_by[name].append(i)
                first_seen.setdefault(name, (i, name))
            print(f"{i + 1}/{len(RUNS)}: {' '.join(args)[:70]}", file=sys.stderr)
    # The functions most runs use first; among those used by as many runs,
    # the ones used by the same runs together, so that each run's code
    # lies on few pages.
    order = sorted(
        (n for n in runs_using if n in in_binary),
        key=lambda n: (-runs_using[n], used_by[n], first_seen[n]),
    )
    # The entry point runs first in every run; callgrind does not name it.
    order = ["_start"] + [n for n in order if n != "_start"]
    with open(opts.out, "w") as f:
        f.write("# Made by link/order_functions.py; read by build.rs.\n")
        f.write("\n".join(order) + "\n")
    print(f"{len(order)} functions written to {opts.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
