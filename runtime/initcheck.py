"""Initcheck of one core's trace: a read of local memory (UB, L1, L0A, L0B, L0C) that no earlier op of the
core wrote is a finding naming the op, its source line and the rule ``local-initcheck`` (memory handed
out by ``AllocTensor``, a TBuf or a static ``LocalTensor`` holds whatever was there before).

The check runs when the simulator is made with ``initcheck=True``, or without the keyword while the
default (``set_initcheck_default``, off; the test suite's ``--initcheck`` turns it on) is on:
some compiled kernels still read bytes they never wrote (lanes whose results are never stored: rows of
per-row results at a 16-element pitch, Compare's whole 256 B repeats past a tail, the rows of an L1
fractal past M). Once the lowering writes every byte it reads it can be on for every simulation.

The trace records, per op, the local regions it touches in the hazard checker's address space
(``costs.local_layout``) and ``OpInfo.writes`` says which of them it writes. A shadow of one byte per
local byte (a ``bytearray``: C-speed slice stores and ``find``) is set by every write and searched for a
zero by every read, in program order; reads of an op are checked before its writes (an op reading and
writing the same bytes, ``Add(x, x, y)``, reads first). An ``Mmad`` that accumulates (``cmatrixInitVal``
false; its trace ``aux`` is 1) also reads its L0C block. Cores start with nothing written.

The check depends only on the trace, so cores with identical traces share it (it runs with the schedule).
"""

from __future__ import annotations

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.contract import RULES

from .errors import Finding

RULE = "local-initcheck"
_DEFAULT = [False]


def set_initcheck_default(on: bool) -> None:
    """Whether simulators made without ``initcheck=`` check reads of never-written local memory."""
    _DEFAULT[0] = bool(on)


def get_initcheck_default() -> bool:
    return _DEFAULT[0]
_ONES = memoryview(b"\x01" * (1 << 21))


def _memory(layout, addr: int) -> tuple[str, int]:
    """(memory name, base) of a byte of the checker's address space."""
    for name, base, size in layout:
        if base <= addr < base + size:
            return name, base
    return layout[-1][0], layout[-1][1]


def initcheck(recs, tabs, core: int, layout) -> list[Finding]:
    """The ``local-initcheck`` findings of the trace ``recs`` (one per op)."""
    end = layout[-1][1] + layout[-1][2]
    shadow = bytearray(end)
    ones = _ONES if end <= len(_ONES) else memoryview(b"\x01" * end)
    writes_of, infos = tabs.writes, tabs.infos
    accumulates = {i for i, info in enumerate(infos) if isinstance(info.op, asc.MmadOp)}
    found: dict[int, Finding] = {}
    for r in recs:
        n = len(r)
        if n <= 4:
            continue
        sid = r[0]
        w = writes_of[sid]
        for j in range(4, n, 2):
            if w[(j - 4) >> 1] and not (r[3] == 1 and sid in accumulates):
                continue
            a = int(r[j])
            b = a + int(r[j + 1])
            if b <= a:
                continue
            hole = shadow.find(0, a, b)
            if hole >= 0 and sid not in found:
                found[sid] = _finding(infos[sid], core, layout, a, b, hole, shadow)
        for j in range(4, n, 2):
            if w[(j - 4) >> 1]:
                a = int(r[j])
                b = min(a + int(r[j + 1]), end)
                if b > a:
                    shadow[a:b] = ones[: b - a]
    return list(found.values())


def _finding(info, core: int, layout, a: int, b: int, hole: int, shadow: bytearray) -> Finding:
    mem, base = _memory(layout, a)
    stop = shadow.find(1, hole, b)
    stop = b if stop < 0 else stop
    r = RULES[RULE]
    api = getattr(info.op, "API", info.name)
    detail = (f"{api} reads {mem} bytes [{a - base}, {b - base}), of which [{hole - base}, {stop - base}) were never "
              f"written on this core")
    return Finding("contract", f"{detail}: {r.statement} (doc: {r.doc})", info.kernel, info.text, core,
                   key=(RULE,), loc=info.loc, rule=RULE)
