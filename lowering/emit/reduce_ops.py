"""Emitter entries for the ``ascendc`` vector reductions (registered into the kernel table)."""

from pyasc.dialects import ascendc as A

from .kernel import register

register({
    A.ReduceSumOp: "AscendC::ReduceSum({dst}, {src}, {work}, {count});",
    A.ReduceMaxOp: "AscendC::ReduceMax({dst}, {src}, {work}, {count});",
    A.ReduceMinOp: "AscendC::ReduceMin({dst}, {src}, {work}, {count});",
})
