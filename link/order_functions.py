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

It also writes link/rodata-order.ld: the read-only constants the same
games read (jump tables, strings, tables; traced by valgrind's lackey at
small sizes) put first, in an output section `.rodata.hot` before
`.rodata` (build.rs passes it to lld). Without it those few KB lay spread
over the 400 KB of `.rodata`, and a run mapped most of it. Section names
come from the linker map build.rs asks for (`grundy.map` in the build
script's OUT_DIR, found beside the binary, or `--map`).
"""

import argparse
import bisect
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import threading

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
    (["run", f"{ROOT}/benches/dawson_octal.game", "--set", "N=20000"], None),
    (["run", f"{ROOT}/benches/officers_octal.game", "--set", "N=20000"], None),
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


# Sizes for the constants' trace (lackey writes every memory access, so
# the games are run small; the constants a game reads hardly depend on
# its size), by rule file; a run not listed keeps its arguments.
SMALL_N = {
    "nim3pass.game": 8,
    "emptydivide.game": 60,
    "welter4.game": 10,
    "chocolate3d.game": 12,
    "dawson.game": 1000,
    "subtract125.game": 10000,
    "grundy.game": 1000,
    "cram.game": 4,
    "kayles_misere.game": 12,
    "subtract_squares.game": 10000,
    "fibonacci_nim.game": 60,
    "staircase.game": 10,
    "pass_emptydivide.game": 60,
    "geography.game": 4,
    "officers.game": 1000,
    "subtract_fib.game": 10000,
    "loopy_grid.game": 10,
    "wythoff.game": 30,
    # past 250, values are kept in more than a byte: another path
    "take_split.game": 400,
    "node_kayles.game": 4,
    "stair_jump.game": 8,
}


# The longest a run's trace may take, in seconds.
TRACE_SECONDS = 300


def shrunk(args):
    """`args` with the game's N made small (SMALL_N)."""
    small = next((SMALL_N[os.path.basename(a)] for a in args if os.path.basename(a) in SMALL_N), None)
    if small is None:
        return args
    return [f"N={small}" if a.startswith("N=") else a for a in args]


def sections_of(map_file, outputs):
    """(address, size, name) of the input sections of the output sections
    `outputs` in a linker map written by lld, sorted by address."""
    found, inside = [], False
    # columns: address, load address, size, alignment, then the name,
    # indented by 0 (an output section), 8 (an input section) or 16 (a
    # symbol)
    row = re.compile(r"^\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ ( *)(\S+)$")
    with open(map_file) as f:
        for line in f:
            m = row.match(line)
            if not m:
                continue
            depth, name = len(m.group(3)), m.group(4)
            if depth == 0:
                inside = name in outputs
            elif inside and depth == 8 and name.endswith(")") and ":(" in name:
                found.append((int(m.group(1), 16), int(m.group(2), 16), name.split(":(")[-1][:-1]))
    return sorted(found)


def constants_read(binary, args, stdin, lo, hi):
    """Addresses in [lo, hi) of the binary that one run reads (lackey; the
    binary is a position-independent executable, which valgrind loads at
    0x108000)."""
    base = 0x108000
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        ["valgrind", "--tool=lackey", "--trace-mem=yes", f"--log-fd={write_end}", binary] + args,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(write_end,),
    )
    os.close(write_end)
    # A run that outlasts its trace's time (`grundy test` has waited on a
    # thread under lackey) gives what it read until then.
    timer = threading.Timer(TRACE_SECONDS, proc.kill)
    timer.start()
    if stdin:
        proc.stdin.write(stdin.encode())
    proc.stdin.close()
    seen = set()
    with os.fdopen(read_end, "rb", buffering=1 << 20) as trace:
        for line in trace:
            if line[:3] in (b" L ", b" M "):
                address = int(line[3 : line.index(b",")], 16) - base
                if lo <= address < hi:
                    seen.add(address)
    proc.wait()
    timer.cancel()
    return seen


def write_rodata_order(binary, map_file, out):
    """Writes the linker script that puts first the constants the runs read
    (see the top); returns how many input sections and bytes it lists."""
    # A binary linked with an earlier list has those constants in
    # `.rodata.hot`: they are read there, and must stay listed.
    sections = sections_of(map_file, (".rodata.hot", ".rodata"))
    if not sections:
        sys.exit(f"no .rodata input sections in {map_file}")
    starts = [a for a, _, _ in sections]
    lo, hi = starts[0], sections[-1][0] + sections[-1][1]
    order, listed = [], set()
    with tempfile.TemporaryDirectory() as workdir:
        floor_file = os.path.join(workdir, "floor.game")
        with open(floor_file, "w") as f:
            f.write(FLOOR)
        runs = [(["run", floor_file], None)] + [(shrunk(a), s) for a, s in RUNS]
        for i, (args, stdin) in enumerate(runs):
            for address in sorted(constants_read(binary, args, stdin, lo, hi)):
                start, size, name = sections[bisect.bisect_right(starts, address) - 1]
                if start <= address < start + max(size, 1) and name not in listed:
                    listed.add(name)
                    order.append((name, size))
            print(f"constants {i + 1}/{len(runs)}: {' '.join(args)[:60]}", file=sys.stderr)
    with open(out, "w") as f:
        f.write("/* Made by link/order_functions.py; read by build.rs. */\n")
        f.write("SECTIONS {\n  .rodata.hot : {\n")
        for name, _ in order:
            f.write(f"    *({name})\n")
        f.write("  }\n} INSERT BEFORE .rodata;\n\n")
        # lld would otherwise put the exception tables (220 KB, read only
        # when a panic unwinds) first when the list names `.rodata.cst8`.
        f.write("SECTIONS {\n  .gcc_except_table : { *(.gcc_except_table .gcc_except_table.*) }\n")
        f.write("} INSERT AFTER .rodata;\n")
    return len(order), sum(size for _, size in order)


def default_map(binary):
    """The linker map build.rs asked for in the newest build of `binary`."""
    build = os.path.join(os.path.dirname(os.path.abspath(binary)), "build")
    maps = []
    if os.path.isdir(build):
        for d in os.listdir(build):
            m = os.path.join(build, d, "out", "grundy.map")
            if d.startswith("grundy-") and os.path.exists(m):
                maps.append((os.path.getmtime(m), m))
    return max(maps)[1] if maps else None


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
    parser.add_argument("--map", help="the binary's linker map (default: build.rs's)")
    parser.add_argument(
        "--rodata-out", default=os.path.join(ROOT, "link/rodata-order.ld")
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
    map_file = opts.map or default_map(opts.binary)
    if map_file is None:
        sys.exit("no linker map of the binary found: pass --map")
    count, size = write_rodata_order(opts.binary, map_file, opts.rodata_out)
    print(f"{count} constants ({size} bytes) written to {opts.rodata_out}", file=sys.stderr)


if __name__ == "__main__":
    main()
