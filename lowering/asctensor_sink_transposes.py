"""``asctensor-sink-transposes``: transposes move below the elementwise ops they feed and cancel their inverses.

In each host function, until nothing changes:

* an elementwise op (``arith``, ``math``, ``cast``, ``compare``, ``select``; one result) with an operand that
  is a transpose used by that op alone and of the result's element type (what the transposes move stays; or of
  another one when the op's result only feeds a transpose undoing it: both transposes go),
  whose other operands are transposes by the same permutation used there alone, splats (``full``), or
  values the program also transposes back (a transpose undoing that permutation reads them), runs on the
  transposes' inputs (the splats reshaped, the values' transposed copies) and one transpose by that
  permutation follows it;
* a transpose of a transpose is one transpose of the first one's input, or that input when the second undoes
  the first;
* a transpose of reshapes of a transpose is one transpose between reshapes, when the reshapes' two shapes share
  a common refinement (every dim of either is a run of the finer dims): ``k.transpose(-2, -1)`` flattened to a
  batch of matrices and transposed back for the cube is ``k`` flattened.

* a max pool of an NHWC value transposed to NCHW pools it channels-last (``tile-pool``'s NHWC form, where it fits)
  and one transpose to NCHW follows it.

So transposes cancel between layouts that only elementwise ops (and max pools) separate (a head split of attention and the
cube's transpose back become one transpose). The number of transposes never grows: one follows the op where at
least one came before it. Runs after ``asctensor-fuse-matmul``, before ``asctensor-fuse``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import host_functions
from pyasc.dialects.target import module_target
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from .analysis.pool import nhwc_pool_fits
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


def _untransposed_copy(v: SSAValue, perm, op: Operation) -> SSAValue | None:
    """A transpose of ``v`` that undoes ``perm``, already in the program (``v`` in the untransposed layout), other
    than an operand of ``op`` (in ``v + v.t()`` the one sunk: sinking would make the same op again)."""
    inverse = _inverse(perm)
    for u in v.uses:
        t = u.operation
        if isinstance(t, asctensor.TransposeOp) and t.perm == inverse and t.result not in op.operands:
            return t.result
    return None


def _undone_after(op: Operation, perm) -> bool:
    """Whether ``op``'s result is only read by a transpose undoing ``perm`` (a transpose sunk below ``op`` cancels)."""
    uses = list(op.results[0].uses)
    return len(uses) == 1 and isinstance(t := uses[0].operation, asctensor.TransposeOp) and t.perm == _inverse(perm)


def _sinkable(op: Operation) -> tuple[int, ...] | None:
    """The permutation of the transposes ``op`` can run below (see the module docstring), or None."""
    if not _elementwise(op):
        return None
    sunk = [v for v in op.operands
            if isinstance(v.owner, asctensor.TransposeOp) and all(u.operation is op for u in v.uses)]
    perms = {v.owner.perm for v in sunk}
    if len(perms) != 1:
        return None
    perm = perms.pop()
    if any(v.type.element_type != op.results[0].type.element_type for v in sunk) and not _undone_after(op, perm):
        return None  # (the transpose after the op moves its result's type, which the ones before moved)
    for v in op.operands:
        src = v.owner
        if isinstance(src, asctensor.FullOp):
            continue
        if isinstance(src, asctensor.TransposeOp) and src.perm == perm and all(u.operation is op for u in v.uses):
            continue
        if _untransposed_copy(v, perm, op) is None:
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
            operands.append(_untransposed_copy(v, perm, op))
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


def _suffix_products(shape: list[int]) -> set[int]:
    out, p = {1}, 1
    for d in reversed(shape):
        p *= d
        out.add(p)
    return out


def _atom_groups(shape: list[int], atoms: list[int]) -> list[list[int]]:
    """The consecutive atoms (indices into ``atoms``) each dim of ``shape`` is made of."""
    groups, i = [], 0
    for d in shape:
        group, size = [], 1
        while size < d:
            size *= atoms[i]
            group.append(i)
            i += 1
        groups.append(group)
    return groups


