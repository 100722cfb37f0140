#!/usr/bin/env python3
"""Writes link/function-order.txt: the grundy binary's functions in the
order the linker should lay them out (build.rs passes the file to lld).

Runs a release binary under valgrind's callgrind on a sample of what users
run (every bench workload's rule file at its default size, or a smaller
one for the slow ones, so that the paths of large values and of growing
tables are in it; a loopy game, a table, --explain, an error, a REPL
session, `grundy test`), and lists the functions executed: first those of the smallest run,
`print 1` (the start-up every run pays: the command line, the parser,
the lowering, the compiler of one statement), the most used first, so
that they lie on as few pages as they fill; then the others, those that
most runs execute first, and among those that as many runs execute, the
ones the same runs execute together; then a local search moves those
groups so that the runs touch, in all, as few 64 KiB windows of the file
as it finds (the kernel maps a file's pages around each fault in such
windows, so a window with one function a run needs costs the run the
whole window). The code a run touches then lies on few pages of the
file, and a run's memory is not mostly code paged in around scattered
functions.

The symbols carry hashes that change with the release profile, the
toolchain and the dependencies: run this again after changing any of
them (the bench prints how many of the listed symbols the binary has).

    cargo build --release && python3 link/order_functions.py
"""

import argparse
import collections
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "..", "shared", "bench", "rules")

# The smallest run, `print 1`: its functions are laid out first (see main).
FLOOR = "print 1\n"

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
    (["run", f"{ROOT}/benches/wythoff.game", "--set", "N=120"], None),
    (["run", f"{ROOT}/benches/take_split.game", "--set", "N=2000"], None),
    (["run", f"{ROOT}/benches/node_kayles.game", "--set", "N=5"], None),
    (["run", f"{ROOT}/benches/stair_jump.game", "--set", "N=15"], None),
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


WINDOW = 64 * 1024  # the kernel's fault-around: pages mapped per fault


def windows_touched(groups_in_order, group_sizes, text_start, head_windows):
    """How many WINDOW-sized windows all runs touch, in all, with the groups
    laid out in this order from text_start (after the floor's functions,
    in which each run touches head_windows). A group's functions lie next
    to each other, so it touches every window from its first byte to its
    last."""
    touched = collections.defaultdict(set)
    for run, windows in head_windows.items():
        touched[run].update(windows)
    address = text_start
    for runs in groups_in_order:
        windows = range(address // WINDOW, (address + group_sizes[runs] - 1) // WINDOW + 1)
        for run in runs:
            touched[run].update(windows)
        address += group_sizes[runs]
    return sum(len(w) for w in touched.values())


def padded(size):
    """A function's bytes in the text, 16-byte aligned as lld lays it out."""
    return (max(size, 1) + 15) & ~15


def fewest_windows(start, groups, in_binary, tries, head, used_by):
    """A local search over the groups' order for fewer touched windows, the
    functions of `head` laid out before them.

    Moves one group elsewhere or swaps two, keeping a change that touches no
    more windows; seeded, so the same runs give the same order."""
    address = min(address for address, _ in in_binary.values())
    head_windows = collections.defaultdict(set)
    for n in head:
        size = padded(in_binary[n][1])
        for run in used_by[n]:
            head_windows[run].update(range(address // WINDOW, (address + size - 1) // WINDOW + 1))
        address += size
    group_sizes = {
        runs: sum(padded(in_binary[n][1]) for n in names) for runs, names in groups.items()
    }

    def cost(order):
        return windows_touched(order, group_sizes, address, head_windows)

    rng = random.Random(0)
    best = list(start)
    best_cost = cost(best)
    first_cost = best_cost
    for _ in range(tries if len(best) > 1 else 0):
        trial = list(best)
        i, j = rng.randrange(len(trial)), rng.randrange(len(trial))
        if rng.random() < 0.5:
            trial[i], trial[j] = trial[j], trial[i]
        else:
            trial.insert(j, trial.pop(i))
        trial_cost = cost(trial)
        if trial_cost <= best_cost:
            best, best_cost = trial, trial_cost
    print(
        f"windows touched by all runs: {first_cost} before the search, {best_cost} after",
        file=sys.stderr,
    )
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/grundy"))
    parser.add_argument("--out", default=os.path.join(ROOT, "link/function-order.txt"))
    parser.add_argument(
        "--tries", type=int, default=200_000, help="changes the local search tries"
    )
    opts = parser.parse_args()
    listed = subprocess.run(
        ["nm", "--defined-only", "--print-size", opts.binary],
        capture_output=True,
        text=True,
        check=True,
    )
    # name -> (address, size) of the functions in the binary
    in_binary = {
        p[3]: (int(p[0], 16), int(p[1], 16))
        for p in (l.split() for l in listed.stdout.splitlines())
        if len(p) == 4 and p[2] in "tTwW"
    }
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
        floor_file = os.path.join(workdir, "floor.game")
        with open(floor_file, "w") as f:
            f.write(FLOOR)
        floor = executed(opts.binary, ["run", floor_file], None, workdir)
    # The floor's functions first, the most used first: every run executes
    # most of them, and together they fill few pages.
    head = sorted(
        (n for n in floor if n in in_binary and n != "_start"),
        key=lambda n: (-runs_using[n], first_seen.get(n, (len(RUNS), n))),
    )
    # The other functions used by the same runs form a group; the groups
    # most runs use first, then moved to touch fewer windows.
    groups = collections.defaultdict(list)
    for n in runs_using:
        if n in in_binary and n != "_start" and n not in floor:
            groups[tuple(used_by[n])].append(n)
    for names in groups.values():
        names.sort(key=lambda n: first_seen[n])
    start = sorted(groups, key=lambda runs: (-len(runs), runs))
    placed = fewest_windows(start, groups, in_binary, opts.tries, head, used_by)
    # The entry point runs first in every run; callgrind does not name it.
    order = ["_start"] + head + [n for runs in placed for n in groups[runs]]
    with open(opts.out, "w") as f:
        f.write("# Made by link/order_functions.py; read by build.rs.\n")
        f.write("\n".join(order) + "\n")
    print(f"{len(order)} functions written to {opts.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
