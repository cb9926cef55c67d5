"""``pyasc.Tensor``: a concrete tensor (NumPy storage + dtype) or a traced one (an SSA value).

Outside ``pyasc.jit`` a tensor holds its values in a NumPy array (bfloat16 through
``ml_dtypes``) and every op runs eagerly as a cached one-op compiled program. Inside a traced
function the arguments are tensors without storage; the same operators then record IR.

Operators and methods are the ops of the op table (``pyasc.ops``): ``x + y`` is ``pyasc.add``, and
every op marked as a method is one (``x.exp()``, ``x.sum(1)``, ``x.reshape(2, -1)``).
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from . import dtypes as dt
from .device import Device, as_device, current_device
from .dtypes import DType
from .errors import PyascError, TracedValuesError, raise_host_only
from .formats import Format, as_format
from .interop import is_torch_tensor, torch_to_numpy
from .memory import HoldsMemory
from .tracing import current_trace

_ND = Format.ND
_table: dict | None = None


def _ops() -> dict:
    """The op table. Every op takes and makes Tensors, so the table is built above this module
    (``pyasc.ops`` imports it); Tensor's operators and methods look it up when first used."""
    global _table
    if _table is None:
        from .ops import OPS

        _table = OPS
    return _table


def _op(name: str):
    return (_table or _ops())[name]


def _can_cast(src: DType, dst: DType) -> bool:
    """PyTorch's in-place rule: no float result into an integer tensor, no number into a bool one."""
    if src.is_floating_point and not dst.is_floating_point:
        return False
    return dst is not dt.bool_ or src is dt.bool_


def _is_view_value(v) -> bool:
    """``v`` (an SSA value of a trace) is a view of another traced value."""
    from pyasc.dialects import asctensor

    return isinstance(v.owner, asctensor.SliceOp | asctensor.ReshapeOp | asctensor.TransposeOp
                      | asctensor.StridedSliceOp | asctensor.BroadcastOp)


def _is_device_like(a) -> bool:
    return isinstance(a, Device | int) and not isinstance(a, bool) or type(a).__name__ == "device"


_IN_PLACE_KINDS = ("elementwise", "composite", "compare")  # ops whose ``name_`` form updates the tensor in place