def _common_atoms(src: list[int], dst: list[int]) -> tuple[list[int], list[list[int]], list[list[int]]] | None:
    """The finest dims both shapes are made of in row-major order (every dim of either a run of them), with each
    shape's groups; None when the shapes share no such refinement (a dim straddles another's boundary)."""
    if 0 in src or 0 in dst:
        return None
    cuts = sorted(_suffix_products(src) | _suffix_products(dst), reverse=True)
    if any(a % b for a, b in zip(cuts, cuts[1:])):
        return None
    atoms = [a // b for a, b in zip(cuts, cuts[1:])]
    return atoms, _atom_groups(src, atoms), _atom_groups(dst, atoms)


def _through_reshape(op: asctensor.TransposeOp) -> bool:
    """Replace ``transpose(reshape(transpose(x, p)), q)`` (the reshapes used there alone) by
    ``reshape(transpose(reshape(x), r))``: split both shapes into their common finest dims, carry ``p`` and ``q``
    over to them and compose (one transpose where two were, none when they cancel). Row-major order makes both
    forms the same elements: ``k.transpose(-2, -1)`` flattened to a batch of matrices and transposed back for the
    cube is ``k`` flattened; a convolution's weights stored OHWI, permuted to OIHW and laid out as
    ``[OC][C1][KH][KW][C0]`` are one transpose of the OHWI weights."""
    v = op.input
    reshapes = []
    while isinstance(v.owner, asctensor.ReshapeOp) and v.has_one_use():
        reshapes.append(v.owner)
        v = v.owner.input
    y = v.owner
    if not reshapes or not isinstance(y, asctensor.TransposeOp):
        return False
    common = _common_atoms(list(y.result.type.get_shape()), list(op.input.type.get_shape()))
    if common is None:
        return False
    atoms, y_groups, mid_groups = common
    x = y.input
    split, position = [], {}
    for j in range(len(x.type.get_shape())):  # x's dim j is y's dim k with p[k] == j
        for i in y_groups[y.perm.index(j)]:
            position[i] = len(split)
            split.append(atoms[i])
    r = [position[i] for m in op.perm for i in mid_groups[m]]
    et, prev = x.type.element_type, x
    new: list[Operation] = []
    if split != list(x.type.get_shape()):
        new.append(copy_loc(op, asctensor.ReshapeOp(prev, split)))
        prev = new[-1].results[0]
    if r != list(range(len(r))):
        new.append(copy_loc(op, asctensor.TransposeOp(prev, r)))
        prev = new[-1].results[0]
    if prev.type.get_shape() != op.result.type.get_shape():
        new.append(copy_loc(op, asctensor.ReshapeOp(prev, op.result.type.get_shape())))
        prev = new[-1].results[0]
    if new:
        Rewriter.insert_op(new, InsertPoint.before(op))
        prev.name_hint = op.result.name_hint
    op.result.replace_all_uses_with(prev)
    Rewriter.erase_op(op)
    for reshape in reshapes:
        Rewriter.erase_op(reshape)
    if not y.result.uses:
        Rewriter.erase_op(y)
    return True


def _pool_channels_last(op: asctensor.MaxPool2dOp, spec) -> bool:
    """Replace ``max_pool2d(transpose(x, NHWC -> NCHW))`` (the transpose used there alone) by the channels-last pool
    of ``x`` and one transpose to NCHW after it, when ``tile-pool`` runs that form (``nhwc_pool_fits``)."""
    t = op.input.owner
    if (op.channels_last is not None or not isinstance(t, asctensor.TransposeOp) or t.perm != (0, 3, 1, 2)
            or not t.result.has_one_use() or not nhwc_pool_fits(op, spec)):
        return False
    pooled = copy_loc(op, asctensor.MaxPool2dOp(t.input, *op.params(), channels_last=True))
    back = copy_loc(op, asctensor.TransposeOp(pooled.result, [0, 3, 1, 2]))
    Rewriter.insert_op([pooled, back], InsertPoint.before(op))
    back.result.name_hint = op.result.name_hint
    op.result.replace_all_uses_with(back.result)
    Rewriter.erase_op(op)
    Rewriter.erase_op(t)
    return True


def sink_transposes(block, spec) -> None:
    rounds = len(block.ops) + 16  # each round sinks a transpose past an op or removes one: never this many
    changed = True
    while changed:
        if rounds == 0:
            raise RuntimeError(f"the rewrites did not settle after {len(block.ops) + 16} rounds")
        rounds -= 1
        changed = False
        for op in list(block.ops):
            if op.parent is None:
                continue
            if isinstance(op, asctensor.TransposeOp):
                changed |= _compose(op) or _through_reshape(op)
                continue
            if isinstance(op, asctensor.MaxPool2dOp):
                changed |= _pool_channels_last(op, spec)
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
        spec = module_target(op)
        for host in host_functions(op):
            sink_transposes(host.body.block, spec)
            for inner in list(host.body.block.ops):  # splats the moved ops no longer read
                if isinstance(inner, asctensor.FullOp) and not inner.result.uses:
                    Rewriter.erase_op(inner)
