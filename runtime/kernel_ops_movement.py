"""Code generation for ``CreateVecIndex`` and ``Gather`` (registered into the kernel table).

``Gather`` reads ``count`` uint32 byte offsets and collects the addressed elements of ``src``;
an offset that is not a multiple of the element size or leaves UB is an error. Its read region
for the hazard checker spans ``src`` up to the largest offset. Cost [O]: the fixed cost of a
vector instruction plus ``count / gather_elems_per_cycle`` cycles; ``CreateVecIndex`` costs what a
simple vector op writing ``count`` elements does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import kernel_ops as K
from .costs import V
from .opinfo import WORK

if TYPE_CHECKING:
    from .translate import KernelTranslator


def create_vec_index(t: KernelTranslator, op) -> None:
    sid, et, sh, (d,), per, n, nb = K._vector_prologue(t, op, [op.dst], (True,))
    t.emit(f"{K._view(et, sh, d, n)}[:] = np.arange({t.v(op.first_value)}, {t.v(op.first_value)} + {n})"
           f".astype({K._view(et, sh, d, n)}.dtype)")
    K._record(t, sid, K._vector_cost(t, nb, per), "0", [(d, nb)])


def gather(t: KernelTranslator, op) -> None:
    et, es, sh = t.local_dtype(op.dst)
    oet, oes, osh = t.local_dtype(op.src_offset)
    sid = t.info(op, V, WORK, writes=(True, False, False))
    d, s, o = t.v(op.dst), t.v(op.src), t.v(op.src_offset)
    n, nb = K._count(t, op, es, False, sid)
    ob = str(int(n) * oes) if n.isdigit() else f"{n} * {oes}"
    K._fail_if(t, K._neg(n) + K._ub_test([d, s], nb) + f" or {K._ub_test([o], ob)}", sid, K._ub_msg([d, s, o], nb))
    t.emit(f"_g = {K._view(oet, osh, o, n)}.astype(np.int64) + {t.v(op.src_base_addr)}")
    t.emit(f"_ge = int(_g.max()) + {es} if {n} else 0")
    K._fail_if(t, f"{n} and (int(_g.min()) < 0 or bool((_g % {es}).any()) or {s} + _ge > UBN)", sid,
               f"'Gather: a byte offset is negative, not a multiple of {es} or past the end of UB'")
    t.emit(f"{K._view(et, sh, d, n)}[:] = U_{et}[({s} + _g) >> {sh}]")
    sp = t.spec
    cost = f"{K._vector_cost(t, nb, 0)} + ({n} + {sp.gather_elems_per_cycle - 1}) // {sp.gather_elems_per_cycle}"
    K._record(t, sid, cost, "0", [(d, nb), (s, "_ge"), (o, ob)])


K.HANDLERS.update({"ascendc.create_vec_index": create_vec_index, "ascendc.gather": gather})
