"""``asctensor-fuse``: group elementwise ops into kernels, one ``func.func`` per group.

Consecutive ops of the host function that iterate over the same shape form one group
(broadcasts belong to the group of their result, since loads broadcast for free); a shape
change starts a new group. A reduction over the trailing axes of the group's shape joins it and
makes it ``rowwise``: the per-row results (shape ``lead`` or ``lead x 1...``), elementwise ops on
them, their broadcasts back to the row and a concat of them along the last dim (the ``k`` columns
of a top-k) stay in the same kernel (softmax and topk are one kernel each), unless an input is
broadcast over only part of the row or read through a view that is not one run along it (one window of a
max pool's patches): the reduction then starts a kernel of its own. Row-wise
groups over short rows (``lead x w``, ``w`` at most 1/``PROLOGUE_RATIO`` of the row) whose per-row
results only feed broadcasts of the next elementwise group over ``lead x N`` join that group as its
*row prologue*: each tile recomputes them for its rows (the combination of the pieces' statistics
of a softmax over rows longer than UB), which saves a launch. A
reduction over leading axes is a ``colreduce`` kernel of its own, and so is a transpose, strided
slice or concat (a ``movement`` kernel), and so is a ``max_pool2d`` (a ``pool`` kernel). Each group is
outlined into ``@<host>_k<i>`` marked ``asctensor.kernel`` and called with ``func.call``; splat constants are cloned into every kernel
that uses them, so a scalar never costs a GM buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import asctensor
from pyasc.dialects.target import module_target
from pyasc.dialects.asctensor.analysis import (POOL_KIND, MOVEMENT_OPS, VIEW_OPS, host_functions, is_view_of_input,
                                               reduction_rows, view_root)

from .emitter import copy_loc, exact_copy
from .errors import TilingError
from .outline import outline_group
from .rowwise_decompose import MAX_ROW_BYTES_PER_ELEMENT
from .tile_body import view_source
from .tiling import element_strides, row_major


@dataclass
class _Group:
    """Consecutive ops of one kernel: ``elementwise`` over ``full``, ``rowwise`` (reductions over the
    trailing axes from ``lead``), or a lone ``colreduce`` (a reduction over leading axes)."""

    kind: str
    full: tuple[int, ...]
    lead: tuple[int, ...] | None = None
    ops: list[Operation] = field(default_factory=list)

    def row_shapes(self) -> set[tuple[int, ...]]:
        if self.lead is None:
            return set()
        k = len(self.full) - len(self.lead)
        return {self.lead, self.lead + (1,) * k}


STANDALONE = ("colreduce", "movement", POOL_KIND)  # kinds no other op joins


def is_row_concat(op: Operation, group: _Group | None) -> bool:
    """``op`` concatenates per-row results (``lead x 1``) of the row-wise ``group`` along the last
    dim: the kernel stores each of them as one column of the result (as ``topk`` does)."""
    if not isinstance(op, asctensor.ConcatOp) or group is None or group.kind != "rowwise":
        return False
    rank = len(op.result.type.get_shape())
    members = {r for o in group.ops for r in o.results}
    return op.axis == rank - 1 and rank == len(group.lead) + 1 and op.result.type.get_shape() != group.full and all(
        v in members and v.type.get_shape() == group.lead + (1,) for v in op.inputs)


def _splits_a_row(ops: list[Operation], full: tuple[int, ...], lead: tuple[int, ...]) -> bool:
    """An operand of ``ops`` reads a kernel input over only part of the row ``full[len(lead):]``: a
    broadcast of part of it (a bias over the columns of a whole-tensor sum), or a view whose elements are
    not one run along the row (a slice of a bigger tensor, such as one window of ``pool_windows``). A
    row-wise kernel reads each input as one value per row or as whole rows, so such ops and the reduction
    go to different kernels."""
    k = len(lead)
    for op in ops:
        for v in op.operands:
            owner = v.owner
            if isinstance(owner, VIEW_OPS) and v.type.get_shape() == full and _row_not_one_run(v, full, k):
                return True
            while isinstance(owner, VIEW_OPS):
                if isinstance(owner, asctensor.BroadcastOp) and owner.result.type.get_shape() == full:
                    src = owner.input.type.get_shape()
                    aligned = (1,) * (len(full) - len(src)) + tuple(src)
                    tail = [j for j in range(k, len(full)) if full[j] > 1]
                    if not (all(aligned[j] == 1 for j in tail) or all(aligned[j] == full[j] for j in tail)):
                        return True
                owner = owner.input.owner
    return False


def _row_not_one_run(v: SSAValue, full: tuple[int, ...], k: int) -> bool:
    """Whether the view ``v`` of shape ``full`` walks its row ``full[k:]`` neither as one run nor as one value (the
    element strides of its view chain, as ``tile-elementwise`` reads it)."""
    chain = []
    while isinstance(v.owner, VIEW_OPS):
        chain.append(v)
        v = v.owner.input
    views = {v: (v, v.type.get_shape(), row_major(v.type.get_shape()), 0)}
    try:
        for w in reversed(chain):
            views[w] = view_source(w, (), views)
    except TilingError:
        return True
    _, shape, strides, _ = views[chain[0]]
    tail = element_strides(shape, full, strides)[k:]
    return any(tail) and tail != row_major(full[k:])


def _reads_group(op: Operation, group: _Group) -> bool:
    """``op`` reads a value of ``group`` (directly or through views)."""
    members = set(group.ops)
    return any(view_root(v).owner in members for v in op.operands)


def _keeps_apart(op: Operation, group: _Group | None, row: int, max_row: int) -> bool:
    """``op`` goes to a kernel of its own rather than join ``group`` as part of a row-wise kernel: the rows are long
    (``row`` elements, more than half of the ``max_row`` that ``asctensor-decompose`` keeps whole) and ``op``
    does not read it. A row-wise kernel holds whole rows in UB, and elementwise work that does not need the
    rows' results would only add live buffers to them (the value and the gradient of a whole-tensor loss). An op
    that reads nothing (an ``iota``) is made where it is used."""
    return group is not None and 2 * row > max_row and bool(op.operands) and not _reads_group(op, group)


def _groups(ops: list[Operation], max_row: int) -> list[_Group]:
    groups: list[_Group] = []
    for op in ops:
        if isinstance(op, func.CallOp) and groups:  # an outlined kernel: later ops may need its results
            groups.append(_Group("elementwise", (), None, []))
            continue
        if isinstance(op, asctensor.FullOp | func.ReturnOp | func.CallOp) or not op.results:
            continue
        cur = groups[-1] if groups else None
        if is_row_concat(op, cur):  # per-row results side by side: stored by their row-wise kernel
            cur.ops.append(op)
            continue
        if isinstance(op, MOVEMENT_OPS):  # a transpose, strided slice or concat: a kernel of its own
            groups.append(_Group("movement", op.results[0].type.get_shape(), None, [op]))
            continue
        if isinstance(op, asctensor.MaxPool2dOp):  # a kernel of its own (tile-pool)
            groups.append(_Group(POOL_KIND, op.result.type.get_shape(), None, [op]))
            continue
        if isinstance(op, VIEW_OPS) and (cur is None or is_view_of_input(op.results[0], set(cur.ops))
                                      or not isinstance(op, asctensor.BroadcastOp)):
            continue  # views of kernel inputs are free: cloned into each kernel that reads them
        if cur is not None and any(isinstance(v.owner, VIEW_OPS) and not is_view_of_input(v, set(cur.ops))
                                   for v in op.operands if not isinstance(v.owner, asctensor.BroadcastOp)):
            cur = None  # a slice/reshape of a value of this kernel: it must be an output first
        rows = reduction_rows(op)
        if rows is not None:
            shape, lead = rows
            if lead is None:
                groups.append(_Group("colreduce", shape, None, [op]))
            elif cur is not None and cur.full == shape and cur.kind not in STANDALONE and cur.lead in (None, lead) \
                    and not _splits_a_row(cur.ops + [op], shape, lead) \
                    and not _keeps_apart(op, cur, prod(shape[len(lead):]), max_row):
                cur.kind, cur.lead = "rowwise", lead
                cur.ops.append(op)
            else:
                groups.append(_Group("rowwise", shape, lead, [op]))
            continue
        s = op.results[0].type.get_shape()
        if cur is not None and cur.kind not in STANDALONE and (s == cur.full or s in cur.row_shapes()) \
                and not any(isinstance(v.owner, asctensor.SliceOp | asctensor.ReshapeOp) and v.owner.input.owner
                            in cur.ops for v in op.operands) \
                and not (cur.kind == "rowwise" and (_splits_a_row([op], cur.full, cur.lead) or (
                    s == cur.full and _keeps_apart(op, cur, prod(cur.full[len(cur.lead):]), max_row)))):
            cur.ops.append(op)
        else:
            groups.append(_Group("elementwise", s, None, [op]))
    return groups


# a row prologue is recomputed for every tile (for one row: by every core), so its rows are at most
# 1/PROLOGUE_RATIO of the kernel's rows, and at most MAX_PROLOGUE_ROW elements over several rows
PROLOGUE_RATIO = 512
MAX_PROLOGUE_ROW = 512


def _prologue_of(group: _Group, main: _Group, prologue: set[Operation]) -> bool:
    """``group`` can run as a row prologue of the elementwise ``main``: a row-wise group over
    ``lead x w`` rows of the same ``lead``, short beside ``main``'s, whose results are used only by
    the ``prologue`` already found and by ``main`` through broadcasts of per-row values."""
    if group.kind != "rowwise" or main.kind != "elementwise" or not main.full:
        return False
    lead, n = main.full[:-1], main.full[-1]
    w = group.full[-1]
    if group.lead != lead or len(group.full) != len(lead) + 1 or w * PROLOGUE_RATIO > n or (
            prod(lead) > 1 and w > MAX_PROLOGUE_ROW):
        return False
    members, mains = set(group.ops), set(main.ops)
    for op in group.ops:
        for r in op.results:
            for u in r.uses:
                user = u.operation
                if user in members or user in prologue:
                    continue
                # into main: a broadcast of a per-row value (a member, or rebuilt in main as a view)
                if not (isinstance(user, asctensor.BroadcastOp) and r.type.get_shape() == lead + (1,)
                        and (user in mains or all(w.operation in mains for w in user.result.uses))):
                    return False
    return True


def _reads_from(ops: list[Operation], members: set[Operation], through_reshape: bool) -> bool:
    """An op of ``ops`` reads a value of ``members`` (directly or through views; with
    ``through_reshape``, only through a slice or reshape)."""
    for op in ops:
        for v in op.operands:
            reshaped = False
            while v.owner not in members and isinstance(v.owner, VIEW_OPS):
                reshaped |= isinstance(v.owner, asctensor.SliceOp | asctensor.ReshapeOp)
                v = v.owner.input
            if v.owner in members and (reshaped or not through_reshape):
                return True
    return False


def _merge_prologues(groups: list[_Group]) -> list[_Group]:
    """Row-wise groups just before an elementwise group that can run as its row prologue join it,
    with the broadcasts that carry their per-row results into it; the elementwise group before the
    prologue, over the same shape, joins too (the prologue had only split them)."""
    out: list[_Group] = []
    for g in groups:
        prologue: list[Operation] = []
        while g.kind == "elementwise" and g.ops and out and out[-1].ops and _prologue_of(out[-1], g, set(prologue)):
            prologue = out.pop().ops + prologue
        if prologue:
            members = set(prologue) | set(g.ops)
            spread = [u.operation for op in prologue for r in op.results for u in r.uses
                      if isinstance(u.operation, asctensor.BroadcastOp) and u.operation not in members]
            members |= set(spread)
            before = out[-1] if out else None
            if before is not None and before.kind == "elementwise" and before.full == g.full and before.ops \
                    and not _reads_from(prologue, set(before.ops), False) \
                    and not _reads_from(g.ops, set(before.ops), True):
                members |= set(out.pop().ops)
            block = g.ops[0].parent_block()
            order = {op: i for i, op in enumerate(block.ops)}
            g.ops = sorted(members, key=order.__getitem__)
        out.append(g)
    return out


def _outline(module: ModuleOp, host: func.FuncOp, kind: str, group: list[Operation], index: int) -> None:
    members = set(group)
    outputs = [r for op in group for r in op.results if any(u.operation not in members for u in r.uses)]
    outline_group(host, f"{host.sym_name.data}_k{index}", kind, group, outputs)


def _reshaped_kernel_result(v: SSAValue) -> bool:
    """``v`` is a reshape of a kernel's result that nothing else reads: the kernel writes the output in its own
    shape (``host-to-gm`` views the output with it)."""
    op = v.owner
    return (isinstance(op, asctensor.ReshapeOp) and isinstance(op.input.owner, func.CallOp)
            and op.input.has_one_use())


def _copy_returned_inputs(host: func.FuncOp) -> None:
    """A result that is an argument, or returned twice, or a view (other than a reshape of a kernel's result), gets
    its own copy (``x * 1``, exact), so every output is written by a kernel."""
    ret = host.body.block.last_op
    seen: set[SSAValue] = set()
    for i, v in enumerate(list(ret.operands)):
        if v in host.body.block.args or v in seen or (
                isinstance(v.owner, VIEW_OPS + (asctensor.FullOp,)) and not _reshaped_kernel_result(v)):
            new_ops = exact_copy(v)
            for op in new_ops:
                copy_loc(ret, op)
                Rewriter.insert_op(op, InsertPoint.before(ret))
            ret.operands[i] = new_ops[-1].results[0]
            v = new_ops[-1].results[0]
        seen.add(v)


def _materialize_moved_splats(host: func.FuncOp) -> None:
    """A transpose, slice or concat moves memory: a splat (or a view of one) it reads is computed into GM first
    by an exact copy (``full * 1``), an elementwise kernel of its own. A view of a splat is the splat of the view's
    shape, so the copy starts from that (an elementwise kernel holds no slice)."""
    for op in list(host.body.block.ops):
        if not isinstance(op, MOVEMENT_OPS):
            continue
        for i, v in enumerate(list(op.operands)):
            root = view_root(v).owner
            if isinstance(root, asctensor.FullOp):
                if v.owner is not root:
                    splat = asctensor.FullOp(root.scalar, v.type)
                    copy_loc(op, splat)
                    Rewriter.insert_op(splat, InsertPoint.before(op))
                    v = splat.result
                _replace_by_copy(op, i, v)


def _materialize_split_rows(host: func.FuncOp) -> None:
    """A reduction whose operand reads only part of its rows in place (a column slice summed whole, a transposed
    view) reads an exact copy of it instead: the copy's kernel reads the view element by element."""
    for op in list(host.body.block.ops):
        rows = reduction_rows(op)
        if rows is None or rows[1] is None or not _splits_a_row([op], *rows):
            continue
        for i, v in enumerate(list(op.operands)):
            if isinstance(v.owner, VIEW_OPS):
                _replace_by_copy(op, i, v)


def _materialize_unviewable_reshapes(host: func.FuncOp) -> None:
    """A reshape of a view whose elements are not one run where the reshape merges them (a column slice
    flattened, a broadcast reshaped) reads an exact copy of the view, as PyTorch's ``reshape`` copies."""
    for op in list(host.body.block.ops):
        if not isinstance(op, asctensor.ReshapeOp) or not isinstance(op.input.owner, VIEW_OPS):
            continue
        chain, v = [], op.input
        while isinstance(v.owner, VIEW_OPS):
            chain.append(v)
            v = v.owner.input
        views = {v: (v, v.type.get_shape(), row_major(v.type.get_shape()), 0)}
        try:
            for w in [*reversed(chain), op.result]:
                views[w] = view_source(w, (), views)
        except TilingError:
            _replace_by_copy(op, 0, op.input)


def _materialize_pool_views(host: func.FuncOp) -> None:
    """A ``max_pool2d`` reads its input as a kernel input, through reshapes only (``tile-pool`` loads rows of a
    whole tensor): a slice or broadcast there is an exact copy first (``x[0:1]`` pooled)."""
    for op in list(host.body.block.ops):
        if isinstance(op, asctensor.MaxPool2dOp):
            _copy_view_operand(op, 0)


def _materialize_call_views(host: func.FuncOp) -> None:
    """A kernel outlined before (a matmul or convolution) reads whole GM tensors: a slice or broadcast it takes
    (through reshapes) is an exact copy first (``conv2d(x[:, :2], w)``), as the host has no views to pass."""
    for op in list(host.body.block.ops):
        if isinstance(op, func.CallOp):
            for i in range(len(op.operands)):
                _copy_view_operand(op, i)


def _copy_view_operand(op: Operation, i: int) -> None:
    """Operand ``i`` of ``op``, seen through reshapes: an exact copy of it where it is a slice or broadcast."""
    user, index, v = op, i, op.operands[i]
    while isinstance(v.owner, asctensor.ReshapeOp):
        user, index, v = v.owner, 0, v.owner.input
    if isinstance(v.owner, VIEW_OPS):
        _replace_by_copy(user, index, v)


def _replace_by_copy(op: Operation, i: int, v: SSAValue) -> None:
    new_ops = exact_copy(v)
    for new in new_ops:
        copy_loc(op, new)
        Rewriter.insert_op(new, InsertPoint.before(op))
    op.operands[i] = new_ops[-1].results[0]


@dataclass(frozen=True)
class AscTensorFusePass(ModulePass):
    """Outline each run of same-shape elementwise ops into one kernel function."""

    name = "asctensor-fuse"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        max_row = module_target(op).ub_usable_bytes // MAX_ROW_BYTES_PER_ELEMENT
        for host in host_functions(op):
            _copy_returned_inputs(host)
            _materialize_moved_splats(host)
            _materialize_split_rows(host)
            _materialize_unviewable_reshapes(host)
            _materialize_pool_views(host)
            _materialize_call_views(host)
            groups = _merge_prologues(_groups(list(host.body.block.ops), max_row))
            for i, group in enumerate(g for g in groups if g.ops):
                _outline(op, host, group.kind, group.ops, i)
            for inner in reversed(list(host.body.block.ops)):
                if isinstance(inner, VIEW_OPS + (asctensor.FullOp,)) and not inner.results[0].uses:
                    Rewriter.erase_op(inner)
