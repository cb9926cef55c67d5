"""``tile-matmul``: each ``matmul`` kernel becomes an ``asctile`` cube kernel.

The tile plan comes from the target's buffer capacities and the fractal shapes:

* ``baseM x baseN`` (one output block, whole 16 x 16 fractals, its fp32/int32 accumulator within
  L0C: at most 128 x 256 on 910B) minimises the estimated makespan: the rounds of blocks over the
  AICs times one block's cycles on its busiest unit (cube MACs, MTE2 panels through L2, MTE1,
  FIX; ``block_cycles``); among blocks within 1 % of the best, the largest, then the squarest;
* the L1 stage ``kL1`` is the longest K (a multiple of the L0 step) whose A and B tiles fit L1 twice
  (double buffering); the L0 step ``kL0`` (chosen by ``bufferize-cube``) is the longest K whose A
  and B slices fit L0A and L0B twice;
* output blocks are split evenly over ``min(cube cores, blocks)`` AICs; tails are handled by the
  valid extents (``rows``/``cols``/``k``) of the loads, the mmad and the store.

The kernel walks its blocks; for each, an ``scf.for`` over the L1 stages carries the accumulator.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.asctile.matmul import CUBE_KIND
from pyasc.dialects.target import TargetSpec, module_target
from pyasc.dialects.types import element_bytes, element_type
from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from .emitter import OpEmitter, copy_loc
from .errors import CompileError
from .tile_elementwise import kernel_kind


class CubeTilingError(CompileError):
    """A matmul whose tiles cannot fit the cube's buffers."""


