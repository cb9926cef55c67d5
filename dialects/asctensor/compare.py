"""The ``asctensor`` dialect: comparisons and ``select``.

Bool tensors are ``tensor<... x i1>``. Their representation below this level (see
``lowering/compare_select.py``): in GM and in a loaded or stored UB tile a bool is one byte per
element (0 or 1, NumPy's ``bool_``, PyTorch's ``torch.bool``); the vector unit's ``Compare`` writes a
*bit mask* (``ui8`` buffer, bit ``i`` of the mask = element ``i``, least significant bit first) and
``Select`` consumes one. The buffer level converts between the two only where a bool crosses GM.

The same ops are used on tile values (2-D ``rows x pitch`` tensors) by ``tile-elementwise``, like
``arith`` ops are; ``arith.cmpf``/``arith.cmpi`` are not used because xDSL's verifiers accept only
scalar (signless integer / float) operands for them, not tensors.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from typing import ClassVar

from xdsl.irdl import IRDLOperation, VarConstraint, base, irdl_attr_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition
from .base import ELEMENT_TYPES, check_element_type


class CmpPredicate(StrEnum):
    """The comparison; every predicate is false when an operand is NaN, except ``ne`` (IEEE, as PyTorch)."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


@irdl_attr_definition
class CmpPredicateAttr(EnumAttribute[CmpPredicate], SpacedOpaqueSyntaxAttribute):
    name = "asctensor.cmp_predicate"


def is_bool(t) -> bool:
    """``t`` (a tensor type or an element type) has the bool element type ``i1``."""
    et = t.element_type if isinstance(t, TensorType) else t
    return isinstance(et, IntegerType) and et.width.data == 1


@irdl_op_definition
class CompareOp(IRDLOperation):
    """``lhs <predicate> rhs`` elementwise: a bool (``i1``) tensor of the operands' shape."""

    name = "asctensor.compare"
    T: ClassVar = VarConstraint("T", base(TensorType))
    predicate = prop_def(CmpPredicateAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, predicate: str | CmpPredicate, lhs, rhs, result_type: TensorType | None = None):
        if result_type is None:
            result_type = TensorType(IntegerType(1), lhs.type.get_shape())
        super().__init__(operands=[lhs, rhs], result_types=[result_type],
                         properties={"predicate": CmpPredicateAttr(CmpPredicate(predicate))})

    @property
    def pred(self) -> CmpPredicate:
        return self.predicate.data

    def verify_(self) -> None:
        a, b, r = self.lhs.type, self.rhs.type, self.result.type
        if a != b:
            raise VerifyException(f"asctensor.compare: operand types differ ({a} vs {b})")
        check_element_type(self.name, a, ELEMENT_TYPES)
        if not is_bool(r):
            raise VerifyException(f"asctensor.compare: the result must have element type i1, got {r}")
        if r.get_shape() != a.get_shape():
            raise VerifyException(f"asctensor.compare: result shape {list(r.get_shape())} differs from the "
                                  f"operands' {list(a.get_shape())}")


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``cond ? true_value : false_value`` elementwise; ``cond`` is a bool tensor of the same shape."""

    name = "asctensor.select"
    T: ClassVar = VarConstraint("T", base(TensorType))
    cond = operand_def(TensorType)
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$cond `,` $true_value `,` $false_value attr-dict `:` type($cond) `,` type($result)"

    def __init__(self, cond, true_value, false_value):
        super().__init__(operands=[cond, true_value, false_value], result_types=[true_value.type])

    def verify_(self) -> None:
        c, x, y, r = self.cond.type, self.true_value.type, self.false_value.type, self.result.type
        if not is_bool(c):
            raise VerifyException(f"asctensor.select: the condition must have element type i1, got {c}")
        if not (x == y == r):
            raise VerifyException(f"asctensor.select: the values and the result must have one type ({x}, {y} -> {r})")
        if c.get_shape() != r.get_shape():
            raise VerifyException(f"asctensor.select: condition shape {list(c.get_shape())} differs from the "
                                  f"result's {list(r.get_shape())}")
        check_element_type(self.name, r, ELEMENT_TYPES)


OPS = [CompareOp, SelectOp]
ATTRIBUTES = [CmpPredicateAttr]
