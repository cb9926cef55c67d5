"""``bufferize-cube``: cube tile kernels become L1/L0 buffers, the cube's data path and its flags.

Buffers (``plan-memory`` places them): the A and B L1 tiles rotate through two slots (an L1
stage is loaded while the previous one is consumed), the L0A/L0B slices of one K step through
two slots (MTE1 loads step ``h + 1`` while the cube multiplies step ``h``), and the accumulator
rotates through two L0C slots when two fit (the cube multiplies block ``i + 1`` while FixPipe drains
block ``i``), else has one. L0C passes between the cube and FixPipe by its unit flags (``UnitFlag.md``): every
Mmad waits, 512 B block by block, until FixPipe has read what the block two back (one back: one slot) left
there, and the last Mmad of a block lets FixPipe read each 512 B as soon as it is final, so the Fixpipe runs
alongside it. Per output block ``i``, L0C slot ``i % 2``::

    for each L1 stage g:                L1 slot g % 2
        wait MTE1->MTE2 (g % 2)         (the slot's previous stage was consumed)
        copy_nz B; set MTE2->MTE1 (2 + g % 2); copy_nz A; set MTE2->MTE1 (g % 2)
        wait MTE2->MTE1 (2 + g % 2)     (B has arrived)
        for each K step h of the stage: L0 slot h % 2
            wait M->MTE1 (h % 2)        (the step two back was multiplied)
            load_l0 B                   (MTE1; L1 -> L0B is the slower path, so it starts first; an
                                         implicit GEMM's patches: Load3Dv2 from the window)
            wait MTE2->MTE1 (g % 2)     (first step only: A has arrived)
            load_l0 A                   (MTE1; patches as A: Load3Dv2 from the window into L0A)
            set/wait MTE1->M (h % 2)
            mmad (M; the first step of the block overwrites, the rest accumulate; unitFlag 3 in the
                  block's last step, else 2)
            set M->MTE1 (h % 2)
        set MTE1->MTE2 (g % 2)
    fixpipe (FIX; unitFlag 3)

A kernel with a bias (``load_bias``) moves the block's bias row through one L1 row and the one BiasTable row in
the block's first K step (``_BiasRow``, flags ``BIAS_FLAGS``)::

    [wait MTE1->MTE2 (2)]; copy_bias (MTE2, behind the stage's copies); set MTE2->MTE1 (4)
    ... the step's load_l0 B and A
    wait MTE2->MTE1 (4); [wait M->MTE1 (2)]; load_bias (MTE1); [set MTE1->MTE2 (2)]
    ... set/wait MTE1->M; the first mmad starts from BT; [set M->MTE1 (2)]

The bracketed write-after-read flags exist only where nothing else orders the accesses: the L1 row's where a block
has one L1 stage (with two or more, the next block's copies wait for this block's first stage to be consumed, after
its load_bias), BT's where a block has one K step (with two or more, the next block's first load_l0 waits for this
block's first Mmad).

The reverse (write-after-read) flags are primed before the block loop and drained after it, so
every ``SetFlag`` is consumed by exactly one ``WaitFlag``. The synchronisation of a cube kernel
is complete after this pass (``insert-sync`` handles vector kernels only).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.ascbuf import MemorySpace, MemorySpaceAttr
from pyasc.dialects.asctile.analysis import core_parts, is_cube_kernel, is_mix_kernel
from pyasc.dialects.asctile.mix import CoreKind, CrossSignalOp, CrossWaitOp
from pyasc.dialects.target import Pipe, module_target
from pyasc.dialects.types import element_bytes

from .analysis.conv import ConvGeometry
from .analysis.matmul import divided_step
from .bufferize_mix import lower_handoffs
from .emitter import OpEmitter, branches, constant_of, extent_values, when

# the event ids of the bias row's flags, next to the stages' (MTE2->MTE1 0-3; MTE1->MTE2 and M->MTE1 0-1)
BIAS_FLAGS = {(Pipe.MTE2, Pipe.MTE1): 4, (Pipe.MTE1, Pipe.MTE2): 2, (Pipe.M, Pipe.MTE1): 2}


def bias_row(base_n: int, source_type) -> list[int]:
    """The shape of a block's bias row in L1 and BiasTable: ``base_n`` rounded up to whole 64 B units of the source
    (``DataCopy`` C1 -> C2 moves 64 B units)."""
    q = 64 // element_bytes(source_type)
    return [1, -(-base_n // q) * q]


def _buf(shape, et, space: MemorySpace) -> MemRefType:
    return MemRefType(et, shape, memory_space=MemorySpaceAttr(space))


def _block_k(a_load, ta: bool, k_l1: int, k_l0: int) -> tuple[int, int] | None:
    """(L1 stages, L0 steps) of a block's K loop, K read off A's GM matrix (K x M when ``ta``); None for the
    patches of an implicit GEMM."""
    if not isinstance(a_load, asctile.LoadNzOp):
        return None
    k = a_load.source.type.get_shape()[-2 if ta else -1]
    stages = -(-k // k_l1)
    return stages, sum(-(-min(k - s * k_l1, k_l1) // k_l0) for s in range(stages))


class _BiasRow:
    """The bias row of a cube kernel: its L1 row and BiasTable row, and the ops of a block's first K step (see the
    module docstring); ``stages``/``steps`` of a block (None: not known) decide the write-after-read flags."""

    def __init__(self, load: asctile.LoadBiasOp, top: OpEmitter, acc_type, base_n: int, stages, steps):
        et = load.source.type.element_type
        row = bias_row(base_n, et)
        self.source, self.offset, self.cols = load.source, load.offset, load.cols
        self.l1 = top.value(ascbuf.AllocOp(_buf(row, et, MemorySpace.L1), 1))
        self.bt = top.value(ascbuf.AllocOp(_buf(row, acc_type, MemorySpace.BT), 1))
        self.l1.name_hint, self.bt.name_hint = "bias_l1", "bias_bt"
        self.l1_war = stages is None or stages < 2
        self.bt_war = steps is None or steps < 2
        self.primed = ([(Pipe.MTE1, Pipe.MTE2, BIAS_FLAGS[Pipe.MTE1, Pipe.MTE2])] if self.l1_war else []) + (
            [(Pipe.M, Pipe.MTE1, BIAS_FLAGS[Pipe.M, Pipe.MTE1])] if self.bt_war else [])

    @staticmethod
    def _when(e: OpEmitter, cond, ops: list) -> None:
        we = when(e, cond)
        for op in ops:
            we.add(op)

    def _flag(self, cls, src: Pipe, dst: Pipe, e: OpEmitter):
        return cls(src, dst, e.index(BIAS_FLAGS[src, dst]))

    def copy(self, e: OpEmitter, first) -> None:
        """MTE2: the block's bias columns into the L1 row."""
        ops = [self._flag(ascbuf.WaitFlagOp, Pipe.MTE1, Pipe.MTE2, e)] if self.l1_war else []
        ops += [ascbuf.CopyBiasOp(self.source, self.offset, self.l1, self.cols),
                self._flag(ascbuf.SetFlagOp, Pipe.MTE2, Pipe.MTE1, e)]
        self._when(e, first, ops)

    def load(self, e: OpEmitter, first) -> None:
        """MTE1: the L1 row into BiasTable, before the MTE1 -> M flag of the block's first Mmad."""
        ops = [self._flag(ascbuf.WaitFlagOp, Pipe.MTE2, Pipe.MTE1, e)]
        ops += [self._flag(ascbuf.WaitFlagOp, Pipe.M, Pipe.MTE1, e)] if self.bt_war else []
        ops.append(ascbuf.LoadBiasOp(self.l1, self.bt, self.cols))
        ops += [self._flag(ascbuf.SetFlagOp, Pipe.MTE1, Pipe.MTE2, e)] if self.l1_war else []
        self._when(e, first, ops)

    def release(self, e: OpEmitter, first) -> None:
        """M: the block's first Mmad has read BiasTable."""
        if self.bt_war:
            self._when(e, first, [self._flag(ascbuf.SetFlagOp, Pipe.M, Pipe.MTE1, e)])


