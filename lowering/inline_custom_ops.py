"""``inline-custom-ops``: every call of a user-defined op becomes the op's decomposition.

A traced call of an op registered with ``pyasc.register_op`` is a ``func.call`` marked
``pyasc.custom_op`` (``asctensor.CUSTOM_OP_ATTR``) whose callee, a private function marked the same
way, holds the decomposition traced for the call's shapes and dtypes. The calls are replaced by
copies of the callee's body (callees calling other custom ops are inlined until none is left) and the
callees are dropped, so the rest of the compiler sees ordinary ops. Runs first at the tensor level.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects.asctensor import CUSTOM_OP_ATTR


def inline_custom_ops(module: ModuleOp) -> None:
    """Replace every call of a custom op by its decomposition and drop the private functions."""
    callees = {op.sym_name.data: op for op in module.body.block.ops
               if isinstance(op, func.FuncOp) and CUSTOM_OP_ATTR in op.attributes}
    if not callees:
        return
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


@dataclass(frozen=True)
class InlineCustomOpsPass(ModulePass):
    """Inline every call of a user-defined op (see the module docstring)."""

    name = "inline-custom-ops"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_custom_ops(op)
