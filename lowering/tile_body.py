"""Pieces of tiling a tensor-level kernel that ``tile-elementwise``, ``tile-mix`` and ``tile-movement``
share: what a loaded value reads (``view_source``: a kernel argument through broadcasts, slices and
reshapes), how many full-tile temporaries are live at once (``peak_temporaries``), and the ops of a
kernel body rebuilt on tile values (``TileBodyBuilder``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.asctensor.analysis import VIEW_OPS, view_root
from pyasc.dialects.types import is_float
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Operation, SSAValue

from .emitter import OpEmitter, copy_loc
from .errors import TilingError
from .tile_casts import cast_ops
from .tiling import element_strides, row_major
from .vector_bufferizer import has_scalar_form


def reshaped_strides(shape, strides, new_shape) -> tuple[int, ...] | None:
    """The element strides of a strided view reshaped to ``new_shape`` without copying, None when
    the reshape merges dims that are not one run in memory (NumPy's no-copy reshape rule)."""
    old = [(n, st) for n, st in zip(shape, strides) if n != 1]
    new = list(new_shape)
    out = [1] * len(new)
    oi = ni = 0
    while oi < len(old) and ni < len(new):
        oj, nj = oi + 1, ni + 1
        o_size, n_size = old[oi][0], new[ni]
        while o_size != n_size:
            if n_size < o_size:
                n_size *= new[nj]
                nj += 1
            else:
                o_size *= old[oj][0]
                oj += 1
        if any(old[k][1] != old[k + 1][0] * old[k + 1][1] for k in range(oi, oj - 1)):
            return None
        out[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        oi, ni = oj, nj
    return tuple(out)


def view_source(v: SSAValue, args, views: dict):
    """(argument, shape, element strides, base offset) of a value that is a kernel argument or a view
    chain over one; None otherwise."""
    if v in args:
        shape = v.type.get_shape()
        return v, shape, row_major(shape), 0
    op = v.owner
    if not isinstance(op, VIEW_OPS) or op.input not in views:
        return None
    arg, shape, strides, base = views[op.input]
    new_shape = v.type.get_shape()
    if isinstance(op, asctensor.SliceOp):
        return arg, new_shape, strides, base + sum(o * st for o, st in zip(op.offset_list, strides))
    if isinstance(op, asctensor.ReshapeOp):
        new_strides = reshaped_strides(shape, strides, new_shape)
        if new_strides is None:
            raise TilingError(f"asctensor.reshape of a non-contiguous view of @{arg.name_hint or 'input'}: "
                              f"shape {list(shape)} with strides {list(strides)} cannot be viewed as {list(new_shape)}")
        return arg, new_shape, new_strides, base
    return arg, new_shape, element_strides(shape, new_shape, strides), base


def peak_temporaries(body: list[Operation], loaded: set[SSAValue], outputs: set[SSAValue],
                      small=frozenset()) -> int:
    """The most full-tile temporaries alive at once, in program order (what plan-memory will need;
    row tiles and reduction work areas are planned apart and are small: not counted)."""
    last_use: dict[SSAValue, int] = {}
    for i, op in enumerate(body):
        for v in op.operands:
            last_use[v] = i
    peak, live = 0, set()
    for i, op in enumerate(body):
        # a splat operand of an op without a scalar form is duplicated into a buffer of its own
        scratch = 1 if not has_scalar_form(op) and any(isinstance(v.owner, asctensor.FullOp)
                                                        for v in op.operands) else 0
        for r in op.results:
            if r not in loaded and r not in outputs and r not in small and not isinstance(
                    op, asctensor.FullOp | asctensor.BroadcastOp | asctensor.ReduceOp):
                live.add(r)
        peak = max(peak, len(live) + scratch)
        live = {v for v in live if last_use.get(v, -1) > i}
    return peak


@dataclass
class TileBodyBuilder:
    """Rebuilds the ops of a tensor-level kernel body on tile values (``tile_op``): splats, row
    broadcasts, reductions over the tile's ``valid_cols``, casts, and any other op cloned with tile
    types. ``row_shapes`` are the tensor shapes of per-row values; an ``iota`` needs tiles of
    ``whole_rows`` of the kernel's ``full`` shape."""

    kernel: func.FuncOp
    valid_cols: SSAValue
    row_shapes: set = field(default_factory=set)
    full: tuple[int, ...] | None = None
    whole_rows: bool = False
    # the valid columns of a reduction by its input's shape (a row prologue's short rows), else ``valid_cols``
    cols_by_shape: dict = field(default_factory=dict)

    def _iota(self, op: asctensor.IotaOp, tt: TensorType, le: OpEmitter) -> SSAValue:
        """The column index of every element of a tile that holds whole rows: the offset table
        ``min(c, pitch - 1) * 1 + r * 0`` (``CreateVecIndex`` per row)."""
        shape = op.result.type.get_shape()
        if (str(tt.element_type) != "i32" or op.dim != len(shape) - 1 or not self.whole_rows
                or self.full is None or tuple(shape) != tuple(self.full)):
            raise TilingError(f"asctensor.iota {op.result.type} (dimension {op.dim}) in kernel "
                              f"@{self.kernel.sym_name.data}: only an i32 index along whole rows of a row-wise "
                              "kernel is supported")
        rows, pitch = tt.get_shape()
        return le.value(copy_loc(op, asctile.GatherOffsetsOp(tt, pitch, 1, 0)))

    def tile_op(self, op: Operation, mapping, le: OpEmitter, tile_type) -> SSAValue:
        tt = tile_type(op.results[0].type)
        if isinstance(op, asctensor.FullOp):
            et = tt.element_type
            attr = FloatAttr(op.scalar, et) if is_float(et) else IntegerAttr(int(op.scalar), et)
            c = le.value(copy_loc(op, arith.ConstantOp(attr)))
            return le.value(copy_loc(op, asctile.SplatOp(c, tt)))
        if isinstance(op, asctensor.IotaOp):
            return self._iota(op, tt, le)
        if isinstance(op, asctensor.ReshapeOp | asctensor.BroadcastOp):
            src = view_root(op.input, asctensor.ReshapeOp)
            if isinstance(src.owner, asctensor.FullOp):  # a reshaped or broadcast splat: a splat of this tile
                return self.tile_op(src.owner, mapping, le, lambda _: tt)
        if isinstance(op, asctensor.BroadcastOp):
            if op.input.type == op.result.type:  # broadcast to its own shape: the value itself
                return mapping[op.input] if op.input in mapping else self.tile_op(op.input.owner, mapping, le,
                                                                                   tile_type)
            if op.input in mapping and op.input.type.get_shape() in self.row_shapes:
                return le.value(copy_loc(op, asctile.RowBroadcastOp(mapping[op.input], tt)))
            raise TilingError(f"asctensor.broadcast of a computed value inside kernel "
                              f"@{self.kernel.sym_name.data}: fusion should have split it")
        operands = [mapping[v] if v in mapping else self.tile_op(v.owner, mapping, le, tile_type)
                    for v in op.operands]
        if isinstance(op, asctensor.ReduceOp):
            if str(op.input.type.element_type) not in ("f16", "f32"):
                raise TilingError(f"asctensor.reduce of {op.input.type.element_type} in kernel "
                                  f"@{self.kernel.sym_name.data}: the vector unit reduces f16 and f32 "
                                  "(ReduceSum/ReduceMax/ReduceMin); cast to float32 first")
            cols = self.cols_by_shape.get(tuple(op.input.type.get_shape()), self.valid_cols)
            return le.value(copy_loc(op, asctile.ReduceOp(op.kind.data.value, operands[0], cols, tt)))
        if isinstance(op, asctensor.ArgReduceOp):
            if str(op.input.type.element_type) not in ("f16", "f32"):
                raise TilingError(f"asctensor.arg_reduce of {op.input.type.element_type} in kernel "
                                  f"@{self.kernel.sym_name.data}: ReduceMax/ReduceMin take f16 and f32")
            return le.value(copy_loc(op, asctile.ArgReduceOp(op.kind.data.value, operands[0], self.valid_cols, tt)))
        if isinstance(op, asctensor.CastOp):
            result = None
            for c in cast_ops(operands[0], tt):
                result = le.value(copy_loc(op, c))
                operands = [result]
            return result
        new = type(op).create(operands=operands, result_types=[tt], properties=dict(op.properties),
                              attributes=dict(op.attributes))
        return le.value(new)
