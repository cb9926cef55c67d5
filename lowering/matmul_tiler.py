"""The cube loop of a matmul kernel on tiles (``tile-matmul``, and the AIC part of ``tile-mix``).

The kernel walks its output blocks (``block_coords``: blocks run along N, then M, then the batch; a batch
of A's times one B is folded into M, ``foldable_batch``);
for each, an ``scf.for`` over the L1 stages carries the accumulator. Tails are handled by the valid
extents (``rows``/``cols``/``k``) of the loads, the mmad and the store.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.asctile.matmul import CUBE_KIND
from pyasc.dialects.target import TargetSpec
from pyasc.dialects.types import element_bytes, element_type
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, TensorType
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from .analysis.conv import ConvGeometry, c0_of, implicit_plan
from .analysis.matmul import CubePlan, CubeTilingError, plan_matmul
from .emitter import OpEmitter, copy_loc


def block_coords(e: OpEmitter, block: SSAValue, plan: CubePlan):
    """(batch, first row, first column, valid rows, valid columns) of output block number ``block``
    (blocks run along N, then M, then the batch; along M first with ``plan.m_fastest``)."""
    if plan.m_fastest:
        mbk = e.remui(block, plan.blocks_m)
        q = e.divui(block, plan.blocks_m)
        nbk = e.remui(q, plan.blocks_n)
        bat = e.divui(q, plan.blocks_n)
    else:
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


def foldable_batch(mm: asctensor.MatmulOp) -> bool:
    """Whether a batched matmul is one ``(batch * M) x K`` by ``K x N`` product: every batch shares one B
    and A is read in place as ``M x K`` matrices one after another, so its rows, and the result's, run on
    across the batch. One block then covers rows of several batches, and no batch pads its M rows to
    whole blocks."""
    batch_shape, M, K, N = mm.dims()
    return (prod(batch_shape) > 1 and len(mm.lhs.type.get_shape()) == 3 and len(mm.rhs.type.get_shape()) == 2
            and not mm.ta and _view_of(mm.lhs)[1] == 0 and patches_of(mm) is None)


def patches_of(mm: asctensor.MatmulOp) -> asctensor.Im2colNhwcOp | None:
    """The patches of an implicit GEMM (``lowering/analysis/conv.py``) that ``mm`` multiplies: B^T (channels by
    positions) or A (positions by channels: the product is NHWC); a block's positions lie in one image."""
    return next((v.owner for v in (mm.lhs, mm.rhs) if isinstance(v.owner, asctensor.Im2colNhwcOp)), None)


def cube_plan(name: str, spec: TargetSpec, mm: asctensor.MatmulOp, batch: int, M: int, N: int, K: int, cores: int,
              base_m: int = 0, base_n: int = 0) -> CubePlan:
    """``plan_matmul`` of ``mm``, with L1 stages of whole channel blocks for an implicit GEMM (``implicit_plan``)."""
    in_t = mm.lhs.type.element_type
    plan = plan_matmul(name, spec, batch, M, N, K, str(in_t), cores, base_m=base_m, base_n=base_n)
    patches = patches_of(mm)
    if patches is None:
        return plan
    return implicit_plan(name, spec, plan, ConvGeometry.of(patches.geometry(), c0_of(element_bytes(in_t))),
                         patches.result is mm.lhs)


def positions_first(plan: CubePlan, patches_as_a: bool) -> CubePlan:
    """An implicit GEMM's ``plan`` with the blocks of one window of positions next to each other: along the output
    channels first (M when the patches are B; N, the default order, when they are A)."""
    return plan if patches_as_a else replace(plan, m_fastest=True)


def implicit_gemm(k: func.FuncOp):
    """(the matmul, its geometry, element bytes, whether the patches are A) of the implicit GEMM of kernel ``k``."""
    mm = next(op for op in k.body.block.ops if isinstance(op, asctensor.MatmulOp))
    patches = patches_of(mm)
    es = element_bytes(mm.lhs.type.element_type)
    return mm, ConvGeometry.of(patches.geometry(), c0_of(es)), es, patches.result is mm.lhs


def implicit_gemm_plan(k: func.FuncOp, spec: TargetSpec, cores: int = 0):
    """(plan with ``positions_first`` blocks, geometry, element bytes, whether the patches are A) of the implicit
    GEMM of kernel ``k``, planned as ``MatmulTiler(positions_major=True)`` plans it."""
    mm, geo, es, patches_as_a = implicit_gemm(k)
    batch_shape, M, K, N = mm.dims()
    plan = cube_plan(k.sym_name.data, spec, mm, prod(batch_shape), M, N, K, cores)
    return positions_first(plan, patches_as_a), geo, es, patches_as_a


def matmul_dims(mm: asctensor.MatmulOp, fold: bool) -> tuple[tuple, int, int, int]:
    """``mm.dims()``: (batch shape, M, K, N), the batch folded into M when ``fold``."""
    batch_shape, M, K, N = mm.dims()
    return ((), prod(batch_shape) * M, K, N) if fold else (batch_shape, M, K, N)