def _last(e: OpEmitter, i, loop: scf.ForOp, trips: frozenset[int] | None = None):
    """``i`` is ``loop``'s last iteration (``i + step >= ub``); None when the loop runs once (``trips``: the trip
    counts it can have, when its bounds do not say)."""
    lb, ub, step = (constant_of(v) for v in (loop.lb, loop.ub, loop.step))
    if None not in (lb, ub, step) and ub - lb <= step or trips == frozenset((1,)):
        return None
    return e.value(arith.CmpiOp(e.addi(i, loop.step), loop.ub, "uge"))


def _and(e: OpEmitter, conds: list):
    """The conjunction of the conditions that are not None (None when all are)."""
    conds = [c for c in conds if c is not None]
    out = conds[0] if conds else None
    for c in conds[1:]:
        out = e.value(arith.AndIOp(out, c))
    return out


@dataclass
class _CubeBufferizer:
    kernel: func.FuncOp
    spec: object

    def run(self) -> None:
        k = self.kernel
        outer = next(op for op in k.body.block.ops  # the block loop (a MIX kernel's AIC may loop over hand-offs)
                     if isinstance(op, scf.ForOp) and any(isinstance(o, asctile.AccOp) for o in op.body.block.ops))
        obody = outer.body.block
        kloop = next(op for op in obody.ops if isinstance(op, scf.ForOp))
        store = next(op for op in obody.ops if isinstance(op, asctile.StoreAccOp))
        acc_op = next(op for op in obody.ops if isinstance(op, asctile.AccOp))
        kb = kloop.body.block
        loads = [op for op in kb.ops if isinstance(op, asctile.LoadNzOp | asctile.LoadWindowOp)]
        mmad = next(op for op in kb.ops if isinstance(op, asctile.MmadOp))
        a_load = next(ld for ld in loads if ld.result == mmad.lhs)
        b_load = next(ld for ld in loads if ld.result == mmad.rhs)
        ta, tb = mmad.transpose_a is not None, mmad.transpose_b is not None

        in_t = mmad.lhs.type.element_type
        es = element_bytes(in_t)
        c0 = 32 // es
        acc_t = mmad.acc.type
        base_m, base_n = acc_t.get_shape()
        k_l1 = a_load.result.type.get_shape()[0 if ta else 1]
        k_l0 = divided_step(self.spec, base_m, base_n, es, c0, k_l1)
        nk = k_l1 // k_l0
        k_stages = kloop.ub.owner.value.value.data if isinstance(kloop.ub.owner, arith.ConstantOp) else None

        # LoadData transposes only 16x16 fractals (2-byte types): for int8 the DMA transposes B (and a
        # transposed A) on the way into L1, so L1 holds B^T (A) and LoadData copies fractals as is; a 4-byte
        # B stays K x N, and so does a 4-byte A^T next to it (LoadDataWithTranspose moves them into L0)
        dma_t = {"a": ta and es != 2 and not (es == 4 and not tb), "b": not tb and es == 1}
        shape_a, shape_b = a_load.result.type.get_shape(), b_load.result.type.get_shape()
        window_a, window = isinstance(a_load, asctile.LoadWindowOp), isinstance(b_load, asctile.LoadWindowOp)
        # the input rows of an implicit GEMM's block, [C1][rows * W][C0] (analysis/conv.py): its patches are B, or A
        if window:
            geo = ConvGeometry.of(b_load.geometry.get_values(), c0)
            shape_b = [geo.window_elements(base_n, k_l1 // geo.k_per_c1) // c0, c0]
        if window_a:
            geo = ConvGeometry.of(a_load.geometry.get_values(), c0)
            shape_a = [geo.window_elements(base_m, k_l1 // geo.k_per_c1) // c0, c0]
        if dma_t["a"]:
            shape_a, ta = shape_a[::-1], False
        if dma_t["b"]:
            shape_b, tb = shape_b[::-1], True
        top = OpEmitter(InsertPoint.at_start(k.body.block))
        l1a = top.value(ascbuf.AllocOp(_buf(shape_a, in_t, MemorySpace.L1), 2))
        l1b = top.value(ascbuf.AllocOp(_buf(shape_b, in_t, MemorySpace.L1), 2))
        l0a = top.value(ascbuf.AllocOp(_buf([base_m, k_l0], in_t, MemorySpace.L0A), 2))
        l0b = top.value(ascbuf.AllocOp(_buf([k_l0, base_n], in_t, MemorySpace.L0B), 2))
        c_slots = 2 if 2 * base_m * base_n * element_bytes(acc_t.element_type) <= self.spec.l0c_bytes else 1
        l0c = top.value(ascbuf.AllocOp(_buf([base_m, base_n], acc_t.element_type, MemorySpace.L0C), c_slots))
        for v, n in ((l1a, "a_l1"), (l1b, "b_l1"), (l0a, "a_l0"), (l0b, "b_l0"), (l0c, "c_l0")):
            v.name_hint = n
        lbias = next((op for op in obody.ops if isinstance(op, asctile.LoadBiasOp)), None)
        bias = None
        if lbias is not None:
            extent = _block_k(a_load, mmad.transpose_a is not None, k_l1, k_l0)
            bias = _BiasRow(lbias, top, acc_t.element_type, base_n, *(extent or (None, None)))

        # prime the write-after-read flags, drain them after the block loop
        pre = OpEmitter(InsertPoint.before(outer), outer)
        post = OpEmitter(InsertPoint.after(outer), outer)
        reverse = [(Pipe.MTE1, Pipe.MTE2, 2), (Pipe.M, Pipe.MTE1, 2)]
        primed = [(src, dst, i) for src, dst, n in reverse for i in range(n)] + (bias.primed if bias else [])
        for src, dst, i in primed:
            pre.add(ascbuf.SetFlagOp(src, dst, pre.index(i)))
        for src, dst, i in primed:
            post.add(ascbuf.WaitFlagOp(src, dst, post.index(i)))

        vm, vn = store.rows, store.cols
        i = obody.args[0]
        # the block: its L0C slot, then the K loop without iter_args
        be = OpEmitter(InsertPoint.before(kloop), kloop)
        c0_slot = be.value(ascbuf.SlotOp(l0c, i)) if c_slots > 1 else l0c
        c0_slot.name_hint = "c_l0_slot" if c_slots > 1 else "c_l0"
        nbody = Block(arg_types=[IndexType()])
        nbody.args[0].name_hint = "kt"
        kb.args[0].replace_all_uses_with(nbody.args[0])
        new_loop = scf.ForOp(kloop.lb, kloop.ub, kloop.step, [], nbody)
        Rewriter.insert_op(new_loop, InsertPoint.before(kloop))
        for op in list(kb.ops):
            op.detach()
            if isinstance(op, scf.YieldOp):
                continue
            nbody.add_op(op)
        kt = nbody.args[0]

        # one L1 stage
        anchor = a_load
        e = OpEmitter(InsertPoint.before(anchor), anchor)
        g = e.addi(e.muli(i, k_stages), kt) if k_stages is not None else e.addi(e.muli(i, kloop.ub), kt)
        g.name_hint = "stage"
        sid = e.remui(g, 2)
        a1 = e.value(ascbuf.SlotOp(l1a, g))
        b1 = e.value(ascbuf.SlotOp(l1b, g))
        e.add(ascbuf.WaitFlagOp(Pipe.MTE1, Pipe.MTE2, sid))
        # B first, each copy with its own flag: MTE1 moves B (the slower path into L0) while A arrives; where the
        # stage waits for its input window (a hand-off from the AIVs, ``tile-conv-prologue``), the other operand
        # first, then the wait, then the window
        b_sid = e.addi(sid, 2)
        copies = [(b_load, b1, dma_t["b"], b_sid), (a_load, a1, dma_t["a"], sid)]
        handoff = [op for op in nbody.ops if isinstance(op, CrossWaitOp | CrossSignalOp)]
        if handoff:
            copies.sort(key=lambda c: isinstance(c[0], asctile.LoadWindowOp))
        for ld, dst, flip, flag in copies:
            if handoff and ld is copies[1][0]:
                for op in handoff:
                    op.detach()
                    Rewriter.insert_op(op, InsertPoint.before(mmad))
            e2 = OpEmitter(InsertPoint.before(mmad), ld)
            if isinstance(ld, asctile.LoadWindowOp):
                e2.add(ascbuf.CopyWindowOp(ld.source, ld.offset, dst, ld.m0, ld.rows, ld.k0, ld.cols,
                                           ld.geometry.get_values()))
            else:
                e2.add(ascbuf.CopyNzOp(ld.source, ld.offset, dst, ld.rows, ld.cols, ld.stride.value.data, flip))
            e2.add(ascbuf.SetFlagOp(Pipe.MTE2, Pipe.MTE1, flag))
        me = OpEmitter(InsertPoint.before(mmad), mmad)
        me.add(ascbuf.WaitFlagOp(Pipe.MTE2, Pipe.MTE1, b_sid))
        vk = mmad.k
        steps = me.divui(me.addi(vk, k_l0 - 1), k_l0)
        sbody = Block(arg_types=[IndexType()])
        kk = sbody.args[0]
        kk.name_hint = "kk"
        me.add(scf.ForOp(me.index(0), steps, me.index(1), [], sbody))
        se = OpEmitter(InsertPoint.at_end(sbody), mmad)
        first_step = se.value(arith.CmpiOp(kk, se.index(0), "eq"))
        init = se.value(arith.AndIOp(mmad.init, first_step))
        if bias is not None:
            bias.copy(se, init)
        h = se.addi(se.muli(g, nk), kk)
        pid = se.remui(h, 2)
        a0 = se.value(ascbuf.SlotOp(l0a, h))
        b0 = se.value(ascbuf.SlotOp(l0b, h))
        kv = se.minui(se.subi(vk, se.muli(kk, k_l0)), k_l0)
        se.add(ascbuf.WaitFlagOp(Pipe.M, Pipe.MTE1, pid))
        if window:
            se.add(ascbuf.LoadWindowL0Op(b1, b0, kk, kv, vk, b_load.m0, vn, b_load.geometry.get_values()))
        else:
            se.add(ascbuf.LoadL0Op(b1, b0, kk, kv, vn, tb))
        wait_a = Block()
        se.add(scf.IfOp(first_step, [], Region(wait_a)))
        wait_a.add_ops([ascbuf.WaitFlagOp(Pipe.MTE2, Pipe.MTE1, sid), scf.YieldOp()])
        if window_a:
            se.add(ascbuf.LoadWindowL0Op(a1, a0, kk, kv, vk, a_load.m0, vm, a_load.geometry.get_values()))
        else:
            se.add(ascbuf.LoadL0Op(a1, a0, kk, kv, vm, ta))
        if bias is not None:
            bias.load(se, init)
        se.add(ascbuf.SetFlagOp(Pipe.MTE1, Pipe.M, pid))
        se.add(ascbuf.WaitFlagOp(Pipe.MTE1, Pipe.M, pid))
        # L0C passes between the Mmads and the Fixpipe by unit flags: the block's last Mmad 3, the others 2
        ks = extent_values(vk)
        last = _and(se, [_last(se, kt, new_loop),
                         _last(se, kk, sbody.parent_op(), ks and frozenset(-(-x // k_l0) for x in ks))])
        operands = (c0_slot, a0, b0, vm, vn, kv)
        first = (init, bias.bt if bias is not None else None)
        if last is None:
            se.add(ascbuf.MmadOp(*operands, *first, unit_flag=3))
        else:
            then, other = branches(se, last)
            # a block of two or more K steps does not start in its last one: its last Mmad accumulates
            blocks_k = _block_k(a_load, mmad.transpose_a is not None, k_l1, k_l0)
            accumulates = (then.value(arith.ConstantOp.from_int_and_width(0, 1)), None)
            then.add(ascbuf.MmadOp(*operands, *(accumulates if blocks_k and blocks_k[1] > 1 else first), unit_flag=3))
            other.add(ascbuf.MmadOp(*operands, *first, unit_flag=2))
        if bias is not None:
            bias.release(se, init)
        se.add(ascbuf.SetFlagOp(Pipe.M, Pipe.MTE1, pid))
        sbody.add_op(scf.YieldOp())
        me.add(ascbuf.SetFlagOp(Pipe.MTE1, Pipe.MTE2, sid))
        nbody.add_op(scf.YieldOp())
        for op in (mmad, b_load, a_load):
            Rewriter.erase_op(op, safe_erase=False)

        # after the K loop: FixPipe reads L0C block by block as the last Mmad writes it
        fe = OpEmitter(InsertPoint.before(store), store)
        fe.add(ascbuf.FixpipeOp(c0_slot, store.dest, store.offset, store.rows, store.cols, store.stride.value.data,
                                store.relu is not None, unit_flag=3))
        Rewriter.erase_op(store)
        Rewriter.erase_op(kloop, safe_erase=False)
        Rewriter.erase_op(acc_op, safe_erase=False)
        if lbias is not None:
            Rewriter.erase_op(lbias, safe_erase=False)


@dataclass(frozen=True)
class BufferizeCubePass(ModulePass):
    """Bufferize every cube kernel and synchronise its pipes (see the module docstring)."""

    name = "bufferize-cube"
    INPUT_LEVEL = "asctile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and is_cube_kernel(f):
                _CubeBufferizer(f, spec).run()
            elif isinstance(f, func.FuncOp) and is_mix_kernel(f):
                with core_parts(f) as parts:
                    _CubeBufferizer(parts[CoreKind.AIC], spec).run()
                    lower_handoffs(parts[CoreKind.AIC])
