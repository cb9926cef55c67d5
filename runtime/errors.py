"""Simulation errors (fatal) and findings (reported, execution continues)."""

from __future__ import annotations

from dataclasses import dataclass, field


class SimulationError(Exception):
    """A fatal problem found while simulating: deadlock, bad event id, UB overflow, misaligned or
    out-of-bounds access. The message names the kernel, the op and the core.

    ``report`` is the (partial) ``Report`` of the run when the error came from ``Simulator.run``;
    ``kind`` classifies it (``deadlock``, ``error``, or ``hazard`` when raised for findings)."""

    kind = "error"
    loc: str | None = None
    report = None


class HazardError(SimulationError):
    """Raised (hazard policy ``"error"``) when a run has error findings such as races."""

    kind = "hazard"


# finding kinds that mean the program is wrong (results withheld by ``simulate``); the others warn
ERROR_KINDS = frozenset({"race", "deadlock", "double-set", "unpaired-flag", "error", "copy-rounding", "contract"})


@dataclass
class Finding:
    """A non-fatal problem: a race, a rounded-down DataCopy, an unpaired SetFlag, ...

    ``count`` is how many times it was seen (over cores, iterations and launches);
    ``core`` is the first core on which it was seen.
    """

    kind: str
    message: str
    kernel: str
    op: str
    core: int
    count: int = 1
    key: tuple = field(default=(), repr=False, compare=False)
    loc: str | None = None  # the user's source line (``file.py:LINE``) of ``op``, when known
    other: str | None = None  # the other op of a race
    other_loc: str | None = None
    rule: str | None = None  # the documented rule a ``contract`` finding breaks (``ascendc.contract.RULES``)

    @property
    def severity(self) -> str:
        return "error" if self.kind in ERROR_KINDS else "warning"

    def __str__(self) -> str:
        times = f" (x{self.count})" if self.count > 1 else ""
        at = f"\n    at: {self.op}" + (f"  [{self.loc}]" if self.loc else "")
        if self.other:
            at += f"\n    and: {self.other}" + (f"  [{self.other_loc}]" if self.other_loc else "")
        head = f"[{self.kind}] " + (f"[{self.rule}] " if self.rule else "")
        return f"{head}{self.kernel}, core {self.core}: {self.message}{times}{at}"


class FindingLog:
    """Collects findings, merging repeats of the same (kind, kernel, op, detail)."""

    def __init__(self) -> None:
        self._items: dict[tuple, Finding] = {}

    def add(self, kind: str, message: str, kernel: str, op: str, core: int, key: tuple = (), count: int = 1,
            **extra):
        k = (kind, kernel, op, key or message)
        f = self._items.get(k)
        if f is None:
            self._items[k] = Finding(kind, message, kernel, op, core, count, key, **extra)
        else:
            f.count += count

    def merge(self, other: list[Finding], core: int | None = None) -> None:
        for f in other:
            self.add(f.kind, f.message, f.kernel, f.op, f.core if core is None else core, key=f.key, count=f.count,
                     loc=f.loc, other=f.other, other_loc=f.other_loc, rule=f.rule)

    def merge_schedules(self, timings: list) -> None:
        """The findings of a launch's core schedules (one shared by several cores: its findings once in full,
        then counted again for each other core)."""
        first: set[int] = set()
        for timing in timings:
            if id(timing) not in first:
                first.add(id(timing))
                self.merge(timing.findings)
            else:
                for f in timing.findings:
                    self.add(f.kind, f.message, f.kernel, f.op, f.core, key=f.key, count=f.count,
                             loc=f.loc, other=f.other, other_loc=f.other_loc, rule=f.rule)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> list[Finding]:
        return list(self._items.values())
