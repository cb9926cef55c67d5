"""``asctensor-fuse``: group elementwise ops into kernels, one ``func.func`` per group.

Consecutive ops of the host function that iterate over the same shape form one group
(broadcasts belong to the group of their result, since loads broadcast for free); a shape
change starts a new group. A reduction over the trailing axes of the group's shape joins it and
makes it ``rowwise``: the per-row results (shape ``lead`` or ``lead x 1...``), elementwise ops on
them and their broadcasts back to the row stay in the same kernel (softmax is one kernel). A
reduction over leading axes is a ``colreduce`` kernel of its own. Each group is outlined into ``@<host>_k<i>`` marked
``asctensor.kernel`` and called with ``func.call``; splat constants are cloned into every kernel
that uses them, so a scalar never costs a GM buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float32Type, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import asctensor

from .emitter import copy_loc


def _is_kernel(f: func.FuncOp) -> bool:
    return asctensor.KERNEL_ATTR in f.attributes


def host_functions(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in module.ops if isinstance(f, func.FuncOp) and not _is_kernel(f)
            and not f.is_declaration]


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


def reduction_rows(op: Operation) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(input shape, lead dims) of a reduction over trailing axes (size-1 axes do not count);
    None for other ops. A reduction over leading axes gives lead = None in a 1-tuple."""
    if isinstance(op, asctensor.ReduceOp):
        shape, axes = op.input.type.get_shape(), op.axis_list
    elif isinstance(op, asctensor.ArgReduceOp):
        shape, axes = op.input.type.get_shape(), (op.axis.value.data,)
    else:
        return None
    first = min(axes)
    trailing = all(i in axes or shape[i] == 1 for i in range(first, len(shape)))
    return shape, (shape[:first] if trailing else None)


def _groups(ops: list[Operation]) -> list[_Group]:
    groups: list[_Group] = []
    for op in ops:
        if isinstance(op, asctensor.FullOp | func.ReturnOp | func.CallOp) or not op.results:
            continue
        cur = groups[-1] if groups else None
        if isinstance(op, asctensor.BroadcastOp) and (cur is None or op.input.owner not in cur.ops):
            continue  # a broadcast of a kernel input is free: cloned into each kernel that reads it
        rows = reduction_rows(op)
        if rows is not None:
            shape, lead = rows
            if lead is None:
                groups.append(_Group("colreduce", shape, None, [op]))
            elif cur is not None and cur.full == shape and cur.kind != "colreduce" and cur.lead in (None, lead):
                cur.kind, cur.lead = "rowwise", lead
                cur.ops.append(op)
            else:
                groups.append(_Group("rowwise", shape, lead, [op]))
            continue
        s = op.results[0].type.get_shape()
        if cur is not None and cur.kind != "colreduce" and (s == cur.full or s in cur.row_shapes()):
            cur.ops.append(op)
        else:
            groups.append(_Group("elementwise", s, None, [op]))
    return groups


def _outline(module: ModuleOp, host: func.FuncOp, kind: str, group: list[Operation], index: int) -> None:
    members = set(group)
    inputs: list[SSAValue] = []
    def cloned(v: SSAValue) -> bool:  # splats and broadcasts of inputs are rebuilt inside the kernel
        return v.owner not in members and isinstance(v.owner, asctensor.FullOp | asctensor.BroadcastOp)

    for op in group:
        for v in op.operands:
            if cloned(v) and isinstance(v.owner, asctensor.BroadcastOp):
                v = v.owner.input
            if v.owner in members or cloned(v) or v in inputs:
                continue
            inputs.append(v)
    outputs = [r for op in group for r in op.results if any(u.operation not in members for u in r.uses)]

    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for v, arg in zip(inputs, block.args):
        if v.name_hint:
            arg.name_hint = v.name_hint
    for op in group:
        for v in op.operands:
            if v not in mapping and cloned(v):
                if isinstance(v.owner, asctensor.BroadcastOp) and v.owner.input not in mapping:
                    src = v.owner.input.owner.clone()  # a broadcast splat
                    block.add_op(src)
                    mapping[v.owner.input] = src.results[0]
                const = v.owner.clone(value_mapper=mapping)
                block.add_op(const)
                mapping[v] = const.results[0]
        new = op.clone(value_mapper=mapping)
        block.add_op(new)
    block.add_op(func.ReturnOp(*[mapping[v] for v in outputs]))

    name = f"{host.sym_name.data}_k{index}"
    kernel = func.FuncOp(name, ([v.type for v in inputs], [v.type for v in outputs]), Region(block))
    kernel.attributes[asctensor.KERNEL_ATTR] = StringAttr(kind)
    Rewriter.insert_op(kernel, InsertPoint.before(host))

    call = func.CallOp(name, inputs, [v.type for v in outputs])
    copy_loc(group[0], call)
    Rewriter.insert_op(call, InsertPoint.after(group[-1]))
    for old, new in zip(outputs, call.results):
        if old.name_hint:
            new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    for op in reversed(group):
        Rewriter.erase_op(op)


def _copy_returned_inputs(host: func.FuncOp) -> None:
    """A result that is an argument, or returned twice, gets its own copy (``x * 1``, exact), so
    every output is written by a kernel."""
    ret = host.body.block.last_op
    seen: set[SSAValue] = set()
    for i, v in enumerate(list(ret.operands)):
        if v in host.body.block.args or v in seen or isinstance(v.owner, asctensor.FullOp):
            et = v.type.element_type
            if str(et) == "bf16":  # the vector unit computes no bf16: through f32 and back, exactly
                wide = asctensor.CastOp(v, TensorType(Float32Type(), v.type.get_shape()))
                new_ops = [wide, asctensor.CastOp(wide.result, v.type)]
            else:
                one = asctensor.FullOp(1 if str(et) in asctensor.INT_TYPES else 1.0, v.type)
                mul = arith.MuliOp if str(et) in asctensor.INT_TYPES else arith.MulfOp
                new_ops = [one, mul(v, one.result)]
            for op in new_ops:
                copy_loc(ret, op)
                Rewriter.insert_op(op, InsertPoint.before(ret))
            ret.operands[i] = new_ops[-1].results[0]
            v = new_ops[-1].results[0]
        seen.add(v)


@dataclass(frozen=True)
class AscTensorFusePass(ModulePass):
    """Outline each run of same-shape elementwise ops into one kernel function."""

    name = "asctensor-fuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for host in host_functions(op):
            _copy_returned_inputs(host)
            for i, group in enumerate(_groups(list(host.body.block.ops))):
                _outline(op, host, group.kind, group.ops, i)
            for inner in reversed(list(host.body.block.ops)):
                if isinstance(inner, asctensor.FullOp | asctensor.BroadcastOp) and not inner.result.uses:
                    Rewriter.erase_op(inner)
