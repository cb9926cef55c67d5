"""The unit flags of L0C (``UnitFlag.md``) in the timing model and the hazard analysis of ``schedule``.

L0C has one flag per 512 B block. An ``Mmad`` with ``unitFlag`` 2 or 3 writes a block once its flag is 0 (read
out), a ``Fixpipe`` with 2 or 3 reads it once it is 1 (written); with 3 the Mmad sets the flag and the Fixpipe
clears it when done with the block. Every flag starts at 0.

Per block the model counts the sets and the clears and keeps the op that made the latest of each. An Mmad is
ready when every block of its L0C region has been cleared as often as it was set, a Fixpipe when every block
has been set once more than cleared; a pipe waits (in order) until its next op is ready, and a core whose op
can never become ready is deadlocked (the flag never changes), as on the chip. The latest set (clear) is the
one the op waits for: a block is never set twice without a clear between, since the second Mmad would wait for
it. The Fixpipe (NZ to ND) reads its blocks N first; where the Mmad produces them in that order too (after
``SetMMRowMajor``, as ``UnitFlag.md`` asks for a Fixpipe that converts the layout) the two overlap block by block:
the waiting op starts one block after the op it waits for started and ends one of its own blocks after that op
ended. Otherwise (``SetMMColumnMajor``, or no call: the document gives no default) the first block one needs is
among the last the other gives, and the waiting op starts when the other ends. It knows what that op knew, and
that op complete, for the race check: the flags order their L0C accesses.
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects.ascendc.cube import SetMMMajorOp
from pyasc.dialects.target import UNIT_FLAG_BLOCK

# the ops that take a unit flag, and which of their recorded regions is L0C
UNIT_FLAG_REGION = {"ascendc.mmad": 2, "ascendc.fixpipe": 0}


def unit_flag_facts(infos) -> list[tuple | None]:
    """Per op of a kernel, (its unitFlag, the index of its L0C region in its record, whether it writes L0C (an Mmad),
    whether it streams: an Mmad producing N first, the latest ``SetMM*Major`` before it in its kernel being
    ``SetMMRowMajor``) or None."""
    out = []
    for info in infos:
        j = UNIT_FLAG_REGION.get(info.op.name)
        attr = getattr(info.op, "unit_flag", None) if j is not None else None
        if attr is None:
            out.append(None)
            continue
        writer = info.op.name == "ascendc.mmad"
        out.append((attr.value.data, j, writer, writer and _row_major(info.op)))
    return out


def _row_major(op) -> bool:
    """Whether the latest ``SetMMRowMajor``/``SetMMColumnMajor`` before ``op`` in its kernel (in program text order)
    is ``SetMMRowMajor``."""
    kernel = op
    while kernel.parent_op() is not None and kernel.name != "func.func":
        kernel = kernel.parent_op()
    row = False
    for o in kernel.walk():
        if o is op:
            return row
        if isinstance(o, SetMMMajorOp):
            row = o.ROW_MAJOR
    return row


class UnitFlags:
    """The unit flags of one core's L0C while its trace is scheduled."""

    def __init__(self, layout: tuple):
        self.layout = layout  # the local memories in the race check's address space: (name, base, bytes)
        n = -(-(layout[-1][1] + layout[-1][2]) // UNIT_FLAG_BLOCK)
        self.sets = np.zeros(n, np.int64)
        self.clears = np.zeros(n, np.int64)
        self.set_by = np.full(n, -1, np.int64)
        self.clear_by = np.full(n, -1, np.int64)
        self.events: list[tuple] = []  # (start, end, clock, cycles per block, record, an Mmad producing N first)
        self.waiting: dict[int, tuple] = {}  # record -> (first block, end block, an Mmad), while it waits

    @staticmethod
    def blocks(r: tuple, j: int) -> tuple[int, int]:
        a, nb = int(r[4 + 2 * j]), int(r[5 + 2 * j])
        return a // UNIT_FLAG_BLOCK, -(-(a + nb) // UNIT_FLAG_BLOCK)

    def ready(self, i: int, r: tuple, fact: tuple, known: list[int]) -> tuple[float, float] | None:
        """None while the op (record ``i``, ``unit_flag_facts``' ``fact``) must wait; else (earliest start, earliest
        end beyond its own cost) from the ops it waits for, whose knowledge joins ``known``."""
        _, j, writer, streams = fact
        lo, hi = self.blocks(r, j)
        sets, clears = self.sets[lo:hi], self.clears[lo:hi]
        if writer:
            ok = bool((sets == clears).all())
            by = self.clear_by[lo:hi]
        else:
            ok = bool((sets == clears + 1).all())
            by = self.set_by[lo:hi]
        if not ok:
            self.waiting[i] = (lo, hi, writer)
            return None
        self.waiting.pop(i, None)
        t = e = 0.0
        per_block = r[2] / max(1, hi - lo)
        for ev in set(by[by >= 0].tolist()):
            start, end, clock, lead, _, row = self.events[ev]
            if streams if writer else row:
                t = max(t, start + lead)
                e = max(e, end + per_block)
            else:
                t = max(t, end)
            for q, c in enumerate(clock):
                if c > known[q]:
                    known[q] = c
        return t, e

    def done(self, i: int, r: tuple, fact: tuple, start: float, end: float, clock: list[int]) -> None:
        """The op (record ``i``) ran from ``start`` to ``end`` knowing ``clock`` (its own pipe's count included)."""
        flag, j, writer, streams = fact
        if flag != 3:
            return
        lo, hi = self.blocks(r, j)
        self.events.append((start, end, clock, r[2] / max(1, hi - lo), i, streams))
        ev = len(self.events) - 1
        if writer:
            self.sets[lo:hi] += 1
            self.set_by[lo:hi] = ev
        else:
            self.clears[lo:hi] += 1
            self.clear_by[lo:hi] = ev

    def why_waiting(self, i: int) -> str | None:
        """What the op of record ``i`` waits for, if it waits."""
        if i not in self.waiting:
            return None
        lo, hi, writer = self.waiting[i]
        space, a, b = self.where(lo * UNIT_FLAG_BLOCK, hi * UNIT_FLAG_BLOCK)
        return (f"its {space} blocks [{a}, {b}) wait for their unit flags to be "
                f"{'cleared by a Fixpipe' if writer else 'set by an Mmad'} with unitFlag 3")

    def where(self, lo: int, hi: int) -> tuple[str, int, int]:
        """The memory of the address-space range ``[lo, hi)`` and the range within it."""
        name, base = next((n, b) for n, b, _ in reversed(self.layout) if lo >= b)
        return name, lo - base, hi - base

    def left_set(self) -> dict[int, tuple[int, int]]:
        """The Mmads (records) whose L0C blocks are still set when the trace ends (no Fixpipe with unitFlag 3 read
        them out), with the byte range of those blocks (in the race check's address space)."""
        blocks: dict[int, list[int]] = {}
        for b in np.flatnonzero(self.sets > self.clears).tolist():
            blocks.setdefault(self.events[int(self.set_by[b])][4], []).append(b)
        return {i: (min(bs) * UNIT_FLAG_BLOCK, (max(bs) + 1) * UNIT_FLAG_BLOCK) for i, bs in blocks.items()}
