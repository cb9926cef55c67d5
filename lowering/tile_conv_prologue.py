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
  the ``credits`` left over. For a space-to-depth input (the kernel starts with the ``im2col`` of the image's
  strided windows, ``analysis/phases.py``) the AIV builds its half of the window's new rows of the phase image at
  the block's first stage instead: each row from the image's rows, each padding row from a tile of zeros.

Each counter then holds at most ``credits`` (15) pending sets. Two AI Cores whose windows share rows both write
them, with the same values, each before its own AIC reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.ascbuf.mix import CROSS_FLAG_MAX_PENDING
from pyasc.dialects.asctensor.analysis import CONV_PROLOGUE_KIND, kernel_kind
from pyasc.dialects.asctile.mix import MIX_KIND, CoreKind, CoreSectionOp, CrossSignalOp, CrossWaitOp, \
    HandoffChannel, SubBlockIdxOp
from pyasc.dialects.target import DEFAULT_TARGET, TargetSpec, module_target
from pyasc.dialects.types import element_bytes, is_float

from .analysis.conv import ConvGeometry, PrologueTile, prologue_tile, window_of
from .analysis.phases import PhaseLayout, phase_layout, phase_rows
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
        lead = next(i for i, op in enumerate(ops) if isinstance(op, asctensor.TransposeOp)) + 1
        prologue, transpose, ret = ops[:lead], ops[lead - 1], ops[-1]
        args = list(k.body.block.args)
        gather = next((op for op in ops if isinstance(op, asctensor.RowGatherOp)), None)
        weight_ops = [] if gather is None else [gather.input.owner, gather, next(iter(gather.result.uses)).operation]
        # the convolution on the NHWC tensor (and the laid-out weights), as tile-matmul tiles it
        probe_args = [a for a in args if gather is None or a is not gather.table]
        index = probe_args.index(prologue[0].operands[0])
        types = [a.type for a in probe_args]
        types[index] = transpose.result.type
        head = Block(arg_types=types)
        mapping = dict(zip(probe_args, head.args))
        mapping[transpose.result] = head.args[index]
        if gather is not None:
            w_index = probe_args.index(weight_ops[0].operands[0])
            types[w_index] = weight_ops[-1].results[0].type
            head = Block(arg_types=types)
            mapping = dict(zip(probe_args, head.args))
            mapping[transpose.result] = head.args[index]
            mapping[weight_ops[-1].results[0]] = head.args[w_index]
        for op in ops[lead:-1]:
            if op not in weight_ops:
                head.add_op(op.clone(value_mapper=mapping))
        outs = ret.operands[1 + len(weight_ops[-1:]):]
        head.add_op(func.ReturnOp(*[mapping[v] for v in outs]))
        probe = func.FuncOp(k.sym_name.data, (types, [v.type for v in outs]), Region(head))
        _, geo, es, patches_as_a = implicit_gemm(probe)
        tiler = MatmulTiler(probe, self.spec, self.cores, positions_major=True)
        cube = tiler.run()
        plan = tiler.plan
        positions = plan.base_m if patches_as_a else plan.base_n
        layout = phase_layout(prologue) if lead > 1 else None
        if layout is not None:
            rows = phase_rows(self.spec, layout, geo.in_rows(positions))
            stage = None if rows is None else _PhaseStage(layout, rows)
        else:
            tile = prologue_tile(self.spec, plan, geo, es, patches_as_a)
            stage = None if tile is None else _TransposeStage(geo, tile)
        if stage is not None and gather is not None and isinstance(stage, _PhaseStage) \
                and layout.tile_bytes(stage.rows) + _weights_bytes(gather) > self.spec.ub_usable_bytes:
            raise CompileError(f"kernel @{k.sym_name.data}: its input stages and its weights' layout need "
                               f"{layout.tile_bytes(stage.rows) + _weights_bytes(gather)} B of UB, more than "
                               f"{self.spec.ub_usable_bytes} B")
        if stage is None:
            raise CompileError(f"kernel @{k.sym_name.data}: its convolution's input stages do not fit one "
                               f"vector tile (asctensor-fuse-conv-prologue should not have formed it)")

        new = func.FuncOp(k.sym_name.data, ([_memref(t) for t in (a.type for a in args)]
                                            + [_memref(v.type) for v in ret.operands], []))
        new.attributes[asctile.KERNEL_ATTR] = StringAttr(MIX_KIND)
        new.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(plan.block_dim, 64)
        new.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(2, 64)
        nb = new.body.block
        for old, a in zip(args, nb.args):
            a.name_hint = old.name_hint
        ws, out = nb.args[len(args)], nb.args[-1]
        ws.name_hint, out.name_hint = "workspace", "out"
        aic, aiv = Block(), Block()
        nb.add_op(copy_loc(transpose, CoreSectionOp(CoreKind.AIC, Region(aic))))
        nb.add_op(copy_loc(transpose, CoreSectionOp(CoreKind.AIV, Region(aiv))))
        nb.add_op(func.ReturnOp())
        gm = [nb.args[args.index(a)] for a in probe_args]
        source = gm[index]
        gm[index] = ws
        weights = None
        if gather is not None:
            laid = nb.args[len(args) + 1]
            laid.name_hint = "laid_weights"
            weights = (gather, gm[w_index], nb.args[args.index(gather.table)], laid)
            gm[w_index] = laid
        self._cube_part(aic, cube, gm + [out], weights is not None)
        self._vector_part(aiv, transpose, plan, geo, stage, source, ws, patches_as_a, weights)
        return new

    @staticmethod
    def _cube_part(block: Block, cube: func.FuncOp, gm: list[SSAValue], lays_weights: bool) -> None:
        """The cube loop on ``gm``; each L1 stage waits ``staged`` and signals ``credit``; with ``lays_weights``
        the loop first waits ``staged`` once more: the AIVs' laid-out weights."""
        cb = cube.body.block
        for old, a in zip(cb.args, gm):
            old.replace_all_uses_with(a)
        for op in list(cb.ops):
            op.detach()
            if not isinstance(op, func.ReturnOp):
                block.add_op(op)
        loop = next(op for op in block.ops if isinstance(op, scf.ForOp))
        first = next(iter(block.ops))
        start = OpEmitter(InsertPoint.before(first), first)
        repeat(start, CREDITS, lambda: CrossSignalOp(HandoffChannel.CREDIT))
        if lays_weights:
            start.add(CrossWaitOp(HandoffChannel.STAGED))
        kloop = next(op for op in loop.body.block.ops if isinstance(op, scf.ForOp))
        kfirst = next(iter(kloop.body.block.ops))
        stage = OpEmitter(InsertPoint.before(kfirst), kfirst)
        stage.add(CrossWaitOp(HandoffChannel.STAGED))
        stage.add(CrossSignalOp(HandoffChannel.CREDIT))

    def _vector_part(self, block: Block, anchor, plan: CubePlan, geo: ConvGeometry, stage, x: SSAValue,
                     ws: SSAValue, patches_as_a: bool, weights: tuple | None) -> None:
        """One iteration per block and stage of this AI Core: the new rows of the window, this AIV's half
        (``stage``: a ``_TransposeStage`` or a ``_PhaseStage``); first, with ``weights``, this AIV's half of the
        laid-out weights (``_lay_weights``)."""
        e = OpEmitter(InsertPoint.at_end(block), anchor)
        stages = plan.k_stages
        bid = e.value(asctile.BlockIdxOp())
        sub = e.value(SubBlockIdxOp())
        core = e.divui(bid, 2)
        bnum = e.value(asctile.BlockNumOp())  # GetBlockNum(): the AI Cores
        lo = e.divui(e.muli(core, plan.blocks), bnum)
        hi = e.divui(e.muli(e.addi(core, 1), plan.blocks), bnum)
        prepared = stage.prepare(e, anchor, x.type.element_type)
        if weights is not None:
            _lay_weights(e, anchor, sub, *weights)
            e.add(CrossSignalOp(HandoffChannel.STAGED))
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
        stage.emit(le, anchor, prepared, x, ws, bat, new_first, end, s, sub)
        le.add(CrossSignalOp(HandoffChannel.STAGED))
        body.add_op(scf.YieldOp())


