"""Emitter entries for ``CreateVecIndex`` and ``Gather`` (registered into the kernel table)."""

from pyasc.dialects import ascendc as A

from .kernel import register

register({
    A.CreateVecIndexOp: "AscendC::CreateVecIndex({dst}, {first_value}, {count});",
    A.GatherOp: "AscendC::Gather({dst}, {src}, {src_offset}, {src_base_addr}, {count});",
})
