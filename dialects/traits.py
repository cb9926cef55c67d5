"""Traits of the buffer-level dialects (``ascbuf``, ``ascendc``): which pipe executes an op and which
buffers it reads and writes. Analyses (sync insertion, memory planning, the simulator's race check)
query these, never the op's class.

* ``OnPipe(Pipe.V)``: the op runs on one pipe; ``OnPipe(fn)``: the pipe is a function of the op.
* ``BufferEffects(reads=("src",), writes=("dst",))``: xDSL memory effects on the named operands
  (a variadic operand contributes every value), so ``xdsl.traits.get_effects`` sees them too;
  ``scalar_reads=("rows",)`` names buffers the scalar unit reads (``GetValue``) before it issues
  the op's work on its pipe.
* ``CarriesUndefined(per_lane=True)``: reading never-written memory is not an error of the op itself: its
  results are undefined where its inputs are, lane by lane (``per_lane``: lane ``i`` of every written buffer
  comes from lane ``i`` of the buffers read; regions scale with the element sizes, a mask's bit ``i`` is
  lane ``i``) or as a whole (a reduction); the initcheck reports undefined bytes where they are used
  otherwise (copied out, read as an address or a scalar, fed to the cube).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from xdsl.ir import Operation, SSAValue
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, OpTrait

from .target import Pipe


@dataclass(frozen=True)
class OnPipe(OpTrait):
    """The pipe that executes the op: a fixed ``Pipe`` or a function of the op."""

    pipe: Pipe | Callable[[Operation], Pipe]

    def of(self, op: Operation) -> Pipe:
        return self.pipe(op) if callable(self.pipe) else self.pipe


@dataclass(frozen=True)
class CarriesUndefined(OpTrait):
    """Undefined inputs make undefined results (per lane, or the whole result) instead of a finding."""

    per_lane: bool = True


@dataclass(frozen=True)
class ValueDependentTrace(OpTrait):
    """What the simulator records for the op depends on the values it reads, not only on its operands'
    addresses and counts: a scalar read that may steer the scalar code, or a gather's per-lane offsets.
    A kernel without such an op traces the same on the same launch arguments (``runtime/replay``)."""


def pipe_of(op: Operation) -> Pipe | None:
    """The pipe of ``op``, or None for an op that occupies no pipe."""
    trait = op.get_trait(OnPipe)
    return None if trait is None else trait.of(op)


def _values(op: Operation, names: Sequence[str]) -> list[SSAValue]:
    out: list[SSAValue] = []
    for name in names:
        v = getattr(op, name)
        if v is None:
            continue
        if isinstance(v, SSAValue):
            out.append(v)
        else:
            out.extend(v)
    return out


@dataclass(frozen=True)
class BufferEffects(MemoryEffect):
    """Reads and writes of the buffers named by operand: ``reads``/``writes`` are operand names."""

    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    scalar_reads: tuple[str, ...] = ()

    def buffer_reads(self, op: Operation) -> list[SSAValue]:
        return _values(op, self.reads)

    def buffer_scalar_reads(self, op: Operation) -> list[SSAValue]:
        return _values(op, self.scalar_reads)

    def buffer_writes(self, op: Operation) -> list[SSAValue]:
        return _values(op, self.writes)

    def get_effects(self, op: Operation) -> set[EffectInstance]:
        return ({EffectInstance(MemoryEffectKind.READ, v) for v in self.buffer_reads(op) + self.buffer_scalar_reads(op)}
                | {EffectInstance(MemoryEffectKind.WRITE, v) for v in self.buffer_writes(op)})


@cache
def buffer_effects(op_type: type[Operation]) -> tuple[BufferEffects, ...]:
    """The ``BufferEffects`` traits of an op class (found once per class: an op's traits are its class's)."""
    return tuple(op_type.get_traits_of_type(BufferEffects))


def buffer_reads(op: Operation) -> list[SSAValue]:
    """The buffers ``op`` reads ([] for an op without ``BufferEffects``)."""
    return [v for t in buffer_effects(type(op)) for v in t.buffer_reads(op)]


def buffer_writes(op: Operation) -> list[SSAValue]:
    """The buffers ``op`` writes ([] for an op without ``BufferEffects``)."""
    return [v for t in buffer_effects(type(op)) for v in t.buffer_writes(op)]


def scalar_reads(op: Operation) -> list[SSAValue]:
    """The buffers the scalar unit reads for ``op`` before issuing it ([] for most ops)."""
    return [v for t in buffer_effects(type(op)) for v in t.buffer_scalar_reads(op)]
