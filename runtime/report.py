"""What a simulation run reports: time, cycles, pipe utilisation, per-launch detail and findings."""

from __future__ import annotations

from dataclasses import dataclass, field

from .costs import PIPE_NAMES
from .errors import Finding
from .schedule import CoreTiming

# the pipes only one kind of core of an AI Core has (the scalar unit and MTE2 are on both)
CORE_PIPES = {"M": ("aic",), "MTE1": ("aic",), "FIX": ("aic",), "V": ("aiv",), "MTE3": ("aiv",)}


@dataclass
class LaunchReport:
    """One ``ascendc.launch``: the kernel's cycles (slowest core, or the HBM bound) and per-core detail."""

    kernel: str
    block_dim: int
    cycles: float
    seconds: float
    core_cycles: list[float]
    core_busy: list[dict[str, float]]
    gm_bytes: int
    hbm_bound_cycles: float
    timings: list[CoreTiming] = field(default_factory=list, repr=False)
    overhead_cycles: float = 0.0
    clock_hz: float = 0.0
    # per entry of core_busy, the kind of core ("aic" or "aiv") of a MIX launch; empty otherwise
    core_kinds: list[str] = field(default_factory=list)

    @property
    def pipe_utilisation(self) -> dict[str, float]:
        """Per pipe, its busy cycles over the cores that have it divided by (those cores x kernel
        cycles); in a MIX launch the cube pipes are the AICs', the vector pipes the AIVs'."""
        tot: dict[str, float] = {}
        for b in self.core_busy:
            for p, v in b.items():
                tot[p] = tot.get(p, 0.0) + v
        cycles = max(self.cycles, 1e-9)
        return {p: tot[p] / (cycles * self._cores_with(p)) for p in PIPE_NAMES if p in tot}

    def _cores_with(self, pipe: str) -> int:
        if not self.core_kinds:
            return max(self.block_dim, 1)
        kinds = CORE_PIPES.get(pipe, ("aic", "aiv"))
        return max(1, sum(k in kinds for k in self.core_kinds))

    @property
    def bounding_pipe(self) -> str:
        """``HBM`` when the GM-traffic bound decides, else the busiest pipe of the slowest core."""
        if self.bound == "hbm":
            return "HBM"
        if not self.core_cycles:
            return "-"
        c = max(range(len(self.core_cycles)), key=self.core_cycles.__getitem__)
        b = self.core_busy[c]
        return max(b, key=b.get) if b else "S"

    @property
    def bound(self) -> str:
        """``"hbm"`` when the GM traffic bound decides the kernel time, else ``"core"``."""
        return "hbm" if self.hbm_bound_cycles >= max(self.core_cycles, default=0.0) else "core"

    def timeline(self, core: int) -> dict[str, list[tuple[float, float, str]]]:
        """Per pipe of ``core``, the (start, end, op) of every op (for profilers)."""
        return self.timings[core].timeline()


@dataclass
class Report:
    """The result of ``Simulator.run``.

    ``cycles`` is the total over launches including each launch's overhead (converted to cycles at the
    target clock); ``pipe_busy`` sums busy cycles per pipe over all cores and launches.
    """

    target: str
    clock_hz: float
    seconds: float = 0.0
    cycles: float = 0.0
    pipe_busy: dict[str, float] = field(default_factory=dict)
    launches: list[LaunchReport] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: Finding | None = None  # the fatal error that stopped the run, if any

    @property
    def errors(self) -> list[Finding]:
        """Findings that mean the program is wrong (races, deadlock, double sets, ...)."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def ok(self) -> bool:
        return self.error is None and not self.errors

    def findings_of(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]

    def __str__(self) -> str:
        lines = [f"simulated on {self.target}: {self.seconds * 1e6:.2f} us, {self.cycles:,.0f} cycles "
                 f"(including launch overhead), {len(self.launches)} launch(es)"]
        for lr in self.launches:
            lines.append(f"  @{lr.kernel}<<<{lr.block_dim}>>>: {lr.cycles:,.0f} cycles ({lr.bound}-bound), "
                         f"{lr.seconds * 1e6:.2f} us, GM traffic {lr.gm_bytes:,} B")
        if self.pipe_busy:
            busy = ", ".join(f"{p} {self.pipe_busy[p]:,.0f}" for p in PIPE_NAMES if self.pipe_busy.get(p))
            lines.append(f"  pipe busy cycles (all cores): {busy}")
        if self.findings:
            lines.append(f"  {len(self.findings)} finding(s):")
            lines += ["    " + str(f).replace("\n", "\n    ") for f in self.findings]
        else:
            lines.append("  no findings")
        return "\n".join(lines)
