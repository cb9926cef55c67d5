"""``asctensor-fuse``: group elementwise ops into kernels, one ``func.func`` per group.

Consecutive ops of the host function that iterate over the same shape form one group
(broadcasts belong to the group of their result, since loads broadcast for free); a shape
change starts a new group. Each group is outlined into ``@<host>_k<i>`` marked
``asctensor.kernel`` and called with ``func.call``; splat constants are cloned into every kernel
that uses them, so a scalar never costs a GM buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp, StringAttr
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


def _groups(ops: list[Operation]) -> list[list[Operation]]:
    groups: list[list[Operation]] = []
    shape = None
    for op in ops:
        if isinstance(op, asctensor.FullOp) or isinstance(op, func.ReturnOp) or not op.results:
            continue
        s = op.results[0].type.get_shape()
        if not groups or s != shape:
            groups.append([])
            shape = s
        groups[-1].append(op)
    return groups


def _outline(module: ModuleOp, host: func.FuncOp, group: list[Operation], index: int) -> None:
    members = set(group)
    inputs: list[SSAValue] = []
    for op in group:
        for v in op.operands:
            if v.owner in members or isinstance(v.owner, asctensor.FullOp) or v in inputs:
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
            if v not in mapping and isinstance(v.owner, asctensor.FullOp):
                const = v.owner.clone()
                block.add_op(const)
                mapping[v] = const.result
        new = op.clone(value_mapper=mapping)
        block.add_op(new)
    block.add_op(func.ReturnOp(*[mapping[v] for v in outputs]))

    name = f"{host.sym_name.data}_k{index}"
    kernel = func.FuncOp(name, ([v.type for v in inputs], [v.type for v in outputs]), Region(block))
    kernel.attributes[asctensor.KERNEL_ATTR] = StringAttr("elementwise")
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
            one = asctensor.FullOp(1 if str(et) in asctensor.INT_TYPES else 1.0, v.type)
            mul = arith.MuliOp(v, one.result) if str(et) in asctensor.INT_TYPES else arith.MulfOp(v, one.result)
            for op in (one, mul):
                copy_loc(ret, op)
                Rewriter.insert_op(op, InsertPoint.before(ret))
            ret.operands[i] = mul.result
            v = mul.result
        seen.add(v)


@dataclass(frozen=True)
class AscTensorFusePass(ModulePass):
    """Outline each run of same-shape elementwise ops into one kernel function."""

    name = "asctensor-fuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for host in host_functions(op):
            _copy_returned_inputs(host)
            for i, group in enumerate(_groups(list(host.body.block.ops))):
                _outline(op, host, group, i)
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.FullOp) and not inner.result.uses:
                    Rewriter.erase_op(inner)
