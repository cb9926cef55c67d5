"""Simulation errors (fatal) and findings (reported, execution continues)."""

from __future__ import annotations

from dataclasses import dataclass, field


class SimulationError(Exception):
    """A fatal problem found while simulating: deadlock, bad event id, UB overflow, misaligned or
    out-of-bounds access, a flag set twice. The message names the kernel, the op and the core."""


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

    def __str__(self) -> str:
        times = f" (x{self.count})" if self.count > 1 else ""
        return f"[{self.kind}] {self.kernel}, core {self.core}: {self.message}{times}\n    at: {self.op}"


class FindingLog:
    """Collects findings, merging repeats of the same (kind, kernel, op, detail)."""

    def __init__(self) -> None:
        self._items: dict[tuple, Finding] = {}

    def add(self, kind: str, message: str, kernel: str, op: str, core: int, key: tuple = (), count: int = 1):
        k = (kind, kernel, op, key or message)
        f = self._items.get(k)
        if f is None:
            self._items[k] = Finding(kind, message, kernel, op, core, count, key)
        else:
            f.count += count

    def merge(self, other: list[Finding], core: int | None = None) -> None:
        for f in other:
            self.add(f.kind, f.message, f.kernel, f.op, f.core if core is None else core, key=f.key, count=f.count)

    def items(self) -> list[Finding]:
        return list(self._items.values())
