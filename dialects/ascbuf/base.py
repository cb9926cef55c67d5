"""The ``ascbuf`` dialect: core ops (see the package docstring)."""


from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, MemRefType, UnitAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition
from ..row_window import check_row_window
from ..ascendc import AscendC, RoundModeAttr, VectorBinaryOp, VectorScalarOp, VectorUnaryOp, VectorUnaryScratchOp
from ..target import Pipe
from ..traits import BufferEffects, OnPipe
from ..types import element_bytes


class MemorySpace(StrEnum):
    GM = "gm"
    UB = "ub"
    L1 = "l1"
    L0A = "l0a"
    L0B = "l0b"
    L0C = "l0c"
    BT = "bt"


@irdl_attr_definition
class MemorySpaceAttr(ParametrizedAttribute):
    """The memory a buffer lives in: ``#ascbuf.space<ub>``."""

    name = "ascbuf.space"
    space: Attribute

    def __init__(self, space: MemorySpace):
        from xdsl.dialects.builtin import StringAttr

        super().__init__(StringAttr(space.value))

    @property
    def value(self) -> MemorySpace:
        return MemorySpace(self.space.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        from xdsl.dialects.builtin import StringAttr

        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_str_enum(MemorySpace).value),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.space.data)


UB = MemorySpaceAttr(MemorySpace.UB)


def ub_memref(shape, element_type) -> MemRefType:
    return MemRefType(element_type, shape, memory_space=MemorySpaceAttr(MemorySpace.UB))


def memory_space(t) -> MemorySpace | None:
    """The on-chip space of a buffer type, or None for GM."""
    if isinstance(t, MemRefType) and isinstance(t.memory_space, MemorySpaceAttr):
        return t.memory_space.value
    return None


def check_ub(op: str, t) -> None:
    """``t`` is a UB buffer type, else a verification error of ``op``."""
    if not isinstance(t, MemRefType) or not isinstance(t.memory_space, MemorySpaceAttr) \
            or t.memory_space.value != MemorySpace.UB:
        raise VerifyException(f"{op} works on UB buffers (memref in #ascbuf.space<ub>), got {t}")


@irdl_attr_definition
class PipeAttr(EnumAttribute[Pipe], SpacedOpaqueSyntaxAttribute):
    name = "ascbuf.pipe"


def _instructions(form: type) -> dict[str, type]:
    """The ``ascendc`` vector instructions of one form, keyed by their lower-case API name."""
    return {op.API.lower(): op for op in AscendC.operations if issubclass(op, form)}


# the kinds of vbinary/vscalar/vunary are the ascendc instructions of each form: a new instruction class
# in dialects/ascendc/vector.py is a new kind here
BINARY_INSTRUCTIONS = _instructions(VectorBinaryOp)
SCALAR_INSTRUCTIONS = _instructions(VectorScalarOp)
UNARY_INSTRUCTIONS = _instructions(VectorUnaryOp)
VBinaryKind = StrEnum("VBinaryKind", {kind.upper(): kind for kind in BINARY_INSTRUCTIONS})
VScalarKind = StrEnum("VScalarKind", {kind.upper(): kind for kind in SCALAR_INSTRUCTIONS})
VUnaryKind = StrEnum("VUnaryKind", {kind.upper(): kind for kind in UNARY_INSTRUCTIONS})


@irdl_attr_definition
class VBinaryKindAttr(EnumAttribute[VBinaryKind], SpacedOpaqueSyntaxAttribute):
    name = "ascbuf.vbinary_kind"


@irdl_attr_definition
class VScalarKindAttr(EnumAttribute[VScalarKind], SpacedOpaqueSyntaxAttribute):
    name = "ascbuf.vscalar_kind"


@irdl_attr_definition
class VUnaryKindAttr(EnumAttribute[VUnaryKind], SpacedOpaqueSyntaxAttribute):
    name = "ascbuf.vunary_kind"


