"""Outlining a group of ops of a host function into a kernel function called in their place
(``asctensor-fuse`` and ``asctensor-fuse-matmul``)."""

from __future__ import annotations

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import VIEW_OPS, is_view_of_input
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from .emitter import copy_loc


def free_symbol(host: func.FuncOp, name: str) -> str:
    """``name``, or ``name_1``, ``name_2``, ... if the module of ``host`` already defines it (a module
    may hold kernels outlined earlier under the names a pass would pick)."""
    module = host.parent_op()
    taken = {op.sym_name.data for op in module.walk() if isinstance(op, func.FuncOp)} if module else set()
    free, n = name, 0
    while free in taken:
        n += 1
        free = f"{name}_{n}"
    return free


def reads_outputs_reshaped(members: set[Operation], outputs, results, anchor: Operation) -> None:
    """Uses outside ``members`` of a value that an output reshapes (a product's result whose reshape is the
    group's output, read through another reshape as well) read the kernel's result (``results``, in the order of
    ``outputs``) reshaped back, inserted after ``anchor``: the group's ops then have no use left."""
    for out, res in zip(outputs, results):
        v = out
        while isinstance(v.owner, asctensor.ReshapeOp) and v.owner in members:
            v = v.owner.input
            outside = [u for u in v.uses if u.operation not in members]
            if outside and v.owner in members:
                back = asctensor.ReshapeOp(res, list(v.type.get_shape()))
                copy_loc(anchor, back)
                Rewriter.insert_op(back, InsertPoint.after(anchor))
                for u in outside:
                    u.operation.operands[u.index] = back.result


def outline_group(host: func.FuncOp, name: str, kind: str, group: list[Operation],
                  outputs: list[SSAValue]) -> func.CallOp:
    """Move ``group`` into a new kernel ``name`` (marked ``kind``) returning ``outputs``, called from
    ``host`` in its place. Splats and views of values from outside are rebuilt inside the kernel, so
    their sources (not the views) become the kernel's inputs."""
    members = set(group)
    inputs: list[SSAValue] = []

    def cloned(v: SSAValue) -> bool:  # splats and views of inputs are rebuilt inside the kernel
        return is_view_of_input(v, members)

    def root(v: SSAValue) -> SSAValue:
        while isinstance(v.owner, VIEW_OPS) and cloned(v):
            v = v.owner.input
        return v

    for op in group:
        for v in op.operands:
            v = root(v) if cloned(v) else v
            if v.owner in members or cloned(v) or v in inputs:
                continue
            inputs.append(v)

    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for v, arg in zip(inputs, block.args):
        if v.name_hint:
            arg.name_hint = v.name_hint

    def rebuild(v: SSAValue) -> SSAValue:
        if v not in mapping:
            if isinstance(v.owner, VIEW_OPS):
                rebuild(v.owner.input)
            new = v.owner.clone(value_mapper=mapping)
            block.add_op(new)
            mapping[v] = new.results[0]
        return mapping[v]

    for op in group:
        for v in op.operands:
            if v not in mapping and cloned(v):
                rebuild(v)
        block.add_op(op.clone(value_mapper=mapping))
    block.add_op(func.ReturnOp(*[mapping[v] for v in outputs]))

    name = free_symbol(host, name)
    kernel = func.FuncOp(name, ([v.type for v in inputs], [v.type for v in outputs]), Region(block))
    kernel.attributes[asctensor.KERNEL_ATTR] = StringAttr(kind)
    Rewriter.insert_op(kernel, InsertPoint.before(host))

    call = func.CallOp(name, inputs, [v.type for v in outputs])
    copy_loc(group[0], call)
    Rewriter.insert_op(call, InsertPoint.after(group[-1]))
    reads_outputs_reshaped(members, outputs, call.results, call)
    for old, new in zip(outputs, call.results):
        if old.name_hint:
            new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    for op in reversed(group):  # a view also read outside the group stays for those reads (it is cloned inside)
        if not (isinstance(op, VIEW_OPS) and any(r.uses for r in op.results)):
            Rewriter.erase_op(op)
    return call
