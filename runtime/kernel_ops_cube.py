"""Code generation for the cube ops (``DataCopy`` with ``Nd2NzParams``, ``LoadData``, ``Mmad``,
``Fixpipe``) and the cube's local memories.

The AIC's memories are preallocated byte arrays (``L1``, ``L0A``, ``L0B``, ``L0C``; cores run one
after another and share them). A cube local tensor is a byte address in the memory its
``TPosition`` names (A1/B1 = L1, A2 = L0A, B2 = L0B, CO1 = L0C), known at translation time from the
``ascendc.local_tensor`` the value derives from. The data really moves through the layouts: NumPy
strided views write the NZ tiles into L1, ``LoadData`` copies (and transposes) 512 B fractals into
the ZZ/ZN arrangements of L0A/L0B, ``Mmad`` reads those arrangements back as matrices and
accumulates into NZ fractals of L0C, and ``Fixpipe`` converts NZ to row-major GM.

``Mmad`` computes in float32 (float64 for int8, exact), as the cube accumulates in fp32/int32.

Costs: ``Mmad`` ``mmad_fixed_cycles + ceil16(m) * ceil16(n) * ceil_k0(k) / macs_per_cycle`` (16x16x16
fp16/bf16, x2 int8, x1/4 fp32 per cycle); ``LoadData`` the bytes at ``mte1_l0a/l0b_bytes_per_cycle``;
``Fixpipe`` the bytes written at ``fix_bytes_per_cycle``; ``Nd2Nz`` a GM read on MTE2 served through L2 at
``mte2_l2_bytes_per_cycle``: the panels of A and B that the cores read again and again stay in the 192 MB
L2, and only the first touch of each 512 B line in a launch reaches HBM, which is the traffic the launch's
HBM bound counts (see ``L2Lines``). (Charging first touches at the per-core HBM rate instead would make
the result depend on the order in which the simulator runs the cores.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc import TPosition

from . import kernel_ops
from .blas import single_thread
from .costs import MTE2, PIPE_INDEX, dma_efficiency
from .dtypes import numpy_dtype
from .memory import window
from .errors import SimulationError
from .opinfo import WORK

if TYPE_CHECKING:
    from .translate import KernelTranslator

M_PIPE, MTE1, FIX = PIPE_INDEX["M"], PIPE_INDEX["MTE1"], PIPE_INDEX["FIX"]
SPACE_OF = {TPosition.A1: "L1", TPosition.B1: "L1", TPosition.A2: "L0A", TPosition.B2: "L0B", TPosition.CO1: "L0C"}
F32 = np.dtype(np.float32)


class CubeMemories:
    """The local memories of one AIC as byte arrays."""

    def __init__(self, spec):
        self.sizes = {"L1": spec.l1_bytes, "L0A": spec.l0a_bytes, "L0B": spec.l0b_bytes, "L0C": spec.l0c_bytes}
        self.mem = {k: np.zeros(n, np.uint8) for k, n in self.sizes.items()}


def _mems(t: KernelTranslator) -> CubeMemories:
    mems = t.env.get("_CUBE")
    if mems is None:
        mems = t.env["_CUBE"] = CubeMemories(t.spec)
        for k, a in mems.mem.items():
            t.env[k] = a
        t.env.update({"_nd2nz": _nd2nz, "_load2d": _load2d, "_mmad": _mmad, "_fixpipe": _fixpipe,
                      "_L2": L2Lines(t.spec), "_dma_eff": dma_efficiency})
    return mems


def space_of(value) -> str:
    """The memory (L1, L0A, L0B, L0C) of a local tensor value, or "UB"."""
    owner = value.owner
    while isinstance(owner, asc.SubviewOp):
        owner = owner.source.owner
    if isinstance(owner, asc.LocalTensorOp):
        return SPACE_OF.get(owner.position.data, "UB")
    return "UB"


# ------------------------------------------------------------------------------- run-time helpers


def _oob(what: str, lo: int, hi: int, size: int) -> str:
    return f"{what} access [{lo}, {hi}) is outside its {size} bytes"


def _nd2nz(fail, sid, bid, l1, dst, g, goff, nd, n, d, src_nd, src_d, c0_stride, n_stride, mat_stride, l2=None,
           args=None):
    """DataCopy GM (ND) -> L1 (NZ); returns (GM bytes read, of which first read from HBM)."""
    if nd <= 0 or n <= 0 or d <= 0:
        return 0, 0
    dt = g.dtype
    es = dt.itemsize
    c0 = 32 // es
    blocks = -(-d // c0)
    span = ((blocks - 1) * c0_stride + (n - 1) * n_stride + 1) * 32 + (nd - 1) * mat_stride * es
    if dst < 0 or dst % 32 or dst + span > l1.shape[0]:
        fail(sid, bid, _oob("L1", dst, dst + span, l1.shape[0]) if dst % 32 == 0 else
             f"L1 address {dst} is not 32 B aligned")
    last = goff + (nd - 1) * src_nd + (n - 1) * src_d + d
    if goff < 0 or last > g.shape[0]:
        fail(sid, bid, f"out-of-bounds GM access: elements [{goff}, {last}) of a global tensor of {g.shape[0]} elements")
    lv = l1.view(dt)
    full, rem = d // c0, d % c0
    for i in range(nd):
        src = window(g, goff + i * src_nd, (n, d), (src_d * es, es))
        base = dst // es + i * mat_stride
        if full:
            out = window(lv, base, (full, n, c0), (c0_stride * 32, n_stride * 32, es))
            out[...] = src[:, :full * c0].reshape(n, full, c0).transpose(1, 0, 2)
        if rem:
            out = window(lv, base + full * c0_stride * c0, (n, c0), (n_stride * 32, es))
            out[:, :rem] = src[:, full * c0:]
    total = nd * n * d * es
    if l2 is None:
        return total, total
    if nd == 1 or src_nd == 1:  # one ND matrix, or one-element rows of consecutive matrices (a transpose)
        rows, row_bytes, stride = (n, d * es, src_d * es) if nd == 1 else (n, nd * es, src_d * es)
        hbm = l2.first_bytes(args, g, goff * es, rows, row_bytes, stride)
    else:
        hbm = sum(l2.first_bytes(args, g, (goff + i * src_nd) * es, n, d * es, src_d * es) for i in range(nd))
    return total, hbm


class L2Lines:
    """First touches of GM per launch, in 512 B lines: an MTE2 read of a line already read in this
    launch hits L2 (runs at ``mte2_l2_bytes_per_cycle`` and adds no HBM traffic); the first read goes
    to HBM at ``mte2_bytes_per_cycle``. When the lines touched exceed the L2 capacity, the record
    starts over (a crude LRU). A launch is recognised by its argument list."""

    LINE = 512

    def __init__(self, spec):
        self.capacity = spec.l2_bytes // self.LINE
        self.launch = None
        self.maps: dict[int, np.ndarray] = {}
        self.count = 0

    def first_bytes(self, args, g8: np.ndarray, start: int, rows: int, row_bytes: int, stride: int) -> int:
        """Bytes of the rows (``row_bytes`` each, ``stride`` bytes apart from byte ``start``) read from HBM."""
        if args is not self.launch:
            self.launch, self.maps, self.count = args, {}, 0
        key = id(g8.base) if g8.base is not None else id(g8)
        bm = self.maps.get(key)
        if bm is None:
            bm = self.maps[key] = np.zeros(g8.nbytes // self.LINE + 2, np.bool_)
        starts = start + np.arange(rows, dtype=np.int64) * stride
        lo, hi = starts // self.LINE, (starts + row_bytes - 1) // self.LINE
        width = int((hi - lo).max()) + 1
        idx = lo[:, None] + np.arange(width)[None, :]
        idx = idx[idx <= hi[:, None]]
        new = np.count_nonzero(~bm[idx])
        bm[idx] = True
        self.count += new
        if self.count > self.capacity:
            self.maps, self.count = {}, 0
        return min(new * self.LINE, rows * row_bytes)


def _load2d(fail, sid, bid, src_mem, src, dst_mem, dst, start, rep, sstride, gap, transpose):
    """LoadData2D: repeat r copies fractal start + r*sstride to fractal r*(gap+1); returns bytes moved."""
    if rep <= 0:
        return 0
    lo = src + start * 512
    hi = lo + ((rep - 1) * sstride + 1) * 512
    if lo < 0 or src % 32 or hi > src_mem.shape[0]:
        fail(sid, bid, _oob("L1", lo, hi, src_mem.shape[0]))
    dhi = dst + ((rep - 1) * (gap + 1) + 1) * 512
    if dst < 0 or dst % 512 or dhi > dst_mem.shape[0]:
        fail(sid, bid, _oob("L0", dst, dhi, dst_mem.shape[0]) if dst % 512 == 0 else
             f"L0 address {dst} is not 512 B (fractal) aligned")
    if transpose:
        s16, d16 = src_mem.view(np.uint16), dst_mem.view(np.uint16)
        sv = window(s16, lo // 2, (rep, 16, 16), (sstride * 512, 32, 2))
        dv = window(d16, dst // 2, (rep, 16, 16), ((gap + 1) * 512, 32, 2))
        dv[...] = sv.transpose(0, 2, 1)
    else:
        sv = window(src_mem, lo, (rep, 512), (sstride * 512, 1))
        dv = window(dst_mem, dst, (rep, 512), ((gap + 1) * 512, 1))
        dv[...] = sv
    return rep * 512


def _mmad(fail, sid, bid, l0a, a, l0b, b, l0c, c, m, n, k, init, in_dt, acc_dt):
    """C[:m, :n] (=|+=) A[:m, :k] @ B[:k, :n] with A ZZ in L0A, B ZN in L0B, C NZ in L0C."""
    if m <= 0 or n <= 0 or k <= 0:
        return
    es = in_dt.itemsize
    c0 = 32 // es
    m1, k1, n1 = -(-m // 16), -(-k // c0), -(-n // 16)
    na, nb, nc = m1 * k1 * 512, k1 * n1 * 512, n1 * m1 * 1024
    if a < 0 or a + na > l0a.shape[0] or b < 0 or b + nb > l0b.shape[0] or c < 0 or c + nc > l0c.shape[0]:
        fail(sid, bid, f"Mmad {m}x{n}x{k} reaches past L0A [{a}, {a + na}), L0B [{b}, {b + nb}) or "
                       f"L0C [{c}, {c + nc}) (sizes {l0a.shape[0]}, {l0b.shape[0]}, {l0c.shape[0]})")
    wide = np.float64 if acc_dt.kind == "i" else np.float32
    # one pass each: fractal layout to row-major A and (n1, K, 16) B, with the widening cast; the
    # product, batched over the 16-column groups of B, then comes out already in C's NZ layout
    av = np.empty((m1 * 16, k1 * c0), wide)
    av.reshape(m1, 16, k1, c0)[...] = l0a[a:a + na].view(in_dt).reshape(m1, k1, 16, c0).transpose(0, 2, 1, 3)
    bv = np.empty((n1, k1 * c0, 16), wide)
    bv.reshape(n1, k1, c0, 16)[...] = l0b[b:b + nb].view(in_dt).reshape(k1, n1, 16, c0).transpose(1, 0, 3, 2)
    with single_thread():
        r3 = np.matmul(av[:, :k], bv[:, :k])
    cv = l0c[c:c + nc].view(acc_dt).reshape(n1, m1 * 16, 16)
    if acc_dt.kind == "i":
        r3 = r3.astype(np.int64).astype(np.int32)
    if init:
        cv[...] = r3
    else:
        cv += r3


def _fixpipe(fail, sid, bid, g, goff, l0c, c, n, m, src_stride, dst_stride, relu, acc_dt):
    """Fixpipe L0C (NZ, src_stride rows per 16 columns) -> GM row-major; returns the bytes written."""
    if m <= 0 or n <= 0:
        return 0
    n1 = -(-n // 16)
    nc = n1 * src_stride * 64
    if c < 0 or c + nc > l0c.shape[0] or m > src_stride:
        fail(sid, bid, _oob("L0C", c, c + nc, l0c.shape[0]) if m <= src_stride else
             f"Fixpipe of {m} rows with srcStride {src_stride}")
    last = goff + (m - 1) * dst_stride + n
    if goff < 0 or last > g.shape[0]:
        fail(sid, bid, f"out-of-bounds GM access: elements [{goff}, {last}) of a global tensor of {g.shape[0]} elements")
    cv = l0c[c:c + nc].view(acc_dt).reshape(n1, src_stride, 16)[:, :m].transpose(1, 0, 2).reshape(m, n1 * 16)[:, :n]
    if relu:
        cv = np.maximum(cv, 0)
    es = g.dtype.itemsize
    out = window(g, goff, (m, n), (dst_stride * es, es))
    out[...] = cv.astype(g.dtype) if g.dtype != cv.dtype else cv
    return m * n * es


# ------------------------------------------------------------------------------- handlers


def _space(t: KernelTranslator, value, op, *allowed: str) -> str:
    s = space_of(value)
    if s not in allowed:
        raise SimulationError(f"kernel @{t.kernel}: `{op.name}` needs a local tensor in {' or '.join(allowed)}, "
                              f"got one in {s}")
    return s


def data_copy_nd2nz(t: KernelTranslator, op: asc.DataCopyNd2NzOp) -> None:
    _mems(t)
    _space(t, op.dst, op, "L1")
    sid = t.info(op, MTE2, WORK, gm=True, label="DataCopy Nd2Nz")
    g, _, _, _ = t.gm_root(op.src, op)
    args = ", ".join(t.v(x) for x in (op.nd_num, op.n_value, op.d_value, op.src_nd_matrix_stride, op.src_d_value,
                                       op.dst_nz_c0_stride, op.dst_nz_n_stride, op.dst_nz_matrix_stride))
    t.emit(f"_gb, _hb = _nd2nz(_fail, {sid}, bid, L1, {t.v(op.dst)}, {g}, {t.v(op.src)}, {args}, _L2, args)")
    sp = t.spec
    fixed, full = sp.dma_fixed_cycles, sp.dma_full_efficiency_bytes
    cost = f"{fixed} + _gb * {1.0 / sp.mte2_l2_bytes_per_cycle!r} / _dma_eff(_gb, {full})"
    kernel_ops._record(t, sid, cost, "_hb", [])


def load_data(t: KernelTranslator, op: asc.LoadDataOp) -> None:
    _mems(t)
    _space(t, op.src, op, "L1")
    dst = _space(t, op.dst, op, "L0A", "L0B")
    sid = t.info(op, MTE1, WORK, label=f"LoadData L1->{dst}")
    rate = t.spec.mte1_l0a_bytes_per_cycle if dst == "L0A" else t.spec.mte1_l0b_bytes_per_cycle
    args = ", ".join(t.v(x) for x in (op.start_index, op.repeat_times, op.src_stride, op.dst_gap))
    tr = op.if_transpose is not None
    t.emit(f"_lb = _load2d(_fail, {sid}, bid, L1, {t.v(op.src)}, {dst}, {t.v(op.dst)}, {args}, {tr})")
    kernel_ops._record(t, sid, f"_lb * {1.0 / rate!r}", "0", [])


def mmad(t: KernelTranslator, op: asc.MmadOp) -> None:
    _mems(t)
    _space(t, op.fm, op, "L0A")
    _space(t, op.filter, op, "L0B")
    _space(t, op.dst, op, "L0C")
    sid = t.info(op, M_PIPE, WORK, label="Mmad")
    et = str(op.fm.type.element_type)
    in_dt, acc_dt = numpy_dtype(et), numpy_dtype(op.dst.type.element_type)
    k0 = 32 // in_dt.itemsize
    macs = t.spec.cube_macs_per_cycle[et]
    m, n, k = t.v(op.m), t.v(op.n), t.v(op.k)
    t.emit(f"_mmad(_fail, {sid}, bid, L0A, {t.v(op.fm)}, L0B, {t.v(op.filter)}, L0C, {t.v(op.dst)}, {m}, {n}, {k}, "
           f"{t.v(op.init)}, {t.const(in_dt, 'DT')}, {t.const(acc_dt, 'DT')})")
    cost = (f"{t.spec.mmad_fixed_cycles} + (({m} + 15) // 16) * (({n} + 15) // 16) * (({k} + {k0 - 1}) // {k0}) "
            f"* {256 * k0 / macs!r}")
    kernel_ops._record(t, sid, cost, "0", [])


def fixpipe(t: KernelTranslator, op: asc.FixpipeOp) -> None:
    _mems(t)
    _space(t, op.src, op, "L0C")
    sid = t.info(op, FIX, WORK, gm=True, label="Fixpipe")
    g, _, _, _ = t.gm_root(op.dst, op)
    acc_dt = numpy_dtype(op.src.type.element_type)
    args = ", ".join(t.v(x) for x in (op.n_size, op.m_size, op.src_stride, op.dst_stride))
    t.emit(f"_fb = _fixpipe(_fail, {sid}, bid, {g}, {t.v(op.dst)}, L0C, {t.v(op.src)}, {args}, "
           f"{op.relu is not None}, {t.const(acc_dt, 'DT')})")
    kernel_ops._record(t, sid, f"{t.spec.fix_fixed_cycles} + _fb * {1.0 / t.spec.fix_bytes_per_cycle!r}", "_fb", [])


kernel_ops.HANDLERS.update({
    "ascendc.data_copy_nd2nz": data_copy_nd2nz,
    "ascendc.load_data": load_data,
    "ascendc.mmad": mmad,
    "ascendc.fixpipe": fixpipe,
})
