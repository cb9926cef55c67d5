"""Replacing a tensor-level kernel by its tiled form while every call of it stays valid.

A tiling pass turns a kernel ``(tensors) -> (tensors)`` into a kernel on GM buffers: its inputs, then
one buffer per result (destination passing). ``replace_kernel`` swaps the function and rewrites each
call in the (still tensor-level) host function the MLIR way, with ``builtin.unrealized_conversion_cast``
between a tensor and the GM buffer holding it::

    %a_gm = builtin.unrealized_conversion_cast %a : tensor<...> to memref<...>
    %r_gm = memref.alloc() : memref<...>
    func.call @k(%a_gm, %r_gm) : (memref<...>, memref<...>) -> ()
    %r = builtin.unrealized_conversion_cast %r_gm : memref<...> to tensor<...>

so each tiling pass leaves a valid module on its own; ``host-to-gm`` then moves the host functions onto
GM buffers and the casts disappear.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.rewriter import InsertPoint, Rewriter

from .emitter import OpEmitter


def replace_kernel(old: func.FuncOp, new: func.FuncOp) -> None:
    """Replace kernel ``old`` by ``new`` (same name, GM buffers: inputs then results) and its calls."""
    module = old.parent_op()
    name = old.sym_name.data
    calls = [] if module is None else [op for op in module.walk()
                                       if isinstance(op, func.CallOp) and op.callee.root_reference.data == name]
    Rewriter.replace_op(old, new)
    buffer_types = list(new.function_type.inputs.data)
    for call in calls:
        e = OpEmitter(InsertPoint.before(call))
        n_in = len(call.arguments)
        ins = [e.value(UnrealizedConversionCastOp.get([v], [t])) for v, t in zip(call.arguments, buffer_types)]
        outs = [e.value(memref.AllocOp([], [], t)) for t in buffer_types[n_in:]]
        e.loc_from = call
        e.add(func.CallOp(call.callee, ins + outs, []))
        after = OpEmitter(InsertPoint.after(call))
        results = [after.value(UnrealizedConversionCastOp.get([b], [r.type])) for b, r in zip(outs, call.results)]
        for r, v in zip(call.results, results):
            if r.name_hint:
                v.name_hint = r.name_hint
        Rewriter.replace_op(call, [], results)
