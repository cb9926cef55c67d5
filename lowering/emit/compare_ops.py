"""Emitter entries for ``Compare``/``Compares``/``Select`` (registered into the kernel table)."""

from pyasc.dialects import ascendc as A

from .kernel import register

register({
    A.CompareOp: "AscendC::Compare({dst}, {src0}, {src1}, AscendC::CMPMODE::{cmp_mode}, {count});",
    A.ComparesOp: "AscendC::Compares({dst}, {src0}, {scalar}, AscendC::CMPMODE::{cmp_mode}, {count});",
    A.SelectOp: ("AscendC::Select({dst}, {sel_mask}, {src0}, {src1}, "
                 "AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, {count});"),
    A.SelectScalarOp: ("AscendC::Select({dst}, {sel_mask}, {src0}, {scalar}, "
                       "AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, {count});"),
})
