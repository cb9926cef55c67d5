"""Code generation for the cube ops (``DataCopy`` with ``Nd2NzParams``, ``LoadData``, ``Mmad``,
``Fixpipe``) and the cube's local memories.

The AIC's memories are preallocated byte arrays (``L1``, ``L0A``, ``L0B``, ``L0C``), one row per core:
one row when cores run one after another (sharing them), one per core of a group run together
(``batched``, on a replay's data path). A cube local tensor is a byte address in the memory its
``TPosition`` names (A1/B1 = L1, A2 = L0A, B2 = L0B, CO1 = L0C), known at translation time from the
``ascendc.local_tensor`` the value derives from. The data really moves through the layouts: NumPy
strided views write the NZ tiles into L1, ``LoadData`` copies (and transposes) 512 B fractals into
the ZZ/ZN arrangements of L0A/L0B (each fractal 16 rows of 32 B: of A in L0A, of B^T in L0B;
``LoadDataWithTranspose`` transposes 16 x 16 squares, for 4-byte types two 16 x 8 fractals side by
side), ``Mmad`` reads those arrangements back as matrices and accumulates into NZ fractals of L0C, and
``Fixpipe`` converts NZ to row-major GM. The views a ``LoadData`` or ``Mmad`` works on are built once
per distinct operand addresses and kept; float16 is converted to and from float32 on its bits
(``_widen``, ``_f16_bits``), bit-exact with NumPy's casts.

``Mmad`` computes in float32 (float64 for int8, exact), as the cube accumulates in fp32/int32. No
``Mmad`` is multiplied at once: a float16/bfloat16/float32 one copies the rows of A and B^T into the
pending ``Chain`` of its L0C block, which the next Mmads into that block (same address, m1, n1 and dtype,
init false) extend; an int8 one copies its operands into the pending ``Staged`` operands of its block
likewise. A chain is multiplied in one GEMM per ``SEGMENT`` of K (on BLAS's threads when it is
large, ``blas.matmul_into``; the sum over K is in fp32 either way, in another order than Mmad by Mmad),
staged Mmads in one batched matmul of the same products as Mmad by Mmad, added in program order (so
bit for bit as Mmad by Mmad). Either is stored into L0C before anything else reads or writes L0C: a
``Fixpipe`` or an ``Mmad`` that starts another chain (another block or dtype, or init). Only these ops
touch L0C (and only LoadData and Mmad touch L0A/L0B), so a chain still pending when a core or a launch
ends (cores share the memories) is stored before its block is read.

Costs: ``Mmad`` ``mmad_fixed_cycles + ceil16(m) * ceil16(n) * ceil_k0(k) / macs_per_cycle`` (16x16x16
fp16/bf16, x2 int8, x1/4 fp32 per cycle); ``LoadData`` the bytes at ``mte1_l0a/l0b_bytes_per_cycle``;
``Fixpipe`` the bytes written at ``fix_bytes_per_cycle``; ``Nd2Nz`` a GM read on MTE2 served through L2 at
``mte2_l2_bytes_per_cycle``: the panels of A and B that the cores read again and again stay in the 192 MB
L2, and only the first touch of each 512 B line in a launch reaches HBM, which is the traffic the launch's
HBM bound counts (see ``L2Lines``); a read of GM that the vector cores of its kernel write (a MIX kernel's
workspace, handed over through L2, as the cube's own output is to the vector cores) reaches none. (Charging
first touches at the per-core HBM rate instead would make the result depend on the order in which the simulator
runs the cores.)

Hazards: every cube op records the local regions it reads and writes (Nd2Nz writes L1; LoadData and
LoadDataWithTranspose read L1 and write L0A/L0B, the span of their fractals; Mmad reads L0A and L0B
and writes L0C; Fixpipe reads L0C) at their addresses in the checker's address space
(``costs.local_layout``), so a missing flag between the cube's pipes is a race named with the buffer.
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.types import numpy_dtype

from .codegen import KernelTranslator, pipe_index, record
from .contract import check_extents, nd2nz_overlap
from .costs import dma_efficiency, local_base
from .cube_mmad import F16, F32, I32, PLANS, V32, Chain, Staged, flush, mmad as run_mmad, reduce_max, reduce_min, scratch
from .errors import SimulationError
from .batched import gm_cores, split_cores
from .l2 import L2Lines
from .opinfo import WORK

V512 = np.dtype("V512")  # a fractal


class CubeMemories:
    """The local memories of ``cores`` AICs as byte arrays, one row per core (one core, or a group of cores
    run together: ``batched``), and the views and scratch the ops reuse."""

    def __init__(self, spec, cores: int = 1, rows: dict | None = None):
        self.sizes = {"L1": spec.l1_bytes, "L0A": spec.l0a_bytes, "L0B": spec.l0b_bytes, "L0C": spec.l0c_bytes,
                      "BT": spec.bt_bytes}
        self.cores = cores
        # ``rows``: memories of at least ``cores`` rows to use the first rows of (shared by groups of cores)
        self.mem = {k: rows[k][:cores] if rows else np.zeros((cores, n), np.uint8) for k, n in self.sizes.items()}
        self.l1, self.l0a, self.l0b, self.l0c, self.bt = (self.mem[k] for k in ("L1", "L0A", "L0B", "L0C", "BT"))
        self.mm_plans: dict[tuple, tuple] = {}
        self.scratch: dict[tuple, np.ndarray] = {}
        self.chains: dict[tuple, Chain | Staged] = {}  # by L0C address, m1, (k1,) n1, dtypes
        self.pending: Chain | Staged | None = None  # the Mmads whose product L0C does not hold yet
        self.pending_key: tuple | None = None
        self.garbage = True  # whether ``poison`` fills the memories (a replay of a checked launch need not)
        self.footprints: list | None = None  # the GM rows each Fixpipe writes, while recorded (``core_order``)

    def poison(self) -> None:
        """Fill L1, L0A, L0B and BT with NaN bytes (0xFF) at a core's start: memory holds garbage until
        written, so a kernel that reads what it never wrote computes NaN rather than a lucky zero. The
        Mmads an earlier core left pending are stored first (see ``cube_mmad``). Not filled when
        ``garbage`` is off: the launch's trace was checked to read no byte it did not write."""
        if self.pending is not None:
            flush(self)
        if not self.garbage:
            return
        self.l1.fill(0xFF)
        self.l0a.fill(0xFF)
        self.l0b.fill(0xFF)
        self.bt.fill(0xFF)


