"""``tile-elementwise``: each ``elementwise`` or ``rowwise`` ``asctensor`` kernel becomes an ``asctile``
kernel over UB tiles.

The kernel walks this core's share of the tiles of the collapsed iteration space (see
``tiling.py``), loads every input window (broadcasting through its strides), recomputes the
body on tile values (``tile_body``) and stores the outputs. Windows of one input that lie whole rows apart (a
stencil's taps, a depthwise convolution's kernel rows) share one load of the rows they span, each a row window of
it; a cast of such windows casts that load once, each window's cast a row window of the result. The tile is the
largest whose buffers fit UB, as the memory-planning analysis answers (``analysis.memory.tile_kernel_bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.asctensor.analysis import VIEW_OPS, kernel_kind, reduction_rows
from pyasc.dialects.target import DEFAULT_TARGET, module_target
from pyasc.dialects.types import element_bytes
from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, TensorType, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from .analysis.memory import tile_kernel_bytes
from .emitter import OpEmitter, copy_loc
from .errors import TilingError
from .kernel_calls import replace_kernel
from .tile_body import TileBodyBuilder, peak_temporaries, view_source
from .tiling import collapse, element_strides, plan_tiles, row_major
from .vector_bufferizer import scalar_operand


def _memref(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


@dataclass
class _KernelTiler:
    kernel: func.FuncOp
    cores: int
    tile_size: int
    buffers: int
    ub_bytes: int
    block: Block = field(init=False)

    def run(self, skip_plans: frozenset | set = frozenset()) -> func.FuncOp | None:
        """The tiled kernel; None, with ``self.plan`` set, when its plan is one of ``skip_plans``."""
        k = self.kernel
        body = [op for op in k.body.block.ops if not isinstance(op, func.ReturnOp)]
        ret = k.body.block.last_op
        outputs = list(ret.operands)
        if not outputs:
            raise TilingError(f"kernel @{k.sym_name.data} has no outputs")
        args = list(k.body.block.args)
        full, lead = self._row_space(body) if kernel_kind(k) == "rowwise" else (outputs[0].type.get_shape(), None)
        self.full = full
        self.row_shapes = set() if lead is None else {lead, lead + (1,) * (len(full) - len(lead))}

        # what each loaded value reads: a kernel argument, directly or through broadcasts, slices
        # and reshapes (a window with its own strides and base offset)
        views: dict[SSAValue, tuple] = {}
        for v in [*args, *(r for op in body for r in op.results)]:
            src = view_source(v, args, views)
            if src is not None:
                views[v] = src
        for v in outputs:
            if v in args:
                raise TilingError(f"kernel @{k.sym_name.data} returns its input unchanged")
        self.views = views
        loaded = [v for v in views if any(not isinstance(u.operation, VIEW_OPS) for u in v.uses)]
        # an elementwise kernel with reductions has a row prologue: per-row values computed from short
        # rows of the same lead dims (``lead x w``), loaded and reduced for the rows of each tile
        side = lead is None and any(isinstance(op, asctensor.ReduceOp) for op in body)
        side_loaded = [v for v in loaded if side and v.type.get_shape() != full]
        if side:
            self._check_prologue(full, [v for op in body for v in op.results] + side_loaded)
            self.row_shapes = {tuple(full[:-1]) + (1,)}
            loaded = [v for v in loaded if v not in side_loaded]
        sources = {v: views[v][0] for v in loaded}
        in_shapes = [views[v][1] for v in loaded]
        in_strides = [views[v][2] for v in loaded]
        self.bases = {v: views[v][3] for v in loaded}
        if lead is None:
            space, accesses = collapse(full, in_shapes, keep_last=side, in_strides=in_strides)
            if side and space.outer:
                raise TilingError(f"kernel @{k.sym_name.data}: a row prologue needs the rows of {list(full)} "
                                  f"as one run of rows, the inputs give {list(space.dims)}")
        else:
            out2, shapes2, strides2 = self._rows_view(full, lead, in_shapes, in_strides)
            space, accesses = collapse(out2, shapes2, keep_last=True, in_strides=strides2)

        tile_values = [r for op in body for r in op.results if isinstance(r.type, TensorType)]
        sizes = [element_bytes(v.type.element_type) for v in tile_values + args]
        align = 32 // min(sizes)
        widest = max(sizes)
        # loads of one row vector for every tile (rows broadcast, whole rows) or of one value are loaded once
        once = {v for v, acc in zip(loaded, accesses)
                if not any(acc.strides) or (lead is not None and len(acc.strides) > 1 and not any(acc.strides[:-1])
                                            and acc.strides[-1] == 1)}
        small = {r for op in body for r in op.results
                 if isinstance(r.type, TensorType) and (r.type.get_shape() in self.row_shapes or side
                                                        or isinstance(op, asctensor.ConcatOp))
                 and r.type.get_shape() != full}
        # one value per tile that every use takes as a scalar (a depthwise weight): read by the scalar unit
        scalars = {v for v, acc in zip(loaded, accesses) if not any(acc.strides[-2:]) and scalar_operand(v)}
        once -= scalars
        per_elem = self.buffers * (sum(element_bytes(v.type.element_type) for v in loaded
                                       if v not in once and v not in scalars)
                                   + sum(element_bytes(v.type.element_type) for v in outputs if v not in small))
        per_elem += sum(element_bytes(v.type.element_type) for v in once)
        per_elem += widest * (peak_temporaries(body, set(loaded), set(outputs), small) + len(once))
        if side:  # the per-row values spread over whole tiles
            per_elem += widest * sum(isinstance(op, asctensor.BroadcastOp) and op.result.type.get_shape() == full
                                     for op in body)
        self.align = align
        budget = self.tile_size or self.ub_bytes // per_elem
        if lead is not None and -(-space.C // align) * align > budget:
            raise TilingError(f"kernel @{k.sym_name.data}: a row of {space.C} elements does not fit in UB with "
                              f"its {per_elem} bytes per element of live buffers")
        if budget < align:
            raise TilingError(f"kernel @{k.sym_name.data} cannot fit one {align}-element tile in UB "
                              f"({per_elem} bytes per element over all live buffers, {self.ub_bytes} B of UB)")
        plan = plan_tiles(space, budget, align, self.cores, balance=not self.tile_size)
        extra = self._hoisted_values(body, loaded, accesses, space, plan)
        if extra and not self.tile_size:  # values computed once before the loop stay live throughout
            per_elem += widest * extra
            plan = plan_tiles(space, self.ub_bytes // per_elem, align, self.cores, balance=True)
        self.plan = plan
        if plan in skip_plans:
            return None

        new = func.FuncOp(k.sym_name.data, ([_memref(a.type) for a in args] + [_memref(v.type) for v in outputs],
                                            []))
        new.attributes[asctile.KERNEL_ATTR] = UnitAttr()
        new.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(plan.block_dim, 64)
        new.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(self.buffers, 64)
        nb = new.body.block
        for old, a in zip(args, nb.args):
            a.name_hint = old.name_hint
        for i, a in enumerate(nb.args[len(args):]):
            a.name_hint = f"out{i}"
        gm_of = dict(zip(args, nb.args))
        out_args = nb.args[len(args):]

        e = OpEmitter(InsertPoint.at_end(nb))
        bid = e.value(asctile.BlockIdxOp())
        bnum = e.value(asctile.BlockNumOp())  # GetBlockNum(): the launch's block_dim
        lo = e.divui(e.muli(bid, plan.total), bnum)
        hi = e.divui(e.muli(e.addi(bid, 1), plan.total), bnum)
        count = e.subi(hi, lo)
        loop_body = Block(arg_types=[IndexType()])
        loop_body.args[0].name_hint = "i"
        loop = scf.ForOp(e.index(0), count, e.index(1), [], loop_body)
        nb.add_op(loop)
        nb.add_op(func.ReturnOp())
        pre = OpEmitter(InsertPoint.before(loop))  # loop-invariant loads go here

        le = OpEmitter(InsertPoint.at_end(loop_body))
        t = le.addi(lo, loop_body.args[0])
        ct = le.remui(t, plan.col_tiles)
        q = le.divui(t, plan.col_tiles)
        rt = le.remui(q, plan.row_tiles)
        o = le.divui(q, plan.row_tiles)
        r0 = le.muli(rt, plan.rows)
        c0 = le.muli(ct, plan.cols)
        vr = le.minui(le.subi(space.R, r0), plan.rows)
        vc = le.minui(le.subi(space.C, c0), plan.cols)
        outer_idx = []
        for d in reversed(space.outer):
            outer_idx.append(le.remui(o, d))
            o = le.divui(o, d)
        outer_idx.reverse()

        def offset(strides) -> SSAValue:
            acc = le.index(0)
            for idx, st in zip(outer_idx, strides[:-2]):
                acc = le.addi(acc, le.muli(idx, st))
            row_st = strides[-2] if len(strides) > 1 else 0
            return le.addi(le.addi(acc, le.muli(r0, row_st)), le.muli(c0, strides[-1]))

        def tile_type(t: TensorType) -> TensorType:
            if t.get_shape() in self.row_shapes and t.get_shape() != full:
                return TensorType(t.element_type, [plan.rows, align])  # one value per row, 32 B apart
            if side and t.get_shape() != full:  # a short row of the prologue
                return TensorType(t.element_type, [plan.rows, -(-t.get_shape()[-1] // align) * align])
            return TensorType(t.element_type, [plan.rows, plan.pitch])

        C = space.C
        row_strides = tuple(st // C for st in space.out_strides[:-1]) + (0,)  # a row output: one per row
        # a prologue over one row (R = 1) is the same for every tile: computed once, before the loop
        side_once = side and space.R == 1
        se = pre if side_once else le
        widths = {tuple(op.input.type.get_shape()) for op in body if side and isinstance(op, asctensor.ReduceOp)}
        # whole rows: a tile row is one row of the kernel's shape (not several of them flattened)
        whole_rows = plan.col_tiles == 1 and bool(self.full) and C == self.full[-1]
        body_builder = TileBodyBuilder(k, vc, self.row_shapes, self.full, whole_rows,
                                       {s: pre.index(s[-1]) for s in widths})

        def dense(row_st: int, col_st: int, es: int) -> bool:
            """Every window is whole 32 B blocks, contiguous in GM and in UB."""
            one_run = plan.rows == 1 or (plan.cols == space.C == row_st == plan.pitch)
            return col_st == 1 and one_run and (space.C * es) % 32 == 0 and (plan.cols * es) % 32 == 0

        mapping: dict[SSAValue, SSAValue] = {}
        shifted = self._row_shifted(loaded, accesses, sources, space, plan, tile_type)
        tall: dict[SSAValue, SSAValue] = {}
        for v, acc in zip(loaded, accesses):
            row_st = acc.strides[-2] if len(acc.strides) > 1 else 0
            if v in shifted:  # rows of one taller load shared with windows whole rows below it
                first, k, below = shifted[v]
                if first not in tall:
                    tt = tile_type(v.type)
                    # a window's Compare reads whole 256 B repeats from its first row: rows for them below it
                    row_bytes = plan.pitch * element_bytes(tt.element_type)
                    rows = below + -(-(-(-plan.rows * row_bytes // 256) * 256) // row_bytes)
                    ld = asctile.LoadOp(gm_of[sources[v]], le.addi(offset(acc.strides), self.bases[first]),
                                        le.addi(vr, below), vc, row_st, acc.strides[-1],
                                        TensorType(tt.element_type, [rows, plan.pitch]))
                    tall[first] = le.value(ld)
                    tall[first].name_hint = sources[v].name_hint
                mapping[v] = le.value(asctile.RowWindowOp(tall[first], k, tile_type(v.type)))
                mapping[v].name_hint = sources[v].name_hint
                continue
            es = element_bytes(v.type.element_type)
            if tile_type(v.type).get_shape()[1] != plan.pitch or (lead is not None and acc.strides[-1] == 0
                                                                  and v.type.get_shape() in self.row_shapes):
                # a per-row input of a row-wise kernel: one value per row into a row tile
                ld = asctile.LoadOp(gm_of[sources[v]], le.addi(offset(acc.strides), self.bases[v]), vr,
                                    le.index(1), row_st, 1, tile_type(v.type))
            elif self._hoistable(acc, space, plan):
                # one row vector for every tile (a bias or norm weight), or one value for all: loaded
                # once, before the loop
                scalar = not any(acc.strides)
                ld = asctile.LoadOp(gm_of[sources[v]], pre.index(self.bases[v]), pre.index(plan.rows),
                                    pre.index(plan.cols if scalar else space.C), 0, 0 if scalar else 1,
                                    tile_type(v.type))
                mapping[v] = pre.value(ld)
                mapping[v].name_hint = sources[v].name_hint
                continue
            else:
                ld = asctile.LoadOp(gm_of[sources[v]], le.addi(offset(acc.strides), self.bases[v]), vr, vc, row_st,
                                    acc.strides[-1],
                                    tile_type(v.type),
                                    dense(row_st if plan.rows > 1 else space.C, acc.strides[-1], es))
            mapping[v] = le.value(ld)
            mapping[v].name_hint = sources[v].name_hint

        for v in side_loaded:
            src, shape, strides, base = views[v]
            rows, off = (pre.index(1), pre.index(base)) if side_once else \
                (vr, le.addi(le.muli(r0, self._lead_stride(shape, strides)), base))
            ld = asctile.LoadOp(gm_of[src], off, rows, se.index(shape[-1]),
                                0 if side_once else self._lead_stride(shape, strides), strides[-1], tile_type(v.type))
            mapping[v] = se.value(ld)
            mapping[v].name_hint = src.name_hint

        invariant = {v for v in mapping if mapping[v].owner.parent is not loop_body}
        casts: dict[tuple, SSAValue] = {}  # (first window of a taller load, element type) -> that load, cast
        for op in body:
            if op.results and (op.results[0] in mapping or (isinstance(op, VIEW_OPS) and op.results[0] in views)):
                continue
            if side and (op.results[0].type.get_shape() != full or (
                    isinstance(op, asctensor.BroadcastOp) and op.input.type.get_shape() != full)):
                # the prologue, and the spreading of its per-row values over whole tiles
                local = {v: t for v, t in mapping.items() if not (side_once and isinstance(v.owner, asctensor.FullOp))}
                mapping[op.results[0]] = body_builder.tile_op(op, local, se, tile_type)
                if side_once:
                    invariant.add(op.results[0])
                continue
            # an elementwise op on loop-invariant tiles only (e.g. the cast of a norm weight) runs once
            if isinstance(op, asctensor.ConcatOp):
                continue  # per-row results stored side by side (below)
            hoist = isinstance(op, asctensor.IotaOp) or (
                op.operands and all(v in invariant or isinstance(v.owner, asctensor.FullOp) for v in op.operands)
                and any(v in invariant for v in op.operands)
                and not isinstance(op, (asctensor.ReduceOp, asctensor.ArgReduceOp) + VIEW_OPS))
            if hoist:  # its splat operands are made again before the loop (the loop's own are inside it)
                local = {v: t for v, t in mapping.items() if not isinstance(v.owner, asctensor.FullOp)}
                mapping[op.results[0]] = body_builder.tile_op(op, local, pre, tile_type)
                invariant.add(op.results[0])
            elif isinstance(op, asctensor.CastOp) and op.input in shifted:
                # a window of a taller load: that load is cast once, for all its windows, and this is a window of it
                first, k, below = shifted[op.input]
                wide = casts.get((first, op.result.type.element_type))
                if wide is None:
                    tall_t = TensorType(op.result.type.element_type, [plan.rows + below, plan.pitch])
                    wide = casts[(first, op.result.type.element_type)] = body_builder.tile_op(
                        op, {op.input: tall[first]}, le, lambda _: tall_t)
                mapping[op.results[0]] = le.value(asctile.RowWindowOp(wide, k, tile_type(op.result.type)))
            else:
                mapping[op.results[0]] = body_builder.tile_op(op, mapping, le, tile_type)

        out_off = offset(space.out_strides)
        for v, dst in zip(outputs, out_args):
            if isinstance(v.owner, asctensor.ConcatOp):  # column j of each row from the j-th row tile
                width = v.type.get_shape()[-1]
                base = le.muli(offset(row_strides), width)
                for j, part in enumerate(v.owner.inputs):
                    st = asctile.StoreOp(mapping[part], dst, le.addi(base, j), vr, le.index(1), width)
                    copy_loc(v.owner, st)
                    le.add(st)
                continue
            if tile_type(v.type).get_shape()[1] != plan.pitch or (lead is not None and v.type.get_shape() != full):
                st = asctile.StoreOp(mapping[v], dst, offset(row_strides), vr, le.index(1), 1)
            else:
                st = asctile.StoreOp(mapping[v], dst, out_off, vr, vc, space.C,
                                     dense(space.C, 1, element_bytes(v.type.element_type)))
            copy_loc(v.owner, st)
            le.add(st)
        loop_body.add_op(scf.YieldOp())
        return new

    def _row_shifted(self, loaded, accesses, sources, space, plan, tile_type) -> dict:
        """Windows of one input with the same strides whose tiles lie whole rows apart (a stencil's taps, such
        as a depthwise convolution's kernel rows): ``v -> (the first window, its row offset, the rows past the
        first window's tile)``, for groups of at least two windows at most ``plan.rows`` rows apart. One load of
        the rows they span serves them all."""
        groups: dict[tuple, list] = {}
        for v, acc in zip(loaded, accesses):
            row_st = acc.strides[-2] if len(acc.strides) > 1 else 0
            if row_st <= 0 or acc.strides[-1] != 1 or self._hoistable(acc, space, plan) \
                    or tile_type(v.type).get_shape()[1] != plan.pitch:
                continue
            key = (sources[v], acc.strides, v.type.element_type, self.bases[v] % row_st)
            groups.setdefault(key, []).append(v)
        out = {}
        for (_, strides, _, _), members in groups.items():
            first = min(members, key=lambda v: self.bases[v])
            shift = {v: (self.bases[v] - self.bases[first]) // strides[-2] for v in members}
            below = max(shift.values())
            if len(members) > 1 and below <= plan.rows:
                out.update({v: (first, shift[v], below) for v in members})
        return out

    def _check_prologue(self, full, values) -> None:
        """Every value of a row prologue is a short row or one value per row of ``full``'s rows."""
        for v in values:
            shape = v.type.get_shape() if isinstance(v.type, TensorType) else None
            if shape is not None and shape != full and (len(shape) != len(full) or shape[:-1] != full[:-1]):
                raise TilingError(f"kernel @{self.kernel.sym_name.data}: {v.type} in the row prologue of rows of "
                                  f"{list(full)} is not rows of the same lead dims")

    @staticmethod
    def _lead_stride(shape, strides) -> int:
        """The element stride between consecutive rows of a short-row input (its lead dims as one run)."""
        dims = [j for j in range(len(shape) - 1) if shape[j] > 1]
        if any(strides[a] != strides[b] * shape[b] for a, b in zip(dims, dims[1:])):
            raise TilingError(f"a row prologue input of shape {list(shape)} with strides {list(strides)}: its rows "
                              "are not one run")
        return strides[dims[-1]] if dims else 0

    @staticmethod
    def _hoistable(acc, space, plan) -> bool:
        """A load of one row vector for every tile, or of one value for every element (loaded once,
        before the loop)."""
        if not any(acc.strides):
            return True
        return (len(acc.strides) > 1 and space.R > 1 and acc.strides[-2] == 0 and plan.col_tiles == 1
                and not any(acc.strides[:-2]) and acc.strides[-1] == 1)

    def _hoisted_values(self, body, loaded, accesses, space, plan) -> int:
        """How many computed tiles the loop-invariant code motion below will place before the loop."""
        invariant = {v for v, acc in zip(loaded, accesses) if self._hoistable(acc, space, plan)}
        count = 0
        for op in body:
            if isinstance(op, asctensor.IotaOp):
                invariant.add(op.results[0])
                count += 1
            elif (op.operands and op.results and isinstance(op.results[0].type, TensorType)
                    and all(v in invariant or isinstance(v.owner, asctensor.FullOp) for v in op.operands)
                    and any(v in invariant for v in op.operands)
                    and not isinstance(op, (asctensor.ReduceOp, asctensor.ArgReduceOp) + VIEW_OPS)):
                invariant.add(op.results[0])
                count += 1
        return count

    def _row_space(self, body: list[Operation]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(full shape, lead dims) of a row-wise kernel, from its reductions."""
        spaces = {reduction_rows(op) for op in body if reduction_rows(op) is not None}
        if len(spaces) != 1 or next(iter(spaces))[1] is None:
            raise TilingError(f"row-wise kernel @{self.kernel.sym_name.data} needs reductions over the same "
                              f"trailing axes, got {sorted(spaces, key=str)}")
        return next(iter(spaces))

    def _rows_view(self, full, lead, in_shapes, in_strides):
        """The kernel's shapes as ``lead x C`` (C = the reduced trailing dims, kept as one dim): each
        input's strides over ``lead`` and over the row (0: one value per row or a row vector)."""
        k = len(lead)
        C = 1
        for d in full[k:]:
            C *= d
        out = lead + (C,)
        strides = []
        for shape, st in zip(in_shapes, in_strides):
            if tuple(shape) in self.row_shapes and tuple(shape) != tuple(full):
                # one value per row (lead dims, maybe followed by 1s): aligned to the lead dims
                own = tuple(st) if st is not None else row_major(shape)
                strides.append(tuple(0 if shape[j] == 1 and lead[j] > 1 else own[j] for j in range(k)) + (0,))
                continue
            es = element_strides(shape, full, st)
            tail = es[k:]
            if all(x == 0 for x in tail):
                strides.append(es[:k] + (0,))
            elif tail == row_major(full[k:]):
                strides.append(es[:k] + (1,))
            else:
                raise TilingError(f"row-wise kernel @{self.kernel.sym_name.data}: an input of shape {list(shape)} "
                                  f"broadcasts only part of a row of {list(full[k:])}")
        return out, [out] * len(strides), strides


_FIT_ROUNDS = 8  # plans tried per kernel
_GROW_BELOW = 0.8  # a fitting plan using less than this share of UB is grown
_MIN_TILES_PER_CORE = 2  # a grown plan keeps double buffering busy


@dataclass(frozen=True)
class TileElementwisePass(ModulePass):
    """Tile every ``asctensor`` kernel onto the vector cores and UB; options override the derived plan."""

    name = "tile-elementwise"
    INPUT_LEVEL = "tiling"

    target: str = DEFAULT_TARGET
    cores: int = 0  # 0: all vector cores of the target
    tile_size: int = 0  # elements per tile; 0: derived from UB capacity
    buffers: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) in ("elementwise", "rowwise"):
                new = self._fitted(f, self.cores or spec.vector_cores, spec.ub_usable_bytes)
                replace_kernel(f, new)

    def _fitted(self, kernel: func.FuncOp, cores: int, capacity: int) -> func.FuncOp:
        """The tiled kernel with the largest tile whose planned buffers fit ``capacity``.

        The per-element estimate is checked by planning: a plan that overflows shrinks the budget,
        one that leaves more than a fifth of UB unused grows it (while every core keeps at least two
        tiles, so that copies overlap compute); between a fitting and an overflowing
        budget the search bisects. The last plan that fits is kept.
        """
        budget, fits, overflows = capacity, None, None  # (budget, kernel) of the best fit, overflow budget
        tried, new, min_per_core = set(), None, None
        for _ in range(_FIT_ROUNDS):
            tiler = _KernelTiler(kernel, cores, self.tile_size, self.buffers, budget)
            built = tiler.run(tried)
            if self.tile_size:
                return built
            if built is None:  # a plan tried before
                if fits is not None:
                    break
                budget = int(budget * 0.5)  # still overflowing: shrink until the plan changes
                continue
            new = built
            tried.add(tiler.plan)
            per_core = -(-tiler.plan.total // tiler.plan.block_dim)
            if min_per_core is None:
                min_per_core = min(_MIN_TILES_PER_CORE, per_core)
            used = tile_kernel_bytes(new) if per_core >= min_per_core else None
            if used is None:  # so big that a core's copies and compute no longer overlap
                overflows = budget
            elif used <= capacity:
                fits = (budget, new)
                if used >= capacity * _GROW_BELOW:
                    break
            else:
                overflows = budget
            if fits is not None and overflows is not None:
                budget = (fits[0] + overflows) // 2
            else:
                budget = int(budget * capacity / max(used or capacity, 1) * 0.98)
        return fits[1] if fits is not None else new
