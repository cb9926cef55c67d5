"""Emitter entries for the ``ascendc`` vector reductions (registered into the kernel table)."""

from pyasc.dialects import ascendc as A

from .common import scalar_ctype
from .kernel import register

def _extreme(api: str):
    def line(p, op) -> str:
        index = ", true" if op.cal_index is not None else ""
        return (f"AscendC::{api}({p.expr(op.dst)}, {p.expr(op.src)}, {p.expr(op.work)}, "
                f"{p.expr(op.count)}{index});")
    return line


def _reinterpret(p, op) -> str:
    t = scalar_ctype(op.result.type.element_type)
    return f"AscendC::LocalTensor<{t}> {p.declare(op.result)} = {p.expr(op.source)}.ReinterpretCast<{t}>();"


register({
    A.ReduceSumOp: "AscendC::ReduceSum({dst}, {src}, {work}, {count});",
    A.ReduceMaxOp: _extreme("ReduceMax"),
    A.ReduceMinOp: _extreme("ReduceMin"),
    A.ReinterpretCastOp: _reinterpret,
    A.SetValueOp: "{dest}.SetValue({index}, {value});",
})