def _weights_bytes(gather: asctensor.RowGatherOp) -> int:
    """The UB ``_lay_weights`` takes: the rows and their transpose, the table and the offsets, the gathered rows and
    their transpose."""
    height, _ = gather.input.type.get_shape()
    k = gather.table.type.get_shape()[1]
    es = element_bytes(gather.input.type.element_type)
    return 2 * height // 2 * (gather.pitch.value.data + k) * es + 2 * k * 4


def _lay_weights(e: OpEmitter, anchor, sub: SSAValue, gather: asctensor.RowGatherOp, w: SSAValue, table: SSAValue,
                 laid: SSAValue) -> None:
    """This AIV's half of the rows of the weights' ``row_gather`` (one row of positions for all), before its first
    stage: the rows with zeros after each up to its last 32 B (DataCopyPad's right padding), transposed so that a
    position's weights of every row are one row of whole 32 B blocks; those rows gathered by the positions
    (``Gatherb``), transposed back and stored to the laid-out weights, which the AIC reads after the ``staged``
    that follows."""
    height, width = gather.input.type.get_shape()
    k = gather.table.type.get_shape()[1]
    rows = height // 2
    et = gather.input.type.element_type
    es = element_bytes(et)
    pitch = gather.pitch.value.data
    first = e.muli(sub, rows)
    src = e.value(copy_loc(anchor, asctile.LoadOp(w, e.muli(first, width), e.index(rows), e.index(width), width, 1,
                                                  TensorType(et, [rows, pitch]), zero_tail=True)))
    src.name_hint = "weight_rows"
    by_position = e.value(copy_loc(anchor, asctile.TransposeOp(src, TensorType(et, [pitch, rows]))))
    by_position.name_hint = "weight_columns"
    i32 = gather.table.type.element_type
    positions = e.value(copy_loc(anchor, asctile.LoadOp(table, e.index(0), e.index(1), e.index(k), k, 1,
                                                        TensorType(i32, [1, k]), dense=True)))
    positions.name_hint = "weight_table"
    row_bytes = e.value(arith.ConstantOp(IntegerAttr(rows * es, i32)))
    scale = e.value(copy_loc(anchor, asctile.SplatOp(row_bytes, TensorType(i32, [1, k]))))
    offsets = e.value(copy_loc(anchor, arith.MuliOp(positions, scale)))
    offsets.name_hint = "weight_offsets"
    gathered = e.value(copy_loc(anchor, asctile.GatherRowsOp(by_position, offsets, TensorType(et, [k, rows]))))
    gathered.name_hint = "laid_columns"
    laid_rows = e.value(copy_loc(anchor, asctile.TransposeOp(gathered, TensorType(et, [rows, k]))))
    laid_rows.name_hint = "laid_rows"
    e.add(copy_loc(anchor, asctile.StoreOp(laid_rows, laid, e.muli(first, k), e.index(rows), e.index(k), k,
                                           dense=True)))


