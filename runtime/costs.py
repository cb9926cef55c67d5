"""The cycle model: which pipe runs an op and how long it takes, from the module's ``TargetSpec``.

* vector op: ``vector_fixed_cycles`` per instruction (a count-form call is split into instructions of at
  most ``max_repeats`` repeats) plus ``repeats * cycles_per_repeat``; a repeat is ``repeat_bytes`` of the
  wider of source and destination dtype. Simple ops take ``vector_simple_cycles`` per repeat, Exp/Ln/Sqrt/
  Div take ``vector_transcendental_cycles_f32``/``_f16``, Cast runs at ``cast_elems_per_cycle``.
* DMA: ``dma_fixed_cycles + bytes / rate`` with ``mte2_bytes_per_cycle`` (GM->local) or
  ``mte3_bytes_per_cycle`` (local->GM). Local->local copies run on the vector pipe at one repeat per cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects.target import TargetSpec

# pipe indices used by the trace and the scheduler
PIPE_NAMES = ("S", "V", "MTE2", "MTE3", "M", "MTE1", "FIX")
PIPE_INDEX = {n: i for i, n in enumerate(PIPE_NAMES)}
S, V, MTE2, MTE3 = 0, 1, 2, 3
NPIPES = len(PIPE_NAMES)

TRANSCENDENTAL = frozenset({"ascendc.exp", "ascendc.ln", "ascendc.sqrt", "ascendc.div"})


@dataclass(frozen=True)
class CostModel:
    """Cost constants of one target, in cycles (derived once per simulator)."""

    spec: TargetSpec

    @property
    def vector_fixed(self) -> int:
        return self.spec.vector_fixed_cycles

    @property
    def dma_fixed(self) -> int:
        return self.spec.dma_fixed_cycles

    def cycles_per_repeat(self, op_name: str, elem_bytes: int) -> int:
        """Cycles per 256 B repeat of a vector op working on elements of ``elem_bytes``."""
        if op_name in TRANSCENDENTAL:
            if elem_bytes <= 2:
                return self.spec.vector_transcendental_cycles_f16
            return self.spec.vector_transcendental_cycles_f32
        return self.spec.vector_simple_cycles

    def vector_cycles(self, nbytes: int, per_repeat: float) -> float:
        """The cost of a count-form vector call touching ``nbytes`` of the wider dtype."""
        rb = self.spec.repeat_bytes
        rep = -(-nbytes // rb)
        ninstr = max(1, -(-rep // self.spec.max_repeats))
        return self.spec.vector_fixed_cycles * ninstr + rep * per_repeat

    def cast_cycles(self, count: int) -> float:
        ninstr = max(1, -(-count * 4 // self.spec.repeat_bytes // self.spec.max_repeats))
        return self.spec.vector_fixed_cycles * ninstr + -(-count // self.spec.cast_elems_per_cycle)

    def dma_cycles(self, nbytes: int, to_gm: bool) -> float:
        rate = self.spec.mte3_bytes_per_cycle if to_gm else self.spec.mte2_bytes_per_cycle
        return self.spec.dma_fixed_cycles + nbytes / rate

    def dma_rate(self, to_gm: bool) -> float:
        return self.spec.mte3_bytes_per_cycle if to_gm else self.spec.mte2_bytes_per_cycle
