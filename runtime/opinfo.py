"""Static facts about each traced op of a kernel (its pipe, its role in the schedule, its UB accesses).

A trace record is a tuple ``(sid, issue, cost, aux, addr0, nbytes0, addr1, nbytes1, ...)``: ``sid`` indexes
the kernel's ``OpInfo`` table, ``issue`` is the scalar cycle at which the op was issued, ``cost`` its
duration, ``aux`` the event key of a sync op or the GM bytes of a copy, then the UB regions the op
touches; ``OpInfo.writes`` says which of those regions are written. A record may end with how the op touches
one region, which only the initcheck reads: ``(region, block bytes, pitch)``, the region is the span of
blocks of which the first ``block bytes`` of every ``pitch`` are touched (``DataCopyPad``); ``(region,
offsets)``, lane ``i`` reads the element at byte ``offsets[i]`` of the region (``Gather``, int64 bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Operation

from pyasc.dialects.ascendc import HardEvent

WORK, SET, WAIT, BARRIER, BARRIER_ALL = range(5)
KIND_NAMES = ("work", "set", "wait", "barrier", "barrier_all")

# event keys of sync records: ``EVENTS.index(event) * 8 + id`` for SetFlag/WaitFlag, ``CROSS_KEY_BASE + id``
# for the cross-core flags of MIX kernels (queues use keys from ``queues.QUEUE_KEY_BASE``)
EVENTS = list(HardEvent)
CROSS_KEY_BASE = 1 << 19


@dataclass(eq=False)
class OpInfo:
    """One op of a kernel as the simulator sees it; ``pipe`` is None for ops that are not traced."""

    op: Operation
    kernel: str
    pipe: int | None = None
    kind: int = WORK
    writes: tuple[bool, ...] = ()
    gm: bool = False
    label: str = ""
    _text: str | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def text(self) -> str:
        """The op as printed IR (one line), used in messages."""
        if self._text is None:
            try:
                t = str(self.op).strip().splitlines()[0]
            except Exception:  # pragma: no cover - printing must never mask the real error
                t = self.op.name
            self._text = t
        return self._text

    @property
    def loc(self) -> str | None:
        """The user's source line (``asc.loc`` of the op or of its nearest enclosing op), if any."""
        op = self.op
        while op is not None:
            a = op.attributes.get("asc.loc")
            if a is not None:
                return getattr(a, "data", str(a))
            op = op.parent_op()
        return None

    def where(self) -> str:
        """The op as `text` plus its source line."""
        loc = self.loc
        return f"`{self.text}`" + (f" ({loc})" if loc else "")

    def describe(self) -> str:
        return f"{self.where()} in kernel @{self.kernel}"