def _mems(t: KernelTranslator) -> CubeMemories:
    mems = t.env.get("_CUBE")
    if mems is None:
        from .cube_forward import aliased
        from .cube_straight import FORMS  # imports this module

        mems = t.env["_CUBE"] = CubeMemories(t.spec)
        for k, a in mems.mem.items():
            t.env[k] = a
        t.env.update({"_nd2nz": _nd2nz, "_load_plan": _load_plan, "_mmad": run_mmad, "_fixpipe": _fixpipe,
                      "_L2": L2Lines(t.spec), "_dma_eff": dma_efficiency, "_CUBE_PLANS": [], "_cube_flush": flush,
                      "_STRAIGHT_FORMS": FORMS, "_aliased": aliased})
    return mems


def _plans(t: KernelTranslator, prefix: str) -> str:
    """A new table of load plans (views of the kernel's memories) in the kernel's globals."""
    name = t.fresh(prefix)
    t.env[name] = {}
    t.env["_CUBE_PLANS"].append(name)
    return name


def group_globals(env: dict, mems: CubeMemories) -> dict:
    """The globals that make a kernel's code (``env``) run a group of cores on ``mems`` (one row per
    core): the memories and new, empty plan tables (``batched``)."""
    out = {name: {} for name in env["_CUBE_PLANS"]}
    out.update({"_CUBE": mems, **mems.mem})
    return out


def space_of(value) -> str:
    """The memory (L1, L0A, L0B, L0C) of a local tensor value, or "UB"."""
    owner = value.owner
    while isinstance(owner, asc.SubviewOp):
        owner = owner.source.owner
    if isinstance(owner, asc.LocalTensorOp):
        return asc.POSITION_MEMORY.get(owner.position.data, "UB")
    return "UB"


# ------------------------------------------------------------------------------- run-time helpers


def _oob(what: str, lo: int, hi: int, size: int) -> str:
    return f"{what} access [{lo}, {hi}) is outside its {size} bytes"


def core_view(mem: np.ndarray, start: int, shape: tuple[int, ...], strides: tuple[int, ...], dt) -> np.ndarray:
    """The (cores, *shape) view of the local memory ``mem`` (one byte row per core) from byte ``start``."""
    return np.ndarray((mem.shape[0], *shape), dt, mem, start, (mem.shape[1], *strides))


