"""The ``asctensor`` dialect: index tensors and top-k.

``iota`` is the index along one dimension (as StableHLO's ``iota``): a tensor whose element at
``[i0, ..., in]`` is ``i_dimension``. ``topk`` gives the ``k`` largest (or smallest) elements along
``dim`` and their ``i32`` indices, best first; among equal values the lower index comes first.
``asctensor-decompose`` rewrites ``topk`` into ``k`` rounds of row max/argmax and a masking
select (``lowering/topk_decompose.py``), which ``asctensor-fuse`` keeps in one row-wise kernel.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IntegerAttr, TensorType, UnitAttr, i32
from xdsl.irdl import IRDLOperation, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from .base import ELEMENT_TYPES, FLOAT_TYPES, check_element_type

MAX_TOPK = 64  # the largest k one row-wise kernel selects (k rounds over the row)


@irdl_op_definition
class IotaOp(IRDLOperation):
    """``result[i0, ..., in] = i_dimension``: the index along ``dimension`` (i32 or a float type)."""

    name = "asctensor.iota"
    dimension = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "`dimension` `=` $dimension attr-dict `:` type($result)"

    def __init__(self, result_type: TensorType, dimension: int):
        super().__init__(result_types=[result_type], properties={"dimension": IntegerAttr(dimension, 64)})

    @property
    def dim(self) -> int:
        return self.dimension.value.data

    def verify_(self) -> None:
        t = self.result.type
        check_element_type(self.name, t, ELEMENT_TYPES)
        if not 0 <= self.dim < len(t.get_shape()):
            raise VerifyException(f"asctensor.iota: dimension {self.dim} is out of range for {t}")


@irdl_op_definition
class TopKOp(IRDLOperation):
    """The ``k`` largest elements along ``dim`` (the smallest with ``smallest``) and their indices
    (i32), best first; among equal values the lower index first."""

    name = "asctensor.topk"
    input = operand_def(TensorType)
    k = prop_def(IntegerAttr[I64])
    dim = prop_def(IntegerAttr[I64])
    smallest = opt_prop_def(UnitAttr)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$input `k` `=` $k `dim` `=` $dim (`smallest` $smallest^)? attr-dict `:` type($input) "
                       "`->` type($values) `,` type($indices)")

    def __init__(self, input, k: int, dim: int, largest: bool = True):
        t = input.type
        shape = list(t.get_shape())
        if 0 <= dim < len(shape):
            shape[dim] = k
        super().__init__(operands=[input],
                         result_types=[TensorType(t.element_type, shape), TensorType(i32, shape)],
                         properties={"k": IntegerAttr(k, 64), "dim": IntegerAttr(dim, 64),
                                     "smallest": None if largest else UnitAttr()})

    @property
    def count(self) -> int:
        return self.k.value.data

    @property
    def axis(self) -> int:
        return self.dim.value.data

    @property
    def largest(self) -> bool:
        return self.smallest is None

    def verify_(self) -> None:
        t = self.input.type
        check_element_type(self.name, t, FLOAT_TYPES)
        shape = t.get_shape()
        d, k = self.axis, self.count
        if not 0 <= d < len(shape):
            raise VerifyException(f"asctensor.topk: dim {d} is out of range for {t}")
        if not 1 <= k <= shape[d]:
            raise VerifyException(f"asctensor.topk: k = {k} must be in 1..{shape[d]} (dim {d} of {t})")
        want = shape[:d] + (k,) + shape[d + 1:]
        if self.values.type != TensorType(t.element_type, want):
            raise VerifyException(f"asctensor.topk: values must be {TensorType(t.element_type, want)}, "
                                  f"got {self.values.type}")
        if self.indices.type != TensorType(i32, want):
            raise VerifyException(f"asctensor.topk: indices must be {TensorType(i32, want)}, got {self.indices.type}")


OPS = [IotaOp, TopKOp]
ATTRIBUTES: list = []
