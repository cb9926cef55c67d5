"""The ``ascbuf`` dialect: cube buffers and the cube's data path.

Buffers of a cube kernel live in ``l1`` (NZ tiles filled from GM), ``l0a`` (ZZ), ``l0b`` (ZN)
and ``l0c`` (the NZ accumulator). Fractals are 512 B: ``16 x c0`` with ``c0 = 32 B / element``.

* ``copy_nz`` (MTE2): a ``rows x cols`` row-major GM window to an NZ L1 tile
  (element ``(r, c)`` at ``(c / c0) * R * c0 + r * c0 + c % c0``, ``R`` the tile's rows); with
  ``transposed`` the tile receives the window's transpose (``cols x rows``), which the cube needs for
  B (and for a transposed A) of 1- and 4-byte types, whose fractals ``LoadData`` cannot transpose;
* ``load_l0`` (MTE1): the ``k``-th K step of an L1 tile to L0A (ZZ: fractal ``(m1, k1)`` at
  ``m1 * K1 + k1``) or L0B (ZN: fractal ``(k1, n1)`` at ``k1 * N1 + n1``, each stored N-major),
  laid out for ``kvalid`` K elements and ``extent`` M (or N) elements (``K1 = ceil(kvalid / c0)``,
  ``M1 = ceil(extent / 16)``); ``transposed`` says the L1 tile holds the operand transposed;
* ``copy_window`` (MTE2): the input rows of an implicit GEMM's output block (positions ``m0 ..`` of ``rows``,
  the channel blocks of K stage ``k0 ..`` of ``cols``) from an NHWC image in GM to an L1 window
  ``[C1][l1H * W][C0]`` (``lowering/analysis/conv.py``; ``geometry`` = ``[H, W, C, KH, KW, SH, SW, PH, PW,
  DH, DW]``);
* ``load_window_l0`` (MTE1): K step ``step`` of such a window (of ``stage_k`` K columns) to L0B as the
  patches transposed (B in ZN), for ``kvalid`` K columns and ``extent`` positions from ``m0``;
* ``copy_bias`` (MTE2): ``cols`` elements of a GM vector into an L1 row, zeros after them to the row's end;
* ``load_bias`` (MTE1): the first ``cols`` elements of an L1 row into a BiasTable (``bt``) row of float32 (a
  float16 row widens on the way);
* ``mmad`` (M): ``dst[:m, :n] (= or +=) a[:m, :k] @ b[:k, :n]`` with the layouts above, ``dst`` NZ
  with ``ceil16(m)`` rows per 16-column block; ``init`` overwrites instead of accumulating, starting from
  the ``bias`` row (broadcast over the rows) when there is one;
* ``fixpipe`` (FIX): the ``rows x cols`` accumulator to row-major GM, converted to the
  destination's element type, optionally through ReLU.

``mmad`` and ``fixpipe`` take Ascend C's ``unit_flag`` (2 or 3; see the ``ascendc`` dialect's cube part): a
kernel whose Mmads and Fixpipes hand L0C over by unit flags has no M/FIX flags.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, DenseArrayBase, IndexType, IntegerAttr, IntegerType, MemRefType, UnitAttr, i64
from xdsl.irdl import IRDLOperation, operand_def, opt_operand_def, opt_prop_def, prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..ascendc.contract import check_unit_flag
from ..target import Pipe
from ..traits import BufferEffects, OnPipe
from .base import MemorySpace, memory_space


def _check_space(op: str, t, *spaces: MemorySpace) -> None:
    if memory_space(t) not in spaces:
        raise VerifyException(f"{op}: expected a buffer in {' or '.join(s.value for s in spaces)}, got {t}")


def _check_same_element(op: str, a, b) -> None:
    if a.element_type != b.element_type:
        raise VerifyException(f"{op}: element types differ")


def _check_gm_to_l1(op) -> None:
    """A copy from a GM ``source`` to an L1 ``dest`` of the same element type."""
    if memory_space(op.source.type) is not None:
        raise VerifyException(f"{op.name}: the source is a GM memref, got {op.source.type}")
    _check_space(op.name, op.dest.type, MemorySpace.L1)
    _check_same_element(op.name, op.source.type, op.dest.type)


@irdl_op_definition
class CopyNzOp(IRDLOperation):
    """GM (row-major, rows ``stride`` apart) -> L1 tile in NZ; MTE2."""

    name = "ascbuf.copy_nz"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    dest = operand_def(MemRefType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    stride = prop_def(IntegerAttr[I64])
    transposed = opt_prop_def(UnitAttr)
    assembly_format = ("$source `[` $offset `]` `,` $dest `rows` $rows `cols` $cols `stride` $stride "
                       "(`transposed` $transposed^)? attr-dict `:` type($source) `,` type($dest)")
    traits = traits_def(OnPipe(Pipe.MTE2), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, offset, dest, rows, cols, stride: int, transposed: bool = False):
        super().__init__(operands=[source, offset, dest, rows, cols],
                         properties={"stride": IntegerAttr(stride, 64), "transposed": UnitAttr() if transposed else None})

    def verify_(self) -> None:
        _check_gm_to_l1(self)


@irdl_op_definition
class LoadL0Op(IRDLOperation):
    """L1 (NZ) -> L0A (ZZ) or L0B (ZN), K step ``step``; MTE1 (see the module docstring)."""

    name = "ascbuf.load_l0"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    step = operand_def(IndexType)
    kvalid = operand_def(IndexType)
    extent = operand_def(IndexType)
    transposed = opt_prop_def(UnitAttr)
    assembly_format = ("$source `,` $dest `step` $step `k` $kvalid `extent` $extent (`transposed` $transposed^)? "
                       "attr-dict `:` type($source) `,` type($dest)")
    traits = traits_def(OnPipe(Pipe.MTE1), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, dest, step, kvalid, extent, transposed: bool = False):
        super().__init__(operands=[source, dest, step, kvalid, extent],
                         properties={"transposed": UnitAttr() if transposed else None})


    @property
    def is_a(self) -> bool:
        return memory_space(self.dest.type) == MemorySpace.L0A

    def verify_(self) -> None:
        _check_space(self.name, self.source.type, MemorySpace.L1)
        _check_space(self.name, self.dest.type, MemorySpace.L0A, MemorySpace.L0B)
        _check_same_element(self.name, self.source.type, self.dest.type)


@irdl_op_definition
class CopyBiasOp(IRDLOperation):
    """GM vector -> an L1 row (zero-padded to its end); MTE2."""

    name = "ascbuf.copy_bias"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    dest = operand_def(MemRefType)
    cols = operand_def(IndexType)
    assembly_format = "$source `[` $offset `]` `,` $dest `cols` $cols attr-dict `:` type($source) `,` type($dest)"
    traits = traits_def(OnPipe(Pipe.MTE2), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, offset, dest, cols):
        super().__init__(operands=[source, offset, dest, cols])

    def verify_(self) -> None:
        _check_gm_to_l1(self)


@irdl_op_definition
class LoadBiasOp(IRDLOperation):
    """An L1 row -> a BiasTable row (float16 widens to float32); MTE1."""

    name = "ascbuf.load_bias"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    cols = operand_def(IndexType)
    assembly_format = "$source `,` $dest `cols` $cols attr-dict `:` type($source) `,` type($dest)"
    traits = traits_def(OnPipe(Pipe.MTE1), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, dest, cols):
        super().__init__(operands=[source, dest, cols])

    def verify_(self) -> None:
        _check_space(self.name, self.source.type, MemorySpace.L1)
        _check_space(self.name, self.dest.type, MemorySpace.BT)
        if str(self.dest.type.element_type) != "f32" or str(self.source.type.element_type) not in ("f16", "f32"):
            raise VerifyException(f"{self.name}: a BiasTable row is f32 from f16 or f32, got {self.source.type} -> "
                                  f"{self.dest.type}")


@irdl_op_definition
class MmadOp(IRDLOperation):
    """``dst (=|+=) a @ b`` on ``m x n x k`` elements (``init`` from the ``bias`` row when given); M pipe."""

    name = "ascbuf.mmad"
    dst = operand_def(MemRefType)
    lhs = operand_def(MemRefType)
    rhs = operand_def(MemRefType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)
    init = operand_def(IntegerType(1))
    bias = opt_operand_def(MemRefType)
    unit_flag = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $lhs `,` $rhs `m` $m `n` $n `k` $k `init` $init (`bias` $bias^)? "
                       "(`unit_flag` $unit_flag^)? attr-dict `:` type($dst) `,` type($lhs) `,` type($rhs) "
                       "(`,` type($bias)^)?")
    traits = traits_def(OnPipe(Pipe.M), BufferEffects(reads=("lhs", "rhs", "dst", "bias"), writes=("dst",)))

    def __init__(self, dst, lhs, rhs, m, n, k, init, bias=None, unit_flag: int = 0):
        super().__init__(operands=[dst, lhs, rhs, m, n, k, init, [bias] if bias is not None else []],
                         properties={"unit_flag": IntegerAttr(unit_flag, 64) if unit_flag else None})

    def verify_(self) -> None:
        _check_space(self.name, self.dst.type, MemorySpace.L0C)
        _check_space(self.name, self.lhs.type, MemorySpace.L0A)
        _check_space(self.name, self.rhs.type, MemorySpace.L0B)
        et = str(self.lhs.type.element_type)
        want = "i32" if et == "i8" else "f32"
        if str(self.dst.type.element_type) != want or self.rhs.type.element_type != self.lhs.type.element_type:
            raise VerifyException(f"{self.name}: {et} operands accumulate into {want}")
        if self.bias is not None:
            _check_space(self.name, self.bias.type, MemorySpace.BT)
        check_unit_flag(self)


@irdl_op_definition
class FixpipeOp(IRDLOperation):
    """L0C (NZ) -> GM (row-major, rows ``stride`` apart), converting, optionally through ReLU; FIX."""

    name = "ascbuf.fixpipe"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    offset = operand_def(IndexType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    stride = prop_def(IntegerAttr[I64])
    relu = opt_prop_def(UnitAttr)
    unit_flag = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$source `,` $dest `[` $offset `]` `rows` $rows `cols` $cols `stride` $stride "
                       "(`relu` $relu^)? (`unit_flag` $unit_flag^)? attr-dict `:` type($source) `,` type($dest)")
    traits = traits_def(OnPipe(Pipe.FIX), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, dest, offset, rows, cols, stride: int, relu: bool = False, unit_flag: int = 0):
        super().__init__(operands=[source, dest, offset, rows, cols],
                         properties={"stride": IntegerAttr(stride, 64), "relu": UnitAttr() if relu else None,
                                     "unit_flag": IntegerAttr(unit_flag, 64) if unit_flag else None})

    def verify_(self) -> None:
        _check_space(self.name, self.source.type, MemorySpace.L0C)
        check_unit_flag(self)
        if memory_space(self.dest.type) is not None:
            raise VerifyException(f"{self.name}: the destination is a GM memref, got {self.dest.type}")


@irdl_op_definition
class CopyWindowOp(IRDLOperation):
    """GM NHWC image -> the L1 window of an implicit GEMM's output block; MTE2 (see the module docstring)."""

    name = "ascbuf.copy_window"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    dest = operand_def(MemRefType)
    m0 = operand_def(IndexType)
    rows = operand_def(IndexType)
    k0 = operand_def(IndexType)
    cols = operand_def(IndexType)
    geometry = prop_def(DenseArrayBase.constr(i64))
    assembly_format = ("$source `[` $offset `]` `,` $dest `m0` $m0 `rows` $rows `k0` $k0 `cols` $cols "
                       "`geometry` $geometry attr-dict `:` type($source) `,` type($dest)")
    traits = traits_def(OnPipe(Pipe.MTE2), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, offset, dest, m0, rows, k0, cols, geometry):
        super().__init__(operands=[source, offset, dest, m0, rows, k0, cols],
                         properties={"geometry": DenseArrayBase.from_list(i64, list(geometry))})

    def verify_(self) -> None:
        _check_gm_to_l1(self)


