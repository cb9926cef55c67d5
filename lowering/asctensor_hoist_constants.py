"""``asctensor-hoist-constants``: computations on constants move out of the program.

In a function with parameters marked ``asctensor.constant`` (weights), every op whose operands are
all constants (``const_eval.constant_values``: weight transposes, reshapes, casts, a folded batch
norm's products) moves into a new private function ``@<name>_constants`` marked
``asctensor.constants_of = "<name>"``. It takes the constant parameters of ``@<name>`` and returns
its new ones: the old ones still used, then the hoisted values ``@<name>`` uses, all marked
``asctensor.constant`` and placed where the old ones were. The caller runs that function once per
set of weights, on the host (``const_eval.take_constants``), and every run of ``@<name>`` reads the
results. Splats stay (a kernel builds them for free), as does a broadcast whose users all stay
(hoisting it would only enlarge the data read). A call of a kernel whose arguments are all constants and whose
ops the host evaluates (``const_eval.evaluable``: the ``im2col`` of a weight that ``asctensor-fuse-matmul``
outlined) is inlined first, so it moves too; the kernel goes once no call is left.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import asctensor
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from .const_eval import constant_args, constant_values, evaluable
from .outline import free_symbol

MARK = DictionaryAttr({asctensor.CONSTANT_ATTR: UnitAttr()})


def _inline_constant_kernels(module: ModuleOp, fn: func.FuncOp) -> None:
    """Calls in ``fn`` of kernels whose arguments are all constants and whose ops the host evaluates, replaced by
    the kernels' ops; such a kernel with no call left is erased."""
    kernels = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)
               and asctensor.KERNEL_ATTR in f.attributes and not f.is_declaration}
    inlined, known = set(), constant_values(fn)
    for call in [o for o in fn.body.block.ops if isinstance(o, func.CallOp)]:
        kernel = kernels.get(call.callee.root_reference.data)
        if kernel is None or not call.operands or not set(call.operands) <= known:
            continue
        body = list(kernel.body.block.ops)
        if not all(evaluable(o) for o in body[:-1]):
            continue
        mapping = dict(zip(kernel.body.block.args, call.operands))
        for inner in body[:-1]:
            Rewriter.insert_op(clone := inner.clone(value_mapper=mapping), InsertPoint.before(call))
            mapping.update(zip(inner.results, clone.results))
            known.update(clone.results)  # computed from constants: a later call may read them
        for old_result, value in zip(call.results, body[-1].operands):
            old_result.replace_all_uses_with(mapping.get(value, value))
        Rewriter.erase_op(call)
        inlined.add(kernel)
    for kernel in inlined:
        name = kernel.sym_name.data
        if not any(isinstance(o, func.CallOp) and o.callee.root_reference.data == name for o in module.walk()):
            Rewriter.erase_op(kernel)


def _hoisted(fn: func.FuncOp) -> list[Operation]:
    """The ops of ``fn`` computed from constant parameters (and splats) only, in order; what splats
    alone give stays, and so do broadcasts feeding the program only."""
    known, derived = constant_values(fn), set(constant_args(fn))
    ops = []
    for op in fn.body.block.ops:
        if op.results and op.results[0] in known and any(v in derived for v in op.operands):
            ops.append(op)
            derived.add(op.results[0])
    moved = set(ops)
    for op in reversed(ops):
        if isinstance(op, asctensor.BroadcastOp) and not any(u.operation in moved for u in op.result.uses):
            moved.discard(op)
    return [op for op in ops if op in moved]


def _outline(fn: func.FuncOp, hoisted: list[Operation]) -> None:
    block, moved = fn.body.block, set(hoisted)
    params = constant_args(fn)
    old_attrs = dict(zip(block.args, fn.arg_attrs.data))
    # the values the program reads: hoisted results with a use that stays
    outputs = [op.results[0] for op in hoisted if any(u.operation not in moved for u in op.results[0].uses)]
    # the constants function: the hoisted ops (and the splats they read) over the constant parameters
    body = Block(arg_types=[a.type for a in params])
    mapping: dict[SSAValue, SSAValue] = {}
    splats: list[Operation] = []

    def clone_splat(v: SSAValue) -> None:     # what splats alone give, cloned with its operands
        for w in v.owner.operands:
            if w not in mapping:
                clone_splat(w)
        body.add_op(clone := v.owner.clone(value_mapper=mapping))
        mapping[v] = clone.results[0]
        splats.append(v.owner)

    for a, new in zip(params, body.args):
        new.name_hint, mapping[a] = a.name_hint, new
    for op in hoisted:
        for v in op.operands:
            if v not in mapping:
                clone_splat(v)
        body.add_op(clone := op.clone(value_mapper=mapping))
        mapping.update(zip(op.results, clone.results))
    kept = [a for a in params if any(u.operation not in moved for u in a.uses)]
    body.add_op(func.ReturnOp(*[mapping[v] for v in [*kept, *outputs]]))
    name = fn.sym_name.data
    consts = func.FuncOp(free_symbol(fn, f"{name}_constants"), ([a.type for a in params],
                         [v.type for v in [*kept, *outputs]]), Region(body), visibility="private",
                         arg_attrs=ArrayAttr([MARK] * len(params)))
    consts.attributes[asctensor.CONSTANTS_OF_ATTR] = StringAttr(name)
    Rewriter.insert_op(consts, InsertPoint.before(fn))
    # the program: the hoisted values become parameters after the kept ones, the rest goes
    at = block.args.index(kept[-1]) + 1 if kept else block.args.index(params[0])
    for i, v in enumerate(outputs):
        arg = block.insert_arg(v.type, at + i)
        arg.name_hint = f"folded{i}"
        old_attrs[arg] = MARK
        for use in list(v.uses):
            if use.operation not in moved:
                use.operation.operands[use.index] = arg
    for op in [*reversed(hoisted), *reversed(splats)]:
        if not op.results[0].uses:
            Rewriter.erase_op(op)
    for a in params:
        if a not in kept:
            block.erase_arg(a)
    fn.arg_attrs = ArrayAttr([old_attrs.get(a, DictionaryAttr({})) for a in block.args])
    fn.function_type = FunctionType.from_lists([a.type for a in block.args], list(fn.function_type.outputs.data))


@dataclass(frozen=True)
class AscTensorHoistConstantsPass(ModulePass):
    """Move computations on constant parameters into a function evaluated once per set of constants."""

    name = "asctensor-hoist-constants"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and not f.is_declaration
                   and asctensor.CONSTANTS_OF_ATTR not in f.attributes]:
            if constant_args(fn):
                _inline_constant_kernels(op, fn)
            hoisted = _hoisted(fn) if constant_args(fn) else []
            if hoisted:
                _outline(fn, hoisted)
