"""``bufferize``: every vector tile kernel (and the AIV part of a MIX kernel) becomes ``ascbuf``
buffers and buffer ops on named pipes; see ``vector_bufferizer`` for the buffer forms. Cube kernels
are bufferized by ``bufferize-cube``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from pyasc.dialects.asctile.analysis import core_parts, is_mix_kernel, is_vector_kernel
from pyasc.dialects.asctile.mix import CoreKind

from .bufferize_mix import lower_handoffs
from .vector_bufferizer import bufferize_vector_kernel


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """Turn every ``asctile`` vector kernel into ``ascbuf`` buffers and buffer ops."""

    name = "bufferize"
    INPUT_LEVEL = "asctile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and is_vector_kernel(f):
                bufferize_vector_kernel(f)
            elif isinstance(f, func.FuncOp) and is_mix_kernel(f):
                with core_parts(f) as parts:
                    bufferize_vector_kernel(parts[CoreKind.AIV])
                    lower_handoffs(parts[CoreKind.AIV])
