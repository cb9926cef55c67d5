"""``tile-mix``: a matmul with a vector epilogue (an ``asctensor.kernel = "mix"`` kernel) becomes one
MIX kernel of whole AI Cores (``asctile.kernel = "mix"``).

The kernel's arguments are its inputs, the workspace (the matmul's result in GM) and its outputs.
Its body is two ``asctile.core_section``s over the same output blocks (``tile-matmul``'s plan: AI
Core ``c`` owns blocks ``[c * blocks / block_dim, (c + 1) * blocks / block_dim)``):

* ``aic``: ``tile-matmul``'s cube loop storing every block to the workspace; before a block's
  store it takes ``tpb`` ``free`` credits, after it it signals ``ready`` ``tpb`` times; the credits
  left over are drained after the loop;
* ``aiv``: each AIV (``sub_block_idx`` 0 or 1) owns half of every block's rows, cut into ``tpb``
  row tiles of ``rows x pitch``; its tile loop waits ``ready`` once per tile, loads the tile's
  window of the workspace, signals ``free`` once that load is issued, loads the other inputs (a
  row vector such as a bias as one row, then ``repeat_rows``), computes the epilogue (the same tile
  ops as ``tile-elementwise``) and stores the outputs. Before the loop each AIV signals ``free``
  ``credits`` times.

``credits`` (a multiple of ``tpb``, at most 15) bounds the pending signals of every channel, so a
flag counter never holds more than the 15 sets the hardware keeps; the workspace holds every block,
so a credit only paces the AIC. The row tile comes from the UB budget as in ``tile-elementwise`` and
is checked by planning its buffers; ``baseN`` is halved until a block's half needs at most
``MAX_TILES_PER_BLOCK`` tiles. A batch of A's times one B is folded into M (``foldable_batch``) when every
epilogue input's rows also run on across the batch (a bias row, a residual of the product's shape).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.ascbuf.mix import CROSS_FLAG_MAX_PENDING
from pyasc.dialects.asctensor.analysis import VIEW_OPS, kernel_kind
from pyasc.dialects.asctile.mix import MIX_KIND, CoreKind, CoreSectionOp, CrossSignalOp, CrossWaitOp, \
    HandoffChannel, SubBlockIdxOp
from pyasc.dialects.target import DEFAULT_TARGET, TargetSpec, module_target
from pyasc.dialects.types import element_bytes
from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from .analysis.matmul import CubePlan
from .analysis.memory import tile_kernel_bytes
from .emitter import OpEmitter, copy_loc, repeat
from .errors import CompileError
from .kernel_calls import replace_kernel
from .matmul_tiler import MatmulTiler, block_coords, cube_plan, foldable_batch, matmul_dims
from .tile_body import TileBodyBuilder, peak_temporaries, view_source
from .tiling import element_strides

MAX_CREDITS = CROSS_FLAG_MAX_PENDING  # a cross-core flag counter holds at most 15 pending sets
MAX_TILES_PER_BLOCK = 7  # so that at least two blocks' credits fit
CREDITS_ATTR = "asctile.mix_credits"


class MixTilingError(CompileError):
    """A matmul epilogue that cannot be split over an AI Core's vector cores."""


