"""``tile-conv-prologue``: a ``conv_prologue`` kernel (``asctensor-fuse-conv-prologue``) becomes one MIX kernel
(``asctile.kernel = "mix"``) whose AIVs lay out the AIC's input while it computes.

The kernel's arguments are its inputs (the NCHW image batch first among them where the convolution read the NHWC
one), the workspace (that batch as NHWC, in GM) and its output. Its body is two ``asctile.core_section``s over the
same output blocks, ``tile-matmul``'s plan with the blocks of one window of positions next to each other
(``positions_major``: AI Core ``c`` owns blocks ``[c * blocks / block_dim, (c + 1) * blocks / block_dim)``):

* ``aic``: ``tile-matmul``'s cube loop reading the workspace; before each L1 stage it waits ``staged`` (both AIVs
  have written what the stage's window needs) and signals ``credit``; before the loop it signals ``credit``
  ``credits`` times;
* ``aiv``: one iteration per block and stage of its AI Core, in the AIC's order. It waits ``credit``, transposes
  the input rows of the block's window that the block before did not bring (all of them for a core's first
  block and for a block of another image), the stage's channels, its half of their pixels, from the NCHW input
  into the workspace (``asctile.transpose``: ``TransDataTo5HD``), and signals ``staged``. After the loop it takes
  the ``credits`` left over.

Each counter then holds at most ``credits`` (15) pending sets. Two AI Cores whose windows share rows both write
them, with the same values, each before its own AIC reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from pyasc.dialects import asctile
from pyasc.dialects.ascbuf.mix import CROSS_FLAG_MAX_PENDING
from pyasc.dialects.asctensor.analysis import CONV_PROLOGUE_KIND, kernel_kind
from pyasc.dialects.asctile.mix import MIX_KIND, CoreKind, CoreSectionOp, CrossSignalOp, CrossWaitOp, \
    HandoffChannel, SubBlockIdxOp
from pyasc.dialects.target import DEFAULT_TARGET, TargetSpec, module_target

from .analysis.conv import ConvGeometry, PrologueTile, prologue_tile, window_of
from .analysis.matmul import CubePlan
from .emitter import OpEmitter, copy_loc, repeat
from .errors import CompileError
from .kernel_calls import replace_kernel
from .matmul_tiler import MatmulTiler, block_coords, implicit_gemm

CREDITS = CROSS_FLAG_MAX_PENDING  # a cross-core flag counter holds at most 15 pending sets


def _memref(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


@dataclass
class _PrologueTiler:
    kernel: func.FuncOp
    spec: TargetSpec
    cores: int

    def run(self) -> func.FuncOp:
        k = self.kernel
        ops = list(k.body.block.ops)
        transpose, ret = ops[0], ops[-1]
        args = list(k.body.block.args)
        index = args.index(transpose.input)
        # the convolution on the NHWC tensor, as tile-matmul tiles it
        types = [a.type for a in args]
        types[index] = transpose.result.type
        head = Block(arg_types=types)
        mapping = dict(zip(args, head.args))
        mapping[transpose.result] = head.args[index]
        for op in ops[1:-1]:
            head.add_op(op.clone(value_mapper=mapping))
        head.add_op(func.ReturnOp(*[mapping[v] for v in ret.operands[1:]]))
        probe = func.FuncOp(k.sym_name.data, (types, [v.type for v in ret.operands[1:]]), Region(head))
        _, geo, es, patches_as_a = implicit_gemm(probe)
        tiler = MatmulTiler(probe, self.spec, self.cores, positions_major=True)
        cube = tiler.run()
        plan = tiler.plan
        tile = prologue_tile(self.spec, plan, geo, es, patches_as_a)
        if tile is None:
            raise CompileError(f"kernel @{k.sym_name.data}: its convolution's input stages do not fit one "
                               f"TransDataTo5HD tile (asctensor-fuse-conv-prologue should not have formed it)")

        new = func.FuncOp(k.sym_name.data, ([_memref(t) for t in (a.type for a in args)]
                                            + [_memref(v.type) for v in ret.operands], []))
        new.attributes[asctile.KERNEL_ATTR] = StringAttr(MIX_KIND)
        new.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(plan.block_dim, 64)
        new.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(2, 64)
        nb = new.body.block
        for old, a in zip(args, nb.args):
            a.name_hint = old.name_hint
        ws, out = nb.args[len(args)], nb.args[len(args) + 1]
        ws.name_hint, out.name_hint = "workspace", "out"
        aic, aiv = Block(), Block()
        nb.add_op(copy_loc(transpose, CoreSectionOp(CoreKind.AIC, Region(aic))))
        nb.add_op(copy_loc(transpose, CoreSectionOp(CoreKind.AIV, Region(aiv))))
        nb.add_op(func.ReturnOp())
        gm = list(nb.args[:len(args)])
        gm[index] = ws
        self._cube_part(aic, cube, gm + [out])
        self._vector_part(aiv, transpose, plan, geo, tile, nb.args[index], ws, patches_as_a)
        return new

    @staticmethod
    def _cube_part(block: Block, cube: func.FuncOp, gm: list[SSAValue]) -> None:
        """The cube loop on ``gm``; each L1 stage waits ``staged`` and signals ``credit``."""
        cb = cube.body.block
        for old, a in zip(cb.args, gm):
            old.replace_all_uses_with(a)
        for op in list(cb.ops):
            op.detach()
            if not isinstance(op, func.ReturnOp):
                block.add_op(op)
        loop = next(op for op in block.ops if isinstance(op, scf.ForOp))
        first = next(iter(block.ops))
        repeat(OpEmitter(InsertPoint.before(first), first), CREDITS, lambda: CrossSignalOp(HandoffChannel.CREDIT))
        kloop = next(op for op in loop.body.block.ops if isinstance(op, scf.ForOp))
        kfirst = next(iter(kloop.body.block.ops))
        stage = OpEmitter(InsertPoint.before(kfirst), kfirst)
        stage.add(CrossWaitOp(HandoffChannel.STAGED))
        stage.add(CrossSignalOp(HandoffChannel.CREDIT))

    def _vector_part(self, block: Block, anchor, plan: CubePlan, geo: ConvGeometry, tile: PrologueTile,
                     x: SSAValue, ws: SSAValue, patches_as_a: bool) -> None:
        """One iteration per block and stage of this AI Core: the new rows of the window, this AIV's half."""
        e = OpEmitter(InsertPoint.at_end(block), anchor)
        et = x.type.element_type
        h, w, c = geo.h, geo.w, geo.c
        stages = plan.k_stages
        bid = e.value(asctile.BlockIdxOp())
        sub = e.value(SubBlockIdxOp())
        core = e.divui(bid, 2)
        bnum = e.value(asctile.BlockNumOp())  # GetBlockNum(): the AI Cores
        lo = e.divui(e.muli(core, plan.blocks), bnum)
        hi = e.divui(e.muli(e.addi(core, 1), plan.blocks), bnum)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "i"
        block.add_op(copy_loc(anchor, scf.ForOp(e.index(0), e.muli(e.subi(hi, lo), stages), e.index(1), [], body)))
        repeat(e, CREDITS, lambda: CrossWaitOp(HandoffChannel.CREDIT))

        le = OpEmitter(InsertPoint.at_end(body), anchor)
        le.add(CrossWaitOp(HandoffChannel.CREDIT))
        i = body.args[0]
        j = le.addi(lo, le.divui(i, stages))
        s = le.remui(i, stages)

        def window(blk):  # (image, first input row, end row) of block ``blk``'s window
            bat, m0, n0, vm, vn = block_coords(le, blk, plan)
            p0, npos = (m0, vm) if patches_as_a else (n0, vn)
            first, rows, *_ = window_of(le, geo, p0, npos)
            return bat, first, le.addi(first, rows)

        bat, first, end = window(j)
        prev = le.subi(j, le.value(arith.MinUIOp(le.subi(j, lo), le.index(1))))
        pbat, _, pend = window(prev)
        same = le.value(arith.AndIOp(le.value(arith.CmpiOp(j, lo, "ugt")), le.value(arith.CmpiOp(bat, pbat, "eq"))))
        new_first = le.minui(le.value(arith.SelectOp(same, le.maxui(first, pend), first)), end)
        pixels = le.muli(le.subi(end, new_first), w)
        half = le.muli(le.divui(le.addi(pixels, 31), 32), 16)  # half the pixels, in whole 16-pixel groups
        p0 = le.minui(le.muli(sub, half), pixels)
        count = le.subi(le.minui(le.addi(p0, half), pixels), p0)
        pixel = le.addi(le.muli(new_first, w), p0)  # the first pixel of the image this AIV moves
        channel = le.muli(s, tile.stage_channels)
        src = le.addi(le.addi(le.muli(bat, c * h * w), le.muli(channel, h * w)), le.minui(pixel, h * w - 1))
        at_least_one = le.addi(count, le.subi(1, le.minui(count, 1)))
        fp_t = TensorType(et, [tile.stage_channels, tile.pixels])
        fp = le.value(copy_loc(anchor, asctile.LoadOp(x, src, le.index(tile.stage_channels), at_least_one, h * w, 1,
                                                      fp_t)))
        fp.name_hint = "nchw"
        laid = le.value(copy_loc(anchor, asctile.TransposeOp(fp, TensorType(et, [tile.pixels, tile.stage_channels]))))
        laid.name_hint = "nhwc"
        dst = le.addi(le.addi(le.muli(bat, h * w * c), le.muli(pixel, c)), channel)
        le.add(copy_loc(anchor, asctile.StoreOp(laid, ws, dst, count, le.index(tile.stage_channels), c)))
        le.add(CrossSignalOp(HandoffChannel.STAGED))
        body.add_op(scf.YieldOp())


@dataclass(frozen=True)
class TileConvProloguePass(ModulePass):
    """Tile every ``conv_prologue`` kernel into one MIX kernel (see the module docstring)."""

    name = "tile-conv-prologue"
    INPUT_LEVEL = "tiling"

    target: str = DEFAULT_TARGET
    cores: int = 0  # 0: every AI Core of the target

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) == CONV_PROLOGUE_KIND:
                replace_kernel(f, _PrologueTiler(f, spec, self.cores).run())