def _up(x: int, a: int) -> int:
    return -(-x // a) * a


@dataclass(frozen=True)
class CubePlan:
    batch: int
    M: int
    N: int
    K: int
    base_m: int
    base_n: int
    k_l1: int
    k_l0: int
    blocks_m: int
    blocks_n: int
    block_dim: int

    @property
    def blocks(self) -> int:
        return self.batch * self.blocks_m * self.blocks_n

    @property
    def k_stages(self) -> int:
        return ceil(self.K / self.k_l1)


def l0_step(spec: TargetSpec, base_m: int, base_n: int, es: int, c0: int, buffers: int = 2) -> int:
    """The longest K slice (a multiple of c0) whose A and B parts fit L0A and L0B ``buffers`` times."""
    ka = spec.l0a_bytes // (buffers * base_m * es)
    kb = spec.l0b_bytes // (buffers * base_n * es)
    kq = max(c0, 16)  # whole fractals both ways: c0 columns of A, 16 rows of a transposed tile
    return (min(ka, kb) // kq) * kq


BLOCK_STEP = 16  # block sides are whole fractals
NEAR_BEST = 1.01  # blocks within 1 % of the shortest estimate compete on traffic


def block_cycles(spec: TargetSpec, bm: int, bn: int, K: int, in_type: str) -> float:
    """Estimated cycles of one ``bm x bn`` output block over ``K``: the busiest of the cube (MACs),
    MTE2 (its A and B panels, read through L2), MTE1 (L1 -> L0A/L0B) and FIX (the result)."""
    es = element_bytes(element_type(in_type))
    k = _up(K, BLOCK_STEP)
    cube = bm * bn * k / spec.cube_macs_per_cycle[in_type]
    mte2 = (bm + bn) * k * es / spec.mte2_l2_bytes_per_cycle
    mte1 = bm * k * es / spec.mte1_l0a_bytes_per_cycle + bn * k * es / spec.mte1_l0b_bytes_per_cycle
    fix = bm * bn * 4 / spec.fix_bytes_per_cycle
    return max(cube, mte2, mte1, fix)


def _best_block(spec: TargetSpec, batch: int, M: int, N: int, K: int, in_type: str, cores: int,
                fixed_m: int = 0, fixed_n: int = 0) -> tuple[int, int]:
    """The output block whose estimated makespan (rounds of blocks over the cube cores x one
    block's cycles) is shortest; its fp32/int32 accumulator fits L0C (at most 128 x 256 on 910B)."""
    es = element_bytes(element_type(in_type))
    c0 = 32 // es
    ms = [fixed_m] if fixed_m else range(BLOCK_STEP, min(_up(M, BLOCK_STEP), 256) + 1, BLOCK_STEP)
    scored = []
    for bm in ms:
        top = min(_up(N, BLOCK_STEP), spec.l0c_bytes // (4 * bm) // BLOCK_STEP * BLOCK_STEP)
        for bn in ([fixed_n] if fixed_n else range(BLOCK_STEP, top + 1, BLOCK_STEP)):
            if bm * bn * 4 > spec.l0c_bytes or l0_step(spec, bm, bn, es, c0) < c0:
                continue
            rounds = ceil(batch * ceil(M / bm) * ceil(N / bn) / cores)
            scored.append((rounds * block_cycles(spec, bm, bn, K, in_type), bm, bn))
    if not scored:
        return fixed_m or min(128, _up(M, BLOCK_STEP)), fixed_n or BLOCK_STEP
    best = min(t for t, _, _ in scored)
    # near the best: the largest block, then the least panel traffic (the squarest), then the widest
    _, _, bn, bm = max((bm * bn, -(bm + bn), bn, bm) for t, bm, bn in scored if t <= best * NEAR_BEST)
    return bm, bn


def plan_matmul(name: str, spec: TargetSpec, batch: int, M: int, N: int, K: int, in_type: str,
                cores: int = 0, base_m: int = 0, base_n: int = 0, k_l1: int = 0) -> CubePlan:
    es = element_bytes(element_type(in_type))
    c0 = 32 // es
    acc_bytes = 4
    cores = cores or spec.cube_cores
    if not base_m or not base_n:
        base_m, base_n = _best_block(spec, batch, M, N, K, in_type, cores, base_m, base_n)
    if base_m * base_n * acc_bytes > spec.l0c_bytes:
        raise CubeTilingError(f"kernel @{name}: the accumulator of a {base_m}x{base_n} block needs "
                              f"{base_m * base_n * acc_bytes} B but L0C has {spec.l0c_bytes} B")
    k_l0 = l0_step(spec, base_m, base_n, es, c0)
    if k_l0 < c0:
        raise CubeTilingError(f"kernel @{name}: a {base_m}x{c0} slice of A and a {c0}x{base_n} slice of B do "
                              f"not fit L0A ({spec.l0a_bytes} B) and L0B ({spec.l0b_bytes} B) twice")
    k_l0 = min(k_l0, _up(K, max(c0, 16)))
    if not k_l1:
        fit = spec.l1_bytes // (2 * (base_m + base_n) * es)
        k_l1 = max(k_l0, min(fit // k_l0 * k_l0, _up(K, k_l0)))
    k_l1 = _up(k_l1, k_l0)
    blocks = batch * ceil(M / base_m) * ceil(N / base_n)
    return CubePlan(batch, M, N, K, base_m, base_n, k_l1, k_l0, ceil(M / base_m), ceil(N / base_n),
                    max(1, min(cores, blocks)))


def block_coords(e: OpEmitter, block: SSAValue, plan: CubePlan):
    """(batch, first row, first column, valid rows, valid columns) of output block number ``block``
    (blocks run along N, then M, then the batch)."""
    nbk = e.remui(block, plan.blocks_n)
    q = e.divui(block, plan.blocks_n)
    mbk = e.remui(q, plan.blocks_m)
    bat = e.divui(q, plan.blocks_m)
    m0 = e.muli(mbk, plan.base_m)
    n0 = e.muli(nbk, plan.base_n)
    return bat, m0, n0, e.minui(e.subi(plan.M, m0), plan.base_m), e.minui(e.subi(plan.N, n0), plan.base_n)


def _memref(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


def _view_of(v: SSAValue) -> tuple[SSAValue, int]:
    """(kernel argument, batch period) of a matmul operand: the argument itself (period 0), or
    reshapes of it (contiguous, read in place), or the reshape of ``broadcast((1, G, M, K) ->
    (B, G, M, K))`` (a convolution's weights per group: batch ``b`` reads matrix ``b % G``)."""
    period = 0
    while isinstance(v.owner, asctensor.ReshapeOp | asctensor.BroadcastOp):
        op = v.owner
        if isinstance(op, asctensor.BroadcastOp):
            src = op.input.type.get_shape()
            if len(src) != 4 or src[0] != 1 or period:
                raise CubeTilingError("a matmul operand broadcast other than (1, G, M, K) -> (B, G, M, K)")
            period = src[1]
        v = op.input
    return v, period


@dataclass
class _MatmulTiler:
    kernel: func.FuncOp
    spec: TargetSpec
    cores: int
    base_m: int = 0  # 0: from the plan
    base_n: int = 0  # 0: from the plan

    def run(self) -> func.FuncOp:
        k = self.kernel
        views = (asctensor.ReshapeOp, asctensor.BroadcastOp)
        ops = [op for op in k.body.block.ops if not isinstance(op, (func.ReturnOp, asctensor.FullOp, *views))]
        mm = ops[0]
        if not isinstance(mm, asctensor.MatmulOp) or mm.bias is not None:
            raise CubeTilingError(f"kernel @{k.sym_name.data}: a matmul kernel starts with a matmul without bias")
        relu = any(isinstance(op, arith.MaximumfOp | arith.MaxSIOp) for op in ops)
        out_t = k.body.block.last_op.operands[0].type
        batch_shape, M, K, N = mm.dims()
        batch = 1
        for d in batch_shape:
            batch *= d
        in_t = mm.lhs.type.element_type
        plan = plan_matmul(k.sym_name.data, self.spec, batch, M, N, K, str(in_t), self.cores,
                           base_m=self.base_m, base_n=self.base_n)
        self.plan = plan
        args = list(k.body.block.args)
        new = func.FuncOp(k.sym_name.data, ([_memref(a.type) for a in args] + [_memref(out_t)], []))
        new.attributes[asctile.KERNEL_ATTR] = StringAttr(CUBE_KIND)
        new.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(plan.block_dim, 64)
        new.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(2, 64)
        nb = new.body.block
        for old, a in zip(args, nb.args):
            a.name_hint = old.name_hint
        nb.args[-1].name_hint = "out"
        gm = dict(zip(args, nb.args))
        (a_src, a_period), (b_src, b_period) = _view_of(mm.lhs), _view_of(mm.rhs)
        a_gm, b_gm, c_gm = gm[a_src], gm[b_src], nb.args[-1]
        ta, tb = mm.ta, mm.tb
        a_batched = len(mm.lhs.type.get_shape()) == 3
        b_batched = len(mm.rhs.type.get_shape()) == 3

        e = OpEmitter(InsertPoint.at_end(nb), mm)
        bid = e.value(asctile.BlockIdxOp())
        lo = e.divui(e.muli(bid, plan.blocks), plan.block_dim)
        hi = e.divui(e.muli(e.addi(bid, 1), plan.blocks), plan.block_dim)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "i"
        nb.add_op(copy_loc(mm, scf.ForOp(e.index(0), e.subi(hi, lo), e.index(1), [], body)))
        nb.add_op(func.ReturnOp())

        le = OpEmitter(InsertPoint.at_end(body), mm)
        bat, m0, n0, vm, vn = block_coords(le, le.addi(lo, body.args[0]), plan)
        a_base = le.muli(le.remui(bat, a_period) if a_period else bat, M * K if a_batched else 0)
        b_base = le.muli(le.remui(bat, b_period) if b_period else bat, K * N if b_batched else 0)
        acc_t = TensorType(element_type("i32" if str(in_t) == "i8" else "f32"), [plan.base_m, plan.base_n])
        acc0 = le.value(asctile.AccOp(acc_t))
        kbody = Block(arg_types=[IndexType(), acc_t])
        kbody.args[0].name_hint = "kt"
        kbody.args[1].name_hint = "acc"
        kloop = scf.ForOp(le.index(0), le.index(plan.k_stages), le.index(1), [acc0], kbody)
        le.add(kloop)

        ke = OpEmitter(InsertPoint.at_end(kbody), mm)
        kt = kbody.args[0]
        k0 = ke.muli(kt, plan.k_l1)
        vk = ke.minui(ke.subi(K, k0), plan.k_l1)
        # A: M x K row-major (or K x M when transposed); B: K x N (or N x K)
        if ta:
            a_off = ke.addi(a_base, ke.addi(ke.muli(k0, M), m0))
            a_tile = TensorType(in_t, [plan.k_l1, plan.base_m])
            at = ke.value(asctile.LoadNzOp(a_gm, a_off, vk, vm, M, a_tile))
        else:
            a_off = ke.addi(a_base, ke.addi(ke.muli(m0, K), k0))
            a_tile = TensorType(in_t, [plan.base_m, plan.k_l1])
            at = ke.value(asctile.LoadNzOp(a_gm, a_off, vm, vk, K, a_tile))
        if tb:
            b_off = ke.addi(b_base, ke.addi(ke.muli(n0, K), k0))
            b_tile = TensorType(in_t, [plan.base_n, plan.k_l1])
            bt = ke.value(asctile.LoadNzOp(b_gm, b_off, vn, vk, K, b_tile))
        else:
            b_off = ke.addi(b_base, ke.addi(ke.muli(k0, N), n0))
            b_tile = TensorType(in_t, [plan.k_l1, plan.base_n])
            bt = ke.value(asctile.LoadNzOp(b_gm, b_off, vk, vn, N, b_tile))
        at.name_hint, bt.name_hint = "a_l1", "b_l1"
        first = ke.value(arith.CmpiOp(kt, ke.index(0), "eq"))
        acc = ke.value(asctile.MmadOp(at, bt, kbody.args[1], first, vk, ta, tb))
        kbody.add_op(scf.YieldOp(acc))

        c_off = le.addi(le.muli(bat, M * N), le.addi(le.muli(m0, N), n0))
        st = asctile.StoreAccOp(kloop.results[0], c_gm, c_off, vm, vn, N, relu)
        le.add(copy_loc(ops[-1], st))
        body.add_op(scf.YieldOp())
        return new


@dataclass(frozen=True)
class TileMatmulPass(ModulePass):
    """Tile every ``matmul`` kernel onto the cube cores (see the module docstring)."""

    name = "tile-matmul"

    target: str = "ascend910b2"
    cores: int = 0  # 0: every cube core of the target
    base_m: int = 0  # output block rows; 0: the plan's choice
    base_n: int = 0  # output block columns; 0: the plan's choice

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) == "matmul":
                Rewriter.replace_op(f, _MatmulTiler(f, spec, self.cores, self.base_m, self.base_n).run())
