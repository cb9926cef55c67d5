"""``host-to-gm``: host functions move from tensors to GM ``memref``s, destination passing.

Outputs become trailing arguments, intermediates between kernels ``memref.alloc``, and every
``func.call`` of a kernel passes its inputs then its outputs; a buffer the host reshaped is passed through a
``memref.reinterpret_cast`` to the kernel's shape (the same contiguous GM buffer). Runs after the kernels are
tiled: each tiling pass left the calls of its kernels on GM buffers between ``builtin.unrealized_conversion_cast``s
(``kernel_calls``), which resolve here to the host's own buffers.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType, UnrealizedConversionCastOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from pyasc.dialects import asctensor, asctile

from .emitter import copy_loc
from .errors import CompileError
from .tiling import row_major


def _memref(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


def _convert_host(host: func.FuncOp) -> func.FuncOp:
    """Tensor host function -> GM memrefs, destination-passing outputs, one call per kernel."""
    block = host.body.block
    results = list(block.last_op.operands)
    for v in results:
        if v in block.args or results.count(v) > 1:
            raise CompileError(f"@{host.sym_name.data}: returning an input, or one value twice, needs a copy "
                              "kernel, which is not supported; return a computed value")
    arg_types = [_memref(a.type) for a in block.args] + [_memref(v.type) for v in results]
    new_block = Block(arg_types=arg_types)
    n_in = len(block.args)
    buffer_of: dict[SSAValue, SSAValue] = dict(zip(block.args, new_block.args[:n_in]))
    for old, a in zip(block.args, new_block.args):
        a.name_hint = old.name_hint
    for i, (v, a) in enumerate(zip(results, new_block.args[n_in:])):
        a.name_hint = f"out{i}"
        buffer_of[v] = a
    for v in results:  # a result held by a tiled call's buffer: the call writes the output argument
        if isinstance(v.owner, UnrealizedConversionCastOp):
            buffer_of[v.owner.inputs[0]] = buffer_of[v]
        elif isinstance(v.owner, asctensor.ReshapeOp) and isinstance(v.owner.input.owner, UnrealizedConversionCastOp):
            # a reshape of a tiled call's result: the call writes the output argument viewed with its shape
            held = v.owner.input.owner.inputs[0]
            shape = held.type.get_shape()
            view = memref.ReinterpretCastOp(buffer_of[v], [], [], [], [0], shape, row_major(shape), held.type)
            new_block.add_op(copy_loc(v.owner, view))
            buffer_of[held] = view.result
    for op in block.ops:
        if isinstance(op, UnrealizedConversionCastOp):  # a tensor and the GM buffer holding it: one buffer
            for src, dst in zip(op.inputs, op.results):
                buffer_of.setdefault(dst, buffer_of[src])
        elif isinstance(op, memref.AllocOp):
            if op.memref not in buffer_of:
                alloc = memref.AllocOp([], [], op.memref.type)
                new_block.add_op(alloc)
                buffer_of[op.memref] = alloc.memref
        elif isinstance(op, func.CallOp):
            if op.results or not all(isinstance(v.type, MemRefType) for v in op.arguments):
                raise CompileError(f"@{host.sym_name.data}: kernel @{op.callee.root_reference.data} is not tiled "
                                   "(run the tile passes first)")
            args = []
            for v in op.arguments:
                buf = buffer_of[v]
                if buf.type != v.type:  # a reshape between kernels: the buffer viewed with the kernel's shape
                    shape = v.type.get_shape()
                    view = memref.ReinterpretCastOp(buf, [], [], [], [0], shape, row_major(shape), v.type)
                    new_block.add_op(copy_loc(op, view))
                    buf = view.result
                args.append(buf)
            call = func.CallOp(op.callee, args, [])
            new_block.add_op(copy_loc(op, call))
        elif isinstance(op, asctensor.ReshapeOp) and op.input in buffer_of:
            # a reshape between kernels: the same contiguous GM buffer, read with the new shape
            buffer_of.setdefault(op.result, buffer_of[op.input])
        elif not isinstance(op, func.ReturnOp):
            raise CompileError(f"@{host.sym_name.data}: {op.name} outside a kernel (run asctensor-fuse first)")
    new_block.add_op(func.ReturnOp())
    new = func.FuncOp(host.sym_name.data, (arg_types, []), Region(new_block))
    return new


@dataclass(frozen=True)
class HostToGmPass(ModulePass):
    """Rewrite every host function (a ``func.func`` that is not a kernel) onto GM buffers."""

    name = "host-to-gm"
    INPUT_LEVEL = "asctile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.ops):
            if (isinstance(f, func.FuncOp) and not f.is_declaration and asctile.KERNEL_ATTR not in f.attributes
                    and asctensor.KERNEL_ATTR not in f.attributes
                    and any(isinstance(t, TensorType)
                            for t in (*f.function_type.inputs.data, *f.function_type.outputs.data))):
                Rewriter.replace_op(f, _convert_host(f))
