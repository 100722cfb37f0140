"""Checks the grundy Jupyter kernel with real Jupyter clients.

Run by tests/jupyter.rs with the Python of the virtual environment that
.ci/run makes (jupyter_client, nbclient, nbformat, jupyter_kernel_test, and
grundy's Pygments lexer from editors/pygments), and
with JUPYTER_PATH naming a directory where `grundy jupyter install --prefix`
put the kernelspec. Everything talks to the kernel on localhost only.

    check_kernel.py NOTEBOOK            all checks
    check_kernel.py NOTEBOOK --write    execute NOTEBOOK and store its outputs
"""

import os
import signal
import sys
import tempfile
import time
import unittest
from pathlib import Path

import jupyter_kernel_test
import nbformat
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient
from pygments.lexers import get_lexer_by_name

KERNEL = "grundy"
TIMEOUT = 30
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def execute_notebook(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name=KERNEL,
        timeout=TIMEOUT,
        resources={"metadata": {"path": str(Path(path).resolve().parents[2])}},
    )
    client.execute()
    return nb


def comparable(cell):
    """A cell's outputs without the progress display, which depends on
    how fast the machine is."""
    outs = []
    for o in cell.get("outputs", []):
        if o.get("metadata", {}).get("grundy", {}).get("progress"):
            continue
        o = dict(o)
        if "data" in o:
            o["data"] = dict(o["data"])
        outs.append(o)
    return outs, cell.get("execution_count")


def check_notebook(path):
    stored = nbformat.read(path, as_version=4)
    fresh = execute_notebook(path)
    code = [c for c in stored.cells if c.cell_type == "code"]
    again = [c for c in fresh.cells if c.cell_type == "code"]
    check(len(code) == len(again) and len(code) > 0, f"{path}: {len(code)} code cells")
    for i, (a, b) in enumerate(zip(code, again)):
        same = comparable(a) == comparable(b)
        if not same:
            print("stored:", comparable(a), "\nfresh: ", comparable(b))
        check(same, f"{path}: code cell {i + 1} gives the stored outputs")
    kinds = {
        k for c in again for o in c.get("outputs", []) for k in o.get("data", {})
    }
    for mime in ["text/html", "image/svg+xml", "image/png"]:
        check(mime in kinds, f"{path}: some output is {mime}")


def run(kc, code, timeout=TIMEOUT):
    """Executes code; returns the reply content and the iopub messages."""
    msgs = []
    reply = kc.execute_interactive(
        code, output_hook=lambda m: msgs.append(m), timeout=timeout
    )
    return reply["content"], msgs


def outputs(msgs, kind):
    return [m["content"] for m in msgs if m["msg_type"] == kind]


