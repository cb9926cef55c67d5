"""Code generation for the cube's BiasTable: ``DataCopy`` from L1 (C1) to BT (C2) on MTE1.

BT is 1 KB per AIC (``bt_bytes``), a row of bytes per core next to L1 and L0 (``kernel_ops_cube.CubeMemories``).
The copy moves ``blockCount`` bursts of ``blockLen`` 64 B units of L1, ``srcGap`` 32 B blocks apart, to BT at 64 B
aligned addresses, ``dstGap`` 64 B units apart; a float16 source is widened to float32 on the way (each 64 B burst
unit fills 128 B of BT), the conversion Ascend C's Matmul uses for a half bias. An ``Mmad`` with a bias reads
``ceil16(n)`` float32 (int32) values of BT from the bias address and starts its block from them
(``cube_mmad``). Its cost: the BT bytes at ``mte1_l0b_bytes_per_cycle``; its hazard regions: L1 read, BT written.
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.types import numpy_dtype

from .codegen import KernelTranslator, pipe_index, record
from .contract import check_extents
from .costs import local_base
from .kernel_ops_cube import _mems, _space, core_view
from .opinfo import WORK

BURST, DST_ALIGN, SRC_ALIGN = 64, 64, 32
MAX_BLOCKS = 4095


def _l1_to_bt(fail, sid, bid, l1, bt, src, dst, count, blen, sgap, dgap, src_dt, dst_dt):
    """DataCopy C1 -> C2 (see the module docstring); returns (L1 bytes from ``src`` to the end of the last burst,
    BT bytes from ``dst`` to the end of the last burst)."""
    if l1.shape[0] > 1:
        src, dst, count, blen, sgap, dgap = (int(x) for x in (src, dst, count, blen, sgap, dgap))
    if not 0 <= count <= MAX_BLOCKS or min(blen, sgap, dgap) < 0:
        fail(sid, bid, f"DataCopy C1->C2: blockCount {count} outside [0, {MAX_BLOCKS}] or a negative length or gap")
    if count == 0 or blen == 0:
        return 0, 0
    read = blen * BURST
    wrote = read * dst_dt.itemsize // src_dt.itemsize
    s_span = (count - 1) * (read + sgap * 32) + read
    d_span = (count - 1) * (wrote + dgap * BURST) + wrote
    if src < 0 or src % SRC_ALIGN or src + s_span > l1.shape[1]:
        fail(sid, bid, f"DataCopy C1->C2: L1 bytes [{src}, {src + s_span}) are not 32 B aligned or outside its "
                       f"{l1.shape[1]} bytes")
    if dst < 0 or dst % DST_ALIGN or dst + d_span > bt.shape[1]:
        fail(sid, bid, f"DataCopy C1->C2: BiasTable bytes [{dst}, {dst + d_span}) are not 64 B aligned or outside "
                       f"its {bt.shape[1]} bytes")
    frm = core_view(l1, src, (count, read // src_dt.itemsize), (read + sgap * 32, src_dt.itemsize), src_dt)
    to = core_view(bt, dst, (count, wrote // dst_dt.itemsize), (wrote + dgap * BURST, dst_dt.itemsize), dst_dt)
    np.copyto(to, frm)  # float16 -> float32 is exact
    return s_span, d_span


def data_copy_l1_bt(t: KernelTranslator, op: asc.DataCopyL1ToBtOp) -> None:
    _mems(t)
    _space(t, op.src, op, "L1")
    _space(t, op.dst, op, "BT")
    sid = t.info(op, pipe_index(op), WORK, writes=(False, True), label="DataCopy L1->BT")
    t.env.setdefault("_l1_to_bt", _l1_to_bt)
    sdt = t.const(numpy_dtype(op.src.type.element_type), "DT")
    ddt = t.const(numpy_dtype(op.dst.type.element_type), "DT")
    args = ", ".join(t.v(x) for x in (op.block_count, op.block_len, op.src_gap, op.dst_gap))
    t.emit(f"_bt = _l1_to_bt(_fail, {sid}, bid, L1, BT, {t.v(op.src)}, {t.v(op.dst)}, {args}, {sdt}, {ddt})")
    check_extents(t, sid, op.API, [(op.src, t.v(op.src), "_bt[0]"), (op.dst, t.v(op.dst), "_bt[1]")])
    cost = f"_bt[1] * {1.0 / t.spec.mte1_l0b_bytes_per_cycle!r}"
    record(t, sid, cost, "0", [(f"{local_base(t.spec, 'L1')} + {t.v(op.src)}", "_bt[0]"),
                               (f"{local_base(t.spec, 'BT')} + {t.v(op.dst)}", "_bt[1]")])
