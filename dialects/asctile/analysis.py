"""Queries on tile-level (and, after bufferization, buffer-level) kernels that several passes share.

* ``is_vector_kernel``/``is_cube_kernel``/``is_mix_kernel``: the core type a kernel runs on, from its
  ``asctile.kernel`` attribute (a unit attribute or ``"vector"``, ``"cube"``, ``"mix"``);
* ``core_parts(kernel)``: the two parts of a MIX kernel as stand-alone kernels, so the per-kernel
  passes run on each unchanged.

A MIX kernel holds an ``asctile.core_section aic`` and an ``asctile.core_section aiv`` over the same
arguments. ``core_parts`` moves each section's body into a kernel function of its own (the same
arguments and attributes; ``asctile.kernel`` is ``"cube"`` for the AIC part and ``"vector"`` for the
AIV part), yields them, and moves the (transformed) bodies back. Each core has its own on-chip
memories, so planning the parts apart is exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

from .base import KERNEL_ATTR
from .matmul import CUBE_KIND
from .mix import MIX_KIND, CoreKind, CoreSectionOp

VECTOR_KIND = "vector"
PART_KIND = {CoreKind.AIC: CUBE_KIND, CoreKind.AIV: VECTOR_KIND}


def kernel_kind(f: func.FuncOp) -> str | None:
    """``"vector"``, ``"cube"`` or ``"mix"`` for a tile kernel, None for any other function."""
    attr = f.attributes.get(KERNEL_ATTR)
    if attr is None:
        return None
    return attr.data if isinstance(attr, StringAttr) else VECTOR_KIND


def is_vector_kernel(f: func.FuncOp) -> bool:
    """A tile kernel for the vector cores (``asctile.kernel`` unit, or the string ``"vector"``)."""
    return kernel_kind(f) == VECTOR_KIND


def is_cube_kernel(f: func.FuncOp) -> bool:
    return kernel_kind(f) == CUBE_KIND


def is_mix_kernel(f: func.FuncOp) -> bool:
    return kernel_kind(f) == MIX_KIND


def sections(kernel: func.FuncOp) -> list[CoreSectionOp]:
    return [op for op in kernel.body.block.ops if isinstance(op, CoreSectionOp)]


def _inside(op: Operation, ancestor: Operation) -> bool:
    while op is not None:
        if op is ancestor:
            return True
        op = op.parent_op()
    return False


def _outline(kernel: func.FuncOp, section: CoreSectionOp) -> func.FuncOp:
    args = kernel.body.block.args
    core = section.core.data
    part = func.FuncOp(f"{kernel.sym_name.data}_{core.value}", ([a.type for a in args], []))
    for name, value in kernel.attributes.items():
        if name != "sym_name" and name != "function_type":
            part.attributes[name] = value
    part.attributes[KERNEL_ATTR] = StringAttr(PART_KIND[core])
    pb = part.body.block
    for a, n in zip(args, pb.args):
        n.name_hint = a.name_hint
        a.replace_uses_with_if(n, lambda use, s=section: _inside(use.operation, s))
    for op in list(section.body.block.ops):
        op.detach()
        pb.add_op(op)
    pb.add_op(func.ReturnOp())
    return part


def _inline(part: func.FuncOp, section: CoreSectionOp, kernel: func.FuncOp) -> None:
    pb = part.body.block
    for n, a in zip(pb.args, kernel.body.block.args):
        n.replace_all_uses_with(a)
    for op in list(pb.ops):
        op.detach()
        if not isinstance(op, func.ReturnOp):
            section.body.block.add_op(op)
        else:
            op.erase()


@contextmanager
def core_parts(kernel: func.FuncOp) -> Iterator[dict[CoreKind, func.FuncOp]]:
    """Each core section of a MIX ``kernel`` as a kernel function of its own, moved back on exit."""
    secs = sections(kernel)
    parts = {s.core.data: _outline(kernel, s) for s in secs}
    try:
        yield parts
    finally:
        for s in secs:
            _inline(parts[s.core.data], s, kernel)