def check_session():
    km, kc = start_new_kernel(kernel_name=KERNEL, startup_timeout=TIMEOUT)
    try:
        info = kc.kernel_info(reply=True, timeout=TIMEOUT)["content"]
        check(info["protocol_version"] == "5.3", "kernel_info: protocol 5.3")
        lexer = info["language_info"].get("pygments_lexer")
        check(get_lexer_by_name(lexer).name == "grundy",
              f"kernel_info's pygments_lexer {lexer!r} is the installed grundy lexer")

        game = (
            "game T(a, b, c) where a >= 0 and b >= 0 and c >= 0 {\n"
            "    move x(k in 1..=a) -> T(a - k, b, c)\n"
            "    move y(k in 1..=b) -> T(a, b - k, c)\n"
            "    move z(k in 1..=c) -> T(a, b, c - k)\n"
            "}"
        )
        reply, _ = run(kc, game)
        check(reply["status"] == "ok", "a game definition runs")

        # Completion: the session's own names, built-ins, keywords.
        c = kc.complete("sg(T(1, 2, 3)) + outc", 21, reply=True, timeout=TIMEOUT)["content"]
        check(c["matches"] == ["outcome"] and c["cursor_start"] == 17,
              f"complete `outc` -> {c['matches']} at {c['cursor_start']}")
        c = kc.complete("print sg(T", 10, reply=True, timeout=TIMEOUT)["content"]
        check(c["matches"] == ["T"] and c["cursor_start"] == 9,
              f"complete `T` -> the game of an earlier cell: {c['matches']}")
        c = kc.complete("ta", 2, reply=True, timeout=TIMEOUT)["content"]
        check("table" in c["matches"], f"complete `ta` has the built-in table: {c['matches']}")
        c = kc.complete(":rel", 4, reply=True, timeout=TIMEOUT)["content"]
        check(c["matches"] == [":reload"], f"complete `:rel` -> {c['matches']}")

        # Fields after `expr.`: those of the value of expr.
        c = kc.complete("print T(1, 2, 3).", 17, reply=True, timeout=TIMEOUT)["content"]
        check(c["matches"] == ["args"] and c["cursor_start"] == 17,
              f"complete `T(1, 2, 3).` -> a position's fields: {c['matches']}")
        code = "options(T(1, 2, 3))[0].co"
        c = kc.complete(code, len(code), reply=True, timeout=TIMEOUT)["content"]
        check(c["matches"] == ["component"] and c["cursor_start"] == len(code) - 2,
              f"complete a move's field `.co` -> {c['matches']}")
        c = kc.complete("(T(1, 2, 3) + T(1, 1, 1)).", 26, reply=True, timeout=TIMEOUT)["content"]
        check(c["matches"] == ["parts"], f"complete a sum's fields: {c['matches']}")
        c = kc.complete("print 0..", 9, reply=True, timeout=TIMEOUT)["content"]
        check(c["matches"] == [], f"a range's `..` completes no field: {c['matches']}")

        # Inspection: what `:help NAME` shows.
        i = kc.inspect("sg(T(1, 2, 3))", 1, reply=True, timeout=TIMEOUT)["content"]
        text = i["data"].get("text/plain", "")
        check(i["found"] and "sg" in text, f"inspect `sg`: {text[:60]!r}")
        i = kc.inspect("sg(T(1, 2, 3))", 3, reply=True, timeout=TIMEOUT)["content"]
        text = i["data"].get("text/plain", "")
        check(i["found"] and "game T(a, b, c)" in text, f"inspect `T`: {text[:60]!r}")
        i = kc.inspect("sg(T(1, 2, 3))", 14, reply=True, timeout=TIMEOUT)["content"]
        text = i["data"].get("text/plain", "")
        check(i["found"] and "sg(G)" in text,
              f"inspect just after `)`: the call ending there, sg: {text[:60]!r}")
        i = kc.inspect("nosuchname", 3, reply=True, timeout=TIMEOUT)["content"]
        check(not i["found"], "inspect an unknown name: not found")

        # An error cell: an `error` message whose traceback is the
        # rendered diagnostic, pointing into the cell; nothing changes.
        reply, msgs = run(kc, "let ok_before = 1\nprint sg(T(1, 2, Nope))")
        errors = outputs(msgs, "error")
        check(reply["status"] == "error" and len(errors) == 1, "an error cell replies `error`")
        tb = "\n".join(errors[0]["traceback"]) if errors else ""
        check(errors and errors[0]["ename"] == "grundy::unknown_name",
              f"ename is the diagnostic's code: {errors[0]['ename'] if errors else None}")
        check("Nope" in tb and "\x1b[" in tb and "<repl" in tb,
              "the traceback is the coloured diagnostic, pointing into the cell")
        reply, msgs = run(kc, "ok_before")
        check(reply["status"] == "error", "a failing cell defines nothing")

        # "Run all": the cells queued after a failing one are aborted.
        failing = kc.execute("assert count(x for x in 0..20000000 if x < 0) == 1")
        queued = kc.execute("print 1")
        replies = {}
        while len(replies) < 2:
            m = kc.get_shell_msg(timeout=TIMEOUT)
            replies[m["parent_header"]["msg_id"]] = m["content"]["status"]
        check(replies == {failing: "error", queued: "aborted"},
              f"a cell queued after a failing one is aborted: {list(replies.values())}")
        reply, _ = run(kc, "print 1")
        check(reply["status"] == "ok", "and the next cell runs again")

        # Interrupt during a long cell: the cell stops with an error, the
        # next cell answers, and the memo tables keep what was computed.
        run(kc, ":clear")
        msg_id = kc.execute("sg(T(300, 300, 300))")
        time.sleep(2.0)
        started = time.time()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=TIMEOUT)
        took = time.time() - started
        check(reply["content"]["status"] == "error"
              and reply["content"]["ename"] == "Interrupted",
              f"the long cell is interrupted ({reply['content'].get('ename')}, {took:.2f} s)")
        # It showed its progress: a display, updated until the end.
        shown = []
        while True:
            try:
                m = kc.get_iopub_msg(timeout=5)
            except Exception:
                break
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            shown.append(m)
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        kinds = [m["msg_type"] for m in shown]
        first = [m for m in shown if m["msg_type"] == "display_data"]
        check(bool(first) and "update_display_data" in kinds
              and first[0]["content"]["data"]["text/plain"].startswith("computing 00:0")
              and first[0]["content"]["transient"]["display_id"],
              f"a long cell shows an updating progress display: {kinds}")
        updates = [m["content"]["data"]["text/plain"] for m in shown
                   if m["msg_type"] == "update_display_data"]
        check(bool(updates) and updates[-1].startswith("interrupted after "),
              f"its last update says it was interrupted: {updates[-1:]}")
        reply, msgs = run(kc, "sg(T(3, 4, 5))")
        results = outputs(msgs, "execute_result")
        check(reply["status"] == "ok" and results
              and results[0]["data"]["text/plain"] == str(3 ^ 4 ^ 5),
              "the next cell answers (sg(T(3, 4, 5)) = 3 xor 4 xor 5)")
        reply, msgs = run(kc, ":clear")
        text = "".join(o["text"] for o in outputs(msgs, "stream"))
        kept = int(text.split("(")[1].split()[0]) if "(" in text else 0
        check(kept > 1000, f"the memo kept the interrupted search's positions: {text.strip()!r}")

        # A front end with `interrupt_mode: signal` sends SIGINT instead:
        # it stops the cell, never the kernel.
        msg_id = kc.execute("sg(T(290, 300, 310))")
        time.sleep(1.5)
        os.kill(km.provisioner.process.pid, signal.SIGINT)
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=TIMEOUT)
        check(reply["content"].get("ename") == "Interrupted", "SIGINT interrupts the cell too")
        reply, msgs = run(kc, "sg(T(1, 2, 2))")
        check(reply["status"] == "ok" and km.is_alive(),
              f"and the kernel goes on: {reply['status']}, {reply.get('evalue')}")

        # The language form `plot(...)`: the cell's result is the heatmap as
        # SVG and PNG, its text the summary; P-positions of T(a, b, 0) are
        # a == b (a xor b == 0), 4 of the 4 x 4 cells.
        reply, msgs = run(kc, "plot(sg(T(a, b, 0)) for a in 0..4, b in 0..4)")
        results = outputs(msgs, "execute_result")
        data = results[0]["data"] if results else {}
        check(reply["status"] == "ok"
              and data.get("image/png", "").startswith("iVBORw0KGgo")
              and data.get("image/svg+xml", "").count('<rect class="P"') == 4
              and data.get("text/plain") == "heatmap of a\\b (4 x 4 cells, 4 P-positions)",
              f"a plot(...) cell shows image/svg+xml and image/png: {sorted(data)}")
        # `:plot EXPR` shows the heatmap and its caption, not the table;
        # the picture's title is the expression, not the corner `a\b`.
        reply, msgs = run(kc, ":plot table(sg(T(a, b, 0)) for a in 0..4, b in 0..4)")
        shown = outputs(msgs, "display_data") + outputs(msgs, "execute_result")
        kinds = [sorted(o["data"]) for o in shown]
        check(reply["status"] == "ok" and len(shown) == 1
              and "text/html" not in shown[0]["data"]
              and "image/png" in shown[0]["data"]
              and not outputs(msgs, "stream"),
              f":plot EXPR shows only the heatmap: {kinds}")
        svg = data.get("image/svg+xml", "")
        check(">sg(T(a, b, 0)) for a in 0..4, b in 0..4</text>" in svg,
              "plot(e for ...) is titled with its expression")
        with tempfile.TemporaryDirectory() as d:
            target = Path(d) / "t.png"
            reply, msgs = run(kc, f'plot(table(outcome(T(a, b, 1)) for a in 0..3, b in 0..3), "{target}")')
            results = outputs(msgs, "execute_result")
            check(reply["status"] == "ok" and results
                  and "image/svg+xml" in results[0]["data"]
                  and target.exists() and target.with_suffix(".svg").exists(),
                  "plot(t, FILE) shows the heatmap and writes FILE.png and FILE.svg")
        reply, msgs = run(kc, "plot([1, 2])")
        errors = outputs(msgs, "error")
        check(reply["status"] == "error" and errors
              and "plot needs a table" in errors[0]["evalue"],
              f"plot of a list is an error: {errors[0]['evalue'] if errors else None}")

        # History: the cells run so far, the last ones, a range, a search.
        run(kc, "let h1 = 1")
        run(kc, "let h2 = 2")
        tail = kc.history(hist_access_type="tail", n=2, output=False, raw=True, reply=True,
                          timeout=TIMEOUT)["content"]
        inputs = [h[2] for h in tail["history"]]
        check(inputs == ["let h1 = 1", "let h2 = 2"], f"history tail: {inputs}")
        line = tail["history"][1][1] if tail["history"] else 0
        rng = kc.history(hist_access_type="range", session=0, start=line, stop=line + 1,
                         reply=True, timeout=TIMEOUT)["content"]
        check([h[1:] for h in rng["history"]] == [[line, "let h2 = 2"]],
              f"history range [{line}, {line + 1}): {rng['history']}")
        found = kc.history(hist_access_type="search", pattern="let h? = *", output=True,
                           reply=True, timeout=TIMEOUT)["content"]
        check([h[2][0] for h in found["history"]] == ["let h1 = 1", "let h2 = 2"],
              f"history search `let h? = *`: {found['history']}")
        reply, msgs = run(kc, "sg(T(1, 2, 4))")
        found = kc.history(hist_access_type="tail", n=1, output=True,
                           reply=True, timeout=TIMEOUT)["content"]
        check(found["history"] and found["history"][0][2] == ["sg(T(1, 2, 4))", "7"],
              f"a history entry's output is the cell's result: {found['history']}")

        # Definitions carry over between cells; :commands work, :reload too.
        reply, msgs = run(kc, ":games")
        text = "".join(o["text"] for o in outputs(msgs, "stream"))
        check("T(a, b, c)" in text, "`:games` lists the game of an earlier cell")
        with tempfile.TemporaryDirectory() as d:
            rules = Path(d) / "heap.game"
            rules.write_text("game Heap(n) where n >= 0 { move take(k in 1..=n) if k <= 2 -> Heap(n - k) }\n")
            run(kc, f':load "{rules}"')
            _, msgs = run(kc, "sg(Heap(5))")
            first = outputs(msgs, "execute_result")
            rules.write_text("game Heap(n) where n >= 0 { move take(k in 1..=n) -> Heap(n - k) }\n")
            reply, msgs = run(kc, ":reload")
            text = "".join(o["text"] for o in outputs(msgs, "stream"))
            _, msgs = run(kc, "sg(Heap(5))")
            second = outputs(msgs, "execute_result")
            check(reply["status"] == "ok" and "changed Heap" in text
                  and first and first[0]["data"]["text/plain"] == "2"
                  and second and second[0]["data"]["text/plain"] == "5",
                  f":load and :reload: {text.strip()!r}")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    check(not km.is_alive(), "shutdown_request ends the kernel")


