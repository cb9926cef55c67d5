"""The ``asctensor`` dialect: reductions and row-wise composites.

``reduce`` folds a set of axes with sum/max/min/prod/mean, ``arg_reduce`` gives the index of the
max/min along one axis; ``softmax``, ``log_softmax``, ``layer_norm`` and ``rms_norm`` are
composites that ``asctensor-decompose`` rewrites into reductions and elementwise ops, and that
``asctensor-fuse`` puts back together as one row-wise kernel.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
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
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition
from .base import FLOAT_TYPES, check_element_type


class ReduceKind(StrEnum):
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
    MEAN = "mean"


class ArgKind(StrEnum):
    MAX = "max"
    MIN = "min"


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "asctensor.reduce_kind"


@irdl_attr_definition
class ArgKindAttr(EnumAttribute[ArgKind], SpacedOpaqueSyntaxAttribute):
    name = "asctensor.arg_kind"


def reduced_shape(shape: tuple[int, ...], axes, keepdims: bool) -> tuple[int, ...]:
    """``shape`` with ``axes`` folded (kept as 1 with ``keepdims``)."""
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _check_axes(op: str, axes, rank: int) -> None:
    if not axes:
        raise VerifyException(f"{op}: needs at least one axis")
    if len(set(axes)) != len(axes):
        raise VerifyException(f"{op}: repeated axis in {list(axes)}")
    for a in axes:
        if not 0 <= a < rank:
            raise VerifyException(f"{op}: axis {a} is out of range for rank {rank}")


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Fold ``axes`` of the input with ``kind``; ``keepdims`` keeps them as size 1."""

    name = "asctensor.reduce"
    kind = prop_def(ReduceKindAttr)
    input = operand_def(TensorType)
    axes = prop_def(DenseArrayBase.constr(i64))
    keepdims = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$kind $input `axes` $axes (`keepdims` $keepdims^)? attr-dict `:` type($input) `->` "
                       "type($result)")

    def __init__(self, kind: ReduceKind, input, axes, keepdims: bool):
        axes = sorted(axes)
        t = input.type
        result = TensorType(t.element_type, reduced_shape(t.get_shape(), axes, keepdims))
        super().__init__(operands=[input], result_types=[result],
                         properties={"kind": ReduceKindAttr(kind), "axes": DenseArrayBase.from_list(i64, axes),
                                     "keepdims": UnitAttr() if keepdims else None})

    @property
    def axis_list(self) -> tuple[int, ...]:
        return tuple(self.axes.get_values())

    def verify_(self) -> None:
        t = self.input.type
        _check_axes(self.name, self.axis_list, len(t.get_shape()))
        if list(self.axis_list) != sorted(self.axis_list):
            raise VerifyException(f"{self.name}: axes must be sorted, got {list(self.axis_list)}")
        kind = self.kind.data
        check_element_type(self.name, t, FLOAT_TYPES if kind == ReduceKind.MEAN else FLOAT_TYPES + ("i32",))
        want = TensorType(t.element_type, reduced_shape(t.get_shape(), self.axis_list, self.keepdims is not None))
        if self.result.type != want:
            raise VerifyException(f"{self.name}: result type must be {want}, got {self.result.type}")


@irdl_op_definition
class ArgReduceOp(IRDLOperation):
    """The index (i32) of the first max/min along ``axis``."""

    name = "asctensor.arg_reduce"
    kind = prop_def(ArgKindAttr)
    input = operand_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    keepdims = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$kind $input `axis` $axis (`keepdims` $keepdims^)? attr-dict `:` type($input) `->` "
                       "type($result)")

    def __init__(self, kind: ArgKind, input, axis: int, keepdims: bool):
        t = input.type
        result = TensorType(i32_type(), reduced_shape(t.get_shape(), (axis,), keepdims))
        super().__init__(operands=[input], result_types=[result],
                         properties={"kind": ArgKindAttr(kind), "axis": IntegerAttr(axis, 64),
                                     "keepdims": UnitAttr() if keepdims else None})

    def verify_(self) -> None:
        t = self.input.type
        axis = self.axis.value.data
        _check_axes(self.name, (axis,), len(t.get_shape()))
        check_element_type(self.name, t)
        want = TensorType(i32_type(), reduced_shape(t.get_shape(), (axis,), self.keepdims is not None))
        if self.result.type != want:
            raise VerifyException(f"{self.name}: result type must be {want}, got {self.result.type}")


def i32_type():
    from xdsl.dialects.builtin import i32

    return i32


class _AxisOp(IRDLOperation):
    """Base of softmax/log_softmax: one float tensor, normalised along ``axis``."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input `axis` $axis attr-dict `:` type($result)"

    def __init__(self, input, axis: int):
        super().__init__(operands=[input], result_types=[input.type], properties={"axis": IntegerAttr(axis, 64)})

    def verify_(self) -> None:
        check_element_type(self.name, self.input.type, FLOAT_TYPES)
        _check_axes(self.name, (self.axis.value.data,), len(self.input.type.get_shape()))


@irdl_op_definition
class SoftmaxOp(_AxisOp):
    """exp(x - max) / sum(exp(x - max)) along ``axis``."""

    name = "asctensor.softmax"


@irdl_op_definition
class LogSoftmaxOp(_AxisOp):
    """x - max - log(sum(exp(x - max))) along ``axis``."""

    name = "asctensor.log_softmax"


class _NormOp(IRDLOperation):
    """Base of the normalisations over the trailing ``dims`` axes, with optional affine weight/bias."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    dims = prop_def(IntegerAttr[I64])
    eps = prop_def(FloatAttr[Float64Type])
    result = result_def(T)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = ("$input (`weight` $weight^ `:` type($weight))? (`bias` $bias^ `:` type($bias))? "
                       "`dims` $dims `eps` $eps attr-dict `:` type($result)")

    def __init__(self, input, dims: int, eps: float, weight=None, bias=None):
        super().__init__(operands=[input, [weight] if weight else [], [bias] if bias else []],
                         result_types=[input.type],
                         properties={"dims": IntegerAttr(dims, 64), "eps": FloatAttr(eps, 64)})

    def verify_(self) -> None:
        t = self.input.type
        check_element_type(self.name, t, FLOAT_TYPES)
        shape = t.get_shape()
        k = self.dims.value.data
        if not 1 <= k <= len(shape):
            raise VerifyException(f"{self.name}: dims {k} must be in 1..{len(shape)} for input {t}")
        if self.result.type != t:
            raise VerifyException(f"{self.name}: result type must be {t}")
        for name, v in (("weight", self.weight), ("bias", self.bias)):
            if v is not None and (v.type.get_shape() != shape[len(shape) - k:]
                                  or v.type.element_type != t.element_type):
                raise VerifyException(f"{self.name}: {name} must be a {list(shape[len(shape) - k:])} tensor of "
                                      f"{t.element_type}, got {v.type}")


@irdl_op_definition
class LayerNormOp(_NormOp):
    """(x - mean) / sqrt(var + eps) * weight + bias over the trailing ``dims`` axes."""

    name = "asctensor.layer_norm"


@irdl_op_definition
class RmsNormOp(_NormOp):
    """x / sqrt(mean(x^2) + eps) * weight + bias over the trailing ``dims`` axes."""

    name = "asctensor.rms_norm"


OPS = [ReduceOp, ArgReduceOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp]
ATTRIBUTES = [ReduceKindAttr, ArgKindAttr]
