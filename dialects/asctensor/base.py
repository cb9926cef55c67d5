"""The ``asctensor`` dialect: core ops (see the package docstring)."""


from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, TensorType, i64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition

# element types the tensor level accepts, by printed name
FLOAT_TYPES = ("f16", "bf16", "f32")
INT_TYPES = ("i32",)
ELEMENT_TYPES = FLOAT_TYPES + INT_TYPES
CAST_TYPES = ELEMENT_TYPES + ("i8",)  # int8 is a storage type: it is converted, not computed on

KERNEL_ATTR = "asctensor.kernel"
# on a function argument: its value is a constant of the program (a weight), known before any run
CONSTANT_ATTR = "asctensor.constant"
# on a private function computing constants only (``asctensor-hoist-constants``): the function whose
# constant parameters it computes, evaluated once per set of constants
CONSTANTS_OF_ATTR = "asctensor.constants_of"
# on a ``func.call`` of a user-defined op and on its callee (a private function holding the op's
# decomposition): the op's name; ``inline-custom-ops`` inlines such calls
CUSTOM_OP_ATTR = "pyasc.custom_op"


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy's broadcast of ``shapes``, or None when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0}
        dims.discard(1)
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _element_name(t: Attribute) -> str:
    return str(t.element_type) if isinstance(t, TensorType) else str(t)


def check_element_type(op: str, t: Attribute, allowed=ELEMENT_TYPES) -> None:
    name = _element_name(t)
    if name not in allowed:
        raise VerifyException(f"{op} does not support element type {name} (supported: {', '.join(allowed)})")


@irdl_op_definition
class BroadcastOp(IRDLOperation):
    """Broadcast a tensor to a larger shape by NumPy's rules (size-1 and missing leading dims)."""

    name = "asctensor.broadcast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, result_type: TensorType):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        if src.element_type != dst.element_type:
            raise VerifyException(f"asctensor.broadcast cannot change the element type ({src} -> {dst})")
        if broadcast_shapes(src.get_shape(), dst.get_shape()) != dst.get_shape():
            raise VerifyException(
                f"asctensor.broadcast: shape {list(src.get_shape())} does not broadcast to {list(dst.get_shape())}"
            )


@irdl_op_definition
class CastOp(IRDLOperation):
    """Convert the element type; float to int truncates toward zero, float to float rounds to nearest."""

    name = "asctensor.cast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, result_type: TensorType):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        if src.get_shape() != dst.get_shape():
            raise VerifyException(f"asctensor.cast cannot change the shape ({src} -> {dst})")
        check_element_type(self.name, src, CAST_TYPES)
        check_element_type(self.name, dst, CAST_TYPES)


class UnaryFloatOp(IRDLOperation):
    """Base of the elementwise activations: one float tensor in, the same type out."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($result)"

    def __init__(self, input):
        super().__init__(operands=[input], result_types=[input.type])

    def verify_(self) -> None:
        check_element_type(self.name, self.result.type, FLOAT_TYPES)


@irdl_op_definition
class ReluOp(IRDLOperation):
    """max(x, 0), NaN propagating; also defined on i32."""

    name = "asctensor.relu"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($result)"

    def __init__(self, input):
        super().__init__(operands=[input], result_types=[input.type])

    def verify_(self) -> None:
        check_element_type(self.name, self.result.type)


@irdl_op_definition
class SigmoidOp(UnaryFloatOp):
    """1 / (1 + exp(-x))."""

    name = "asctensor.sigmoid"


class GeluApproximation(StrEnum):
    NONE = "none"
    TANH = "tanh"


@irdl_attr_definition
class GeluApproximationAttr(EnumAttribute[GeluApproximation], SpacedOpaqueSyntaxAttribute):
    name = "asctensor.gelu_approximation"


@irdl_op_definition
class GeluOp(IRDLOperation):
    """x * Phi(x) with the exact erf form (``none``) or the tanh approximation, as in PyTorch."""

    name = "asctensor.gelu"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    approximate = prop_def(GeluApproximationAttr)
    traits = traits_def(Pure())
    assembly_format = "$input `approximate` $approximate attr-dict `:` type($result)"

    def __init__(self, input, approximate: str = "none"):
        super().__init__(operands=[input], result_types=[input.type],
                         properties={"approximate": GeluApproximationAttr(GeluApproximation(approximate))})

    def verify_(self) -> None:
        check_element_type(self.name, self.result.type, FLOAT_TYPES)


@irdl_op_definition
class FullOp(IRDLOperation):
    """A tensor whose every element is ``value`` (a Python scalar in a program)."""

    name = "asctensor.full"
    value = prop_def(base(FloatAttr) | base(IntegerAttr))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `->` type($result)"

    def __init__(self, value: float | int, result_type: TensorType):
        et = result_type.element_type
        attr = FloatAttr(float(value), et) if str(et) in FLOAT_TYPES else IntegerAttr(int(value), et)
        super().__init__(properties={"value": attr}, result_types=[result_type])

    @property
    def scalar(self) -> float | int:
        return self.value.value.data

    def verify_(self) -> None:
        et = str(self.result.type.element_type)
        check_element_type(self.name, self.result.type)
        if self.value.type != self.result.type.element_type:
            raise VerifyException(f"asctensor.full: value {self.value} does not suit element type {et}")


OPS = [BroadcastOp, CastOp, ReluOp, SigmoidOp, GeluOp, FullOp]
ATTRIBUTES = [GeluApproximationAttr]


@irdl_op_definition
class SliceOp(IRDLOperation):
    """The block of the input starting at ``offsets`` with extent ``sizes`` (unit strides)."""

    name = "asctensor.slice"
    input = operand_def(TensorType)
    offsets = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input `offsets` $offsets attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, offsets, sizes):
        t = input.type
        super().__init__(operands=[input], result_types=[TensorType(t.element_type, sizes)],
                         properties={"offsets": DenseArrayBase.from_list(i64, list(offsets))})

    @property
    def offset_list(self) -> tuple[int, ...]:
        return tuple(self.offsets.get_values())

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        shape, sizes, offs = src.get_shape(), dst.get_shape(), self.offset_list
        if src.element_type != dst.element_type or len(shape) != len(sizes) or len(offs) != len(shape):
            raise VerifyException(f"asctensor.slice: {src} -> {dst} with offsets {list(offs)} do not match")
        for d, (n, o, s) in enumerate(zip(shape, offs, sizes)):
            if o < 0 or s < 1 or o + s > n:
                raise VerifyException(f"asctensor.slice: dim {d}: [{o}, {o + s}) is outside [0, {n})")


OPS.append(SliceOp)


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """The same elements in row-major order, viewed with another shape."""

    name = "asctensor.reshape"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, shape):
        super().__init__(operands=[input], result_types=[TensorType(input.type.element_type, shape)])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        n_src, n_dst = 1, 1
        for d in src.get_shape():
            n_src *= d
        for d in dst.get_shape():
            n_dst *= d
        if src.element_type != dst.element_type or n_src != n_dst:
            raise VerifyException(f"asctensor.reshape: {src} -> {dst} changes the element count or type")


OPS.append(ReshapeOp)
