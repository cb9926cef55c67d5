"""Code generation for the vector reductions and for ``GetValue`` of a local tensor.

``ReduceSum/ReduceMax/ReduceMin(dst, src, work, count)`` fold ``count`` elements into ``dst[0]``
(float32 accumulation for half, as the binary tree of the hardware keeps the error at a few
ulp). Cost [D]: the fixed vector cost, one cycle per 256 B repeat for the tree of pairwise ops
down to one repeat, and two whole-repeat reductions (``reduce_repeat_cycles`` each).
``GetValue`` on a local tensor reads UB on the scalar pipe (``scalar_ub_read_cycles``).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from pyasc.dialects import ascendc as asc

from . import kernel_ops as K
from .costs import S, V
from .dtypes import numpy_dtype
from .opinfo import WORK

if TYPE_CHECKING:
    from .translate import KernelTranslator

# folds along the last axis: one core's view is 1-D, a group's (cores, n) (see ``batched``)
_FOLD = {"ascendc.reduce_sum": partial(np.sum, axis=-1, dtype=np.float32), "ascendc.reduce_max": partial(np.max, axis=-1),
         "ascendc.reduce_min": partial(np.min, axis=-1)}
_ARG = {"ascendc.reduce_max": partial(np.argmax, axis=-1), "ascendc.reduce_min": partial(np.argmin, axis=-1)}


def reduce_count(t: KernelTranslator, op) -> None:
    et, es, sh = t.local_dtype(op.dst)
    sid = t.info(op, V, WORK, writes=(True, False, True))
    d, a, w = t.v(op.dst), t.v(op.src), t.v(op.work)
    n, nb = K._count(t, op, es, False, sid)
    K._fail_if(t, K._neg(n) + K._ub_test([a, w], nb) + f" or {K._ub_test([d], str(es))}", sid,
               K._ub_msg([d, a, w], nb))
    src = K._view(et, sh, a, n)
    t.emit(f"if {n} > 0: {K._view(et, sh, d, '1')}[..., 0] = {t.const(_FOLD[op.name], 'F')}({src})")
    if getattr(op, "cal_index", None) is not None:  # dst[1] = the index of the first extreme, as uint32 bits
        arg = t.const(_ARG[op.name], "F")
        t.emit(f"if {n} > 0: {K._view(et, sh, d, '2')}.view(np.uint{8 * es})[..., 1] = {arg}({src})")
    sp = t.spec
    cost = f"{K._vector_cost(t, nb, sp.vector_simple_cycles)} + {2 * sp.reduce_repeat_cycles}"
    work_bytes = f"(({nb} + {sp.repeat_bytes - 1}) // {sp.repeat_bytes}) * {es}"
    K._record(t, sid, cost, "0", [(d, str(es)), (a, nb), (w, work_bytes)])


def get_value(t: KernelTranslator, op: asc.GetValueOp) -> None:
    if not isinstance(op.source.type, asc.LocalTensorType):
        _GM_GET_VALUE(t, op)
        return
    et, es, sh = t.local_dtype(op.source)
    sid = t.info(op, S, WORK, writes=(False,), label="GetValue")
    t.emit(f"_a = {t.v(op.source)} + {t.v(op.index)} * {es}")
    K._fail_if(t, f"_a < 0 or _a & {es - 1} or _a + {es} > UBN", sid,
               f"f'GetValue at UB byte {{_a}} is misaligned or outside UB'")
    conv = "_int" if numpy_dtype(et).kind in "iub" else "_float"
    t.emit(f"{t.v(op.result)} = {conv}(U_{et}[_a >> {sh}])")
    cycles = t.spec.scalar_ub_read_cycles
    K._record(t, sid, str(cycles), "0", [("_a", str(es))])
    t.pending += cycles - 1


def reinterpret_cast(t: KernelTranslator, op) -> None:
    """The same UB address, viewed as another element type."""
    c = t.consts.get(op.source)
    if c is not None:
        t.consts[op.result] = c
        t.bind(op.result, K._lit(c))
        return
    t.bind(op.result, t.v(op.source))


def set_value(t: KernelTranslator, op) -> None:
    et, es, sh = t.local_dtype(op.dest)
    sid = t.info(op, S, WORK, writes=(True,), label="SetValue")
    t.emit(f"_a = {t.v(op.dest)} + {t.v(op.index)} * {es}")
    K._fail_if(t, f"_a < 0 or _a & {es - 1} or _a + {es} > UBN", sid,
               f"f'SetValue at UB byte {{_a}} is misaligned or outside UB'")
    t.emit(f"U_{et}[_a >> {sh}] = {t.v(op.value)}")
    cycles = t.spec.scalar_ub_read_cycles
    K._record(t, sid, str(cycles), "0", [("_a", str(es))])
    t.pending += cycles - 1


_GM_GET_VALUE = K.HANDLERS["ascendc.get_value"]
K.HANDLERS.update({name: reduce_count for name in _FOLD})
K.HANDLERS["ascendc.get_value"] = get_value
K.HANDLERS["ascendc.reinterpret_cast"] = reinterpret_cast
K.HANDLERS["ascendc.set_value"] = set_value
