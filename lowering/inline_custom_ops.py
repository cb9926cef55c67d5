"""``inline-custom-ops``: every call of a user-defined op becomes the op's decomposition.

A traced call of an op registered with ``pyasc.register_op`` is a ``func.call`` marked
``pyasc.custom_op`` (``asctensor.CUSTOM_OP_ATTR``) whose callee, a private function marked the same
way, holds the decomposition traced for the call's shapes and dtypes. The calls are replaced by
copies of the callee's body (callees calling other custom ops are inlined until none is left) and the
callees are dropped, so the rest of the compiler sees ordinary ops. Runs first at the tensor level.
A decomposition that calls itself, directly or through others, is refused: it would never be inlined.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects.asctensor import CUSTOM_OP_ATTR
from pyasc.lowering.errors import CompileError


def inline_custom_ops(module: ModuleOp) -> None:
    """Replace every call of a custom op by its decomposition and drop the private functions."""
    callees = {op.sym_name.data: op for op in module.body.block.ops
               if isinstance(op, func.FuncOp) and CUSTOM_OP_ATTR in op.attributes}
    if not callees:
        return
    _refuse_recursion(callees)
    changed = True
    while changed:
        changed = False
        for call in [op for op in module.walk() if isinstance(op, func.CallOp)]:
            callee = callees.get(call.callee.root_reference.data)
            if callee is None:
                continue
            mapping = dict(zip(callee.body.block.args, call.arguments))
            results = None
            for op in callee.body.block.ops:
                if isinstance(op, func.ReturnOp):
                    results = [mapping.get(v, v) for v in op.arguments]
                    break
                Rewriter.insert_op(op.clone(value_mapper=mapping), InsertPoint.before(call))
            Rewriter.replace_op(call, [], results)
            changed = True
    for fn in callees.values():
        Rewriter.erase_op(fn)


def _callees_of(fn: func.FuncOp, callees: dict) -> list[str]:
    return [op.callee.root_reference.data for op in fn.walk()
            if isinstance(op, func.CallOp) and op.callee.root_reference.data in callees]


def _refuse_recursion(callees: dict) -> None:
    """A ``CompileError`` naming the cycle when a custom op's decomposition calls itself, directly or
    through other custom ops (inlining would never end)."""
    state: dict[str, int] = {}  # 1: on the path being followed, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for callee in _callees_of(callees[name], callees):
            if state.get(callee) == 1:
                cycle = path[path.index(callee):] + [callee]
                op = callees[callee].attributes[CUSTOM_OP_ATTR]
                raise CompileError(f"inline-custom-ops: the decomposition of custom op {op} (@{callee}) calls "
                                   f"itself ({' -> '.join('@' + c for c in cycle)}): it cannot be inlined")
            if callee not in state:
                visit(callee, path + [callee])
        state[name] = 2

    for name in callees:
        if name not in state:
            visit(name, [name])


@dataclass(frozen=True)
class InlineCustomOpsPass(ModulePass):
    """Inline every call of a user-defined op (see the module docstring)."""

    name = "inline-custom-ops"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_custom_ops(op)