@dataclass(frozen=True)
class _TransposeStage:
    """An AIV's share of a stage: its half of the new pixels of the window, the stage's channels, transposed from
    the NCHW input into the NHWC workspace."""

    geo: ConvGeometry
    tile: PrologueTile

    def prepare(self, e: OpEmitter, anchor, et):
        return None

    def emit(self, le: OpEmitter, anchor, prepared, x, ws, bat, new_first, end, s, sub) -> None:
        geo, tile = self.geo, self.tile
        h, w, c = geo.h, geo.w, geo.c
        et = x.type.element_type
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


@dataclass(frozen=True)
class _PhaseStage:
    """An AIV's share of a block: at the first stage, its half of the new rows of the window of the space-to-depth
    image (``analysis/phases.py``), each row of the image built from its input rows (a load of ``rows`` rows of
    every channel, a ``pick_columns`` of the column phases, a ``phase_transpose``), each row of padding stored
    from a tile of zeros."""

    layout: PhaseLayout
    rows: int

    def prepare(self, e: OpEmitter, anchor, et):
        lay = self.layout
        fill = e.value(arith.ConstantOp(FloatAttr(0.0, et) if is_float(et) else IntegerAttr(0, et)))
        zeros = e.value(copy_loc(anchor, asctile.SplatOp(fill, TensorType(et, [self.rows * lay.ow,
                                                                              lay.padded_channels]))))
        zeros.name_hint = "zero_rows"
        return zeros

    def emit(self, le: OpEmitter, anchor, zeros, x, ws, bat, new_first, end, s, sub) -> None:
        lay, rows = self.layout, self.rows
        et = x.type.element_type
        ch, span = lay.channels, rows * lay.sh * lay.w
        first_stage = le.value(arith.CmpiOp(s, le.index(0), "eq"))
        n = le.value(arith.SelectOp(first_stage, le.subi(end, new_first), le.index(0)))
        half = le.divui(le.addi(n, 1), 2)
        lo = le.addi(new_first, le.minui(le.muli(sub, half), n))
        hi = le.addi(new_first, le.minui(le.addi(le.muli(sub, half), half), n))
        top, bottom = lay.top, lay.top + lay.rows  # the image's rows of the result
        a = le.minui(le.maxui(lo, top), bottom)
        count = le.subi(le.minui(le.maxui(hi, top), bottom), a)
        above = le.subi(le.minui(hi, top), le.minui(lo, top))
        below = le.subi(le.maxui(hi, bottom), le.maxui(lo, bottom))
        loaded = le.minui(a, bottom - 1)  # a row of the image even when this AIV builds none
        src = le.addi(le.muli(bat, lay.c * lay.h * lay.w), le.muli(le.subi(loaded, top), lay.sh * lay.w))
        cols = le.muli(le.addi(count, le.subi(1, le.minui(count, 1))), lay.sh * lay.w)
        rows_in = le.value(copy_loc(anchor, asctile.LoadOp(x, src, le.index(lay.c), cols, lay.h * lay.w, 1,
                                                           TensorType(et, [lay.c, span]))))
        rows_in.name_hint = "image_rows"
        phases = le.value(copy_loc(anchor, asctile.PickColumnsOp(
            rows_in, TensorType(et, [lay.sw * lay.c, span // lay.sw]), 0, lay.sw, lay.sw)))
        phases.name_hint = "phases"
        laid = le.value(copy_loc(anchor, asctile.PhaseTransposeOp(
            phases, TensorType(et, [rows * lay.ow, lay.padded_channels]), lay.c, lay.sh, lay.sw, lay.left, lay.ow)))
        laid.name_hint = "pixels"

        def store(tile, row, count_rows):
            dst = le.muli(le.addi(le.muli(bat, lay.oh), row), lay.ow * ch)
            le.add(copy_loc(anchor, asctile.StoreOp(tile, ws, dst, le.muli(count_rows, lay.ow), le.index(ch), ch)))

        store(laid, a, count)
        store(zeros, lo, above)
        store(zeros, le.maxui(lo, bottom), below)


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