@dataclass
class MatmulTiler:
    """Tiles one matmul kernel (``run`` returns the ``asctile`` cube kernel)."""

    kernel: func.FuncOp
    spec: TargetSpec
    cores: int
    base_m: int = 0  # 0: from the plan
    base_n: int = 0  # 0: from the plan
    fold_batch: bool | None = None  # the batch folded into M (``foldable_batch``); None: whenever it can be
    positions_major: bool = False  # an implicit GEMM's blocks run along its output channels first

    def run(self) -> func.FuncOp:
        k = self.kernel
        views = (asctensor.ReshapeOp, asctensor.BroadcastOp)
        ops = [op for op in k.body.block.ops
               if not isinstance(op, (func.ReturnOp, asctensor.FullOp, asctensor.Im2colNhwcOp, *views))]
        mm = ops[0]
        if not isinstance(mm, asctensor.MatmulOp):
            raise CubeTilingError(f"kernel @{k.sym_name.data}: a matmul kernel starts with a matmul")
        relu = any(isinstance(op, arith.MaximumfOp | arith.MaxSIOp) for op in ops)
        out_t = k.body.block.last_op.operands[0].type
        patches = patches_of(mm)
        patches_as_a = patches is not None and patches.result is mm.lhs
        fold = (foldable_batch(mm) if self.fold_batch is None else self.fold_batch) and not patches_as_a
        batch_shape, M, K, N = matmul_dims(mm, fold)
        batch = prod(batch_shape)
        in_t = mm.lhs.type.element_type
        plan = cube_plan(k.sym_name.data, self.spec, mm, batch, M, N, K, self.cores, self.base_m, self.base_n)
        if self.positions_major and patches is not None:
            plan = positions_first(plan, patches_as_a)
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
        (a_src, a_period), (b_src, b_period) = (_view_of(patches.input if patches_as_a else mm.lhs),
                                                _view_of(patches.input if patches and not patches_as_a else mm.rhs))
        a_gm, b_gm, c_gm = gm[a_src], gm[b_src], nb.args[-1]
        ta, tb = mm.ta, mm.tb
        a_batched = len(mm.lhs.type.get_shape()) == 3 and not fold
        b_batched = len(mm.rhs.type.get_shape()) == 3

        e = OpEmitter(InsertPoint.at_end(nb), mm)
        bid = e.value(asctile.BlockIdxOp())
        bnum = e.value(asctile.BlockNumOp())  # GetBlockNum(): the launch's block_dim
        lo = e.divui(e.muli(bid, plan.blocks), bnum)
        hi = e.divui(e.muli(e.addi(bid, 1), plan.blocks), bnum)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "i"
        nb.add_op(copy_loc(mm, scf.ForOp(e.index(0), e.subi(hi, lo), e.index(1), [], body)))
        nb.add_op(func.ReturnOp())

        le = OpEmitter(InsertPoint.at_end(body), mm)
        bat, m0, n0, vm, vn = block_coords(le, le.addi(lo, body.args[0]), plan)
        a_base = le.muli(le.remui(bat, a_period) if a_period else bat, M * K if a_batched else 0)
        b_base = le.muli(le.remui(bat, b_period) if b_period else bat, K * N if b_batched else 0)
        acc_t = TensorType(element_type("i32" if str(in_t) == "i8" else "f32"), [plan.base_m, plan.base_n])
        bias = None
        if mm.bias is not None:  # the block's columns of the bias, a row in BiasTable the first Mmad starts from
            bias = le.value(asctile.LoadBiasOp(gm[_view_of(mm.bias)[0]], n0, vn,
                                               TensorType(acc_t.element_type, [1, plan.base_n])))
            bias.name_hint = "bias"
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
        if patches_as_a:  # the patches of image ``bat``, formed from its rows in L1 (an implicit GEMM)
            geo = patches.geometry()
            image = ke.muli(bat, geo[0] * geo[1] * geo[2])
            at = ke.value(asctile.LoadWindowOp(a_gm, image, m0, k0, vm, vk, geo,
                                               TensorType(in_t, [plan.base_m, plan.k_l1])))
        elif ta:
            a_off = ke.addi(a_base, ke.addi(ke.muli(k0, M), m0))
            a_tile = TensorType(in_t, [plan.k_l1, plan.base_m])
            at = ke.value(asctile.LoadNzOp(a_gm, a_off, vk, vm, M, a_tile))
        else:
            a_off = ke.addi(a_base, ke.addi(ke.muli(m0, K), k0))
            a_tile = TensorType(in_t, [plan.base_m, plan.k_l1])
            at = ke.value(asctile.LoadNzOp(a_gm, a_off, vm, vk, K, a_tile))
        if patches is not None and not patches_as_a:  # the patches of image ``bat``, as B^T
            geo = patches.geometry()
            image = ke.muli(bat, geo[0] * geo[1] * geo[2])
            bt = ke.value(asctile.LoadWindowOp(b_gm, image, n0, k0, vn, vk, geo,
                                               TensorType(in_t, [plan.base_n, plan.k_l1])))
        elif tb:
            b_off = ke.addi(b_base, ke.addi(ke.muli(n0, K), k0))
            b_tile = TensorType(in_t, [plan.base_n, plan.k_l1])
            bt = ke.value(asctile.LoadNzOp(b_gm, b_off, vn, vk, K, b_tile))
        else:
            b_off = ke.addi(b_base, ke.addi(ke.muli(k0, N), n0))
            b_tile = TensorType(in_t, [plan.k_l1, plan.base_n])
            bt = ke.value(asctile.LoadNzOp(b_gm, b_off, vk, vn, N, b_tile))
        at.name_hint, bt.name_hint = "a_l1", "b_l1"
        first = ke.value(arith.CmpiOp(kt, ke.index(0), "eq"))
        acc = ke.value(asctile.MmadOp(at, bt, kbody.args[1], first, vk, ta, tb, bias))
        kbody.add_op(scf.YieldOp(acc))

        c_off = le.addi(le.muli(bat, M * N), le.addi(le.muli(m0, N), n0))
        st = asctile.StoreAccOp(kloop.results[0], c_gm, c_off, vm, vn, N, relu)
        le.add(copy_loc(ops[-1], st))
        body.add_op(scf.YieldOp())
        return new