@irdl_op_definition
class AllocOp(IRDLOperation):
    """Reserve ``slots`` rotating copies of an on-chip buffer; ``offset`` (bytes) is set by plan-memory."""

    name = "ascbuf.alloc"
    slots = prop_def(IntegerAttr[I64])
    offset = opt_prop_def(IntegerAttr[I64])
    result = result_def(MemRefType)
    assembly_format = "`slots` $slots (`offset` $offset^)? attr-dict `:` type($result)"

    def __init__(self, result_type: MemRefType, slots: int = 1):
        super().__init__(properties={"slots": IntegerAttr(slots, 64)}, result_types=[result_type])

    @property
    def slot_bytes(self) -> int:
        """Bytes of one copy, rounded up to the 32 B block; a UB buffer to the 256 B repeat of the
        vector unit, so an instruction that works in whole repeats (Compare) stays inside it."""
        t = self.result.type
        n = 1
        for d in t.get_shape():
            n *= d
        unit = 256 if memory_space(t) == MemorySpace.UB else 32
        return -(-n * element_bytes(t.element_type) // unit) * unit

    def verify_(self) -> None:
        if memory_space(self.result.type) in (None, MemorySpace.GM):
            raise VerifyException(f"ascbuf.alloc reserves on-chip memory (ub, l1, l0a, l0b, l0c), got {self.result.type}")
        if not 1 <= self.slots.value.data <= 8:
            raise VerifyException(f"ascbuf.alloc: slots must be in 1..8, got {self.slots.value.data}")
        if self.offset is not None and self.offset.value.data % 32:
            raise VerifyException(f"ascbuf.alloc: offset {self.offset.value.data} is not 32 B aligned")


@irdl_op_definition
class SlotOp(IRDLOperation):
    """The copy of a multi-slot buffer used by loop iteration ``index`` (``index mod slots``)."""

    name = "ascbuf.slot"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    buffer = operand_def(T)
    index = operand_def(IndexType)
    result = result_def(T)
    assembly_format = "$buffer `[` $index `]` attr-dict `:` type($result)"

    def __init__(self, buffer, index):
        super().__init__(operands=[buffer, index], result_types=[buffer.type])

    def verify_(self) -> None:
        if not isinstance(self.buffer.owner, AllocOp):
            raise VerifyException("ascbuf.slot takes the result of an ascbuf.alloc")


@irdl_op_definition
class RowsOp(IRDLOperation):
    """Rows ``[first, first + R)`` of a buffer (or of a slot of one) as a buffer of ``R`` rows of the same pitch:
    a view, whose accesses are accesses of the buffer it lies in."""

    name = "ascbuf.rows"
    buffer = operand_def(MemRefType)
    first = prop_def(IntegerAttr[I64])
    result = result_def(MemRefType)
    assembly_format = "$buffer `from` $first attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer, first: int, rows: int):
        t = buffer.type
        super().__init__(operands=[buffer], properties={"first": IntegerAttr(first, 64)},
                         result_types=[MemRefType(t.element_type, [rows, t.get_shape()[1]],
                                                  memory_space=t.memory_space)])

    def offset_elements(self) -> int:
        return self.first.value.data * self.buffer.type.get_shape()[1]

    def verify_(self) -> None:
        check_row_window(self.name, self.buffer.type, self.result.type, self.first.value.data)


def _copy_in_pipe(op: CopyInOp) -> Pipe:
    """A window of whole rows moves on MTE2; a column broadcast is GetValue plus Duplicate on V."""
    return Pipe.MTE2 if op.col_stride.value.data == 1 else Pipe.V


@irdl_op_definition
class CopyInOp(IRDLOperation):
    """Fill a UB buffer from a ``rows x cols`` window of GM (window as in ``asctile.load``)."""

    name = "ascbuf.copy_in"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    dest = operand_def(MemRefType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    row_stride = prop_def(IntegerAttr[I64])
    col_stride = prop_def(IntegerAttr[I64])
    dense = opt_prop_def(UnitAttr)
    zero_tail = opt_prop_def(UnitAttr)  # each row's columns from ``cols`` to the end of its last 32 B are zero
    assembly_format = ("$source `[` $offset `]` `,` $dest `rows` $rows `cols` $cols `strides` `(` $row_stride "
                       "`,` $col_stride `)` (`dense` $dense^)? (`zero_tail` $zero_tail^)? attr-dict `:` "
                       "type($source) `,` type($dest)")
    traits = traits_def(OnPipe(_copy_in_pipe), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, offset, dest, rows, cols, row_stride: int, col_stride: int, dense: bool = False,
                 zero_tail: bool = False):
        super().__init__(operands=[source, offset, dest, rows, cols],
                         properties={"row_stride": IntegerAttr(row_stride, 64),
                                     "col_stride": IntegerAttr(col_stride, 64),
                                     "dense": UnitAttr() if dense else None,
                                     "zero_tail": UnitAttr() if zero_tail else None})

    def verify_(self) -> None:
        check_ub(self.name, self.dest.type)
        if self.source.type.element_type != self.dest.type.element_type:
            raise VerifyException("ascbuf.copy_in: element types differ")
        if self.col_stride.value.data not in (0, 1):
            raise VerifyException("ascbuf.copy_in: col_stride must be 0 or 1")


@irdl_op_definition
class LoadScalarOp(IRDLOperation):
    """One element of a GM buffer read by the scalar unit (``GetValue`` on a global tensor): the
    scalar of ``vscalar`` ops when a kernel input is one value for the whole tensor."""

    name = "ascbuf.load_scalar"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    result = result_def(AnyAttr())
    assembly_format = "$source `[` $offset `]` attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source, offset):
        super().__init__(operands=[source, offset], result_types=[source.type.element_type])

    def verify_(self) -> None:
        if memory_space(self.source.type) not in (None, MemorySpace.GM):
            raise VerifyException(f"ascbuf.load_scalar reads GM, got {self.source.type}")
        if self.result.type != self.source.type.element_type:
            raise VerifyException(f"ascbuf.load_scalar: result type {self.result.type} differs from the buffer's "
                                  f"element type {self.source.type.element_type}")


@irdl_op_definition
class CopyOutOp(IRDLOperation):
    """Write the valid ``rows x cols`` part of a UB buffer to GM, rows ``row_stride`` apart (MTE3)."""

    name = "ascbuf.copy_out"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    offset = operand_def(IndexType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    row_stride = prop_def(IntegerAttr[I64])
    dense = opt_prop_def(UnitAttr)
    assembly_format = ("$source `,` $dest `[` $offset `]` `rows` $rows `cols` $cols `stride` $row_stride "
                       "(`dense` $dense^)? attr-dict `:` type($source) `,` type($dest)")

    traits = traits_def(OnPipe(Pipe.MTE3), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, dest, offset, rows, cols, row_stride: int, dense: bool = False):
        super().__init__(operands=[source, dest, offset, rows, cols],
                         properties={"row_stride": IntegerAttr(row_stride, 64),
                                     "dense": UnitAttr() if dense else None})

    def verify_(self) -> None:
        check_ub(self.name, self.source.type)
        if self.source.type.element_type != self.dest.type.element_type:
            raise VerifyException("ascbuf.copy_out: element types differ")


class VectorOp(IRDLOperation):
    """Base of the vector ops: ``count`` elements from the start of each buffer, on PIPE_V."""

    traits = traits_def(OnPipe(Pipe.V))


@irdl_op_definition
class VBinaryOp(VectorOp):
    """``dst = lhs <kind> rhs`` elementwise."""

    name = "ascbuf.vbinary"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    kind = prop_def(VBinaryKindAttr)
    dst = operand_def(T)
    lhs = operand_def(T)
    rhs = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$kind $dst `,` $lhs `,` $rhs `,` $count attr-dict `:` type($dst)"
    traits = traits_def(BufferEffects(reads=("lhs", "rhs"), writes=("dst",)))

    def __init__(self, kind: VBinaryKind, dst, lhs, rhs, count):
        super().__init__(operands=[dst, lhs, rhs, count], properties={"kind": VBinaryKindAttr(VBinaryKind(kind))})

    @property
    def instruction(self) -> type:
        """The ``ascendc`` op class that computes this kind."""
        return BINARY_INSTRUCTIONS[self.kind.data.value]

    def verify_(self) -> None:
        check_ub(self.name, self.dst.type)


@irdl_op_definition
class VScalarOp(VectorOp):
    """``dst = src <kind> scalar`` elementwise (Adds, Muls, Maxs, Mins)."""

    name = "ascbuf.vscalar"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    kind = prop_def(VScalarKindAttr)
    dst = operand_def(T)
    src = operand_def(T)
    scalar = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = "$kind $dst `,` $src `,` $scalar `,` $count attr-dict `:` type($dst) `,` type($scalar)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst",)))

    def __init__(self, kind: VScalarKind, dst, src, scalar, count):
        super().__init__(operands=[dst, src, scalar, count], properties={"kind": VScalarKindAttr(VScalarKind(kind))})

    @property
    def instruction(self) -> type:
        """The ``ascendc`` op class that computes this kind."""
        return SCALAR_INSTRUCTIONS[self.kind.data.value]

    def verify_(self) -> None:
        check_ub(self.name, self.dst.type)
        if self.scalar.type != self.dst.type.element_type:
            raise VerifyException(f"ascbuf.vscalar: scalar type {self.scalar.type} differs from the buffer's "
                                  f"element type {self.dst.type.element_type}")


