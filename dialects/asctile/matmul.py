"""The ``asctile`` dialect: the cube path (a kernel marked ``asctile.kernel = "cube"``).

A cube kernel walks its core's share of the output blocks; for each it loops over K in L1
stages, carrying the accumulator tile (fp32/int32, lives in L0C) through ``scf.for``'s
``iter_args``. Tiles keep value semantics and static, fractal-padded shapes:

* ``load_nz``: a ``rows x cols`` window of a row-major GM matrix (rows ``stride`` elements apart)
  into an L1 tile in the NZ fractal layout (``cols`` split into 32 B column blocks);
* ``load_window``: the patches ``[m0, m0 + rows) x [k0, k0 + cols)`` of a convolution's NHWC image
  (``lowering/analysis/conv.py``: Load3Dv2's img2col order, ``geometry`` = ``[H, W, C, KH, KW, SH, SW, PH,
  PW, DH, DW]``) as a B^T tile (``transpose_b``): in L1 the input rows those positions read, in L0B the
  patches;
* ``load_bias``: ``cols`` elements of a GM vector as a ``1 x N`` accumulator-typed bias row (in BiasTable;
  float16 widens to float32);
* ``acc``: an accumulator tile whose value is undefined until an ``mmad`` with ``init`` set;
* ``mmad``: ``acc' = (init ? 0 : acc) + op(a)[:, :k] @ op(b)[:k, :]`` where ``op`` transposes a tile
  that holds the operand transposed (``transpose_a``: ``a`` is K x M; ``transpose_b``: ``b`` is N x K); with a
  ``bias`` row, ``init`` starts from it (broadcast over the rows) instead of 0;
* ``store_acc``: the valid ``rows x cols`` part of an accumulator to GM, converted to the
  destination's element type, optionally through ReLU (what FixPipe does on the way out).
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, DenseArrayBase, IndexType, IntegerAttr, IntegerType, MemRefType, TensorType, UnitAttr
from xdsl.dialects.builtin import i64
from xdsl.irdl import IRDLOperation, operand_def, opt_operand_def, opt_prop_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..types import element_bytes
from .base import check_tile_type

CUBE_KIND = "cube"


def fractal_shape(element_type) -> tuple[int, int]:
    """(rows, cols) of one 512 B fractal of an L1/L0 tile: 16 x (32 B / element size)."""
    return 16, 32 // element_bytes(element_type)


def check_fractal_tile(op: str, t, cols_c0: bool = True) -> None:
    check_tile_type(op, t)
    r, c = t.get_shape()
    fr, fc = fractal_shape(t.element_type)
    if r % 16 or c % 16 or c % fc:
        raise VerifyException(f"{op}: tile {t} is not a whole number of {fr}x{fc} fractals (and 16 columns)")


@irdl_op_definition
class LoadNzOp(IRDLOperation):
    """A ``rows x cols`` window of a row-major GM matrix (rows ``stride`` apart) as an NZ L1 tile."""

    name = "asctile.load_nz"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    stride = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    assembly_format = ("$source `[` $offset `]` `rows` $rows `cols` $cols `stride` $stride attr-dict "
                       "`:` type($source) `->` type($result)")

    def __init__(self, source, offset, rows, cols, stride: int, result_type: TensorType):
        super().__init__(operands=[source, offset, rows, cols], properties={"stride": IntegerAttr(stride, 64)},
                         result_types=[result_type])

    def verify_(self) -> None:
        check_fractal_tile(self.name, self.result.type)
        if self.source.type.element_type != self.result.type.element_type:
            raise VerifyException(f"{self.name}: element types differ ({self.source.type} -> {self.result.type})")
        if self.stride.value.data < 1:
            raise VerifyException(f"{self.name}: stride must be positive")


@irdl_op_definition
class AccOp(IRDLOperation):
    """An accumulator tile (L0C) whose value is undefined until an ``mmad`` with ``init``."""

    name = "asctile.acc"
    result = result_def(TensorType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: TensorType):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        check_tile_type(self.name, self.result.type)
        if str(self.result.type.element_type) not in ("f32", "i32"):
            raise VerifyException(f"{self.name}: an accumulator holds f32 or i32, got {self.result.type}")


@irdl_op_definition
class MmadOp(IRDLOperation):
    """``acc' = (init ? 0 : acc) + op(lhs)[:, :k] @ op(rhs)[:k, :]`` on the cube."""

    name = "asctile.mmad"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    acc = operand_def(TensorType)
    init = operand_def(IntegerType(1))
    k = operand_def(IndexType)
    bias = opt_operand_def(TensorType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    assembly_format = ("$lhs `,` $rhs `,` $acc `init` $init `k` $k (`bias` $bias^)? (`transpose_a` $transpose_a^)? "
                       "(`transpose_b` $transpose_b^)? attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc) "
                       "(`,` type($bias)^)? `->` type($result)")

    def __init__(self, lhs, rhs, acc, init, k, transpose_a: bool = False, transpose_b: bool = False, bias=None):
        super().__init__(operands=[lhs, rhs, acc, init, k, [bias] if bias is not None else []], result_types=[acc.type],
                         properties={"transpose_a": UnitAttr() if transpose_a else None,
                                     "transpose_b": UnitAttr() if transpose_b else None})

    def dims(self) -> tuple[int, int, int, int]:
        """(M, K of lhs, K of rhs, N) of the tiles."""
        a, b = self.lhs.type.get_shape(), self.rhs.type.get_shape()
        m, ka = (a[1], a[0]) if self.transpose_a else a
        kb, n = (b[1], b[0]) if self.transpose_b else b
        return m, ka, kb, n

    def verify_(self) -> None:
        for v in (self.lhs, self.rhs):
            check_fractal_tile(self.name, v.type)
        check_tile_type(self.name, self.acc.type)
        m, ka, kb, n = self.dims()
        if ka != kb:
            raise VerifyException(f"{self.name}: the K extents of the tiles differ ({ka} vs {kb})")
        if tuple(self.acc.type.get_shape()) != (m, n):
            raise VerifyException(f"{self.name}: accumulator {self.acc.type} should be {m}x{n}")
        et = str(self.lhs.type.element_type)
        want = "i32" if et == "i8" else "f32"
        if str(self.acc.type.element_type) != want or self.rhs.type.element_type != self.lhs.type.element_type:
            raise VerifyException(f"{self.name}: {et} tiles accumulate into {want}, got {self.rhs.type} and "
                                  f"{self.acc.type}")
        if self.result.type != self.acc.type:
            raise VerifyException(f"{self.name}: result type must be the accumulator's")
        if self.bias is not None and (self.bias.type.element_type != self.acc.type.element_type
                                      or tuple(self.bias.type.get_shape()) != (1, n)):
            raise VerifyException(f"{self.name}: the bias row should be 1x{n} of {self.acc.type.element_type}, "
                                  f"got {self.bias.type}")


BIAS_SOURCE_TYPES = ("f16", "f32")  # what DataCopy C1 -> C2 widens to float32 or copies on 910B


@irdl_op_definition
class LoadBiasOp(IRDLOperation):
    """``cols`` elements of a GM vector from ``offset`` as a ``1 x N`` bias row of the accumulator's type
    (BiasTable; float16 widens to float32)."""

    name = "asctile.load_bias"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    cols = operand_def(IndexType)
    result = result_def(TensorType)
    assembly_format = "$source `[` $offset `]` `cols` $cols attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source, offset, cols, result_type: TensorType):
        super().__init__(operands=[source, offset, cols], result_types=[result_type])

    def verify_(self) -> None:
        check_tile_type(self.name, self.result.type)
        src = str(self.source.type.element_type)
        if src not in BIAS_SOURCE_TYPES or str(self.result.type.element_type) != "f32":
            raise VerifyException(f"{self.name}: a bias row is f32 from {' or '.join(BIAS_SOURCE_TYPES)}, got "
                                  f"{self.source.type} -> {self.result.type}")
        if self.result.type.get_shape()[0] != 1:
            raise VerifyException(f"{self.name}: a bias row has one row, got {self.result.type}")


@irdl_op_definition
class StoreAccOp(IRDLOperation):
    """The valid ``rows x cols`` part of an accumulator to GM (rows ``stride`` apart), converted
    to the destination's element type, through ReLU if ``relu``."""

    name = "asctile.store_acc"
    value = operand_def(TensorType)
    dest = operand_def(MemRefType)
    offset = operand_def(IndexType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    stride = prop_def(IntegerAttr[I64])
    relu = opt_prop_def(UnitAttr)
    assembly_format = ("$value `,` $dest `[` $offset `]` `rows` $rows `cols` $cols `stride` $stride "
                       "(`relu` $relu^)? attr-dict `:` type($value) `,` type($dest)")

    def __init__(self, value, dest, offset, rows, cols, stride: int, relu: bool = False):
        super().__init__(operands=[value, dest, offset, rows, cols],
                         properties={"stride": IntegerAttr(stride, 64), "relu": UnitAttr() if relu else None})

    def verify_(self) -> None:
        check_tile_type(self.name, self.value.type)
        src, dst = str(self.value.type.element_type), str(self.dest.type.element_type)
        ok = {"f32": ("f16", "bf16", "f32"), "i32": ("i32",)}.get(src, ())
        if dst not in ok:
            raise VerifyException(f"{self.name}: FixPipe converts {src} to {', '.join(ok) or 'nothing'}, not {dst}")
        if self.stride.value.data < 1:
            raise VerifyException(f"{self.name}: stride must be positive")


@irdl_op_definition
class LoadWindowOp(IRDLOperation):
    """The patches of positions ``[m0, m0 + rows)`` and K columns ``[k0, k0 + cols)`` of the NHWC image at
    ``offset`` of ``source`` (see the module docstring), as a positions x K tile: B^T when a convolution's matmul
    multiplies the weights by the patches transposed (an NCHW product), A when it multiplies the patches by the
    weights transposed (an NHWC product)."""

    name = "asctile.load_window"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    m0 = operand_def(IndexType)
    k0 = operand_def(IndexType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    geometry = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    assembly_format = ("$source `[` $offset `]` `m0` $m0 `k0` $k0 `rows` $rows `cols` $cols `geometry` $geometry "
                       "attr-dict `:` type($source) `->` type($result)")

    def __init__(self, source, offset, m0, k0, rows, cols, geometry: list[int], result_type: TensorType):
        super().__init__(operands=[source, offset, m0, k0, rows, cols], result_types=[result_type],
                         properties={"geometry": DenseArrayBase.from_list(i64, list(geometry))})

    def verify_(self) -> None:
        check_fractal_tile(self.name, self.result.type)
        if self.source.type.element_type != self.result.type.element_type:
            raise VerifyException(f"{self.name}: element types differ ({self.source.type} -> {self.result.type})")
        if len(self.geometry.get_values()) != 11:
            raise VerifyException(f"{self.name}: geometry is [H, W, C, KH, KW, SH, SW, PH, PW, DH, DW]")


OPS = [LoadNzOp, LoadWindowOp, LoadBiasOp, AccOp, MmadOp, StoreAccOp]
ATTRIBUTES: list = []
