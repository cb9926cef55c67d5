"""``asctensor-sink-transposes``: transposes move below the elementwise ops they feed and cancel their inverses.

In each host function, until nothing changes:

* an elementwise op (``arith``, ``math``, ``cast``, ``compare``, ``select``; one result) with an operand that
  is a transpose used by that op alone and of the result's element type (what the transposes move stays),
  whose other operands are transposes by the same permutation used there alone, splats (``full``), or
  values the program also transposes back (a transpose undoing that permutation reads them), runs on the
  transposes' inputs (the splats reshaped, the values' transposed copies) and one transpose by that
  permutation follows it;
* a transpose of a transpose is one transpose of the first one's input, or that input when the second undoes
  the first;
* a transpose of a reshape of a transpose, where the reshape only merges or splits leading dims that the second
  transpose leaves in place, becomes the reshape of a transpose of a transpose (so the two compose):
  ``k.transpose(-2, -1)`` flattened to a batch of matrices and transposed back for the cube is ``k`` flattened.

So transposes cancel between layouts that only elementwise ops separate (a head split of attention and the
cube's transpose back become one transpose). The number of transposes never grows: one follows the op where at
least one came before it. Runs after ``asctensor-fuse-matmul``, before ``asctensor-fuse``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import host_functions
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from .emitter import copy_loc

_ELEMENTWISE_DIALECTS = ("arith.", "math.")
_ELEMENTWISE_OPS = (asctensor.CastOp, asctensor.CompareOp, asctensor.SelectOp)


def _elementwise(op: Operation) -> bool:
    if not (op.name.startswith(_ELEMENTWISE_DIALECTS) or isinstance(op, _ELEMENTWISE_OPS)) or len(op.results) != 1:
        return False
    shape = op.results[0].type.get_shape() if isinstance(op.results[0].type, TensorType) else None
    return shape is not None and all(isinstance(v.type, TensorType) and v.type.get_shape() == shape
                                     for v in op.operands)


def _inverse(perm) -> tuple[int, ...]:
    return tuple(perm.index(i) for i in range(len(perm)))


def _untransposed_copy(v: SSAValue, perm) -> SSAValue | None:
    """A transpose of ``v`` that undoes ``perm``, already in the program (``v`` in the untransposed layout)."""
    inverse = _inverse(perm)
    for u in v.uses:
        t = u.operation
        if isinstance(t, asctensor.TransposeOp) and t.perm == inverse:
            return t.result
    return None


def _sinkable(op: Operation) -> tuple[int, ...] | None:
    """The permutation of the transposes ``op`` can run below (see the module docstring), or None."""
    if not _elementwise(op):
        return None
    sunk = [v for v in op.operands
            if isinstance(v.owner, asctensor.TransposeOp) and all(u.operation is op for u in v.uses)]
    perms = {v.owner.perm for v in sunk}
    if len(perms) != 1 or any(v.type.element_type != op.results[0].type.element_type for v in sunk):
        return None  # (the transpose after the op moves its result's type, which the ones before moved)
    perm = perms.pop()
    for v in op.operands:
        src = v.owner
        if isinstance(src, asctensor.FullOp):
            continue
        if isinstance(src, asctensor.TransposeOp) and src.perm == perm and all(u.operation is op for u in v.uses):
            continue
        if _untransposed_copy(v, perm) is None:
            return None
    return perm


def _sink(op: Operation, perm: tuple[int, ...]) -> None:
    """``op`` on the untransposed operands, then one transpose by ``perm``."""
    inverse = _inverse(perm)
    operands = []
    for v in op.operands:
        src = v.owner
        if isinstance(src, asctensor.TransposeOp) and src.perm == perm and all(u.operation is op for u in v.uses):
            operands.append(src.input)
        elif not isinstance(src, asctensor.FullOp):
            operands.append(_untransposed_copy(v, perm))
        else:  # a splat of the untransposed shape
            shape = [v.type.get_shape()[i] for i in inverse]
            splat = copy_loc(op, asctensor.FullOp(src.scalar, TensorType(v.type.element_type, shape)))
            Rewriter.insert_op(splat, InsertPoint.before(op))
            operands.append(splat.result)
    rt = op.results[0].type
    result_type = TensorType(rt.element_type, [rt.get_shape()[i] for i in inverse])
    moved = copy_loc(op, type(op).create(operands=operands, result_types=[result_type],
                                         properties=dict(op.properties), attributes=dict(op.attributes)))
    back = copy_loc(op, asctensor.TransposeOp(moved.results[0], perm))
    Rewriter.insert_op([moved, back], InsertPoint.before(op))
    moved.results[0].name_hint = op.results[0].name_hint
    dead = [v.owner for v in op.operands if isinstance(v.owner, asctensor.TransposeOp) and v.owner.perm == perm]
    op.results[0].replace_all_uses_with(back.result)
    Rewriter.erase_op(op)
    for t in dict.fromkeys(dead):
        if not t.result.uses:
            Rewriter.erase_op(t)


def _compose(op: asctensor.TransposeOp) -> bool:
    """Replace ``transpose(transpose(x, p), q)`` by ``x`` when ``q`` undoes ``p``, else by ``transpose(x, r)`` with
    ``r[j] = p[q[j]]`` (one transpose where two were)."""
    src = op.input.owner
    if not isinstance(src, asctensor.TransposeOp):
        return False
    p, q = src.perm, op.perm
    composed = [p[j] for j in q]
    if composed == list(range(len(q))):
        op.result.replace_all_uses_with(src.input)
    else:
        one = copy_loc(op, asctensor.TransposeOp(src.input, composed))
        Rewriter.insert_op(one, InsertPoint.before(op))
        one.result.name_hint = op.result.name_hint
        op.result.replace_all_uses_with(one.result)
    Rewriter.erase_op(op)
    if not src.result.uses:
        Rewriter.erase_op(src)
    return True


def _kept_suffix(src: list[int], dst: list[int]) -> int:
    """How many trailing dims a reshape from ``src`` to ``dst`` keeps (the rest it only merges or splits)."""
    t = 0
    while t < min(len(src), len(dst)) and src[len(src) - 1 - t] == dst[len(dst) - 1 - t]:
        t += 1
    return t


def _above_reshape(op: asctensor.TransposeOp) -> bool:
    """Replace ``transpose(reshape(y), q)`` by ``reshape(transpose(y, q'))`` when ``y`` is a transpose, the reshape
    (``y``'s only use) merges or splits leading dims alone and ``q`` permutes only the dims it keeps: the two
    transposes then meet (``_compose``). Row-major order makes both forms the same elements."""
    reshape = op.input.owner
    if not isinstance(reshape, asctensor.ReshapeOp) or not reshape.result.has_one_use():
        return False
    y = reshape.input
    if not isinstance(y.owner, asctensor.TransposeOp):
        return False
    src, dst, q = list(y.type.get_shape()), list(reshape.result.type.get_shape()), op.perm
    lead = len(dst) - _kept_suffix(src, dst)
    if any(q[i] != i for i in range(lead)):
        return False
    shift = len(src) - len(dst)
    perm = list(range(lead + shift)) + [p + shift for p in q[lead:]]
    moved = copy_loc(op, asctensor.TransposeOp(y, perm))
    back = copy_loc(op, asctensor.ReshapeOp(moved.result, op.result.type.get_shape()))
    Rewriter.insert_op([moved, back], InsertPoint.before(op))
    back.result.name_hint = op.result.name_hint
    op.result.replace_all_uses_with(back.result)
    Rewriter.erase_op(op)
    Rewriter.erase_op(reshape)
    return True


def sink_transposes(block) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(block.ops):
            if op.parent is None:
                continue
            if isinstance(op, asctensor.TransposeOp):
                changed |= _compose(op) or _above_reshape(op)
                continue
            perm = _sinkable(op)
            if perm is not None:
                _sink(op, perm)
                changed = True


@dataclass(frozen=True)
class AscTensorSinkTransposesPass(ModulePass):
    """Move transposes below elementwise ops and cancel inverse pairs (see the module docstring)."""

    name = "asctensor-sink-transposes"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for host in host_functions(op):
            sink_transposes(host.body.block)
            for inner in list(host.body.block.ops):  # splats the moved ops no longer read
                if isinstance(inner, asctensor.FullOp) and not inner.result.uses:
                    Rewriter.erase_op(inner)