@irdl_op_definition
class LoadWindowL0Op(IRDLOperation):
    """An L1 window -> the patches of K step ``step`` in L0B (ZN: Load3Dv2 into L0B transposes the img2col matrix,
    so the patches are B) or in L0A (ZZ: the patches are A); MTE1."""

    name = "ascbuf.load_window_l0"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    step = operand_def(IndexType)
    kvalid = operand_def(IndexType)
    stage_k = operand_def(IndexType)
    m0 = operand_def(IndexType)
    extent = operand_def(IndexType)
    geometry = prop_def(DenseArrayBase.constr(i64))
    assembly_format = ("$source `,` $dest `step` $step `k` $kvalid `stage_k` $stage_k `m0` $m0 `extent` $extent "
                       "`geometry` $geometry attr-dict `:` type($source) `,` type($dest)")
    traits = traits_def(OnPipe(Pipe.MTE1), BufferEffects(reads=("source",), writes=("dest",)))

    def __init__(self, source, dest, step, kvalid, stage_k, m0, extent, geometry):
        super().__init__(operands=[source, dest, step, kvalid, stage_k, m0, extent],
                         properties={"geometry": DenseArrayBase.from_list(i64, list(geometry))})

    def verify_(self) -> None:
        _check_space(self.name, self.source.type, MemorySpace.L1)
        _check_space(self.name, self.dest.type, MemorySpace.L0A, MemorySpace.L0B)
        _check_same_element(self.name, self.source.type, self.dest.type)


OPS = [CopyNzOp, CopyWindowOp, LoadL0Op, LoadWindowL0Op, CopyBiasOp, LoadBiasOp, MmadOp, FixpipeOp]
ATTRIBUTES: list = []
