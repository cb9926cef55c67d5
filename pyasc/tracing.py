"""Tracing Python functions into ``asctensor``-level IR.

A :class:`Trace` owns one ``func.func`` under construction. Traced tensors are
:class:`~pyasc.tensor.Tensor` objects without storage that carry an SSA value of the trace.
:meth:`Trace.apply` emits one op of the table in ``ops.py``: it checks dtypes and shapes,
casts operands to the compute dtype (``asctensor.cast``), broadcasts them to the result shape
(``asctensor.broadcast``), turns Python scalars into splat ``arith.constant``s and tags every
op with the user's source line as ``asc.loc = "file.py:LINE"``.
"""

from __future__ import annotations

import re
import threading
import weakref
from contextlib import contextmanager

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.transforms.dead_code_elimination import region_dce

from pyasc.dialects import asctensor
from pyasc.dialects.target import TARGET_KEY, TargetAttr

from . import dtypes as dt
from .dtypes import DType
from .errors import PyascError, user_location

LOC_KEY = "asc.loc"
LIFTED_ATTR = "asctensor.lifted"   # the value of a parameter a pass added (``declare_lifted``)

class _Traces(threading.local):
    """The traces being recorded, innermost last, per thread: a function traced by one thread
    never sees (or records into) another thread's trace."""

    def __init__(self):
        self.stack: list[Trace] = []


_TRACES = _Traces()


def current_trace() -> Trace | None:
    """The innermost trace this thread is recording, or None outside ``pyasc.jit`` tracing."""
    stack = _TRACES.stack
    return stack[-1] if stack else None


def scalar_bytes(value, dtype: DType) -> bytes:
    """``value`` rounded to ``dtype`` as little-endian bytes. Integers out of the int32 range raise
    OverflowError (as PyTorch does); floats overflow to inf like a NumPy cast."""
    if not dtype.is_floating_point:
        value = int(value)
        if not -(2 ** 31) <= value < 2 ** 31:
            raise OverflowError(f"value {value} cannot be converted to int32 without overflow")
    with np.errstate(all="ignore"):
        return np.asarray(value, dtype=np.float64 if dtype.is_floating_point else np.int64) \
            .astype(dtype.np_dtype).astype(dtype.np_dtype.newbyteorder("<")).tobytes()


def scalar_value(value, dtype: DType) -> float | int:
    """``value`` rounded to ``dtype``, as a Python number."""
    return np.frombuffer(scalar_bytes(value, dtype), dtype=dtype.np_dtype.newbyteorder("<"))[0].item()


def dense_attr(array: np.ndarray, dtype: DType) -> DenseIntOrFPElementsAttr:
    """A dense constant holding ``array``."""
    a = np.ascontiguousarray(array, dtype=dtype.np_dtype)
    return DenseIntOrFPElementsAttr(dtype.tensor_type(a.shape),
                                    BytesAttr(a.astype(a.dtype.newbyteorder("<")).tobytes()))