def _offsets(goff):
    """A GM offset as (itself, lowest, highest): an int, or one per core of a group as a plain array (whose
    arithmetic skips the per-core number machinery of ``batched.WeakVec``)."""
    if isinstance(goff, np.ndarray):
        goff = goff.view(np.ndarray)
        each = goff.reshape(-1).tolist()  # a few cores: Python's min and max are faster than NumPy's
        return goff, min(each), max(each)
    return goff, goff, goff


def _nd2nz(fail, sid, bid, l1, dst, g, goff, nd, n, d, src_nd, src_d, c0_stride, n_stride, mat_stride, l2=None,
           args=None):
    """DataCopy GM (ND) -> L1 (NZ); returns (GM bytes read, of which first read from HBM, the L1 bytes
    from ``dst`` to the end of the last row written). ``l1``: one row per core; ``goff``: an int, or one
    offset per core of a group (``batched``)."""
    if l1.shape[0] > 1:
        dst, nd, n, d, src_nd, src_d, c0_stride, n_stride, mat_stride = (
            int(x) for x in (dst, nd, n, d, src_nd, src_d, c0_stride, n_stride, mat_stride))
    if nd <= 0 or n <= 0 or d <= 0:
        return 0, 0, 0
    dt = g.dtype
    es = dt.itemsize
    c0 = 32 // es
    blocks = -(-d // c0)
    size = l1.shape[1]
    # to the last byte written: the last matrix's last row in its last 32 B column block
    span = ((blocks - 1) * c0_stride + (n - 1) * n_stride) * 32 + (nd - 1) * mat_stride * es + 32
    if dst < 0 or dst % 32 or dst + span > size:
        fail(sid, bid, _oob("L1", dst, dst + span, size) if dst % 32 == 0 else f"L1 address {dst} is not 32 B aligned")
    goff, lo, hi = _offsets(goff)
    last = hi + (nd - 1) * src_nd + (n - 1) * src_d + d
    if lo < 0 or last > g.shape[0]:
        fail(sid, bid, f"out-of-bounds GM access: elements [{lo}, {last}) of a global tensor of {g.shape[0]} elements")
    full, rem = d // c0, d % c0
    # the nd matrices at once: (matrix, column block or row, ...) views, matrices mat_stride / src_nd apart
    if full:  # the c0 elements of a row in one fractal are one 32 B block on both sides
        to = core_view(l1, dst, (nd, full, n), (mat_stride * es, c0_stride * 32, n_stride * 32), V32)
        for src, rows in gm_cores(g, goff * es, (nd, full, n), (src_nd * es, 32, src_d * es), V32):
            np.copyto(split_cores(to[rows], src), src)
    if rem:
        o = core_view(l1, dst + full * c0_stride * 32, (nd, n, c0), (mat_stride * es, n_stride * 32, es), dt)
        for src, rows in gm_cores(g, (goff + full * c0) * es, (nd, n, rem), (src_nd * es, src_d * es, es), dt):
            split_cores(o[rows, :, :, :rem], src)[...] = src
        o[:, :, :, rem:] = 0  # a row's tail is zero-padded to 32 B
    total = nd * n * d * es
    if l2 is None:
        return total, total, span
    if nd == 1 or src_nd == 1:  # one ND matrix, or one-element rows of consecutive matrices (a transpose)
        rows, row_bytes, stride = (n, d * es, src_d * es) if nd == 1 else (n, nd * es, src_d * es)
        hbm = l2.first_bytes(args, g, goff * es, rows, row_bytes, stride)
    elif src_nd == n * src_d:  # matrices of consecutive rows: the rows of one matrix
        hbm = l2.first_bytes(args, g, goff * es, nd * n, d * es, src_d * es)
    else:
        hbm = sum(l2.first_bytes(args, g, (goff + i * src_nd) * es, n, d * es, src_d * es) for i in range(nd))
    return total, hbm, span


def _load_plan(fail, sid, bid, src_mem, src, dst_mem, dst, start, rep, sstride, gap, transpose, plans, cycles,
               src_base, dst_base):
    """Checks a LoadData2D (repeat r copies fractal start + r*sstride to fractal r*(gap+1)) and returns
    its (destination view, source view, cycles (``cycles`` per byte moved), first source byte and source
    extent in bytes, destination extent, first destination byte; the bytes in the checker's address
    space, from ``src_base`` and ``dst_base``), which ``plans`` keeps for the next call."""
    if rep <= 0:
        return _NOTHING + (0 * cycles, src_base + 0, 0, 0, dst_base + dst)
    lo = src + start * 512
    hi = lo + ((rep - 1) * sstride + 1) * 512
    if lo < 0 or src % 32 or hi > src_mem.shape[1]:
        fail(sid, bid, _oob("L1", lo, hi, src_mem.shape[1]))
    dhi = dst + ((rep - 1) * (gap + 1) + 1) * 512
    if dst < 0 or dst % 512 or dhi > dst_mem.shape[1]:
        fail(sid, bid, _oob("L0", dst, dhi, dst_mem.shape[1]) if dst % 512 == 0 else
             f"L0 address {dst} is not 512 B (fractal) aligned")
    if transpose:
        sv = core_view(src_mem, lo, (rep, 16, 16), (sstride * 512, 32, 2), np.uint16).transpose(0, 1, 3, 2)
        dv = core_view(dst_mem, dst, (rep, 16, 16), ((gap + 1) * 512, 32, 2), np.uint16)
    else:
        sv = core_view(src_mem, lo, (rep,), (sstride * 512,), V512)
        dv = core_view(dst_mem, dst, (rep,), ((gap + 1) * 512,), V512)
    if len(plans) >= PLANS:
        plans.clear()
    p = plans[(src, dst, start, rep, sstride, gap)] = (dv, sv, rep * 512 * cycles, src_base + lo, hi - lo,
                                                       dhi - dst, dst_base + dst)
    return p


_NOTHING = (np.empty(0, np.uint8), np.empty(0, np.uint8))


def _transpose_plan(fail, sid, bid, src_mem, src, dst_mem, dst, start, rep, sstride, gap, fgap, decrement, es,
                    plans, cycles, src_base, dst_base):
    """Checks a LoadDataWithTranspose and returns (the copies to run: (to, from) view pairs, cycles, first
    source byte and source extent, destination extent, first destination byte; bytes in the checker's
    address space), which ``plans`` keeps. Repeat r transposes the square ``start +- r * sstride`` (16 x 16
    elements; 4-byte: two 16 x 8 fractals side by side, 1 KB) into fractal ``r * (gap + 1)`` (4-byte: its
    first 8 columns there, the next 8 ``fgap + 1`` fractals on)."""
    key = (src, dst, start, rep, sstride, gap, fgap, decrement)
    if rep <= 0:
        return ((), 0 * cycles, src_base + src, 0, 0, dst_base + dst)
    square = 16 * 16 * es
    halves = 2 if es == 4 else 1
    first = start - (rep - 1) * sstride if decrement else start
    lo = src + first * square
    hi = src + ((start if decrement else start + (rep - 1) * sstride) + 1) * square
    if first < 0 or src % 32 or hi > src_mem.shape[1]:
        fail(sid, bid, _oob("L1", lo, hi, src_mem.shape[1]) if src % 32 == 0 else
             f"L1 address {src} is not 32 B aligned")
    slots = [r * (gap + 1) + q * (fgap + 1) for r in range(rep) for q in range(halves)]
    dhi = dst + (max(slots) + 1) * 512
    if dst < 0 or dst % 512 or dhi > dst_mem.shape[1]:
        fail(sid, bid, _oob("L0", dst, dhi, dst_mem.shape[1]) if dst % 512 == 0 else
             f"LoadDataWithTranspose: L0 address {dst} is not 512 B aligned")
    if len(set(slots)) != len(slots):
        fail(sid, bid, f"LoadDataWithTranspose: dstGap {gap} and dstFracGap {fgap} make transposed fractals "
                       f"overlap in L0")
    step = -sstride * square if decrement else sstride * square
    if es == 4:  # piece [core, r, q, c // 8, c % 8, i] = square r's element (row q*8 + i, column c)
        sv = core_view(src_mem, src + start * square, (rep, 2, 2, 8, 8), (step, 256, 512, 4, 32), np.uint32)
        dv = core_view(dst_mem, dst, (rep, 2, 2, 8, 8), ((gap + 1) * 512, (fgap + 1) * 512, 256, 32, 4), np.uint32)
        copies = ((dv, sv),)
    else:
        sv = core_view(src_mem, src + start * square, (rep, 16, 16), (step, 32, 2), np.uint16)
        dv = core_view(dst_mem, dst, (rep, 16, 16), ((gap + 1) * 512, 32, 2), np.uint16)
        copies = ((dv, sv.transpose(0, 1, 3, 2)),)
    if len(plans) >= PLANS:
        plans.clear()
    p = plans[key] = (copies, rep * square * cycles, src_base + lo, hi - lo, dhi - dst, dst_base + dst)
    return p


F16_BITS_MIN = 8192  # elements from which ``_f16_bits`` beats NumPy's cast (a fixed cost of about 10 us)


def _f16_bits(src: np.ndarray, relu: bool, s: np.ndarray) -> np.ndarray | None:
    """The float16 bit patterns (as int32) of float32 ``src`` (after ReLU), rounded to nearest even as
    NumPy's cast (which is about 3x slower): the exponent rebiased and the mantissa rounded with integer
    ops; below float16's smallest normal (subnormals and zeros) by a float add of 0.5, which is at most
    0x400 exactly there, chosen without branches (a masked copy costs 4 ns an element on mixed data). None
    when ``src`` has an inf, a NaN or a value that rounds to inf (the caller casts with NumPy then).
    ``s``: int32 scratch of 4 * src.size."""
    n = src.size
    u, t, v, w = (s[i * n:(i + 1) * n].reshape(src.shape) for i in range(4))
    if relu:
        np.maximum(src, 0, out=u.view(F32))
    else:
        np.copyto(u.view(F32), src)
    np.bitwise_and(u, 0x7FFFFFFF, out=t)
    if reduce_max(t, axis=None) >= 0x477FF000:  # 65520.0
        return None
    np.right_shift(u, 16, out=u)
    np.bitwise_and(u, 0x8000, out=u)
    tiny = reduce_min(t, axis=None) < 0x38800000  # below 2**-14: a float16 subnormal or zero
    if tiny:
        np.add(t.view(F32), np.float32(0.5), out=w.view(F32))
        np.subtract(w, 0x3F000000, out=w)
    np.right_shift(t, 13, out=v)
    np.bitwise_and(v, 1, out=v)
    np.add(t, v, out=t)
    np.add(t, 0xFFF - 0x38000000, out=t)
    np.right_shift(t, 13, out=t)
    if tiny:  # t = w where w <= 0x400: t ^ ((t ^ w) & mask), mask -1 there
        np.subtract(w, 0x401, out=v)
        np.right_shift(v, 31, out=v)
        np.bitwise_xor(t, w, out=w)
        np.bitwise_and(w, v, out=w)
        np.bitwise_xor(t, w, out=t)
    np.bitwise_or(t, u, out=t)
    return t


def _fixpipe(fail, sid, bid, g, goff, cube, c, n, m, src_stride, dst_stride, relu, acc_dt):
    """Fixpipe L0C (NZ, src_stride rows per 16 columns) -> GM row-major; returns the bytes written."""
    if cube.cores > 1:
        c, n, m, src_stride, dst_stride = int(c), int(n), int(m), int(src_stride), int(dst_stride)
    if m <= 0 or n <= 0:
        return 0
    if cube.pending is not None:
        flush(cube)
    l0c = cube.l0c
    n1 = -(-n // 16)
    nc = n1 * src_stride * 64
    if c < 0 or c + nc > l0c.shape[1] or m > src_stride:
        fail(sid, bid, _oob("L0C", c, c + nc, l0c.shape[1]) if m <= src_stride else
             f"Fixpipe of {m} rows with srcStride {src_stride}")
    goff, lo, hi = _offsets(goff)
    last = hi + (m - 1) * dst_stride + n
    if lo < 0 or last > g.shape[0]:
        fail(sid, bid, f"out-of-bounds GM access: elements [{lo}, {last}) of a global tensor of {g.shape[0]} elements")
    nz = l0c[:, c:c + nc].view(acc_dt).reshape(cube.cores, n1, src_stride, 16)
    dt = g.dtype
    es = dt.itemsize
    if cube.footprints is not None:  # (core, first byte, rows, row stride, row bytes)
        cube.footprints.append((bid, g.__array_interface__["data"][0] + lo * es, m, dst_stride * es, n * es))
    full, rem = n // 16, n % 16
    extent = ((m - 1) * dst_stride + n) * es  # each core's, written
    parts = [(out, nz[rows, :full, :m]) for out, rows in
             gm_cores(g, goff * es, (full, m, 16), (16 * es, dst_stride * es, es), dt, extent)] if full else []
    if rem:
        parts += [(out, nz[rows, full, :m, :rem]) for out, rows in
                  gm_cores(g, (goff + full * 16) * es, (m, rem), (dst_stride * es, es), dt, extent)]
    fast = dt == F16 and acc_dt == F32
    for out, cv in parts:  # GM written in C's NZ order, converted on the way
        bits = _f16_bits(cv, relu, scratch(cube, "f", 4 * cv.size, I32)) if fast and cv.size >= F16_BITS_MIN else None
        if bits is not None:
            np.copyto(out.view(np.uint16), bits, casting="unsafe")
        elif relu:
            np.maximum(cv, 0, out=out, dtype=cv.dtype, casting="unsafe")
        else:
            np.copyto(out, cv, casting="unsafe")
    return m * n * es


# ------------------------------------------------------------------------------- handlers


def _space(t: KernelTranslator, value, op, *allowed: str) -> str:
    s = space_of(value)
    if s not in allowed:
        raise SimulationError(f"kernel @{t.kernel}: `{op.name}` needs a local tensor in {' or '.join(allowed)}, "
                              f"got one in {s}")
    return s


def _at(t: KernelTranslator, space: str, value) -> str:
    """The hazard checker's address of a local tensor in ``space`` (see ``costs.local_layout``)."""
    return f"{local_base(t.spec, space)} + {t.v(value)}"


def data_copy_nd2nz(t: KernelTranslator, op: asc.DataCopyNd2NzOp) -> None:
    _mems(t)
    _space(t, op.dst, op, "L1")
    sid = t.info(op, pipe_index(op), WORK, writes=(True,), gm=True, label="DataCopy Nd2Nz")
    g, _, _, _ = t.gm_root(op.src, op)
    args = ", ".join(t.v(x) for x in (op.nd_num, op.n_value, op.d_value, op.src_nd_matrix_stride, op.src_d_value,
                                       op.dst_nz_c0_stride, op.dst_nz_n_stride, op.dst_nz_matrix_stride))
    t.emit(f"_gb, _hb, _sp = _nd2nz(_fail, {sid}, bid, L1, {t.v(op.dst)}, {g}, {t.v(op.src)}, {args}, _L2, args)")
    check_extents(t, sid, op.API, [(op.dst, t.v(op.dst), "_sp")])
    t.env.setdefault("_nd2nz_overlap", nd2nz_overlap)
    geo = ", ".join(t.v(x) for x in (op.nd_num, op.n_value, op.d_value))
    es = numpy_dtype(op.dst.type.element_type).itemsize
    strides = ", ".join(t.v(x) for x in (op.dst_nz_c0_stride, op.dst_nz_n_stride, op.dst_nz_matrix_stride))
    t.emit(f"if _nd2nz_overlap({geo}, {es}, {strides}): _rule('nd2nz-no-overlap-l1', {sid}, bid, "
           f"'ND2NZ rows padded to 32 B write the same L1 block twice')")
    sp = t.spec
    fixed, full = sp.dma_fixed_cycles, sp.dma_full_efficiency_bytes
    cost = f"{fixed} + _gb * {1.0 / sp.mte2_l2_bytes_per_cycle!r} / _dma_eff(_gb, {full})"
    hbm = "0" if t.written_by_vector(op.src) else "_hb"  # a workspace the AIVs wrote: in L2
    record(t, sid, cost, hbm, [(_at(t, "L1", op.dst), "_sp")])


def _init_const(fail, sid, bid, l1, dst, rep, blk, gap, value, dt):
    """InitConstValue on L1: ``rep`` runs of ``blk`` 32 B blocks set to ``value``, ``gap`` blocks apart;
    returns the L1 bytes from ``dst`` to the end of the last run (0 when nothing is written)."""
    if l1.shape[0] > 1:
        dst, rep, blk, gap = int(dst), int(rep), int(blk), int(gap)
    if min(rep, blk, gap) < 0 or max(rep, blk, gap) > 32767:
        fail(sid, bid, f"InitConstValue: repeatTimes {rep}, blockNum {blk}, dstGap {gap} outside [0, 32767]")
    if rep == 0 or blk == 0:
        return 0
    span = ((rep - 1) * (blk + gap) + blk) * 32
    if dst < 0 or dst % 32 or dst + span > l1.shape[1]:
        fail(sid, bid, _oob("L1", dst, dst + span, l1.shape[1]) if dst % 32 == 0 else
             f"L1 address {dst} is not 32 B aligned")
    runs = core_view(l1, dst, (rep, blk * 32 // dt.itemsize), ((blk + gap) * 32, dt.itemsize), dt)
    runs.fill(np.full(1, value, dt)[0])  # ``value`` cast as NumPy casts it into an array of ``dt``
    return span


def init_const_value(t: KernelTranslator, op: asc.InitConstValueOp) -> None:
    """InitConstValue of an L1 tensor (MTE2). Its trace region runs from the first block to the end of the
    last run, the gaps between runs included; its cost counts the blocks it writes (the gaps are skipped)."""
    _mems(t)
    _space(t, op.dst, op, "L1")
    sid = t.info(op, pipe_index(op), WORK, writes=(True,), label="InitConstValue")
    t.env.setdefault("_init_const", _init_const)
    dt = t.const(numpy_dtype(op.dst.type.element_type), "DT")
    args = ", ".join(t.v(x) for x in (op.repeat_times, op.block_num, op.dst_gap, op.value))
    t.emit(f"_ic = _init_const(_fail, {sid}, bid, L1, {t.v(op.dst)}, {args}, {dt})")
    check_extents(t, sid, op.API, [(op.dst, t.v(op.dst), "_ic")])
    sp = t.spec
    written = f"{t.v(op.repeat_times)} * {t.v(op.block_num)} * 32"
    cost = f"{sp.dma_fixed_cycles} + (_ic and {written}) * {1.0 / sp.mte2_l2_bytes_per_cycle!r}"
    record(t, sid, cost, "0", [(_at(t, "L1", op.dst), "_ic")])


def load_data(t: KernelTranslator, op: asc.LoadDataOp) -> None:
    _mems(t)
    _space(t, op.src, op, "L1")
    dst = _space(t, op.dst, op, "L0A", "L0B")
    sid = t.info(op, pipe_index(op), WORK, writes=(False, True), label=f"LoadData L1->{dst}")
    rate = t.spec.mte1_l0a_bytes_per_cycle if dst == "L0A" else t.spec.mte1_l0b_bytes_per_cycle
    args = ", ".join(t.v(x) for x in (op.start_index, op.repeat_times, op.src_stride, op.dst_gap))
    tr = op.if_transpose is not None
    plans = _plans(t, "LD")
    t.emit(f"_lp = {plans}.get(({t.v(op.src)}, {t.v(op.dst)}, {args}))")
    t.emit(f"if _lp is None: _lp = _load_plan(_fail, {sid}, bid, L1, {t.v(op.src)}, {dst}, {t.v(op.dst)}, {args}, "
           f"{tr}, {plans}, {1.0 / rate!r}, {local_base(t.spec, 'L1')}, {local_base(t.spec, dst)})")
    check_extents(t, sid, op.API, [(op.src, f"(_lp[3] - {local_base(t.spec, 'L1')})", "_lp[4]"),
                                   (op.dst, t.v(op.dst), "_lp[5]")])
    t.emit("_lp[0][...] = _lp[1]")
    record(t, sid, "_lp[2]", "0", [("_lp[3]", "_lp[4]"), ("_lp[6]", "_lp[5]")])


def load_data_with_transpose(t: KernelTranslator, op: asc.LoadDataWithTransposeOp) -> None:
    _mems(t)
    _space(t, op.src, op, "L1")
    dst = _space(t, op.dst, op, "L0A", "L0B")
    es = numpy_dtype(op.dst.type.element_type).itemsize
    if es not in (2, 4):
        raise SimulationError(f"kernel @{t.kernel}: `{op.name}` of {op.dst.type.element_type} is not simulated "
                              f"(2- and 4-byte types are)")
    sid = t.info(op, pipe_index(op), WORK, writes=(False, True), label=f"LoadDataWithTranspose L1->{dst}")
    t.env.setdefault("_transpose_plan", _transpose_plan)
    rate = t.spec.mte1_l0a_bytes_per_cycle if dst == "L0A" else t.spec.mte1_l0b_bytes_per_cycle
    args = ", ".join(t.v(x) for x in (op.start_index, op.repeat_times, op.src_stride, op.dst_gap, op.dst_frac_gap))
    plans = _plans(t, "LT")
    key = f"({t.v(op.src)}, {t.v(op.dst)}, {args}, {op.addr_mode is not None})"
    t.emit(f"_tp = {plans}.get({key})")
    t.emit(f"if _tp is None: _tp = _transpose_plan(_fail, {sid}, bid, L1, {t.v(op.src)}, {dst}, {t.v(op.dst)}, "
           f"{args}, {op.addr_mode is not None}, {es}, {plans}, {1.0 / rate!r}, "
           f"{local_base(t.spec, 'L1')}, {local_base(t.spec, dst)})")
    check_extents(t, sid, op.API, [(op.src, f"(_tp[2] - {local_base(t.spec, 'L1')})", "_tp[3]"),
                                   (op.dst, t.v(op.dst), "_tp[4]")])
    t.emit("for _to, _from in _tp[0]: _to[...] = _from")
    record(t, sid, "_tp[1]", "0", [("_tp[2]", "_tp[3]"), ("_tp[5]", "_tp[4]")])


def mmad(t: KernelTranslator, op: asc.MmadOp) -> None:
    _mems(t)
    _space(t, op.fm, op, "L0A")
    _space(t, op.filter, op, "L0B")
    _space(t, op.dst, op, "L0C")
    bias = op.bias is not None
    if bias:
        _space(t, op.bias, op, "BT")
    sid = t.info(op, pipe_index(op), WORK, writes=(False, False, True) + ((False,) if bias else ()), label="Mmad")
    et = str(op.fm.type.element_type)
    in_dt, acc_dt = numpy_dtype(et), numpy_dtype(op.dst.type.element_type)
    k0 = 32 // in_dt.itemsize
    macs = t.spec.cube_macs_per_cycle[et]
    rc = (t.spec.mmad_fixed_cycles, k0, 256 * k0 / macs, *(local_base(t.spec, x) for x in ("L0A", "L0B", "L0C")),
          256 * acc_dt.itemsize)
    bt = t.v(op.bias) if bias else "-1"
    t.emit(f"_mr = _mmad(_fail, {sid}, bid, _CUBE, {t.v(op.fm)}, {t.v(op.filter)}, {t.v(op.dst)}, {t.v(op.m)}, "
           f"{t.v(op.n)}, {t.v(op.k)}, {t.v(op.init)}, {t.const(in_dt, 'DT')}, {t.const(acc_dt, 'DT')}, "
           f"{t.const(rc, 'MR')}, {bt})")
    extents = [(op.fm, t.v(op.fm), "_mr[2]"), (op.filter, t.v(op.filter), "_mr[4]"), (op.dst, t.v(op.dst), "_mr[6]")]
    regions = [("_mr[1]", "_mr[2]"), ("_mr[3]", "_mr[4]"), ("_mr[5]", "_mr[6]")]
    if bias:  # ceil16(n) values of BT
        nb = f"(({t.v(op.n)} + 15) // 16 * {16 * acc_dt.itemsize})"
        extents.append((op.bias, t.v(op.bias), nb))
        regions.append((f"{local_base(t.spec, 'BT')} + {t.v(op.bias)}", nb))
    check_extents(t, sid, op.API, extents)
    # aux 1: the Mmad accumulates into (reads) its L0C block (``initcheck``); one with a bias starts from BT
    record(t, sid, "_mr[0]", "0" if bias else f"(0 if {t.v(op.init)} else 1)", regions)


def set_mm_major(t: KernelTranslator, op: asc.SetMMMajorOp) -> None:
    """Nothing to compute: the order of an Mmad's results only decides whether a Fixpipe with unit flags overlaps
    it block by block (``unit_flags``, from the op's place in the kernel)."""


def fixpipe(t: KernelTranslator, op: asc.FixpipeOp) -> None:
    _mems(t)
    _space(t, op.src, op, "L0C")
    sid = t.info(op, pipe_index(op), WORK, writes=(False,), gm=True, label="Fixpipe")
    g, _, _, _ = t.gm_root(op.dst, op)
    acc_dt = numpy_dtype(op.src.type.element_type)
    args = ", ".join(t.v(x) for x in (op.n_size, op.m_size, op.src_stride, op.dst_stride))
    t.emit(f"_fb = _fixpipe(_fail, {sid}, bid, {g}, {t.v(op.dst)}, _CUBE, {t.v(op.src)}, {args}, "
           f"{op.relu is not None}, {t.const(acc_dt, 'DT')})")
    n1, rows = f"(({t.v(op.n_size)} + 15) // 16)", t.v(op.src_stride)
    check_extents(t, sid, op.API, [(op.src, t.v(op.src), f"{n1} * {rows} * {16 * acc_dt.itemsize}")])
    record(t, sid, f"{t.spec.fix_fixed_cycles} + _fb * {1.0 / t.spec.fix_bytes_per_cycle!r}", "_fb",
                       [(_at(t, "L0C", op.src), f"{n1} * {rows} * {16 * acc_dt.itemsize}")])
