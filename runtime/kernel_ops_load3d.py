"""Code generation for ``LoadData`` with ``LoadData3DParamsV2`` (``ascendc.load_data_3dv2``): the cube's
img2col load from an NC1HWC0 feature map in L1 into L0A as ZZ, or into L0B as the img2col matrix transposed in
ZN (the matrix, its K order and the refused uses: ``dialects/ascendc/cube_load3d.py``).

A call is one NumPy gather of 32 B rows: a fractal row is one position's C0 channels, which lie side by side
in the NC1HWC0 map, so for each distinct tuple of addresses and fields a plan is built once and kept (like
``_load_plan``): the L1 row (32 B) of every destination fractal row in the destination's order
(``ceil16(mExtension)`` rows by ``ceil(kExtension / C0)`` fractals of 16 rows of C0 elements: in L0A row
stripe after row stripe, in L0B column after column of fractals, as ``Mmad`` reads B), and the destination
rows that take ``padValue`` (windows reaching outside the ``l1H x l1W`` map). Elements are moved as their
bits.

Checks when the plan is built (fields known only at run time): the documented rules
(``load3d_problems``, reported with the rule and its doc page), the addresses' alignment, and the L1 bytes
read and the L0A bytes written inside their memories; ``check_extents`` adds the local tensors' extents.

Cost on MTE1: the destination bytes at ``mte1_l0a_bytes_per_cycle`` or ``mte1_l0b_bytes_per_cycle`` (as
LoadData, which pays no fixed cost). Hazards: the L1 bytes from the lowest to the highest element read, and the
L0A or L0B bytes written.
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.contract import rule
from pyasc.dialects.ascendc.cube_load3d import FIELDS, NotModelled, load3d_problems, output_size
from pyasc.dialects.types import numpy_dtype

from .codegen import KernelTranslator, pipe_index, record
from .contract import check_extents
from .costs import local_base
from .cube_mmad import PLANS
from .errors import SimulationError
from .kernel_ops_cube import core_view, _mems, _oob, _plans, _space
from .opinfo import WORK

_BITS = {2: np.uint16, 4: np.uint32}
ROW = np.dtype("V32")  # a fractal row: C0 elements


def img2col_index(f: dict[str, int], c0: int, to_b: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(L1 element index, is padding) of the destination elements of a Load3Dv2 with fields ``f``, flat
    in L0A's ZZ order, or with ``to_b`` in L0B's (the img2col matrix X as B = X^T in ZN: the same fractals of
    16 rows of X by C0 columns, ordered by K block first); the index of a padding element is 0."""
    wo = output_size(f["l1_w"], f["pad_left"], f["pad_right"], f["filter_w"], f["dilation_filter_w"], f["stride_w"])
    rows = -(-f["m_extension"] // 16) * 16
    k1 = -(-f["k_extension"] // c0)
    m = f["m_start_pt"] + np.arange(rows, dtype=np.int64)
    k = f["k_start_pt"] + np.arange(k1 * c0, dtype=np.int64)
    oh, ow = m // wo, m % wo
    c, tap = k % c0, k // c0
    kw, kh, c1 = tap % f["filter_w"], tap // f["filter_w"] % f["filter_h"], tap // (f["filter_w"] * f["filter_h"])
    ih = (oh * f["stride_h"] - f["pad_top"])[:, None] + (kh * f["dilation_filter_h"])[None, :]
    iw = (ow * f["stride_w"] - f["pad_left"])[:, None] + (kw * f["dilation_filter_w"])[None, :]
    pad = (ih < 0) | (ih >= f["l1_h"]) | (iw < 0) | (iw >= f["l1_w"])
    index = ((c1[None, :] * f["l1_h"] + ih) * f["l1_w"] + iw) * c0 + c[None, :]
    index[pad] = 0

    order = (2, 0, 1, 3) if to_b else (0, 2, 1, 3)

    def fractals(a: np.ndarray) -> np.ndarray:  # (rows, k1 * c0) -> fractals (row // 16, col // c0) or
        return a.reshape(rows // 16, 16, k1, c0).transpose(order).reshape(-1)  # (col // c0, row // 16)

    return fractals(index), fractals(pad)


def _load3d_plan(fail, sid, bid, src_mem, src, dst_mem, dst, fields, es, pad_bits, plans, cycles, src_base,
                 dst_base, dst_name="L0A"):
    """Checks a Load3Dv2 and returns (destination view, source view, L1 element index, padding positions,
    padding bits, cycles, first source byte and source extent, destination extent, first destination byte;
    bytes in the checker's address space), which ``plans`` keeps."""
    if src_mem.shape[0] > 1:
        src, dst, fields = int(src), int(dst), tuple(int(x) for x in fields)
    f = dict(zip(FIELDS, fields))
    try:
        problems = load3d_problems(f, es)
    except NotModelled as e:
        fail(sid, bid, f"LoadData (Load3Dv2): {e}")
    if problems:
        rule_id, detail = problems[0]
        fail(sid, bid, f"LoadData (Load3Dv2): {detail}: {rule(rule_id).cite()}")
    c0 = 32 // es
    pad_row = np.full(c0, pad_bits, _BITS[es]).view(ROW)
    key = (src, dst, fields, pad_bits)
    if any(f[n] == 0 for n in ("l1_h", "l1_w", "channel_size", "k_extension", "m_extension", "filter_w",
                               "filter_h")):  # a NOP
        empty = core_view(dst_mem, 0, (0,), (32,), ROW)
        p = plans[key] = (empty, empty, np.zeros(0, np.int64), np.zeros(0, np.int64), pad_row, 0 * cycles,
                          src_base + src, 0, 0, dst_base + dst)
        return p
    if dst % 512 or src % 32:
        fail(sid, bid, f"LoadData (Load3Dv2): {f'{dst_name} address {dst}' if dst % 512 else f'L1 address {src}'} is "
                       f"not {'512' if dst % 512 else '32'} B aligned: {rule('load3dv2-address-align').cite()}")
    index, pad = img2col_index(f, c0, dst_name == "L0B")
    read = index[~pad]
    lo, hi = (int(read.min()), int(read.max()) + 1) if read.size else (0, 0)
    if src < 0 or src + hi * es > src_mem.shape[1]:
        fail(sid, bid, "LoadData (Load3Dv2): " + _oob("L1", src + lo * es, src + hi * es, src_mem.shape[1]))
    nbytes = index.size * es
    if dst < 0 or dst + nbytes > dst_mem.shape[1]:
        fail(sid, bid, "LoadData (Load3Dv2): " + _oob(dst_name, dst, dst + nbytes, dst_mem.shape[1]))
    rows, pad_rows = index[::c0] // c0, pad[::c0]  # a row's C0 elements are one L1 row, all padding or none
    sv = core_view(src_mem, src, (max(-(-hi // c0), 1),), (32,), ROW)
    dv = core_view(dst_mem, dst, (rows.size,), (32,), ROW)
    if len(plans) >= PLANS:
        plans.clear()
    p = plans[key] = (dv, sv, rows, np.flatnonzero(pad_rows), pad_row, nbytes * cycles, src_base + src + lo * es,
                      (hi - lo) * es, nbytes, dst_base + dst)
    return p


def _load3d(p) -> None:
    """Run a plan of ``_load3d_plan``: gather the feature map's rows, then fill the padding rows."""
    dv, sv, rows, pad, pad_row = p[0], p[1], p[2], p[3], p[4]
    if rows.size:
        np.take(sv, rows, axis=1, out=dv)
        if pad.size:
            dv[:, pad] = pad_row


def load_data_3dv2(t: KernelTranslator, op: asc.LoadData3DV2Op) -> None:
    _mems(t)
    _space(t, op.src, op, "L1")
    to = _space(t, op.dst, op, "L0A", "L0B")
    et = str(op.dst.type.element_type)
    if et not in asc.LOAD3D_TYPES:
        raise SimulationError(f"kernel @{t.kernel}: `{op.name}` of {et} is not simulated "
                              f"({', '.join(asc.LOAD3D_TYPES)} are)")
    dt = numpy_dtype(et)
    es = dt.itemsize
    pad_bits = int(np.array(op.pad(), dt).view(_BITS[es]))
    sid = t.info(op, pipe_index(op), WORK, writes=(False, True), label=f"LoadData (Load3Dv2) L1->{to}")
    t.env.setdefault("_load3d_plan", _load3d_plan)
    t.env.setdefault("_load3d", _load3d)
    plans = _plans(t, "L3")
    fields = "(" + ", ".join(t.v(getattr(op, n)) for n in FIELDS) + ",)"
    key = f"({t.v(op.src)}, {t.v(op.dst)}, {fields}, {pad_bits})"
    t.emit(f"_l3 = {plans}.get({key})")
    rate = t.spec.mte1_l0a_bytes_per_cycle if to == "L0A" else t.spec.mte1_l0b_bytes_per_cycle
    t.emit(f"if _l3 is None: _l3 = _load3d_plan(_fail, {sid}, bid, L1, {t.v(op.src)}, {to}, {t.v(op.dst)}, "
           f"{fields}, {es}, {pad_bits}, {plans}, {1.0 / rate!r}, {local_base(t.spec, 'L1')}, "
           f"{local_base(t.spec, to)}, {to!r})")
    check_extents(t, sid, op.API, [(op.src, f"(_l3[6] - {local_base(t.spec, 'L1')})", "_l3[7]"),
                                   (op.dst, t.v(op.dst), "_l3[8]")])
    t.emit("_load3d(_l3)")
    record(t, sid, "_l3[5]", "0", [("_l3[6]", "_l3[7]"), ("_l3[9]", "_l3[8]")])
