"""In-place updates of views inside ``pyasc.jit``, functionalized as PyTorch's compiler does.

A traced view (a slice, reshape or transpose chain of another traced tensor, its *root*) keeps the
steps that made it from the root's value. ``v += 1`` on a view computes the new view value, places
it back into a new root value (the inverse steps: reshape back, transpose back, and for a slice the
untouched blocks of the old root concatenated around it), rebinds the root, and makes every view of
that root again from the new root value. A later read of the root or of any of its views therefore
sees the update, as in eager PyTorch. bool and int8 data move as float16 (exact), so their views
also pass through the carrier's conversions (a cast, or ``select(v, 1, 0)`` and ``v != 0`` for
bool), which the update undoes in reverse like the other steps. Views through other ops (a strided
slice, a broadcast) are not recorded, and updating them stays refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from pyasc.dialects import asctensor

from . import dtypes as dt

# view steps, and the conversions of the float16 carrier of bool and int8 data; the walk from a
# view to its root's value only meets ops that the view ops emitted
STEPS = (asctensor.SliceOp, asctensor.ReshapeOp, asctensor.TransposeOp, asctensor.CastOp, asctensor.SelectOp,
         asctensor.CompareOp)


@dataclass
class ViewRecord:
    view: object          # the view Tensor
    root: object          # the Tensor it views (not a view itself)
    steps: list[Operation]  # the view ops from ``root``'s value to ``view``'s, in order


def _steps(value: SSAValue, root_value: SSAValue) -> list[Operation] | None:
    steps = []
    while value is not root_value:
        op = value.owner
        if not isinstance(op, STEPS):
            return None
        steps.append(op)
        value = op.operands[0]
    return steps[::-1]


def record_views(trace, base, results) -> None:
    """Remember the results of a view op on ``base`` that are view chains of its root."""
    known = trace.view_records.get(id(base))
    root = known.root if known is not None else base
    for r in results:
        steps = _steps(r._value, root._value)
        if steps is not None:
            trace.view_records[id(r)] = ViewRecord(r, root, steps)


def _place(trace, src: SSAValue, value: SSAValue, offsets) -> SSAValue:
    """``src`` with the block at ``offsets`` replaced by ``value``: along each sliced dim, the
    blocks of ``src`` before and after concatenated around it."""
    shape, sizes = src.type.get_shape(), value.type.get_shape()
    for d in range(len(shape)):
        if sizes[d] == shape[d]:
            continue

        def block(lo: int, n: int) -> SSAValue:
            offs = [0] * d + [lo] + list(offsets[d + 1:])
            extent = list(shape[:d]) + [n] + list(sizes[d + 1:])
            return trace.emit(asctensor.SliceOp(src, offs, extent)).results[0]

        end = offsets[d] + sizes[d]
        pieces = ([block(0, offsets[d])] if offsets[d] else []) + [value] + (
            [block(end, shape[d] - end)] if end < shape[d] else [])
        value = trace.emit(asctensor.ConcatOp(pieces, d)).results[0]
    return value


def _convert_back(trace, value: SSAValue, src: SSAValue) -> SSAValue:
    """``value`` converted to the element type of ``src`` (undoing a carrier conversion)."""
    want = dt.get_dtype(src.type.get_element_type())
    have = dt.get_dtype(value.type.get_element_type())
    shape = tuple(value.type.get_shape())
    if want is have:
        return value
    if have is dt.bool_:
        one, zero = trace.splat(1.0, want, shape), trace.splat(0.0, want, shape)
        return trace.emit(asctensor.SelectOp(value, one, zero)).results[0]
    if want is dt.bool_:
        return trace.emit(asctensor.CompareOp("ne", value, trace.splat(0.0, have, shape))).results[0]
    return trace.emit(asctensor.CastOp(value, want.tensor_type(shape))).results[0]


def _scatter(trace, steps: list[Operation], value: SSAValue) -> SSAValue:
    for op in reversed(steps):
        src = op.operands[0]
        if isinstance(op, asctensor.CastOp | asctensor.SelectOp | asctensor.CompareOp):
            value = _convert_back(trace, value, src)
        elif isinstance(op, asctensor.ReshapeOp):
            value = trace.emit(asctensor.ReshapeOp(value, tuple(src.type.get_shape()))).results[0]
        elif isinstance(op, asctensor.TransposeOp):
            inverse = [0] * len(op.perm)
            for i, p in enumerate(op.perm):
                inverse[p] = i
            value = trace.emit(asctensor.TransposeOp(value, inverse)).results[0]
        else:
            value = _place(trace, src, value, op.offset_list)
    return value


def is_root(trace, tensor) -> bool:
    """``tensor`` has recorded views (its value may itself be the result of an earlier update)."""
    return any(rec.root is tensor for rec in trace.view_records.values())


def refresh_views(trace, root) -> None:
    """Make every recorded view of ``root`` again from its current value."""
    for rec in trace.view_records.values():
        if rec.root is not root:
            continue
        value, steps = root._value, []
        for op in rec.steps:
            new = op.clone()
            new.operands[0] = value
            trace.emit(new)
            steps.append(new)
            value = new.results[0]
        rec.steps = steps
        rec.view._value = value


def update_view(trace, view, value: SSAValue) -> bool:
    """Functionalize ``view = value`` on a recorded view (False: ``view`` is not one)."""
    rec = trace.view_records.get(id(view))
    if rec is None:
        return False
    rec.root._value = _scatter(trace, rec.steps, value)
    refresh_views(trace, rec.root)
    return True