def _up(x: int, a: int) -> int:
    return -(-x // a) * a


def _memref(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


@dataclass(frozen=True)
class EpiloguePlan:
    """The AIV side of a MIX kernel: row tiles of ``rows x pitch`` over half a ``base_m x base_n`` block."""

    half: int  # rows of a block per AIV
    rows: int  # rows per tile
    pitch: int
    tiles: int  # tiles per half block (tpb)
    credits: int


def _where(op: Operation) -> str:
    loc = op.attributes.get("asc.loc")
    return f" ({loc.data})" if isinstance(loc, StringAttr) else ""


@dataclass
class _MixTiler:
    kernel: func.FuncOp
    spec: TargetSpec
    cores: int
    buffers: int = 2

    def run(self) -> func.FuncOp:
        k = self.kernel
        body = [op for op in k.body.block.ops if not isinstance(op, func.ReturnOp)]
        ret = k.body.block.last_op
        product, outputs = ret.operands[0], list(ret.operands[1:])
        mm = next((op for op in body if isinstance(op, asctensor.MatmulOp)), None)
        head_end = body.index(product.owner) if product.owner in body else -1
        self.epilogue = body[head_end + 1:]
        epilogue = set(self.epilogue)
        stray = [v for v in outputs if v is not product and v.owner not in epilogue]
        if mm is None or head_end < body.index(mm) or stray:
            raise MixTilingError(f"kernel @{k.sym_name.data}: a MIX kernel returns its product (the asctensor.matmul "
                                 "and the ops before the epilogue) first, then results of the epilogue")
        self.mm, self.product, self.outputs = mm, product, outputs
        args = list(k.body.block.args)
        self.fold = foldable_batch(mm) and self._rows_run_on()
        batch_shape, M, K, N = matmul_dims(mm, self.fold)
        base_n = 0
        plan, ep = None, None
        while True:
            plan = cube_plan(k.sym_name.data, self.spec, mm, self._batch(batch_shape), M, N, K, self.cores,
                             base_n=base_n)
            ep = self._epilogue_plan(plan)
            if ep.tiles <= MAX_TILES_PER_BLOCK or plan.base_n <= 16:
                break
            base_n = max(16, plan.base_n // 2 // 16 * 16)
        if ep.tiles > MAX_CREDITS:
            raise MixTilingError(
                f"kernel @{k.sym_name.data}: the epilogue of {mm.name} {list(mm.lhs.type.get_shape())} x "
                f"{list(mm.rhs.type.get_shape())}{_where(mm)} needs {ep.tiles} vector tiles per block, more than "
                f"the {MAX_CREDITS} sets a cross-core flag holds")
        self.plan, self.ep = plan, ep

        ws_t = _memref(product.type)
        new = func.FuncOp(k.sym_name.data, ([_memref(a.type) for a in args] + [ws_t] +
                                            [_memref(v.type) for v in outputs], []))
        new.attributes[asctile.KERNEL_ATTR] = StringAttr(MIX_KIND)
        new.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(plan.block_dim, 64)
        new.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(self.buffers, 64)
        new.attributes[CREDITS_ATTR] = IntegerAttr(ep.credits, 64)
        nb = new.body.block
        for old, a in zip(args, nb.args):
            a.name_hint = old.name_hint
        nb.args[len(args)].name_hint = "workspace"
        for i, a in enumerate(nb.args[len(args) + 1:]):
            a.name_hint = f"out{i}"
        aic, aiv = Block(), Block()
        nb.add_op(copy_loc(mm, CoreSectionOp(CoreKind.AIC, Region(aic))))
        nb.add_op(copy_loc(mm, CoreSectionOp(CoreKind.AIV, Region(aiv))))
        nb.add_op(func.ReturnOp())
        self._cube_part(aic, list(nb.args[:len(args)]) + [nb.args[len(args)]], head_end)
        self._vector_part(aiv, nb, len(args))
        return new

    @staticmethod
    def _batch(shape) -> int:
        n = 1
        for d in shape:
            n *= d
        return n

    def _views(self) -> dict[SSAValue, tuple]:
        """Every argument and epilogue value that views an argument: (argument, shape, strides, base)."""
        kargs = list(self.kernel.body.block.args)
        views: dict[SSAValue, tuple] = {}
        for v in [*kargs, *(r for op in self.epilogue for r in op.results)]:
            src = view_source(v, kargs, views)
            if src is not None:
                views[v] = src
        return views

    def _input_views(self, views: dict[SSAValue, tuple] | None = None) -> list[tuple]:
        """(value, argument, shape, element strides over the product's dims, base) of every epilogue input, from
        ``views`` (``_views``)."""
        out_shape = tuple(self.product.type.get_shape())
        views = self._views() if views is None else views
        members = set(self.epilogue)
        found = []
        for v, (arg, shape, strides, base) in views.items():
            if any(u.operation in members and not isinstance(u.operation, VIEW_OPS) for u in v.uses):
                found.append((v, arg, shape, element_strides(tuple(shape), out_shape, strides), base))
        return found

    def _rows_run_on(self) -> bool:
        """Whether every epilogue input's rows run on across the batch dims, as the product's do (a bias
        row, a residual of the product's shape): the epilogue then reads the batch folded into M."""
        out_shape = tuple(self.product.type.get_shape())
        return all(st[i] == out_shape[i + 1] * st[i + 1] for *_, st, _ in self._input_views()
                   for i in range(len(out_shape) - 2))

    # ------------------------------------------------------------------------------ the AIC part

    def _cube_part(self, block: Block, gm_args: list[SSAValue], head_end: int) -> None:
        """``tile-matmul``'s cube loop on the workspace, with the hand-off around each block's store."""
        k = self.kernel
        head = Block(arg_types=[a.type for a in k.body.block.args])
        mapping = dict(zip(k.body.block.args, head.args))
        for op in list(k.body.block.ops)[:head_end + 1]:
            head.add_op(op.clone(value_mapper=mapping))
        head.add_op(func.ReturnOp(mapping[self.product]))
        probe = func.FuncOp(k.sym_name.data, ([a.type for a in head.args], [self.product.type]), Region(head))
        cube = MatmulTiler(probe, self.spec, self.cores, base_m=self.plan.base_m,
                            base_n=self.plan.base_n, fold_batch=self.fold).run()
        cb = cube.body.block
        for old, a in zip(cb.args, gm_args):
            old.replace_all_uses_with(a)
        for op in list(cb.ops):
            op.detach()
            if not isinstance(op, func.ReturnOp):
                block.add_op(op)
        loop = next(op for op in block.ops if isinstance(op, scf.ForOp))
        store = next(op for op in loop.body.block.ops if isinstance(op, asctile.StoreAccOp))
        tpb, credits = self.ep.tiles, self.ep.credits
        repeat(OpEmitter(InsertPoint.before(store), store), tpb, lambda: CrossWaitOp(HandoffChannel.FREE))
        repeat(OpEmitter(InsertPoint.after(store), store), tpb, lambda: CrossSignalOp(HandoffChannel.READY))
        repeat(OpEmitter(InsertPoint.after(loop), self.mm), credits, lambda: CrossWaitOp(HandoffChannel.FREE))

    # ------------------------------------------------------------------------------ the AIV part

    def _epilogue_plan(self, plan: CubePlan) -> EpiloguePlan:
        """The row tile: the UB budget over the live tiles, checked by planning the buffers."""
        half = ceil(plan.base_m / 2)
        # every tile is ``pitch`` wide: its rows are 32 B aligned for the narrowest element, loaded ones included
        values = [r for op in self.epilogue for r in op.results] + self._loaded_values()
        sizes = [element_bytes(v.type.element_type) for v in values]
        align = 32 // min(sizes)
        pitch = _up(plan.base_n, align)
        per_elem = self.buffers * (sum(element_bytes(v.type.element_type) for v in self._loaded_values())
                                   + sum(element_bytes(v.type.element_type) for v in self.outputs))
        per_elem += max(sizes) * peak_temporaries(self.epilogue, set(self._loaded_values()), set(self.outputs))
        budget = self.spec.ub_usable_bytes
        rows = max(1, min(half, budget // (per_elem * pitch)))
        while True:
            tiles = ceil(half / rows)
            ep = EpiloguePlan(half, rows, pitch, tiles, max(1, min(MAX_CREDITS // tiles, 4)) * tiles)
            if rows == 1 or self._fits(plan, ep):
                return ep
            rows = max(1, rows * 3 // 4)

    def _loaded_values(self) -> list[SSAValue]:
        """The product and every input the epilogue reads (through views)."""
        members = set(self.epilogue)
        seen: list[SSAValue] = [self.product]
        for op in self.epilogue:
            for v in op.operands:
                while isinstance(v.owner, VIEW_OPS) and v.owner not in members:
                    v = v.owner.input
                if v not in seen and v.owner not in members and not isinstance(v.owner, asctensor.FullOp):
                    seen.append(v)
        return seen

    def _fits(self, plan: CubePlan, ep: EpiloguePlan) -> bool:
        self.plan, self.ep = plan, ep
        probe = func.FuncOp("probe", ([_memref(a.type) for a in self.kernel.body.block.args]
                                      + [_memref(self.product.type)] + [_memref(v.type) for v in self.outputs], []))
        probe.attributes[asctile.KERNEL_ATTR] = StringAttr("vector")
        probe.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(1, 64)
        probe.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(self.buffers, 64)
        pb = probe.body.block
        inner = Block()
        self._vector_part(inner, pb, len(self.kernel.body.block.args), probe=True)
        for op in list(inner.ops):
            op.detach()
            pb.add_op(op)
        pb.add_op(func.ReturnOp())
        return tile_kernel_bytes(probe) <= self.spec.ub_usable_bytes

    def _vector_part(self, block: Block, fb: Block, n_in: int, probe: bool = False) -> None:
        k, plan, ep = self.kernel, self.plan, self.ep
        mm = self.mm
        kargs = list(k.body.block.args)
        gm_of = dict(zip(kargs, fb.args[:n_in]))
        ws = fb.args[n_in]
        out_args = fb.args[n_in + 1:]
        batch_shape, M, _, N = matmul_dims(mm, self.fold)
        out_shape = tuple(self.product.type.get_shape())
        e = OpEmitter(InsertPoint.at_end(block), mm)
        if not probe:
            for _ in range(ep.credits):
                e.add(CrossSignalOp(HandoffChannel.FREE))
        bid = e.value(asctile.BlockIdxOp())
        sub = e.value(SubBlockIdxOp()) if not probe else e.index(0)
        core = e.divui(bid, 2)
        # GetBlockNum(): the AI Cores (the probe runs core 0 of the real launch on one block)
        bnum = e.value(asctile.BlockNumOp()) if not probe else e.index(plan.block_dim)
        lo = e.divui(e.muli(core, plan.blocks), bnum)
        hi = e.divui(e.muli(e.addi(core, 1), plan.blocks), bnum)
        count = e.muli(e.subi(hi, lo), ep.tiles)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "i"
        block.add_op(copy_loc(mm, scf.ForOp(e.index(0), count, e.index(1), [], body)))

        le = OpEmitter(InsertPoint.at_end(body), mm)
        if not probe:
            le.add(CrossWaitOp(HandoffChannel.READY))
        t = body.args[0]
        j = le.divui(t, ep.tiles)
        s = le.remui(t, ep.tiles)
        bat, m0, n0, vm, vn = block_coords(le, le.addi(lo, j), plan)
        start = le.addi(le.muli(sub, ep.half), le.muli(s, ep.rows))  # first row of the tile in the block
        end = le.minui(vm, le.muli(le.addi(sub, 1), ep.half))
        vr = le.minui(le.subi(le.value(arith.MaxUIOp(end, start)), start), ep.rows)
        r_in = le.minui(start, le.subi(vm, 1))  # in bounds even for an empty tile
        r0 = le.addi(m0, r_in)
        batch_idx = []
        rest = bat
        for d in reversed(batch_shape):
            batch_idx.append(le.remui(rest, d))
            rest = le.divui(rest, d)
        batch_idx.reverse()

        def offset(strides) -> SSAValue:
            acc = le.index(0)
            for idx, st in zip(batch_idx, strides[:-2]):
                acc = le.addi(acc, le.muli(idx, st))
            return le.addi(le.addi(acc, le.muli(r0, strides[-2])), le.muli(n0, strides[-1]))

        tile_t = lambda t: TensorType(t.element_type, [ep.rows, ep.pitch])  # noqa: E731
        mapping: dict[SSAValue, SSAValue] = {}
        # the product: this tile's window of the workspace, the row-major matmul result
        row_major = element_strides(out_shape, out_shape)
        ld = asctile.LoadOp(ws, offset(row_major), vr, vn, row_major[-2], 1, tile_t(self.product.type))
        mapping[self.product] = le.value(copy_loc(mm, ld))
        mapping[self.product].name_hint = "acc"
        if not probe:
            le.add(CrossSignalOp(HandoffChannel.FREE))
        viewed = self._views()
        for v, arg, shape, st, base in self._input_views(viewed):
            if st[-1] not in (0, 1):
                raise MixTilingError(f"kernel @{k.sym_name.data}: an epilogue input of shape {list(shape)} is read "
                                     f"with a column stride of {st[-1]}")
            if st[-2] == 0 and st[-1] == 1 and ep.rows > 1:  # a row vector: one row, repeated in UB
                row_t = TensorType(v.type.element_type, [1, ep.pitch])
                row = le.value(copy_loc(mm, asctile.LoadOp(gm_of[arg], le.addi(offset(st), base), le.index(1), vn,
                                                           0, 1, row_t)))
                row.name_hint = arg.name_hint
                mapping[v] = le.value(copy_loc(mm, asctile.RepeatRowsOp(row, tile_t(v.type))))
            else:
                ld = asctile.LoadOp(gm_of[arg], le.addi(offset(st), base), vr, vn, st[-2], st[-1], tile_t(v.type))
                mapping[v] = le.value(copy_loc(mm, ld))
            mapping[v].name_hint = arg.name_hint
        body_builder = TileBodyBuilder(k, vn)
        for op in self.epilogue:
            if op.results and op.results[0] in mapping or isinstance(op, VIEW_OPS) and op.results[0] in viewed:
                continue
            mapping[op.results[0]] = body_builder.tile_op(op, mapping, le, tile_t)
        for v, dst in zip(self.outputs, out_args):
            st = asctile.StoreOp(mapping[v], dst, offset(row_major), vr, vn, row_major[-2])
            le.add(copy_loc(v.owner, st))
        body.add_op(scf.YieldOp())


@dataclass(frozen=True)
class TileMixPass(ModulePass):
    """Tile every matmul-with-epilogue kernel into one MIX kernel (see the module docstring)."""

    name = "tile-mix"
    INPUT_LEVEL = "tiling"

    target: str = DEFAULT_TARGET
    cores: int = 0  # 0: every AI Core of the target

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) == MIX_KIND:
                replace_kernel(f, _MixTiler(f, spec, self.cores).run())
