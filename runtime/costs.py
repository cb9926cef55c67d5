"""The cycle model: which pipe runs an op and how long it takes, from the module's ``TargetSpec``.

* vector op: ``vector_fixed_cycles`` per instruction (a count-form call is split into instructions of at
  most ``max_repeats`` repeats) plus ``repeats * cycles_per_repeat``; a repeat is ``repeat_bytes`` of the
  wider of source and destination dtype. A repeat costs what the op class's cost class ``COST`` says
  (``TargetSpec.cycles_per_repeat``: simple ops ``vector_simple_cycles``, transcendental ones such as
  Exp/Ln/Sqrt/Div ``vector_transcendental_cycles_f32``/``_f16``); Cast runs at ``cast_elems_per_cycle``.
* DMA: ``dma_fixed_cycles + bytes / (rate * efficiency(bytes))`` with ``mte2_bytes_per_cycle`` (GM->local)
  or ``mte3_bytes_per_cycle`` (local->GM). Transfers below ``dma_full_efficiency_bytes`` (~16 KB [O]) reach
  less than the full rate: ``efficiency = sqrt(bytes / 16 KB)``, [E: the documented fact
  is only that 16 KB is needed for the best bandwidth; floor 10 %]. Local->local copies run on the vector pipe at one
  repeat per cycle.
* Overlap inside a pipe: the fixed cost of an instruction (vector overhead, DMA fixed cost) is latency
  that the next instruction of the same pipe hides; only the throughput part occupies the pipe
  (``pipe_latencies``). Hence dependent vector ops need ``PipeBarrier<PIPE_V>``, which exposes it.
* A launch: the slowest core, at least the total GM traffic over the aggregate HBM bandwidth, plus
  ``launch_overhead_us``.
* L2 on a vector core's GM -> UB copy: the bytes in lines the core read before in the launch run at
  ``mte2_l2_bytes_per_cycle``, the others at ``mte2_bytes_per_cycle`` (``l2.CoreLines``); its HBM traffic
  is its bytes in 32 B blocks the core has not read before. A read of GM that the cube of its kernel writes
  (``Fixpipe``: a MIX kernel's workspace, handed over through L2 [O]) hits L2 whole (the cube's write of it
  counts), and so does the cube's read of GM that the vector cores of its kernel write (the other direction of
  the same hand-off; their write of it counts).
"""

from __future__ import annotations

from pyasc.dialects.target import LOCAL_MEMORIES, TargetSpec

# pipe indices used by the trace and the scheduler
PIPE_NAMES = ("S", "V", "MTE2", "MTE3", "M", "MTE1", "FIX")
PIPE_INDEX = {n: i for i, n in enumerate(PIPE_NAMES)}
S, V, MTE2, MTE3 = 0, 1, 2, 3
NPIPES = len(PIPE_NAMES)

def local_layout(spec: TargetSpec) -> tuple[tuple[str, int, int], ...]:
    """(name, base, size) of every local memory in the hazard checker's address space: the memories one
    after another (UB first, so UB addresses are its own), each from a 512 B boundary."""
    out, base = [], 0
    for name in LOCAL_MEMORIES:
        size = spec.memory_bytes(name)
        out.append((name, base, size))
        base += -(-size // 512) * 512
    return tuple(out)


def local_base(spec: TargetSpec, space: str) -> int:
    return next(base for name, base, _ in local_layout(spec) if name == space)


DMA_MIN_EFFICIENCY = 0.1


def dma_efficiency(nbytes: float, full_bytes: int) -> float:
    """Fraction of the peak DMA rate a transfer of ``nbytes`` reaches (1 from ``full_bytes`` on)."""
    if nbytes >= full_bytes:
        return 1.0
    e = (nbytes / full_bytes) ** 0.5
    return e if e > DMA_MIN_EFFICIENCY else DMA_MIN_EFFICIENCY


def pipe_latencies(spec: TargetSpec) -> list[float]:
    """Per pipe index, the part of an op's cost that overlaps with the next op of the same pipe."""
    lat = [0.0] * NPIPES
    lat[V] = float(spec.vector_fixed_cycles)
    lat[MTE2] = lat[MTE3] = float(spec.dma_fixed_cycles)
    return lat


def make_dma_cost(spec: TargetSpec, to_gm: bool, from_l2: bool = False):
    """``cost(nbytes)`` of one GM<->local copy (used by the generated code for dynamic sizes); ``from_l2``: a read
    of lines L2 holds, at ``mte2_l2_bytes_per_cycle``."""
    rate = spec.mte3_bytes_per_cycle if to_gm else spec.mte2_l2_bytes_per_cycle if from_l2 else spec.mte2_bytes_per_cycle
    fixed, full = spec.dma_fixed_cycles, spec.dma_full_efficiency_bytes

    def cost(nbytes: float) -> float:
        if nbytes >= full:
            return fixed + nbytes / rate
        if nbytes <= 0:
            return float(fixed)
        return fixed + nbytes / (rate * dma_efficiency(nbytes, full))

    return cost


def make_dma_read_cost(spec: TargetSpec):
    """``cost(nbytes, missed)`` of one GM -> UB copy of which ``missed`` bytes come from HBM, the rest from L2
    (``l2.CoreLines``): each part at its rate, the copy's size setting the efficiency of both."""
    ddr, l2 = spec.mte2_bytes_per_cycle, spec.mte2_l2_bytes_per_cycle
    fixed, full = spec.dma_fixed_cycles, spec.dma_full_efficiency_bytes

    def cost(nbytes: float, missed: float) -> float:
        if nbytes <= 0:
            return float(fixed)
        return fixed + (missed / ddr + (nbytes - missed) / l2) / dma_efficiency(nbytes, full)

    return cost
