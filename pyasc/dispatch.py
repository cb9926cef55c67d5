"""Routing one op call: checks common to all ops, then tracing or eager execution.

``apply(name, *operands, **attrs)`` is what every operator, method and function of the tensor
API calls. It validates the operands (tensors or Python numbers), derives the compute and
result dtypes and the broadcast shape from the op table, and then either emits IR into the
trace the operands belong to or, for concrete tensors, runs the op eagerly.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from . import ops as _ops
from .dtypes import STORAGE_DTYPES, is_python_scalar
from .errors import HostOnlyError, PyascError, describe, user_location
from .interop import is_torch_tensor, to_pyasc
from .formats import Format
from .tracing import broadcast_shapes_or_raise, current_trace
from . import amp as _amp

_ND = Format.ND


def _normalise_operand(name: str, x):
    from .creation import from_any
    from .tensor import Tensor

    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biuf":
        return x.item()
    if is_python_scalar(x):
        return x
    if isinstance(x, np.ndarray) and x.dtype.kind in "biuf":
        return from_any(x)
    if is_torch_tensor(x):
        return to_pyasc(x, name)
    raise PyascError(name, f"expected a tensor or a Python number, got {describe(x)}")


def infer(name: str, operands, attrs: dict):
    """Validate a call: ``(opdef, operands, attrs, compute dtype, result dtype, result shape)``."""
    from .tensor import Tensor

    op = _ops.OPS[name]
    if len(operands) != op.arity:
        raise PyascError(name, f"takes {op.arity} operand(s), got {len(operands)}")
    operands = [_normalise_operand(name, x) for x in operands]
    try:
        attrs = op.normalise_attrs(attrs)
    except (TypeError, ValueError) as e:
        raise PyascError(name, str(e)) from None
    tensors = [o for o in operands if isinstance(o, Tensor)]
    if not tensors:
        raise PyascError(name, "needs at least one tensor operand, got "
                         + ", ".join(describe(o) for o in operands))
    kinds = [o.dtype if isinstance(o, Tensor) else o for o in operands]
    shapes = [o.shape if isinstance(o, Tensor) else None for o in operands]
    dtypes = [o.dtype.name if isinstance(o, Tensor) else type(o).__name__ for o in operands]
    compute, result = op.rule(kinds, attrs)
    if not compute.is_floating_point:
        for o in operands:
            if not isinstance(o, Tensor) and not -(2 ** 31) <= o < 2 ** 31:
                raise PyascError(name, f"value {o} cannot be converted to int32 without overflow",
                                 shapes=shapes, dtypes=dtypes)
    if compute not in op.dtypes:
        operand_text = ", ".join(describe(o) for o in operands)
        hint = ""
        if compute in STORAGE_DTYPES:
            hint = f"; {compute.name} is a storage dtype: convert with .to(pyasc.int32) or .float() first"
        raise PyascError(name, f"does not support dtype {compute.name} (operands: {operand_text}; "
                         f"supported: {', '.join(d.name for d in op.dtypes)}){hint}",
                         shapes=shapes, dtypes=dtypes)
    shape = broadcast_shapes_or_raise(name, shapes, dtypes)
    return op, operands, attrs, compute, result, shape


def apply(name: str, *operands, **attrs):
    """Apply op ``name`` of the table to tensors and Python scalars; returns a Tensor."""
    from .eager import run_eager
    from .tensor import Tensor

    if _amp.active() and name != "cast":
        operands = _amp.adjust(name, operands)
    if name == "cast":
        stored = _storage_cast(operands, attrs)
        if stored is not None:
            return stored
    op, operands, attrs, compute, result, shape = infer(name, operands, attrs)
    if name == "cast" and operands[0].dtype is result:
        return operands[0]
    traces = {id(o._trace): o._trace for o in operands if isinstance(o, Tensor) and o._trace is not None}
    if len(traces) > 1:
        raise PyascError(name, "operands come from different traced functions")
    if traces:
        (trace,) = traces.values()
        if trace is not current_trace():
            raise PyascError(name, "a traced tensor was used outside its pyasc.jit function "
                             "(do not keep traced tensors after the function returns)")
        if op.host:
            raise_host_only(name, operands)
        return _trace_apply(trace, op, operands, attrs, compute, result, shape)
    first = None
    for o in operands:
        if isinstance(o, Tensor):
            if first is None:
                first = o
            elif o._device is not first._device:
                raise PyascError(name, f"expected all tensors on the same device, got {first._device} "
                                 f"and {o._device} (use pyasc.copy_to_device)",
                                 shapes=[t.shape for t in operands if isinstance(t, Tensor)])
    if op.host:
        from .ops import reference

        out = Tensor(reference(name, *operands, **attrs), result, device=first._device)
    else:
        out = run_eager(op, operands, attrs, result, shape)
        out._device = first._device
    if first._format is not _ND and out._shape == first._shape:
        out._format = first._format
    return out


def raise_host_only(name: str, operands=(), what: str = "") -> None:
    """The error for an op that has no compiler lowering yet, used inside ``pyasc.jit``."""
    from .tensor import Tensor

    tensors = [o for o in operands if isinstance(o, Tensor)]
    raise HostOnlyError(name, f"{what or 'is'} not supported inside pyasc.jit yet: the compiler has no lowering "
                     "for it (outside jit it runs eagerly on the host)",
                     shapes=[t.shape for t in tensors], dtypes=[t.dtype.name for t in tensors])


def _storage_cast(operands, attrs):
    """Casts from or to bool: on the host eagerly; inside ``pyasc.jit`` a cast to bool is ``x != 0``
    and one from bool ``where(x, 1, 0)`` (int8 through float16 and int32). None if the cast is an
    ordinary compiled one (int8 <-> the compute dtypes included)."""
    from . import dtypes as dt
    from .tensor import Tensor

    if len(operands) != 1 or set(attrs) != {"dtype"}:
        return None
    x = operands[0]
    if is_torch_tensor(x) or isinstance(x, np.ndarray):
        x = _normalise_operand("cast", x)
    if not isinstance(x, Tensor):
        return None
    try:
        d = dt.get_dtype(attrs["dtype"])
    except TypeError as e:
        raise PyascError("cast", str(e)) from None
    if dt.bool_ not in (x.dtype, d):
        return None
    if x.dtype is d:
        return x
    if x._trace is not None:
        if d is dt.bool_:  # compiled as a comparison with zero
            return apply("ne", apply("cast", x, dtype=dt.float16) if x.dtype is dt.int8 else x, 0)
        ones = apply("where", x, 1, 0)  # compiled as a selection of 1 or 0
        return ones if ones.dtype is d else apply("cast", ones, dtype=d)
    a = x.numpy()
    return Tensor(a != 0 if d is dt.bool_ else a.astype(d.np_dtype), d, device=x._device)


def _trace_apply(trace, op, operands, attrs, compute, result, shape):
    from . import dtypes as _dt
    from . import ops_compare as _ops_compare
    from .tensor import Tensor

    loc = user_location()
    with trace.at(loc):
        values = []
        for o in operands:
            if isinstance(o, Tensor):
                v = o._value if o._trace is not None else trace.constant(o._data, o.dtype)
                if op.name in _ops_compare.RAW_BOOL_OPERANDS and (o.dtype is _dt.bool_ or compute is _dt.bool_):
                    values.append(v)  # the builder converts (and broadcasts) bools itself
                    continue
                values.append(trace.broadcast(trace.cast(v, compute), shape))
            else:
                try:
                    values.append(trace.splat(o, compute, shape))
                except OverflowError as e:
                    raise PyascError(op.name, str(e), shapes=[shape], dtypes=[compute.name],
                                     location=loc) from None
        built = op.build(trace, values, result, attrs)
        out = trace.emit(built).results[0] if isinstance(built, Operation) else built
        out = trace.cast(out, result)
    return Tensor._traced(trace, out, result, shape)
