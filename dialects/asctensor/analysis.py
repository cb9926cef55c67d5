"""Queries on ``asctensor`` programs that several passes share.

* ``kernel_kind(f)``: the kind ``asctensor-fuse`` gave a kernel function, ``host_functions``: the others;
* ``VIEW_OPS``: ops a kernel rebuilds from its inputs for free (loads broadcast, slice and reshape);
  ``is_view_of_input(v, members)``: ``v`` is such a view (or a splat) of a value computed outside;
* ``MOVEMENT_OPS``: ops that rearrange data (a kernel of their own); ``IM2COL_KIND``: the kind of a
  convolution's im2col kernel; ``POOL_KIND``: that of a ``max_pool2d`` kernel;
  ``MATMUL_KIND``: that of a cube kernel; ``CONV_PROLOGUE_KIND``: that of a convolution whose input the
  vector cores lay out;
* ``reduction_rows(op)``: the row space of a reduction over trailing axes.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue

from .base import CONSTANTS_OF_ATTR, KERNEL_ATTR, BroadcastOp, FullOp, ReshapeOp, SliceOp
from .movement import ConcatOp, StridedSliceOp, TransposeOp
from .reduce import ArgReduceOp, ReduceOp

VIEW_OPS = (BroadcastOp, SliceOp, ReshapeOp)
MOVEMENT_OPS = (TransposeOp, StridedSliceOp, ConcatOp)
IM2COL_KIND = "im2col"  # the kernel kind of a convolution's im2col (``asctensor-fuse-matmul``, ``tile-im2col``)
POOL_KIND = "pool"  # the kernel kind of a ``max_pool2d`` (``asctensor-fuse``, ``tile-pool``)
MATMUL_KIND = "matmul"  # the kernel kind of a matmul or convolution on the cube (``asctensor-fuse-matmul``)
CONV_PROLOGUE_KIND = "conv_prologue"  # a convolution whose input the vector cores lay out (``tile-conv-prologue``)


def is_kernel(f: func.FuncOp) -> bool:
    """``f`` is a kernel outlined by ``asctensor-fuse`` (any kind)."""
    return KERNEL_ATTR in f.attributes


def kernel_kind(f: func.FuncOp) -> str | None:
    """The kind of a tensor-level kernel (``elementwise``, ``rowwise``, ``matmul``, ...), None for others."""
    attr = f.attributes.get(KERNEL_ATTR)
    if attr is None:
        return None
    return attr.data if isinstance(attr, StringAttr) else "elementwise"


def host_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The defined functions of ``module`` that are not kernels (nor functions of constants only)."""
    return [f for f in module.ops if isinstance(f, func.FuncOp) and not is_kernel(f) and not f.is_declaration
            and CONSTANTS_OF_ATTR not in f.attributes]


def view_root(v: SSAValue, kinds=VIEW_OPS) -> SSAValue:
    """The value ``v`` views through a chain of ops of ``kinds`` (``v`` itself when it is no such view)."""
    while isinstance(v.owner, kinds):
        v = v.owner.input
    return v


def is_view_of_input(v: SSAValue, members) -> bool:
    """``v`` is a splat, or a broadcast/slice/reshape chain over a value computed outside ``members``:
    a kernel rebuilds it from its inputs (loads broadcast, slice and reshape for free)."""
    owner = v.owner
    if owner in members:
        return False
    if isinstance(owner, FullOp):
        return True
    if isinstance(owner, VIEW_OPS):
        src = owner.input
        return src.owner not in members and (not isinstance(src.owner, VIEW_OPS + (FullOp,))
                                             or is_view_of_input(src, members))
    return False


def reduction_rows(op: Operation) -> tuple[tuple[int, ...], tuple[int, ...] | None] | None:
    """(input shape, lead dims) of a reduction over trailing axes (size-1 axes do not count);
    None for other ops. A reduction over leading axes gives lead = None."""
    if isinstance(op, ReduceOp):
        shape, axes = op.input.type.get_shape(), op.axis_list
    elif isinstance(op, ArgReduceOp):
        shape, axes = op.input.type.get_shape(), (op.axis.value.data,)
    else:
        return None
    first = min(axes)
    trailing = all(i in axes or shape[i] == 1 for i in range(first, len(shape)))
    return shape, (shape[:first] if trailing else None)