def symbol_name(name: str) -> str:
    """A valid function symbol from a Python name (``<lambda>`` -> ``lambda``)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "fn"
    return s if not s[0].isdigit() else "fn_" + s


def _tensor_dtype(value: SSAValue) -> DType:
    return dt.get_dtype(value.type.get_element_type())


class Trace:
    """One function being traced: its entry block, a builder at its end, and the module."""

    def __init__(self, name: str, args: list[tuple[tuple[int, ...], DType, str | None]], target: str):
        self.name = symbol_name(name)
        self.target = target
        self.block = Block(arg_types=[d.tensor_type(s) for s, d, _ in args])
        for arg, (_, _, hint) in zip(self.block.args, args):
            if hint and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", hint):
                arg.name_hint = hint
        self.builder = Builder(InsertPoint.at_end(self.block))
        self._consts: dict = {}
        self.lifted: list[np.ndarray] = []   # concrete tensors passed as extra parameters
        self.callees: list = []              # private functions of custom ops called by the trace
        self.callee_names: dict = {}         # custom op call signature -> symbol
        self._loc: str | None = None
        self._derived: dict = {}  # (value, "cast"/"broadcast", target) -> value: no duplicate casts
        self.view_ids: set[int] = set()   # ids of the Tensors made by view ops
        self.made = weakref.WeakValueDictionary()  # id -> concrete Tensor made while this records (``_lift``)
        self.view_records: dict = {}      # id of a view Tensor -> its ``functionalize.ViewRecord``
        self.rewriting: list | None = None   # (parameter, array) added to a function being rewritten
        self.location: str | None = None     # when set, the location of every op emitted ("": none)

    @classmethod
    def before(cls, op: Operation, target: str) -> Trace:
        """A trace emitting in front of ``op`` of an existing function (what a pass builds with
        tensor ops); the constants it lifts are listed in ``rewriting`` (see :func:`declare_lifted`)."""
        t = cls("rewrite", [], target)
        t.block = op.parent_block()
        t.builder = Builder(InsertPoint.before(op))
        t.rewriting = []
        return t

    # -- context management -----------------------------------------------------------------
    def __enter__(self) -> Trace:
        _TRACES.stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        stack = _TRACES.stack
        assert stack and stack[-1] is self
        stack.pop()

    # -- emission helpers -------------------------------------------------------------------
    @contextmanager
    def at(self, loc: str):
        """Tag every op emitted inside the ``with`` block with source location ``loc``."""
        saved, self._loc = self._loc, loc
        try:
            yield self
        finally:
            self._loc = saved

    def emit(self, op: Operation, loc: str | None = None) -> Operation:
        """Insert ``op`` at the end of the function, tagged with the user's source line."""
        if self.location is None:
            op.attributes[LOC_KEY] = StringAttr(loc or self._loc or user_location())
        elif self.location:
            op.attributes[LOC_KEY] = StringAttr(self.location)
        self.builder.insert(op)
        return op

    def splat(self, value, dtype: DType, shape) -> SSAValue:
        """A tensor of ``shape`` filled with ``value`` (``asctensor.full``: a scalar, never materialised;
        bool and int8 through ``narrow_splat``)."""
        if dtype in dt.STORAGE_DTYPES:
            return self.narrow_splat(value, dtype, shape)
        return self.emit(asctensor.FullOp(scalar_value(value, dtype), dtype.tensor_type(tuple(shape)))).results[0]

    def narrow_splat(self, value, dtype: DType, shape) -> SSAValue:
        """A bool or int8 tensor filled with ``value``: ``asctensor.full`` has no 8-bit form, so a
        half splat compared with 0 (bool) or an int32 splat cast down (int8)."""
        if dtype is dt.bool_:
            half = self.splat(float(bool(value)), dt.float16, shape)
            return self.emit(asctensor.CompareOp("ne", half, self.splat(0.0, dt.float16, shape))).results[0]
        return self.cast(self.splat(int(value), dt.int32, shape), dtype)

    def references(self, array: np.ndarray) -> int:
        """How many references to ``array`` the trace holds (its constants so far)."""
        return sum(1 for held, _ in self._consts.values() if held is array) + sum(1 for a in self.lifted if a is array)

    def constant(self, array: np.ndarray, dtype: DType) -> SSAValue:
        """The value of a concrete tensor used inside the traced function: a splat
        ``asctensor.full`` when all its elements are equal, otherwise an extra parameter of the
        function (a *lifted constant*, passed by ``pyasc.jit`` after the user's inputs and marked
        ``asctensor.constant``: the kernels read it from global memory like any input, with no size
        limit, and ``asctensor-hoist-constants`` computes what depends on constants only once)."""
        key = (id(array), dtype.name)
        if key not in self._consts:
            a = np.asarray(array, dtype=dtype.np_dtype)
            a = a if a.flags.c_contiguous else a.copy()  # (np.ascontiguousarray would make a 0-d array 1-d)
            bits = a.reshape(-1).view(f"u{dtype.itemsize}")  # compare bit patterns: NaN-safe
            if not bits.size:       # an empty tensor is never a parameter of the kernels
                value = self.splat(0, dtype, a.shape)
            elif (bits == bits[0]).all() and dtype in (dt.bool_, dt.int8):
                value = self.narrow_splat(a.reshape(-1)[0].item(), dtype, a.shape)
            elif (bits == bits[0]).all():
                value = self.splat(a.reshape(-1)[0].item(), dtype, a.shape)
            else:
                value = self.block.insert_arg(dtype.tensor_type(a.shape), len(self.block.args))
                value.name_hint = f"const{len(self.lifted)}"
                self.lifted.append(a)
                if self.rewriting is not None:
                    self.rewriting.append((value, a, dtype))
            self._consts[key] = (array, value)
        return self._consts[key][1]

    def cast(self, value: SSAValue, dtype: DType) -> SSAValue:
        """``value`` converted to ``dtype`` (``asctensor.cast``); ``asctensor.cast`` has no bool, so a
        bool becomes half 1/0 (``select``) first, and a conversion to bool is a comparison with 0."""
        src = _tensor_dtype(value)
        if src is dtype:
            return value
        key = (value, "cast", dtype.name)
        if key not in self._derived:
            shape = value.type.get_shape()
            if src is dt.bool_:
                half = self.emit(asctensor.SelectOp(value, self.splat(1.0, dt.float16, shape),
                                                    self.splat(0.0, dt.float16, shape))).results[0]
                out = self.cast(half, dtype)
            elif dtype is dt.bool_:
                v = self.cast(value, dt.float16) if src is dt.int8 else value
                zero = self.splat(0, _tensor_dtype(v), shape)
                out = self.emit(asctensor.CompareOp("ne", v, zero)).results[0]
            else:
                out = self.emit(asctensor.CastOp(value, dtype.tensor_type(shape))).results[0]
            self._derived[key] = out
        return self._derived[key]

    def broadcast(self, value: SSAValue, shape) -> SSAValue:
        shape = tuple(shape)
        if tuple(value.type.get_shape()) == shape:
            return value
        key = (value, "broadcast", shape)
        if key not in self._derived:
            t = _tensor_dtype(value).tensor_type(shape)
            self._derived[key] = self.emit(asctensor.BroadcastOp(value, t)).results[0]
        return self._derived[key]

    # -- finishing --------------------------------------------------------------------------
    def finish(self, results: list[SSAValue], loc: str | None = None) -> ModuleOp:
        """Return ``results`` and wrap the function in a module carrying ``asc.target``; the
        ``func.return`` is tagged with ``loc`` (the traced function's definition line)."""
        self.emit(func.ReturnOp(*results), loc)
        ftype = FunctionType.from_lists([a.type for a in self.block.args], [r.type for r in results])
        fn = func.FuncOp(self.name, ftype, Region(self.block))
        if self.lifted:     # the lifted constants are the last parameters: marked as weights
            fn.arg_attrs = ArrayAttr([DictionaryAttr({}) if i < len(self.block.args) - len(self.lifted) else
                                      DictionaryAttr({asctensor.CONSTANT_ATTR: UnitAttr()})
                                      for i in range(len(self.block.args))])
        region_dce(fn.body)     # ops whose results were folded away (zero-size tensors) go
        module = ModuleOp([fn, *self.callees], attributes={TARGET_KEY: TargetAttr(self.target)})
        module.verify()
        return module

    def finish_callee(self, results: list[SSAValue], sym: str) -> func.FuncOp:
        """Return ``results`` from a private function ``sym`` (the body of a custom op)."""
        self.emit(func.ReturnOp(*results))
        ftype = FunctionType.from_lists([a.type for a in self.block.args], [r.type for r in results])
        return func.FuncOp(sym, ftype, Region(self.block), visibility="private")


