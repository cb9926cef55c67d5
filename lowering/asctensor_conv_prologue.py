"""``asctensor-fuse-conv-prologue``: a convolution's NCHW -> NHWC input transpose joins its cube kernel.

An implicit GEMM (``asctensor-fuse-matmul``) reads its input as NHWC. When that input is an NCHW tensor, a
``movement`` kernel transposes it first, and the whole transpose passes through HBM before the cube starts. This
pass merges that kernel into the convolution's: the ``matmul`` kernel whose NHWC argument is only read by its
``im2col_nhwc`` and comes, at every call, from a call of a kernel that is nothing but the transpose
``[0, 2, 3, 1]`` of its argument, read by nothing else, becomes a ``conv_prologue`` kernel:

* it takes the NCHW tensor in place of the NHWC one and starts with the transpose;
* it returns the transposed tensor first (the GM workspace the vector cores fill and the cube reads), then its
  result.

The same holds for the input of a convolution rewritten space to depth (``conv_fold.py``): there the NHWC
argument comes from a ``movement`` kernel that reshapes, perhaps slices, and transposes the output of an
``im2col`` kernel of the image's strided windows, and the fused kernel starts with those ops on the image
(``analysis/phases.py``).

``tile-conv-prologue`` splits it over the AI Core: the AIVs lay out each block's input rows while the AIC
computes the blocks before. It applies where that tiling can (``prologue_tile``): 2- or 4-byte types
``TransDataTo5HD`` takes, whole 16-channel groups, a stage's tile within a quarter of UB; for the phases,
``phase_layout`` and ``phase_rows``.
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
from .analysis.phases import phase_layout, phase_rows
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


def _only_ops(f: func.FuncOp, kinds: tuple) -> list | None:
    """The ops of ``f`` (its return aside) when they are one of each of ``kinds`` in order, each reading the one
    before (the first its one argument) and the last returned."""
    ops = list(f.body.block.ops)
    if len(f.body.block.args) != 1 or len(ops) != len(kinds) + 1:
        return None
    value = f.body.block.args[0]
    for op, kind in zip(ops, kinds):
        if not isinstance(op, kind) or op.operands[0] is not value:
            return None
        value = op.results[0]
    return ops[:-1] if tuple(ops[-1].operands) == (value,) else None


@dataclass(frozen=True)
class _Prologue:
    """The kernel calls that compute a convolution's NHWC input from ``source`` (a tensor of the host), and the ops
    of their kernels in order."""

    source: object
    calls: tuple
    ops: tuple


def _prologue(feed, funcs: dict) -> _Prologue | None:
    """How the call ``feed`` computes its NHWC result: the transpose of its argument, or the phases of an image
    (an ``im2col`` kernel's result reshaped, sliced and transposed), each call's result read only by the next."""
    if not isinstance(feed, func.CallOp) or len(feed.results) != 1 or not feed.results[0].has_one_use():
        return None
    f = funcs[feed.callee.root_reference.data]
    if _is_nhwc_transpose(f):
        return _Prologue(feed.arguments[0], (feed,), (next(iter(f.body.block.ops)),))
    moved = (_only_ops(f, (asctensor.ReshapeOp, asctensor.SliceOp, asctensor.TransposeOp))
             or _only_ops(f, (asctensor.ReshapeOp, asctensor.TransposeOp)))
    col = feed.arguments[0].owner
    if moved is None or not isinstance(col, func.CallOp) or len(col.results) != 1 \
            or not col.results[0].has_one_use():
        return None
    patches = _only_ops(funcs[col.callee.root_reference.data], (asctensor.Im2colOp,))
    if patches is None or phase_layout(patches + moved) is None:
        return None
    return _Prologue(col.arguments[0], (col, feed), tuple(patches + moved))


def _kind(prologue: _Prologue):
    """What a fused kernel built from ``prologue`` computes first: the transpose, or the kernels of the phases."""
    return "transpose" if len(prologue.ops) == 1 else tuple(c.callee.root_reference.data for c in prologue.calls)


def _patches_argument(f: func.FuncOp) -> int | None:
    """The index of the argument of the ``matmul`` kernel ``f`` read only by one ``im2col_nhwc``, if any."""
    for i, a in enumerate(f.body.block.args):
        users = [u.operation for u in a.uses]
        if len(users) == 1 and isinstance(users[0], asctensor.Im2colNhwcOp):
            return i
    return None


def _with_prologue(f: func.FuncOp, index: int, prologue: _Prologue) -> func.FuncOp:
    """``f`` taking the prologue's source at ``index``, computing the prologue first, returning its NHWC result and
    then its own."""
    old = f.body.block
    arg = old.args[index]
    types = [a.type for a in old.args]
    types[index] = prologue.source.type
    block = Block(arg_types=types)
    for a, b in zip(old.args, block.args):
        b.name_hint = a.name_hint
    anchor = next(iter(arg.uses)).operation
    value = block.args[index]
    for op in prologue.ops:
        new = copy_loc(anchor, op.clone(value_mapper={op.operands[0]: value}))
        block.add_op(new)
        value = new.results[0]
    mapping = {a: b for a, b in zip(old.args, block.args)}
    mapping[arg] = value
    for op in old.ops:
        if isinstance(op, func.ReturnOp):
            block.add_op(func.ReturnOp(value, *[mapping[v] for v in op.operands]))
        else:
            block.add_op(op.clone(value_mapper=mapping))
    outs = [arg.type, *f.function_type.outputs.data]
    new = func.FuncOp(f.sym_name.data, (types, outs), Region(block))
    new.attributes[asctensor.KERNEL_ATTR] = StringAttr(CONV_PROLOGUE_KIND)
    return new


def _tiles(spec, f: func.FuncOp, index: int, prologue: _Prologue) -> bool:
    """Whether ``tile-conv-prologue`` can split the kernel ``f`` (``prologue_tile``; ``phase_rows`` for phases), its
    type one TransDataTo5HD takes."""
    try:
        plan, geo, es, patches_as_a = implicit_gemm_plan(f, spec)
    except CubeTilingError:
        return False
    positions = plan.base_m if patches_as_a else plan.base_n
    if len(prologue.ops) > 1:
        return phase_rows(spec, phase_layout(list(prologue.ops)), geo.in_rows(positions)) is not None
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
            prologues = [_prologue(c.arguments[index].owner, funcs) for c in calls[f.sym_name.data]]
            if any(p is None for p in prologues) or len({_kind(p) for p in prologues}) != 1:
                continue
            if any(p.source.type != prologues[0].source.type for p in prologues) \
                    or not _tiles(spec, f, index, prologues[0]):
                continue
            new = _with_prologue(f, index, prologues[0])
            Rewriter.replace_op(f, new)
            for call, prologue in zip(calls[f.sym_name.data], prologues):
                args = list(call.arguments)
                args[index] = prologue.source
                fused = copy_loc(call, func.CallOp(call.callee, args, [r.type for r in new.body.block.last_op.operands]))
                fused.results[0].name_hint = "workspace"
                Rewriter.replace_op(call, fused, fused.results[1:])
                for made in reversed(prologue.calls):
                    Rewriter.erase_op(made)
            for name in {c.callee.root_reference.data for c in prologues[0].calls}:
                if not any(isinstance(c, func.CallOp) and c.callee.root_reference.data == name for c in op.walk()):
                    Rewriter.erase_op(funcs[name])