@irdl_op_definition
class VUnaryOp(VectorOp):
    """``dst = kind(src)`` elementwise."""

    name = "ascbuf.vunary"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    kind = prop_def(VUnaryKindAttr)
    dst = operand_def(T)
    src = operand_def(T)
    count = operand_def(IndexType)
    tmp = opt_operand_def(MemRefType)  # the scratch of a math-library routine (``instruction.scratch_bytes``)
    assembly_format = "$kind $dst `,` $src `,` $count (`scratch` $tmp^ `:` type($tmp))? attr-dict `:` type($dst)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst", "tmp")))

    def __init__(self, kind: VUnaryKind, dst, src, count, tmp=None):
        super().__init__(operands=[dst, src, count, [tmp] if tmp is not None else []],
                         properties={"kind": VUnaryKindAttr(VUnaryKind(kind))})

    @property
    def instruction(self) -> type:
        """The ``ascendc`` op class that computes this kind."""
        return UNARY_INSTRUCTIONS[self.kind.data.value]

    def verify_(self) -> None:
        check_ub(self.name, self.dst.type)
        needs = issubclass(self.instruction, VectorUnaryScratchOp)
        if needs != (self.tmp is not None):
            raise VerifyException(f"ascbuf.vunary {self.kind.data.value}: "
                                  + ("needs a scratch buffer" if needs else "takes no scratch buffer"))
        if needs:
            check_ub(self.name, self.tmp.type)
            have = self.tmp.type.element_count() * element_bytes(self.tmp.type.element_type)
            want = self.instruction.scratch_bytes(str(self.dst.type.element_type))
            if have < want:
                raise VerifyException(f"ascbuf.vunary {self.kind.data.value}: scratch of {have} bytes, "
                                      f"the routine needs at least {want}")