def declare_lifted(fn: func.FuncOp, lifted: list) -> None:
    """Give ``fn`` the parameters a rewriting trace lifted (its ``rewriting`` list): its type gets
    them and each carries its value as the argument attribute ``LIFTED_ATTR``, for the caller to
    pass (``lifted_constants``)."""
    args = fn.body.block.args
    old = list(fn.arg_attrs.data) if fn.arg_attrs is not None else []
    old += [DictionaryAttr({})] * (len(args) - len(lifted) - len(old))
    old += [DictionaryAttr({LIFTED_ATTR: dense_attr(a, d)}) for _, a, d in lifted]
    fn.arg_attrs = ArrayAttr(old)
    fn.function_type = FunctionType.from_lists([a.type for a in args], list(fn.function_type.outputs.data))


def lifted_constants(fn: func.FuncOp) -> list[np.ndarray]:
    """The values of the parameters of ``fn`` a pass lifted (``declare_lifted``), in order; their
    attributes are removed."""
    if fn.arg_attrs is None:
        return []
    out, kept = [], []
    for attr in fn.arg_attrs.data:
        dense = attr.data.get(LIFTED_ATTR)
        if dense is not None:
            d = dt.get_dtype(dense.type.element_type)
            out.append(np.frombuffer(dense.data.data, dtype=d.np_dtype.newbyteorder("<"))
                       .astype(d.np_dtype).reshape(dense.type.get_shape()))
            attr = DictionaryAttr({k: v for k, v in attr.data.items() if k != LIFTED_ATTR})
        kept.append(attr)
    fn.arg_attrs = ArrayAttr(kept) if any(a.data for a in kept) else None
    return out


def broadcast_shapes_or_raise(op: str, shapes: list, dtypes: list) -> tuple[int, ...]:
    """NumPy broadcast of the operand shapes (None for scalars); PyascError if they clash."""
    real = [tuple(s) for s in shapes if s is not None]
    out = asctensor.broadcast_shapes(*real)
    if out is None:
        raise PyascError(op, "shapes " + " and ".join(str(s) for s in real) + " do not broadcast",
                         shapes=shapes, dtypes=dtypes)
    return out
