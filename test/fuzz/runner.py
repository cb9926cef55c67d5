"""Run ``pyasc-opt`` on many inputs, in-process in worker processes, each run under a timeout.

A worker imports pyasc once and serves jobs ``(args, input bytes)`` over a pipe; a run that does not
answer within the timeout kills its worker (a new one takes its place) and counts as a timeout.
Outcomes:

* ``ok``: exit code 0;
* ``diagnostic``: a non-zero exit with a message and no traceback (what bad input must give);
* ``internal``: the driver's "internal error in pass" report (a bug, but reported without a traceback);
* ``traceback``: an exception escaped the driver, or its output holds a Python traceback;
* ``timeout``: no answer within the timeout.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import shlex
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TRACEBACK = "Traceback (most recent call last)"


def run_opt_in_process(args: list[str]) -> tuple[int, str]:
    """Run the driver with ``args``; (exit code, stderr + stdout). An escaping exception is code -1."""
    import contextlib
    import io
    import traceback

    from pyasc.opt import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # noqa: BLE001 - an escaping exception is exactly what we look for
            code = -1
            err.write(traceback.format_exc())
    return code, err.getvalue() + out.getvalue()


def warm_up() -> None:
    """Import every dialect and pass once, so that no run pays for an import inside its timeout."""
    from pyasc.dialects import get_all_dialects
    from pyasc.lowering import get_all_passes

    for factory in get_all_dialects().values():
        factory()
    for factory in get_all_passes().values():
        factory()
    from xdsl.dialects import get_all_dialects as upstream

    for name in ("builtin", "func", "arith", "scf", "memref", "math", "tensor"):
        upstream()[name]()


def _worker(conn) -> None:
    warm_up()
    workdir = tempfile.mkdtemp(prefix="pyasc-fuzz-")
    path = os.path.join(workdir, "input.mlir")
    while True:
        job = conn.recv()
        if job is None:
            return
        args, data = job
        with open(path, "wb") as f:
            f.write(data)
        out = os.path.join(workdir, "out")  # lit's %t: outputs go to the worker's folder
        conn.send(run_opt_in_process([path if a == "%s" else a.replace("%t", out) for a in args]))


def classify(code: int, text: str) -> str:
    if code == -1 or TRACEBACK in text:
        return "traceback"
    if code == 0:
        return "ok"
    if "internal error" in text:
        return "internal"
    return "diagnostic"


@dataclass
class Worker:
    timeout: float
    proc: mp.Process | None = None
    conn: object = None
    warm: bool = False  # the first job of a worker also pays for its imports

    def start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()
        self.warm = False

    def run(self, args: list[str], data: bytes) -> tuple[str, str]:
        if self.proc is None or not self.proc.is_alive():
            self.start()
        self.conn.send((args, data))
        if not self.conn.poll(self.timeout if self.warm else self.timeout + 120):
            self.proc.kill()
            self.proc.join()
            self.proc = None
            return "timeout", ""
        self.warm = True
        code, text = self.conn.recv()
        return classify(code, text), text

    def stop(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()


@dataclass
class Results:
    counts: Counter = field(default_factory=Counter)
    failures: list[tuple[str, str, list[str], str]] = field(default_factory=list)  # (outcome, label, args, text)

    def add(self, outcome: str, label: str, args: list[str], text: str) -> None:
        self.counts[outcome] += 1
        if outcome in ("traceback", "timeout", "internal"):
            self.failures.append((outcome, label, args, text[-2000:]))


def run_pipelines(file: Path) -> list[list[str]]:
    """The argument lists of the ``pyasc-opt %s ...`` invocations on the file's RUN lines."""
    out = []
    for line in file.read_text().splitlines():
        if "RUN:" not in line or "pyasc-opt %s" not in line:
            continue
        cmd = line.split("RUN:", 1)[1].replace("PYASC_ROUNDTRIP", "pyasc-opt %s")
        try:
            toks = shlex.split(cmd)
        except ValueError:
            continue
        toks = toks[toks.index("pyasc-opt") + 1:]
        args = []
        for t in toks:
            if t in ("|", "2>&1") or t.startswith("2>"):
                break
            args.append(t)
        if args not in out:
            out.append(args)
    return out