class GrundyKernelTests(jupyter_kernel_test.KernelTests):
    """jupyter_kernel_test's standard checks of the protocol."""

    kernel_name = KERNEL
    language_name = "grundy"
    file_extension = ".game"
    code_hello_world = 'print "hello, world"'
    # `:quit` runs, and says on stderr that it does nothing in a notebook.
    code_stderr = ":quit"
    completion_samples = [
        {"text": "outc", "matches": {"outcome"}},
        {"text": ":rel", "matches": {":reload"}},
    ]
    complete_code_samples = ["print 1 + 2", ":games", "sg(subtraction_game[{1, 2}](5))"]
    incomplete_code_samples = ["print (1 +", "game G(n) where n >= 0"]
    invalid_code_samples = ["print )"]
    code_generate_error = "print nosuchname(1)"
    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "outcome(subtraction_game[{1, 2}](3))", "result": "P"},
    ]
    code_display_data = [
        {"code": "table(a * b for a in 1..=2, b in 1..=2)\n1", "mime": "text/html"},
        {"code": "plot(a ^ b for a in 0..3, b in 0..3)\n1", "mime": "image/svg+xml"},
        {"code": "plot(a ^ b for a in 0..3, b in 0..3)\n1", "mime": "image/png"},
    ]
    code_inspect_sample = "sg"
    supported_history_operations = ("tail", "range", "search")
    code_history_pattern = "6 ? 7"


def check_protocol():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(GrundyKernelTests)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    check(result.wasSuccessful(),
          f"jupyter_kernel_test: {result.testsRun} run, {len(result.skipped)} skipped")


def main():
    notebook = sys.argv[1]
    if "--write" in sys.argv[2:]:
        nb = execute_notebook(notebook)
        for i, cell in enumerate(nb.cells):
            cell.setdefault("id", f"cell-{i + 1}")
        nbformat.write(nb, notebook)
        print(f"wrote {notebook}")
        return 0
    check_notebook(notebook)
    check_session()
    check_protocol()
    print(f"jupyter checks: {len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
