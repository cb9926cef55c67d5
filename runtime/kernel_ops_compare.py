"""Code generation for ``Compare``/``Compares``/``Select`` (the bit masks of the vector unit).

A mask is a ``uint8_t`` tensor with one bit per element, least significant bit first:
``Compare`` writes ``ceil(count / 8)`` bytes, ``Select`` reads as many; the op classes' ``numpy_operation``
computes them (comparisons follow IEEE: NaN compares false except with ``NE``). A count that does not fill
whole 256 B blocks breaks the documented contract (the hardware leaves the partial block uncomputed). Cost [O]: the fixed
cost of a vector instruction plus one cycle per 256 B repeat of the compared (or selected) element type.
"""

from __future__ import annotations

from pyasc.dialects import ascendc as asc

from .codegen import (
    KernelTranslator,
    counts,
    fail_if,
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


def _mask_bytes(n: str) -> str:
    return str(-(-int(n) // 8)) if n.isdigit() else f"(({n} + 7) >> 3)"


def compare(t: KernelTranslator, op: asc.CompareOp | asc.ComparesOp) -> None:
    et, es, sh = t.local_dtype(op.src0)
    scalar = isinstance(op, asc.ComparesOp)
    srcs = [op.src0] if scalar else [op.src0, op.src1]
    sid = t.info(op, pipe_index(op), WORK, writes=(True,) + (False,) * len(srcs))
    d = t.v(op.dst)
    addrs = [t.v(x) for x in srcs]
    n, nb = counts(t, op, es, False, sid)
    mb = _mask_bytes(n)
    fail_if(t, negative_test(n) + ub_test(addrs, nb) + f" or {ub_test([d], mb)}", sid,
            ub_message([d] + addrs, nb))
    check_extents(t, sid, op.API, [(op.dst, d, mb)] + [(x, a, nb) for x, a in zip(srcs, addrs)])
    if not nb.isdigit():  # a constant count is the verifier's (``cmp-count-256b``)
        t.emit(f"if {nb} % 256: _rule('cmp-count-256b', {sid}, bid, f'{op.API} of {{{nb}}} B')")
    rhs = t.v(op.scalar) if scalar else ub_view(et, sh, addrs[1], n)
    fn = t.const(op.numpy_operation, "F")
    t.emit(f"{fn}(U_ui8[{d}:{d}+{mb}], {ub_view(et, sh, addrs[0], n)}, {rhs}, {op.cmp_mode.data.value!r})")
    per = t.spec.vector_simple_cycles
    record(t, sid, vector_cost(t, nb, per), "0", [(d, mb)] + [(a, nb) for a in addrs])


def select(t: KernelTranslator, op: asc.SelectOp | asc.SelectScalarOp) -> None:
    et, es, sh = t.local_dtype(op.dst)
    scalar = isinstance(op, asc.SelectScalarOp)
    srcs = [op.src0] if scalar else [op.src0, op.src1]
    sid = t.info(op, pipe_index(op), WORK, writes=(True, False) + (False,) * len(srcs))
    d, m = t.v(op.dst), t.v(op.sel_mask)
    addrs = [t.v(x) for x in srcs]
    n, nb = counts(t, op, es, False, sid)
    mb = _mask_bytes(n)
    fail_if(t, negative_test(n) + ub_test([d] + addrs, nb) + f" or {ub_test([m], mb)}", sid,
            ub_message([d, m] + addrs, nb))
    check_extents(t, sid, op.API, [(op.dst, d, nb), (op.sel_mask, m, mb)] + [(x, a, nb) for x, a in zip(srcs, addrs)])
    other = t.v(op.scalar) if scalar else ub_view(et, sh, addrs[1], n)
    fn = t.const(op.numpy_operation, "F")
    t.emit(f"{fn}({ub_view(et, sh, d, n)}, U_ui8[{m}:{m}+{mb}], {ub_view(et, sh, addrs[0], n)}, {other})")
    per = t.spec.vector_simple_cycles
    record(t, sid, vector_cost(t, nb, per), "0", [(d, nb), (m, mb)] + [(a, nb) for a in addrs])
