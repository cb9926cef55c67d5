"""Assembly formats compiled on first use (``dialects/lazy_format.py``)."""

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, IndexType, IntegerAttr, i32
from xdsl.dialects.test import Test
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, operand_def, prop_def, result_def
from xdsl.irdl import irdl_op_definition as xdsl_definition
from xdsl.irdl.operations import PyRDLOpDefinitionError
from xdsl.parser import Parser

from pyasc.dialects import get_all_dialects
from pyasc.dialects.lazy_format import check_formats, format_program, irdl_op_definition


@pytest.mark.parametrize("name", sorted(get_all_dialects()))
def test_every_format_of_the_dialects_compiles(name):
    dialect = get_all_dialects()[name]()
    check_formats(dialect)
    with_format = [op for op in dialect.operations if op.get_irdl_definition().assembly_format is not None]
    assert all(op.__dict__.get("_format_program") is not None for op in with_format)


class _Scale(IRDLOperation):
    x = operand_def(i32)
    factor = prop_def(IntegerAttr)
    out = result_def(i32)
    assembly_format = "$x `by` $factor attr-dict `:` type($out)"


def _pair():
    """The same op defined by xDSL's decorator and by the lazy one."""
    eager = xdsl_definition(type("EagerScale", (_Scale,), {"name": "eager.scale"}))
    lazy = irdl_op_definition(type("LazyScale", (_Scale,), {"name": "lazy.scale"}))
    return eager, lazy


def test_lazy_format_parses_and_prints_as_xdsl_does():
    eager, lazy = _pair()
    assert "_format_program" not in lazy.__dict__        # nothing compiled on definition
    ctx = Context()
    for d in (Builtin, Test, Dialect("eager", [eager]), Dialect("lazy", [lazy])):
        ctx.load_dialect(d)
    texts = {}
    for op in ("eager.scale", "lazy.scale"):
        generic = f'%a = "test.op"() : () -> i32\n%b = "{op}"(%a) <{{factor = 3 : i64}}> : (i32) -> i32'
        custom = str(Parser(ctx, generic).parse_module())
        again = Parser(ctx, custom).parse_module()      # the custom form parses back
        again.verify()
        assert str(again) == custom
        texts[op] = custom.replace(op, "OP")
    assert texts["eager.scale"] == texts["lazy.scale"]
    assert "OP %a by 3 : i64 : i32" in texts["lazy.scale"]     # the custom form, not the generic one
    assert lazy.assembly_format == eager.assembly_format
    assert lazy.get_irdl_definition().assembly_format == eager.assembly_format


def test_malformed_format_is_reported_with_the_op():
    op = irdl_op_definition(type("Bad", (IRDLOperation,), {
        "name": "bad.op", "x": operand_def(IndexType), "assembly_format": "$x $nope attr-dict"}))
    with pytest.raises(PyRDLOpDefinitionError, match="bad.op"):
        format_program(op)
    with pytest.raises(PyRDLOpDefinitionError, match="bad.op"):
        check_formats(Dialect("bad", [op]))


def test_format_and_custom_printer_are_refused():
    def print_(self, printer):
        printer.print_string("x")

    with pytest.raises(PyRDLOpDefinitionError, match="both an assembly format"):
        irdl_op_definition(type("Both", (IRDLOperation,), {
            "name": "both.op", "assembly_format": "attr-dict", "print": print_}))