@irdl_op_definition
class VDupOp(VectorOp):
    """Fill ``count`` elements of ``dst`` with ``scalar``."""

    name = "ascbuf.vdup"
    dst = operand_def(MemRefType)
    scalar = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $scalar `,` $count attr-dict `:` type($dst) `,` type($scalar)"
    traits = traits_def(BufferEffects(writes=("dst",)))

    def __init__(self, dst, scalar, count):
        super().__init__(operands=[dst, scalar, count])

    def verify_(self) -> None:
        check_ub(self.name, self.dst.type)
        if self.scalar.type != self.dst.type.element_type:
            raise VerifyException("ascbuf.vdup: scalar type differs from the buffer's element type")


@irdl_op_definition
class VCastOp(VectorOp):
    """Convert ``count`` elements of ``src`` into ``dst``'s element type with a rounding mode."""

    name = "ascbuf.vcast"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    count = operand_def(IndexType)
    round_mode = prop_def(RoundModeAttr)
    assembly_format = "$dst `,` $src `,` $round_mode `,` $count attr-dict `:` type($dst) `,` type($src)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst",)))

    def __init__(self, dst, src, count, round_mode):
        super().__init__(operands=[dst, src, count], properties={"round_mode": RoundModeAttr(round_mode)})

    def verify_(self) -> None:
        check_ub(self.name, self.dst.type)
        check_ub(self.name, self.src.type)


class FlagOp(IRDLOperation):
    """Base of set_flag/wait_flag: an ordering of ``dst_pipe`` after ``src_pipe`` on an event id."""

    src_pipe = prop_def(PipeAttr)
    dst_pipe = prop_def(PipeAttr)
    event_id = operand_def(IndexType)
    assembly_format = "$src_pipe `->` $dst_pipe `,` $event_id attr-dict"

    def __init__(self, src: Pipe, dst: Pipe, event_id):
        super().__init__(operands=[event_id], properties={"src_pipe": PipeAttr(src), "dst_pipe": PipeAttr(dst)})

    def verify_(self) -> None:
        s, d = self.src_pipe.data, self.dst_pipe.data
        if s == d or Pipe.ALL in (s, d):
            raise VerifyException(f"{self.name}: needs two different pipes, got {s.value} -> {d.value}")


@irdl_op_definition
class SetFlagOp(FlagOp):
    """Issued on ``src_pipe``; fires once earlier work on it has finished."""

    name = "ascbuf.set_flag"


@irdl_op_definition
class WaitFlagOp(FlagOp):
    """Blocks ``dst_pipe`` until the matching flag fires, then clears it."""

    name = "ascbuf.wait_flag"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """Later work on ``pipe`` starts after earlier work on it has finished."""

    name = "ascbuf.barrier"
    pipe = prop_def(PipeAttr)
    assembly_format = "$pipe attr-dict"

    def __init__(self, pipe: Pipe):
        super().__init__(properties={"pipe": PipeAttr(pipe)})

    def verify_(self) -> None:
        if self.pipe.data == Pipe.S:
            raise VerifyException("ascbuf.barrier: the scalar pipe is ordered by hardware")


OPS = [AllocOp, SlotOp, RowsOp, CopyInOp, LoadScalarOp, CopyOutOp, VBinaryOp, VScalarOp, VUnaryOp, VDupOp, VCastOp, SetFlagOp, WaitFlagOp, BarrierOp]
ATTRIBUTES = [MemorySpaceAttr, PipeAttr, VBinaryKindAttr, VScalarKindAttr, VUnaryKindAttr]
