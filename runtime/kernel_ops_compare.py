"""Code generation for ``Compare``/``Compares``/``Select`` (the bit masks of the vector unit).

A mask is a ``uint8_t`` tensor with one bit per element, least significant bit first:
``Compare`` writes ``ceil(count / 8)`` bytes, ``Select`` reads as many. Comparisons follow IEEE
(NumPy): NaN compares false except with ``NE``. Cost [O]: the fixed cost of a vector instruction
plus one cycle per 256 B repeat of the compared (or selected) element type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import kernel_ops as K
from .costs import V
from .opinfo import WORK

if TYPE_CHECKING:
    from .translate import KernelTranslator

_CMP = {"LT": "np.less", "GT": "np.greater", "EQ": "np.equal", "LE": "np.less_equal", "GE": "np.greater_equal",
        "NE": "np.not_equal"}


def _pack(cond):
    return np.packbits(cond, axis=-1, bitorder="little")


def _unpack(mask, n):
    return np.unpackbits(mask, axis=-1, count=n, bitorder="little").view(np.bool_)


def _mask_bytes(n: str) -> str:
    return str(-(-int(n) // 8)) if n.isdigit() else f"(({n} + 7) >> 3)"


def compare(t: KernelTranslator, op) -> None:
    et, es, sh = t.local_dtype(op.src0)
    scalar = op.name == "ascendc.compares"
    srcs = [op.src0] if scalar else [op.src0, op.src1]
    sid = t.info(op, V, WORK, writes=(True,) + (False,) * len(srcs))
    d = t.v(op.dst)
    addrs = [t.v(x) for x in srcs]
    n, nb = K._count(t, op, es, False, sid)
    mb = _mask_bytes(n)
    K._fail_if(t, K._neg(n) + K._ub_test(addrs, nb) + f" or {K._ub_test([d], mb)}", sid, K._ub_msg([d] + addrs, nb))
    rhs = t.v(op.scalar) if scalar else K._view(et, sh, addrs[1], n)
    fn = _CMP[op.cmp_mode.data.value]
    t.emit(f"_m = {t.const(_pack, 'F')}({fn}({K._view(et, sh, addrs[0], n)}, {rhs}))")
    t.emit(f"U_ui8[{d}:{d}+_m.shape[-1]] = _m")
    per = t.spec.vector_simple_cycles
    K._record(t, sid, K._vector_cost(t, nb, per), "0", [(d, mb)] + [(a, nb) for a in addrs])


def select(t: KernelTranslator, op) -> None:
    et, es, sh = t.local_dtype(op.dst)
    scalar = op.name == "ascendc.select_scalar"
    srcs = [op.src0] if scalar else [op.src0, op.src1]
    sid = t.info(op, V, WORK, writes=(True, False) + (False,) * len(srcs))
    d, m = t.v(op.dst), t.v(op.sel_mask)
    addrs = [t.v(x) for x in srcs]
    n, nb = K._count(t, op, es, False, sid)
    mb = _mask_bytes(n)
    K._fail_if(t, K._neg(n) + K._ub_test([d] + addrs, nb) + f" or {K._ub_test([m], mb)}", sid,
               K._ub_msg([d, m] + addrs, nb))
    other = t.v(op.scalar) if scalar else K._view(et, sh, addrs[1], n)
    cond = f"{t.const(_unpack, 'F')}(U_ui8[{m}:{m}+{mb}], {n})"
    t.emit(f"{K._view(et, sh, d, n)} = np.where({cond}, {K._view(et, sh, addrs[0], n)}, {other})")
    per = t.spec.vector_simple_cycles
    K._record(t, sid, K._vector_cost(t, nb, per), "0", [(d, nb), (m, mb)] + [(a, nb) for a in addrs])


K.HANDLERS.update({"ascendc.compare": compare, "ascendc.compares": compare, "ascendc.select": select,
                   "ascendc.select_scalar": select})
