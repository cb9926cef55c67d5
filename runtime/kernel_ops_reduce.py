"""Code generation for the vector reductions and the scalar unit's access to local tensors.

``ReduceSum/ReduceMax/ReduceMin(dst, src, work, count)`` fold ``count`` elements into ``dst[0]`` with the
op class's ``numpy_reduce`` (float32 accumulation for half, as the binary tree of the hardware keeps the
error at a few ulp). Cost [D]: the fixed vector cost, one cycle per 256 B repeat for the tree of pairwise
ops down to one repeat, and two whole-repeat reductions (``reduce_repeat_cycles`` each).
``SetValue`` writes UB on the scalar pipe (``scalar_ub_read_cycles``); ``ReinterpretCast`` is a view.
"""

from __future__ import annotations

from pyasc.dialects import ascendc as asc

from .codegen import (
    KernelTranslator,
    counts,
    fail_if,
    literal,
    negative_test,
    pipe_index,
    record,
    ub_message,
    ub_test,
    ub_view,
    vector_cost,
)
from .contract import check_extents
from .opinfo import WORK


def reduce_count(t: KernelTranslator, op: asc.ReduceCountOp) -> None:
    et, es, sh = t.local_dtype(op.dst)
    sid = t.info(op, pipe_index(op), WORK, writes=(True, False, True))
    d, a, w = t.v(op.dst), t.v(op.src), t.v(op.work)
    n, nb = counts(t, op, es, False, sid)
    fail_if(t, negative_test(n) + ub_test([a, w], nb) + f" or {ub_test([d], str(es))}", sid,
            ub_message([d, a, w], nb))
    cal = op.cal_index is not None
    checks = [(op.src, a, nb), (op.dst, d, str(es * (2 if cal else 1)))]
    if not isinstance(op, asc.ReduceSumOp):  # ReduceSum's count form does not use its work area
        t.env["_reduce_work"] = op.work_elems
        checks.append((op.work, w, f"_reduce_work({n}, {es}, {cal}) * {es}", "reducemax-tmp-size"))
    check_extents(t, sid, op.API, checks)
    src = ub_view(et, sh, a, n)
    t.emit(f"if {n} > 0: {ub_view(et, sh, d, '1')}[..., 0] = {t.const(op.numpy_reduce, 'F')}({src})")
    if op.cal_index is not None:  # dst[1] = the index of the first extreme, as uint32 bits
        arg = t.const(op.numpy_index, "F")
        t.emit(f"if {n} > 0: {ub_view(et, sh, d, '2')}.view(np.uint{8 * es})[..., 1] = {arg}({src})")
    sp = t.spec
    cost = f"{vector_cost(t, nb, sp.vector_simple_cycles)} + {2 * sp.reduce_repeat_cycles}"
    work_bytes = f"(({nb} + {sp.repeat_bytes - 1}) // {sp.repeat_bytes}) * {es}"
    record(t, sid, cost, "0", [(d, str(es * (2 if cal else 1))), (a, nb), (w, work_bytes)])


def reinterpret_cast(t: KernelTranslator, op: asc.ReinterpretCastOp) -> None:
    """The same UB address, viewed as another element type."""
    c = t.consts.get(op.source)
    if c is not None:
        t.consts[op.result] = c
        t.bind(op.result, literal(c))
        return
    t.bind(op.result, t.v(op.source))


def set_value(t: KernelTranslator, op: asc.SetValueOp) -> None:
    et, es, sh = t.local_dtype(op.dest)
    sid = t.info(op, pipe_index(op), WORK, writes=(True,), label="SetValue")
    t.emit(f"_a = {t.v(op.dest)} + {t.v(op.index)} * {es}")
    fail_if(t, f"_a < 0 or _a & {es - 1} or _a + {es} > UBN", sid,
            f"f'SetValue at UB byte {{_a}} is misaligned or outside UB'")
    t.emit(f"U_{et}[_a >> {sh}] = {t.v(op.value)}")
    cycles = t.spec.scalar_ub_read_cycles
    record(t, sid, str(cycles), "0", [("_a", str(es))])
    t.pending += cycles - 1
