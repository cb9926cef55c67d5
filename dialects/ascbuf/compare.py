"""The ``ascbuf`` dialect: comparisons, selection and the bool conversions, all on PIPE_V.

A *mask* buffer is a 1-D ``memref<N x ui8>`` in UB holding one bit per element (bit ``i % 8`` of byte
``i / 8`` is element ``i``): what ``Compare`` writes and ``Select`` reads. A *bool* buffer is
``memref<... x i1>`` with one byte (0/1) per element: how a bool tile is loaded from or stored to GM.

* ``vcompare``/``vcompare_scalar``: ``mask = lhs <pred> rhs`` for ``count`` elements;
* ``vselect``/``vselect_scalar``: ``dst = mask ? x : y`` (``y`` a tensor or a scalar);
* ``mask_to_bool``: bytes from a mask (through a half ``work`` buffer: Select of 1/0, then Cast);
* ``bool_to_mask``: a mask from bytes (Cast to half in ``work``, then Compares ``!= 0``).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    operand_def,
    prop_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..asctensor.compare import CmpPredicate, CmpPredicateAttr
from ..target import Pipe
from ..traits import BufferEffects, OnPipe
from .base import check_ub

_VALUE_TYPES = ("f16", "f32", "i32", "bf16")


def _elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _check_mask(op: str, t, values) -> None:
    """``t`` is a ui8 UB buffer holding at least one bit per element of the ``values`` buffer type."""
    check_ub(op, t)
    et = t.element_type
    if not (isinstance(et, IntegerType) and str(et) == "ui8"):
        raise VerifyException(f"{op}: a mask is a ui8 buffer, got {t}")
    if _elems(t) * 8 < _elems(values):
        raise VerifyException(f"{op}: mask {t} has fewer bits than {values} has elements")


def _check_values(op: str, t) -> None:
    check_ub(op, t)
    if str(t.element_type) not in _VALUE_TYPES:
        raise VerifyException(f"{op} does not support element type {t.element_type} "
                              f"(supported: {', '.join(_VALUE_TYPES)})")


class _MaskOp(IRDLOperation):
    traits = traits_def(OnPipe(Pipe.V))


@irdl_op_definition
class VCompareOp(_MaskOp):
    """``mask[i] = lhs[i] <predicate> rhs[i]`` for the first ``count`` elements."""

    name = "ascbuf.vcompare"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    predicate = prop_def(CmpPredicateAttr)
    mask = operand_def(MemRefType)
    lhs = operand_def(T)
    rhs = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$predicate $mask `,` $lhs `,` $rhs `,` $count attr-dict `:` type($mask) `,` type($lhs)"
    traits = traits_def(BufferEffects(reads=("lhs", "rhs"), writes=("mask",)))

    def __init__(self, predicate, mask, lhs, rhs, count):
        super().__init__(operands=[mask, lhs, rhs, count],
                         properties={"predicate": CmpPredicateAttr(CmpPredicate(predicate))})

    def verify_(self) -> None:
        _check_values(self.name, self.lhs.type)
        _check_mask(self.name, self.mask.type, self.lhs.type)


@irdl_op_definition
class VCompareScalarOp(_MaskOp):
    """``mask[i] = src[i] <predicate> scalar`` for the first ``count`` elements."""

    name = "ascbuf.vcompare_scalar"
    predicate = prop_def(CmpPredicateAttr)
    mask = operand_def(MemRefType)
    src = operand_def(MemRefType)
    scalar = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = ("$predicate $mask `,` $src `,` $scalar `,` $count attr-dict `:` type($mask) `,` type($src) "
                       "`,` type($scalar)")
    traits = traits_def(BufferEffects(reads=("src",), writes=("mask",)))

    def __init__(self, predicate, mask, src, scalar, count):
        super().__init__(operands=[mask, src, scalar, count],
                         properties={"predicate": CmpPredicateAttr(CmpPredicate(predicate))})

    def verify_(self) -> None:
        _check_values(self.name, self.src.type)
        _check_mask(self.name, self.mask.type, self.src.type)
        if self.scalar.type != self.src.type.element_type:
            raise VerifyException(f"{self.name}: scalar type {self.scalar.type} differs from the buffer's "
                                  f"element type {self.src.type.element_type}")


@irdl_op_definition
class VSelectOp(_MaskOp):
    """``dst[i] = mask[i] ? x[i] : y[i]`` for the first ``count`` elements."""

    name = "ascbuf.vselect"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    dst = operand_def(T)
    mask = operand_def(MemRefType)
    x = operand_def(T)
    y = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $mask `,` $x `,` $y `,` $count attr-dict `:` type($dst) `,` type($mask)"
    traits = traits_def(BufferEffects(reads=("mask", "x", "y"), writes=("dst",)))

    def __init__(self, dst, mask, x, y, count):
        super().__init__(operands=[dst, mask, x, y, count])

    def verify_(self) -> None:
        _check_values(self.name, self.dst.type)
        _check_mask(self.name, self.mask.type, self.dst.type)


@irdl_op_definition
class VSelectScalarOp(_MaskOp):
    """``dst[i] = mask[i] ? x[i] : scalar`` for the first ``count`` elements."""

    name = "ascbuf.vselect_scalar"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    dst = operand_def(T)
    mask = operand_def(MemRefType)
    x = operand_def(T)
    scalar = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = ("$dst `,` $mask `,` $x `,` $scalar `,` $count attr-dict `:` type($dst) `,` type($mask) `,` "
                       "type($scalar)")
    traits = traits_def(BufferEffects(reads=("mask", "x"), writes=("dst",)))

    def __init__(self, dst, mask, x, scalar, count):
        super().__init__(operands=[dst, mask, x, scalar, count])

    def verify_(self) -> None:
        _check_values(self.name, self.dst.type)
        _check_mask(self.name, self.mask.type, self.dst.type)
        if self.scalar.type != self.dst.type.element_type:
            raise VerifyException(f"{self.name}: scalar type {self.scalar.type} differs from the buffer's "
                                  f"element type {self.dst.type.element_type}")


def _check_bool_pair(op: str, bools, mask, work) -> None:
    check_ub(op, bools)
    if str(bools.element_type) != "i1":
        raise VerifyException(f"{op}: a bool buffer has element type i1, got {bools}")
    _check_mask(op, mask, bools)
    check_ub(op, work)
    if str(work.element_type) != "f16" or _elems(work) < _elems(bools):
        raise VerifyException(f"{op}: the work buffer must be f16 with one element per bool, got {work}")


@irdl_op_definition
class MaskToBoolOp(_MaskOp):
    """``dst[i] = mask[i]`` as one byte (0/1) per element, through the half buffer ``work``."""

    name = "ascbuf.mask_to_bool"
    dst = operand_def(MemRefType)
    mask = operand_def(MemRefType)
    work = operand_def(MemRefType)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $mask `,` $work `,` $count attr-dict `:` type($dst) `,` type($mask) `,` type($work)"
    traits = traits_def(BufferEffects(reads=("mask",), writes=("dst", "work")))

    def __init__(self, dst, mask, work, count):
        super().__init__(operands=[dst, mask, work, count])

    def verify_(self) -> None:
        _check_bool_pair(self.name, self.dst.type, self.mask.type, self.work.type)


@irdl_op_definition
class BoolToMaskOp(_MaskOp):
    """``mask[i] = src[i] != 0`` from one byte per element, through the half buffer ``work``."""

    name = "ascbuf.bool_to_mask"
    mask = operand_def(MemRefType)
    src = operand_def(MemRefType)
    work = operand_def(MemRefType)
    count = operand_def(IndexType)
    assembly_format = "$mask `,` $src `,` $work `,` $count attr-dict `:` type($mask) `,` type($src) `,` type($work)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("mask", "work")))

    def __init__(self, mask, src, work, count):
        super().__init__(operands=[mask, src, work, count])

    def verify_(self) -> None:
        _check_bool_pair(self.name, self.src.type, self.mask.type, self.work.type)


OPS = [VCompareOp, VCompareScalarOp, VSelectOp, VSelectScalarOp, MaskToBoolOp, BoolToMaskOp]
ATTRIBUTES: list = []