class Tensor(HoldsMemory):
    """An n-dimensional array of one pyasc dtype (float32, float16, bfloat16 or int32)."""

    __slots__ = ("_storage", "_producer", "_dtype", "_shape", "_value", "_trace", "_format", "_device",
                 "_requires_grad", "_grad", "_grad_fn", "_mem", "__weakref__")
    __array_ufunc__ = None          # NumPy defers ``ndarray + Tensor`` to ``Tensor.__radd__``
    __array_priority__ = 1000

    def __init__(self, data: np.ndarray, dtype: DType | None = None, *, format=None, device=None):
        """Wrap ``data`` (no copy when it already has the dtype's NumPy type). Prefer
        ``pyasc.tensor`` / ``pyasc.from_numpy``, which also convert Python data. ``format`` is a
        layout tag (``pyasc.formats``), ``device`` a simulated device (default: the current one)."""
        self._producer = self._mem = None
        dtype = dt.get_dtype(dtype) if dtype is not None else dt.from_numpy_dtype(np.asarray(data).dtype)
        if dtype is None:
            raise PyascError("Tensor", f"unsupported NumPy dtype {np.asarray(data).dtype}")
        self._data = np.asarray(data, dtype=dtype.np_dtype)
        self._dtype = dtype
        self._shape = tuple(int(d) for d in self._data.shape)
        self._value = None
        self._trace = None
        self._format = _ND if format is None else as_format(format, self._shape, "Tensor")
        self._device = current_device() if device is None else as_device(device, "Tensor")
        self._requires_grad, self._grad, self._grad_fn = False, None, None
        tr = current_trace()
        if tr is not None:
            tr.made[id(self)] = self

    @classmethod
    def _wrap(cls, data: np.ndarray, dtype: DType, shape: tuple[int, ...]) -> Tensor:
        """A tensor on the current device over ``data``, an array of ``dtype``'s NumPy type and of
        ``shape`` (a launch's result: nothing to convert or check)."""
        t = cls.__new__(cls)
        t._producer = t._mem = None
        t._storage, t._dtype, t._shape, t._value, t._trace = data, dtype, shape, None, None
        t._format, t._device = _ND, current_device()
        t._requires_grad, t._grad, t._grad_fn = False, None, None
        tr = current_trace()
        if tr is not None:
            tr.made[id(t)] = t
        return t

    @classmethod
    def _traced(cls, trace, value, dtype: DType, shape) -> Tensor:
        t = cls.__new__(cls)
        t._producer = t._mem = None
        t._data, t._dtype, t._shape, t._value, t._trace = None, dtype, tuple(shape), value, trace
        t._format, t._device = _ND, current_device()
        t._requires_grad, t._grad, t._grad_fn = False, None, None
        return t

    # -- storage and the stream producing it ---------------------------------------------------
    @property
    def _data(self) -> np.ndarray | None:
        """The storage; a tensor a queued launch produces is read only after the launch ran: its
        stream runs up to it first (as PyTorch waits for the producing stream)."""
        if self._producer is not None:
            self._wait()
        return self._storage

    @_data.setter
    def _data(self, value) -> None:
        self._storage = value

    def _wait(self) -> None:
        producer = self._producer
        producer.synchronize()          # raises when the producing launch failed
        self._producer = None

    def _produced_by(self, event) -> None:
        """Mark the storage as unwritten until ``event`` (recorded after the producing launch on
        its stream) has completed."""
        self._producer = event

    @property
    def producer(self):
        """The event after the queued work that writes this tensor on its stream (None once the
        values exist); ``producer.stream`` is that stream."""
        p = self._producer
        if p is not None and p.query() and p._error is None:
            self._producer = p = None
        return p

    # -- metadata ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        n = 1
        for d in self._shape:
            n *= d
        return n

    def size(self, dim: int | None = None):
        """The shape, or the extent of dimension ``dim`` (PyTorch's ``size``)."""
        return self._shape if dim is None else self._shape[dim]

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    @property
    def is_traced(self) -> bool:
        """True for the symbolic tensors seen inside a function being traced by ``pyasc.jit``."""
        return self._trace is not None

    # -- NumPy interop ----------------------------------------------------------------------
    def _concrete(self, what: str) -> np.ndarray:
        if self._data is None:
            raise TracedValuesError(what, f"a traced tensor ({self._dtype.name}{list(self._shape)}) has no values "
                                    "while pyasc.jit traces the function; only tensor ops can be applied to it "
                                    "(a pyasc.jit call runs such a function eagerly, each op compiled on its own)",
                                    shapes=[self._shape], dtypes=[self._dtype.name])
        return self._data

    def numpy(self) -> np.ndarray:
        """The values as a NumPy array (shared storage, as ``torch.Tensor.numpy``)."""
        return self._concrete("numpy")

    def __array__(self, dtype=None, copy=None):
        a = self._concrete("__array__")
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def item(self):
        a = self._concrete("item")
        if a.size != 1:
            raise PyascError("item", f"only one-element tensors can be converted to Python scalars, "
                             f"got shape {self._shape}", shapes=[self._shape])
        return a.reshape(-1)[0].item() if self._dtype is not dt.bfloat16 else float(a.reshape(-1)[0])

    def _scalar(self, what: str):
        """The one value of a concrete one-element tensor (``float(t)``, ``int(t)``)."""
        if self._data is None:  # a number that depends on data: a pyasc.jit call runs the function eagerly
            raise TracedValuesError(what, f"{what}() of a traced tensor ({self._dtype.name}{list(self._shape)}): "
                                    "traced values have no value while pyasc.jit traces the function (a pyasc.jit "
                                    "call runs such a function eagerly; keep the computation in tensor ops to "
                                    "compile it)", shapes=[self._shape], dtypes=[self._dtype.name])
        if self._data.size != 1:
            raise PyascError(what, f"only one-element tensors can be converted to Python scalars, got shape "
                             f"{self._shape}", shapes=[self._shape])
        return self.item()

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        # TypeError (as PyTorch): NumPy then reads a many-element tensor as an index array
        if self._dtype.is_floating_point or self._dtype is dt.bool_ or self._data is None or self._data.size != 1:
            raise TypeError(f"only integer tensors of a single element can be converted to an index, "
                            f"got {self._dtype.name}{list(self._shape)}")
        return int(self.item())

    def __format__(self, spec: str) -> str:
        if spec and self._data is not None and self._data.size == 1:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def tolist(self):
        a = self._concrete("tolist")
        return a.astype(np.float32).tolist() if self._dtype is dt.bfloat16 else a.tolist()

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __bool__(self) -> bool:
        a = self._concrete("__bool__")
        if a.size != 1:
            raise PyascError("__bool__", f"the truth value of a tensor with {a.size} elements is ambiguous",
                             shapes=[self._shape])
        return bool(a.reshape(-1)[0])

    def __repr__(self) -> str:
        if self._data is None:
            return f"Tensor(traced, shape={self._shape}, dtype=pyasc.{self._dtype.name})"
        a = self._data.astype(np.float32) if self._dtype is dt.bfloat16 else self._data
        body = np.array2string(a, separator=", ", prefix="tensor(", threshold=200)
        suffix = "" if self._dtype in (dt.float32, dt.int32) else f", dtype=pyasc.{self._dtype.name}"
        return f"tensor({body}{suffix})"

    # -- automatic differentiation (pyasc/autograd/) -----------------------------------------
    @property
    def requires_grad(self) -> bool:
        """True when ops on this tensor are recorded for differentiation."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Make this leaf tensor require a gradient (in place); returns the tensor."""
        if self._grad_fn is not None and not requires_grad:
            raise PyascError("requires_grad_", "only a leaf tensor can stop requiring grad; use detach()",
                             shapes=[self._shape])
        if requires_grad and not self._dtype.is_floating_point:
            raise PyascError("requires_grad_", f"only floating point tensors can require gradients, got "
                             f"{self._dtype.name}", shapes=[self._shape], dtypes=[self._dtype.name])
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient of a leaf after ``backward()`` (None before)."""
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = value

    @property
    def grad_fn(self):
        """The recorded op that made this tensor (None for a leaf)."""
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Accumulate the gradient of this tensor into the ``.grad`` of the leaves it depends on (and of the tensors
        that ``retain_grad``); the recorded graph stays for another backward."""
        from .autograd.engine import backward

        backward(self, gradient, retain_graph, create_graph, inputs)

    def retain_grad(self) -> None:
        """``backward`` fills this non-leaf tensor's ``.grad`` too (a leaf's always is)."""
        if self._grad_fn is not None:
            from .autograd.engine import retain_grad

            retain_grad(self)

    @property
    def retains_grad(self) -> bool:
        from .autograd.engine import _retained

        ref = _retained.get(id(self))
        return self._grad_fn is not None and ref is not None and ref() is self

    def detach(self) -> Tensor:
        """The same values (shared storage) outside the recorded graph. Traced, a tensor whose gradient is recorded
        is detached as a value of its own (a reshape to its shape), so that no recorded gradient reaches it."""
        if self._data is None:
            v = self._value
            if self._requires_grad:
                from pyasc.dialects import asctensor

                from .errors import user_location

                with self._trace.at(user_location()):
                    v = self._trace.emit(asctensor.ReshapeOp(v, list(self._shape))).results[0]
            t = Tensor._traced(self._trace, v, self._dtype, self._shape)
        else:
            t = Tensor(self._data, self._dtype, device=self._device)
        t._format = self._format
        return t

    # -- layout, device, storage -------------------------------------------------------------
    @property
    def format(self) -> Format:
        """The storage format tag: ``pyasc.ND``, ``NCHW``, ``NHWC`` or ``FRACTAL_NZ``."""
        return self._format

    def with_format(self, fmt) -> Tensor:
        """The same storage tagged with format ``fmt`` (checked against the rank)."""
        t = Tensor(self._data, self._dtype, device=self._device) if self._data is not None else self
        t._format = as_format(fmt, self._shape, "with_format")
        return t

    @property
    def device(self):
        """The simulated device the tensor lives on (``npu:0`` ...)."""
        return self._device

    def _copy_to(self, dev, op: str = "to", non_blocking: bool = False) -> Tensor:
        """A copy on device ``dev`` (a new storage); with ``non_blocking`` queued on the current stream."""
        d = as_device(dev, op)
        if not non_blocking:
            return Tensor(self._concrete(op).copy(), self._dtype, format=self._format, device=d)
        from .streams import copy

        if self._trace is not None:
            self._concrete(op)          # raises: a traced tensor has no values to copy
        dst = Tensor(np.empty(self._shape, self._dtype.np_dtype), self._dtype, format=self._format, device=d)
        return copy(dst, self, non_blocking=True)

    def data_ptr(self) -> int:
        """Address of the first element (views of one storage differ by their offset)."""
        return int(self._concrete("data_ptr").__array_interface__["data"][0])

    def element_size(self) -> int:
        return self._dtype.itemsize

    def stride(self, dim: int | None = None):
        """Strides in elements (PyTorch's convention)."""
        st = tuple(s // self._dtype.itemsize for s in self._concrete("stride").strides)
        return st if dim is None else st[dim]

    def is_contiguous(self) -> bool:
        if self._data is None:
            raise_host_only("is_contiguous", [self])
        return bool(self._data.flags.c_contiguous)

    # -- views and data movement (pyasc/views.py) -------------------------------------------
    def t(self) -> Tensor:
        return self.transpose(0, 1) if self.ndim == 2 else self.permute(*range(self.ndim)[::-1])

    @property
    def T(self) -> Tensor: return self.permute(*range(self.ndim)[::-1])  # noqa: N802

    @property
    def mT(self) -> Tensor: return self.transpose(-2, -1)  # noqa: N802

    def __getitem__(self, idx) -> Tensor: return _op("getitem")(self, idx)
    def __setitem__(self, idx, value) -> None: _op("setitem")(self, idx, value)

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    # -- comparisons and logic --------------------------------------------------------------
    def __eq__(self, other): return _op("eq")(self, other)
    def __ne__(self, other): return _op("ne")(self, other)
    def __lt__(self, other): return _op("lt")(self, other)
    def __le__(self, other): return _op("le")(self, other)
    def __gt__(self, other): return _op("gt")(self, other)
    def __ge__(self, other): return _op("ge")(self, other)
    def __invert__(self): return _op("bitwise_not")(self)
    def __and__(self, other): return _op("bitwise_and")(self, other)
    def __rand__(self, other): return _op("bitwise_and")(other, self)
    def __or__(self, other): return _op("bitwise_or")(self, other)
    def __ror__(self, other): return _op("bitwise_or")(other, self)
    def __xor__(self, other): return _op("bitwise_xor")(self, other)
    def __rxor__(self, other): return _op("bitwise_xor")(other, self)
    def __lshift__(self, other): return _op("bitwise_left_shift")(self, other)
    def __rshift__(self, other): return _op("bitwise_right_shift")(self, other)

    def where(self, condition, other):
        """``self`` where ``condition`` holds, else ``other`` (``torch.Tensor.where``)."""
        return _op("where")(condition, self, other)

    # matrix products on the cube (pyasc/ops_linalg.py)
    def __matmul__(self, other): return _op("matmul")(self, other)
    def __rmatmul__(self, other): return _op("matmul")(other, self)

    def equal(self, other) -> bool:
        """True when ``other`` has the same shape and values (``torch.equal``)."""
        if isinstance(other, Tensor):
            b = other._concrete("equal")
        elif is_torch_tensor(other):
            b = torch_to_numpy(other, "equal")
        elif isinstance(other, np.ndarray):
            b = other
        else:
            raise PyascError("equal", f"expected a tensor, got {type(other).__name__}")
        return self._shape == tuple(b.shape) and bool(np.array_equal(self.numpy(), b))

    # -- conversion -------------------------------------------------------------------------
    def to(self, *args, dtype=None, device=None, non_blocking: bool = False, copy: bool = False) -> Tensor:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or keywords: the tensor converted
        (itself when nothing changes). A device move copies, as ``copy_to_device``; with
        ``non_blocking=True`` the copy is queued on the current stream."""
        for a in args:
            if isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif _is_device_like(a) or (isinstance(a, str) and a.split(":")[0] in ("npu", "cpu")):
                device = a
            else:
                dtype = a
        out = self
        if dtype is not None:
            out = _op("cast")(out, dtype=dtype)
        if device is not None and as_device(device, "to") is not out._device:
            out = out._copy_to(device, "to", non_blocking)
        elif copy and out is self:
            out = self._copy_to(self._device, "to", non_blocking)
        return out

    def astype(self, dtype) -> Tensor:
        """The tensor converted to ``dtype`` (NumPy's spelling of ``to(dtype)``)."""
        return _op("cast")(self, dtype=dtype)

    def type(self, dtype=None):
        """The dtype's name, or the tensor converted to ``dtype``."""
        return f"pyasc.{self._dtype.name}" if dtype is None else self.astype(dtype)

    def bool(self) -> Tensor:
        return self.to(dt.bool_)

    def char(self) -> Tensor:
        return self.to(dt.int8)

    def float(self) -> Tensor:
        return self.to(dt.float32)

    def half(self) -> Tensor:
        return self.to(dt.float16)

    def bfloat16(self) -> Tensor:
        return self.to(dt.bfloat16)

    def int(self) -> Tensor:
        return self.to(dt.int32)

    def long(self) -> Tensor:
        """int32: pyasc's integers (indices, ``arange``) are int32 where PyTorch's are int64."""
        return self.to(dt.int32)

    def double(self) -> Tensor:
        """float64, which Ascend's vector and cube units do not compute: refused by name."""
        raise PyascError("double", "float64 is not supported (Ascend computes float32, float16 and bfloat16); "
                         "use .float()", shapes=[self.shape], dtypes=[self._dtype.name])

    # -- arithmetic operators ---------------------------------------------------------------
    def __add__(self, other): return _op("add")(self, other)
    def __radd__(self, other): return _op("add")(other, self)
    def __sub__(self, other): return _op("sub")(self, other)
    def __rsub__(self, other): return _op("sub")(other, self)
    def __mul__(self, other): return _op("mul")(self, other)
    def __rmul__(self, other): return _op("mul")(other, self)
    def __truediv__(self, other): return _op("div")(self, other)
    def __rtruediv__(self, other): return _op("div")(other, self)
    def __floordiv__(self, other): return _op("floor_divide")(self, other)
    def __rfloordiv__(self, other): return _op("floor_divide")(other, self)
    def __mod__(self, other): return _op("remainder")(self, other)
    def __rmod__(self, other): return _op("remainder")(other, self)
    def __pow__(self, other): return _op("pow")(self, other)
    def __rpow__(self, other): return _op("pow")(other, self)
    def __neg__(self): return _op("neg")(self)
    def __pos__(self): return self
    def __abs__(self): return _op("abs")(self)

    # -- in-place updates (PyTorch semantics: they write through views) ------------------------
    def __iadd__(self, other): return self._update("add", _op("add")(self, other))
    def __isub__(self, other): return self._update("sub", _op("sub")(self, other))
    def __imul__(self, other): return self._update("mul", _op("mul")(self, other))
    def __itruediv__(self, other): return self._update("div", _op("div")(self, other))

    def add_(self, other, *, alpha=1):
        return self._update("add_", _op("add")(self, other if alpha == 1 else _op("mul")(other, alpha)))

    def sub_(self, other, *, alpha=1):
        return self._update("sub_", _op("sub")(self, other if alpha == 1 else _op("mul")(other, alpha)))

    def mul_(self, other): return self._update("mul_", _op("mul")(self, other))
    def div_(self, other): return self._update("div_", _op("div")(self, other))

    def copy_(self, src):
        """Copy ``src`` (broadcast, converted to this tensor's dtype) into this tensor."""
        from .args import operand

        src = operand("copy_", src)
        if not isinstance(src, Tensor):
            raise PyascError("copy_", f"expected a tensor, got {type(src).__name__}", shapes=[self._shape])
        return self._update("copy_", src, cast=True)

    def _update(self, op: str, value: Tensor, cast: bool = False) -> Tensor:
        """Store ``value`` into this tensor: eagerly into its storage (shared with its base and views),
        inside ``pyasc.jit`` by rebinding it to the new value (functionalized)."""
        shapes, dtypes = [self._shape, value._shape], [self._dtype.name, value._dtype.name]
        if not cast and not _can_cast(value._dtype, self._dtype):
            raise PyascError(op, f"result type {value._dtype.name} can't be cast to the desired output type "
                             f"{self._dtype.name}", shapes=shapes, dtypes=dtypes)
        out = np.broadcast_shapes(self._shape, value._shape) if value._shape != self._shape else self._shape
        if out != self._shape:
            raise PyascError(op, f"a result of shape {value._shape} does not fit the tensor of shape {self._shape} "
                             "it updates in place", shapes=shapes, dtypes=dtypes)
        value = value.to(self._dtype) if value._dtype is not self._dtype else value
        if self._trace is None and value._trace is not None:  # a tensor the function made, now holding a traced value
            self._lift()
        if self._trace is not None and value._trace is None:  # a constant written into a traced tensor
            value = Tensor._traced(self._trace, self._trace.constant(value._concrete(op), value._dtype), value._dtype,
                                   value._shape)
        from .autograd import tape

        recorded = tape.is_grad_enabled() and (value._requires_grad or self._requires_grad)
        if recorded and tape.is_view(self):
            from .autograd import view_update

            view_update.update(self, op, value)
            return self
        if recorded:
            tape.keep_history(self, op)
        if self._trace is not None or value._trace is not None:
            self._rebind(op, value)
        else:
            with np.errstate(all="ignore"):
                self._concrete(op)[...] = value._concrete(op)
        if recorded:  # from now on a copy of the new value, for the gradient
            self._requires_grad, self._grad_fn = False, None
            tape.record_copy(value, self)
        return self

    def _lift(self) -> bool:
        """Make this concrete tensor a traced one whose value is its values as a constant of the trace, so that an
        in-place update with a traced value records into it (``out = zeros(n); out[0] = x``, ``acc += x``, as
        PyTorch runs them): only a tensor the traced function made, whose storage nothing else holds (no view of
        it, no other tensor over it), so no one can see the old values afterwards. Whether it did."""
        tr = current_trace()
        if tr is None or self._trace is not None or self._producer is not None or tr.made.get(id(self)) is not self:
            return False
        data = self._storage
        # references: this slot, ``data``, the call's argument, and the trace's own (its use as a constant so far)
        if data.base is not None or sys.getrefcount(data) - tr.references(data) > 3:
            return False
        self._value, self._trace, self._storage = tr.constant(data, self._dtype), tr, None
        return True

    def _rebind(self, op: str, value: Tensor) -> Tensor:
        if self._trace is None or value._trace is not self._trace or self._trace is not current_trace():
            raise PyascError(op, "an in-place update mixes a traced tensor with a concrete one inside pyasc.jit",
                             shapes=[self._shape, value._shape])
        from .functionalize import is_root, refresh_views, update_view

        if value._shape != self._shape:
            value = _op("expand")(value, *self._shape)
        if update_view(self._trace, self, value._value):
            return self
        if id(self) in self._trace.view_ids or (_is_view_value(self._value) and not is_root(self._trace, self)):
            raise PyascError(op, "an in-place update of this view (a strided slice or a broadcast) "
                             "inside pyasc.jit: write the update as an out-of-place op instead",
                             shapes=[self._shape, value._shape])
        self._value = value._value
        refresh_views(self._trace, self)
        return self

    __hash__ = object.__hash__

    # -- methods: the ops of the table marked as methods ------------------------------------
    def __getattr__(self, name: str):
        # only called for names the class does not define: x.exp(), x.sum(1), x.reshape(2, -1), and the in-place
        # form of an op of the table that gives a tensor of this one's shape: x.clamp_(0, 1), x.masked_fill_(m, 0)
        op = None if name.startswith("_") else _ops().get(name)
        if op is None and name.endswith("_") and not name.startswith("_"):
            base = _ops().get(name[:-1])
            if base is not None and base.method and base.kind in _IN_PLACE_KINDS:
                return lambda *args, **kwargs: self._update(name, base(self, *args, **kwargs))
        if op is None or not op.method:
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        return functools.partial(op, self)

    def fill_(self, value) -> Tensor:
        """Every element set to ``value`` (in place)."""
        from .creation import full

        return self._update("fill_", full(self._shape, value, dtype=self._dtype, device=self._device), cast=True)

    def zero_(self) -> Tensor:
        return self.fill_(0)

    def __dir__(self):
        return sorted({*super().__dir__(), *(n for n, op in _ops().items() if op.method)})
