"""``irdl_op_definition`` for pyasc's ops: xDSL's, with the declarative assembly format compiled
when the op is first parsed or printed instead of when its class is defined.

Compiling a format is about half the cost of defining an op, and most programs print or parse few
of the ops of a dialect (a ``pyasc.jit`` compile prints none). The op's ``OpDef`` keeps the format
text; ``check_formats`` compiles every format of a dialect at once (what xDSL does on definition),
for the tests.
"""

from __future__ import annotations

from xdsl.ir import Dialect, Operation
from xdsl.irdl import IRDLOperation
from xdsl.irdl import irdl_op_definition as xdsl_irdl_op_definition
from xdsl.irdl.operations import PyRDLOpDefinitionError
from xdsl.utils.exceptions import ParseError

__all__ = ["check_formats", "format_program", "irdl_op_definition"]


def format_program(cls: type[IRDLOperation]):
    """The compiled assembly format of the op class ``cls`` (compiled once, on first use)."""
    program = cls.__dict__.get("_format_program")
    if program is None:
        from xdsl.irdl.declarative_assembly_format import FormatProgram

        op_def = cls.get_irdl_definition()
        try:
            program = FormatProgram.from_str(op_def.assembly_format, op_def)
        except ParseError as e:
            raise PyRDLOpDefinitionError(f"{op_def.name}: error during the parsing of the assembly format: ",
                                         e.args) from e
        cls._format_program = program
    return program


def _parse(cls, parser):
    return format_program(cls).parse(parser, cls)


def _print(self, printer):
    return format_program(type(self)).print(printer, self)


def irdl_op_definition(cls: type[IRDLOperation]) -> type[IRDLOperation]:
    """xDSL's ``irdl_op_definition``; an ``assembly_format`` is compiled on first use (``format_program``)."""
    fmt = cls.assembly_format
    if fmt is None:
        return xdsl_irdl_op_definition(cls)
    if cls.print is not Operation.print or cls.parse.__func__ is not Operation.parse.__func__:
        raise PyRDLOpDefinitionError(f"{cls.name}: cannot define both an assembly format (with the "
                                     "assembly_format variable) and the print and parse methods.")
    own = "assembly_format" in cls.__dict__
    cls.assembly_format = None          # xDSL would compile it now
    try:
        xdsl_irdl_op_definition(cls)
    finally:
        if own:
            cls.assembly_format = fmt
        else:
            del cls.assembly_format
    cls.get_irdl_definition().assembly_format = fmt
    cls.parse = classmethod(_parse)
    cls.print = _print
    return cls


def check_formats(dialect: Dialect) -> None:
    """Compile the assembly format of every op of ``dialect`` that has one (a malformed one raises)."""
    for op in dialect.operations:
        if op.get_irdl_definition().assembly_format is not None and op.print is _print:
            format_program(op)
