"""The ``asctensor`` dialect: data movement (``transpose``, ``strided_slice``, ``concat``, ``row_gather``).

Each op copies elements without computing on them; the tiler turns each into a kernel of its
own that moves data GM -> UB -> GM, rearranging it on chip where the innermost dimension changes
(see ``lowering/tile_movement.py``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.irdl import IRDLOperation, operand_def, prop_def, result_def, var_operand_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.irdl import traits_def

from ..lazy_format import irdl_op_definition
from .base import check_element_type


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """Permute the dimensions: ``result.shape[i] = input.shape[permutation[i]]`` (as
    ``linalg.transpose``); ``permutation`` is a permutation of ``0 .. rank-1``."""

    name = "asctensor.transpose"
    input = operand_def(TensorType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input `permutation` `=` $permutation attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, permutation):
        perm = [int(p) for p in permutation]
        shape = input.type.get_shape()
        out = [shape[p] for p in perm] if sorted(perm) == list(range(len(shape))) else list(shape)
        super().__init__(operands=[input], result_types=[TensorType(input.type.element_type, out)],
                         properties={"permutation": DenseArrayBase.from_list(i64, perm)})

    @property
    def perm(self) -> tuple[int, ...]:
        return tuple(self.permutation.get_values())

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        perm, shape = self.perm, src.get_shape()
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(f"asctensor.transpose: {list(perm)} is not a permutation of the {len(shape)} "
                                  f"dims of {src}")
        if src.element_type != dst.element_type or dst.get_shape() != tuple(shape[p] for p in perm):
            raise VerifyException(f"asctensor.transpose: {src} permuted by {list(perm)} is not {dst}")


@irdl_op_definition
class StridedSliceOp(IRDLOperation):
    """Every ``strides[d]``-th element from ``offsets[d]`` on, ``result.shape[d]`` of them per dim:
    ``result[i] = input[offsets + i * strides]``; a negative stride walks the dim backwards from
    ``offsets[d]`` (``x[5:0:-2]`` has offset 5 and stride -2)."""

    name = "asctensor.strided_slice"
    input = operand_def(TensorType)
    offsets = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$input `offsets` $offsets `strides` $strides attr-dict `:` type($input) `->` "
                       "type($result)")

    def __init__(self, input, offsets, sizes, strides):
        super().__init__(operands=[input], result_types=[TensorType(input.type.element_type, list(sizes))],
                         properties={"offsets": DenseArrayBase.from_list(i64, list(offsets)),
                                     "strides": DenseArrayBase.from_list(i64, list(strides))})

    @property
    def offset_list(self) -> tuple[int, ...]:
        return tuple(self.offsets.get_values())

    @property
    def stride_list(self) -> tuple[int, ...]:
        return tuple(self.strides.get_values())

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        shape, sizes, offs, strides = src.get_shape(), dst.get_shape(), self.offset_list, self.stride_list
        if src.element_type != dst.element_type or not len(shape) == len(sizes) == len(offs) == len(strides):
            raise VerifyException(f"asctensor.strided_slice: {src} -> {dst} with offsets {list(offs)} and "
                                  f"strides {list(strides)} do not match")
        for d, (n, o, s, st) in enumerate(zip(shape, offs, sizes, strides)):
            if st == 0:
                raise VerifyException(f"asctensor.strided_slice: dim {d}: stride 0 is not allowed")
            if s < 1 or not 0 <= o < n or not 0 <= o + (s - 1) * st < n:
                raise VerifyException(f"asctensor.strided_slice: dim {d}: {s} elements from {o} every {st} "
                                      f"leave [0, {n})")


@irdl_op_definition
class ConcatOp(IRDLOperation):
    """Join the inputs along dimension ``dim``: all other dims and the element type agree."""

    name = "asctensor.concat"
    inputs = var_operand_def(TensorType)
    dim = prop_def(IntegerAttr[i64])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$inputs `dim` `=` $dim attr-dict `:` type($inputs) `->` type($result)"

    def __init__(self, inputs, dim: int):
        first = inputs[0].type
        shape = list(first.get_shape())
        shape[dim] = sum(v.type.get_shape()[dim] for v in inputs)
        super().__init__(operands=[list(inputs)], result_types=[TensorType(first.element_type, shape)],
                         properties={"dim": IntegerAttr(dim, 64)})

    @property
    def axis(self) -> int:
        return self.dim.value.data

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("asctensor.concat needs at least one input")
        dst = self.result.type
        shape, d = dst.get_shape(), self.axis
        if not 0 <= d < len(shape):
            raise VerifyException(f"asctensor.concat: dim {d} is out of range for {dst}")
        total = 0
        for v in self.inputs:
            t = v.type
            s = t.get_shape()
            if t.element_type != dst.element_type or len(s) != len(shape) or any(
                    a != b for i, (a, b) in enumerate(zip(s, shape)) if i != d):
                raise VerifyException(f"asctensor.concat: input {t} does not match {dst} outside dim {d}")
            total += s[d]
        if total != shape[d]:
            raise VerifyException(f"asctensor.concat: the inputs add up to {total} along dim {d}, not {shape[d]}")
        check_element_type(self.name, dst)


@irdl_op_definition
class RowGatherOp(IRDLOperation):
    """Rows rearranged by a table: with ``Z`` the ``M x F`` input padded with zeros to ``pitch`` columns and ``H``
    the table's rows, ``result[g * H + l, j] = Z[g * H + t // pitch, t % pitch]`` where ``t = table[l, j]`` (an
    element of the ``H`` rows of group ``g``; a padding column reads zero). A convolution's weights laid out for the
    cube (``asctensor-fuse-conv-weights``) are one."""

    name = "asctensor.row_gather"
    input = operand_def(TensorType)
    table = operand_def(TensorType)
    pitch = prop_def(IntegerAttr[i64])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$input `,` $table `pitch` $pitch attr-dict `:` type($input) `,` type($table) `->` "
                       "type($result)")

    def __init__(self, input, table, pitch: int):
        m = input.type.get_shape()[0]
        k = table.type.get_shape()[1]
        super().__init__(operands=[input, table], result_types=[TensorType(input.type.element_type, [m, k])],
                         properties={"pitch": IntegerAttr(pitch, 64)})

    def verify_(self) -> None:
        src, table, dst = self.input.type, self.table.type, self.result.type
        if len(src.get_shape()) != 2 or str(table.element_type) != "i32" or len(table.get_shape()) != 2:
            raise VerifyException(f"asctensor.row_gather: a 2-D input and a 2-D i32 table, got {src} and {table}")
        (m, f), (h, k), pitch = src.get_shape(), table.get_shape(), self.pitch.value.data
        if dst.element_type != src.element_type or dst.get_shape() != (m, k) or m % h or pitch < f:
            raise VerifyException(f"asctensor.row_gather: {src} by {table} (pitch {pitch}) is not {dst}: the "
                                  "table's rows divide the input's and the pitch holds a row")


OPS = [TransposeOp, StridedSliceOp, ConcatOp, RowGatherOp]
ATTRIBUTES = []
