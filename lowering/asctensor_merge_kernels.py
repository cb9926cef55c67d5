"""``asctensor-merge-kernels``: kernel functions that are the same function become one.

Two kernel functions (``asctensor.kernel``) are the same function when they have the same type, the same
attributes but their names, and structurally equivalent bodies (the same ops with the same attributes,
source locations included, on the same operands) whose ops have the same result types. Every call of the later one then calls the first, and the
later one is erased: each distinct kernel is tiled, bufferized and converted once, emitted once and traced
once by the simulator (whose launches of it then replay).

The int32 products make many such kernels: their ten int8 digit products all have one shape, and each
operand digit goes through the same layout change. Runs after ``asctensor-fuse``, which outlines the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from pyasc.dialects.asctensor.analysis import is_kernel

_NAME = "sym_name"


def _signature(f: func.FuncOp) -> tuple:
    """What two functions must share to be compared body by body: type and the attributes but the name."""
    attrs = tuple(sorted((k, v) for k, v in f.attributes.items()))
    props = tuple(sorted((k, v) for k, v in f.properties.items() if k != _NAME))
    return f.function_type, attrs, props, len(f.body.block.ops)


def _same_types(f: func.FuncOp, g: func.FuncOp) -> bool:
    """The ops of two structurally equivalent bodies have the same result types, and their blocks the same argument
    types, op by op (structural equivalence compares neither: two slices of one offset but different sizes, or
    casts to different types, are equivalent to it)."""
    pairs = zip(f.body.walk(), g.body.walk(), strict=True)
    return all(a.result_types == b.result_types and all(
        x.arg_types == y.arg_types for ra, rb in zip(a.regions, b.regions) for x, y in zip(ra.blocks, rb.blocks))
        for a, b in pairs)


def merged_names(module: ModuleOp) -> dict[str, str]:
    """For each kernel function of ``module`` that is the same function as an earlier one, that one's name."""
    firsts: dict[tuple, list[func.FuncOp]] = {}
    same: dict[str, str] = {}
    for f in module.ops:
        if not isinstance(f, func.FuncOp) or not is_kernel(f) or f.is_declaration:
            continue
        candidates = firsts.setdefault(_signature(f), [])
        match = next((g for g in candidates if g.body.is_structurally_equivalent(f.body) and _same_types(g, f)), None)
        if match is None:
            candidates.append(f)
        else:
            same[f.sym_name.data] = match.sym_name.data
    return same


@dataclass(frozen=True)
class AscTensorMergeKernelsPass(ModulePass):
    """Calls of a kernel function that repeats an earlier one call that one; the repeat is erased."""

    name = "asctensor-merge-kernels"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        same = merged_names(op)
        if not same:
            return
        for call in op.walk():
            if isinstance(call, func.CallOp) and call.callee.root_reference.data in same:
                call.callee = SymbolRefAttr(same[call.callee.root_reference.data])
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and f.sym_name.data in same:
                Rewriter.erase_op(f)
