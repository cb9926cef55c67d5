"""``asctensor-fuse-conv-prologue``: a convolution's NCHW -> NHWC input transpose joins its cube kernel.

An implicit GEMM (``asctensor-fuse-matmul``) reads its input as NHWC. When that input is an NCHW tensor, a
``movement`` kernel transposes it first, and the whole transpose passes through HBM before the cube starts. This
pass merges that kernel into the convolution's: the ``matmul`` kernel whose NHWC argument is only read by its
``im2col_nhwc`` and comes, at every call, from a call of a kernel that is nothing but the transpose
``[0, 2, 3, 1]`` of its argument, read by nothing else, becomes a ``conv_prologue`` kernel:

* it takes the NCHW tensor in place of the NHWC one and starts with the transpose;
* it returns the transposed tensor first (the GM workspace the vector cores fill and the cube reads), then its
  result.

``tile-conv-prologue`` splits it over the AI Core: the AIVs lay out each block's input rows while the AIC
computes the blocks before. It applies where that tiling can (``prologue_tile``): 2- or 4-byte types
``TransDataTo5HD`` takes, whole 16-channel groups, a stage's tile within a quarter of UB.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import CONV_PROLOGUE_KIND, MATMUL_KIND, kernel_kind
from pyasc.dialects.ascendc.movement import TRANS_5HD_DTYPES
from pyasc.dialects.target import module_target

from .analysis.conv import prologue_tile
from .analysis.matmul import CubeTilingError
from .emitter import copy_loc
from .matmul_tiler import implicit_gemm_plan

NHWC = (0, 2, 3, 1)


def _is_nhwc_transpose(f: func.FuncOp) -> bool:
    """``f`` is a kernel that returns the NHWC transpose of its one argument, and does nothing else."""
    ops = list(f.body.block.ops)
    if len(ops) != 2 or len(f.body.block.args) != 1:
        return False
    t, ret = ops
    return (isinstance(t, asctensor.TransposeOp) and t.input is f.body.block.args[0]
            and t.perm == NHWC and tuple(ret.operands) == (t.result,))


def _patches_argument(f: func.FuncOp) -> int | None:
    """The index of the argument of the ``matmul`` kernel ``f`` read only by one ``im2col_nhwc``, if any."""
    for i, a in enumerate(f.body.block.args):
        users = [u.operation for u in a.uses]
        if len(users) == 1 and isinstance(users[0], asctensor.Im2colNhwcOp):
            return i
    return None


def _with_prologue(f: func.FuncOp, index: int, nchw: TensorType) -> func.FuncOp:
    """``f`` taking the NCHW tensor at ``index``, transposing it first, returning the transpose and its result."""
    old = f.body.block
    arg = old.args[index]
    types = [a.type for a in old.args]
    types[index] = nchw
    block = Block(arg_types=types)
    for a, b in zip(old.args, block.args):
        b.name_hint = a.name_hint
    im2col = next(iter(arg.uses)).operation
    t = copy_loc(im2col, asctensor.TransposeOp(block.args[index], NHWC))
    block.add_op(t)
    mapping = {a: b for a, b in zip(old.args, block.args)}
    mapping[arg] = t.result
    for op in old.ops:
        if isinstance(op, func.ReturnOp):
            block.add_op(func.ReturnOp(t.result, *[mapping[v] for v in op.operands]))
        else:
            block.add_op(op.clone(value_mapper=mapping))
    outs = [arg.type, *f.function_type.outputs.data]
    new = func.FuncOp(f.sym_name.data, (types, outs), Region(block))
    new.attributes[asctensor.KERNEL_ATTR] = StringAttr(CONV_PROLOGUE_KIND)
    return new


def _tiles(spec, f: func.FuncOp, index: int) -> bool:
    """Whether ``tile-conv-prologue`` can split the kernel ``f`` (``prologue_tile``), its type one TransDataTo5HD
    takes."""
    try:
        plan, geo, es, patches_as_a = implicit_gemm_plan(f, spec)
    except CubeTilingError:
        return False
    et = str(f.body.block.args[index].type.element_type)
    return et in TRANS_5HD_DTYPES and prologue_tile(spec, plan, geo, es, patches_as_a) is not None


@dataclass(frozen=True)
class AscTensorFuseConvProloguePass(ModulePass):
    """Merge an implicit GEMM's NCHW -> NHWC input transpose into its kernel (see the module docstring)."""

    name = "asctensor-fuse-conv-prologue"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op)
        funcs = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        calls: dict[str, list[func.CallOp]] = {}
        for c in op.walk():
            if isinstance(c, func.CallOp):
                calls.setdefault(c.callee.root_reference.data, []).append(c)
        for f in list(funcs.values()):
            if kernel_kind(f) != MATMUL_KIND or f.sym_name.data not in calls:
                continue
            index = _patches_argument(f)
            if index is None:
                continue
            feeds = [c.arguments[index].owner for c in calls[f.sym_name.data]]
            if not all(isinstance(t, func.CallOp) and len(t.results) == 1 and t.results[0].has_one_use()
                       and _is_nhwc_transpose(funcs[t.callee.root_reference.data]) for t in feeds):
                continue
            nchw = feeds[0].arguments[0].type
            if any(t.arguments[0].type != nchw for t in feeds) or not _tiles(spec, f, index):
                continue
            new = _with_prologue(f, index, nchw)
            Rewriter.replace_op(f, new)
            for call, feed in zip(calls[f.sym_name.data], feeds):
                args = list(call.arguments)
                args[index] = feed.arguments[0]
                fused = copy_loc(call, func.CallOp(call.callee, args, [r.type for r in new.body.block.last_op.operands]))
                fused.results[0].name_hint = "workspace"
                Rewriter.replace_op(call, fused, fused.results[1:])
                Rewriter.erase_op(feed)
            for name in {t.callee.root_reference.data for t in feeds}:
                if not any(isinstance(c, func.CallOp) and c.callee.root_reference.data == name for c in op.walk()):
                    Rewriter.erase_op(funcs[name])
