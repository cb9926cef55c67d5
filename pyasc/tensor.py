"""``pyasc.Tensor``: a concrete tensor (NumPy storage + dtype) or a traced one (an SSA value).

Outside ``pyasc.jit`` a tensor holds its values in a NumPy array (bfloat16 through
``ml_dtypes``) and every op runs eagerly as a cached one-op compiled program. Inside a traced
function the arguments are tensors without storage; the same operators then record IR.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .device import as_device, current_device
from .dispatch import apply
from .dtypes import DType
from .errors import PyascError
from .formats import Format, as_format

from . import views  # noqa: E402 - host-side views; imports Tensor lazily

_ND = Format.ND


def _is_device_like(a) -> bool:
    from .device import Device

    return isinstance(a, Device | int) and not isinstance(a, bool) or type(a).__name__ == "device"


class Tensor:
    """An n-dimensional array of one pyasc dtype (float32, float16, bfloat16 or int32)."""

    __slots__ = ("_data", "_dtype", "_shape", "_value", "_trace", "_format", "_device", "__weakref__")
    __array_ufunc__ = None          # NumPy defers ``ndarray + Tensor`` to ``Tensor.__radd__``
    __array_priority__ = 1000

    def __init__(self, data: np.ndarray, dtype: DType | None = None, *, format=None, device=None):
        """Wrap ``data`` (no copy when it already has the dtype's NumPy type). Prefer
        ``pyasc.tensor`` / ``pyasc.from_numpy``, which also convert Python data. ``format`` is a
        layout tag (``pyasc.formats``), ``device`` a simulated device (default: the current one)."""
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

    @classmethod
    def _traced(cls, trace, value, dtype: DType, shape) -> Tensor:
        t = cls.__new__(cls)
        t._data, t._dtype, t._shape, t._value, t._trace = None, dtype, tuple(shape), value, trace
        t._format, t._device = _ND, current_device()
        return t

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
            raise PyascError(what, f"a traced tensor ({self._dtype.name}{list(self._shape)}) has no values "
                             "while pyasc.jit traces the function; only tensor ops can be applied to it",
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

    # -- layout, device, storage -------------------------------------------------------------
    @property
    def format(self) -> Format:
        """The storage format tag: ``pyasc.ND``, ``NCHW``, ``NHWC`` or ``FRACTAL_NZ``."""
        return self._format

    def with_format(self, fmt) -> Tensor:
        """The same storage tagged with format ``fmt`` (checked against the rank)."""
        t = views._wrap(self._data, self) if self._data is not None else self
        t._format = as_format(fmt, self._shape, "with_format")
        return t

    @property
    def device(self):
        """The simulated device the tensor lives on (``npu:0`` ...)."""
        return self._device

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
        return views.is_contiguous(self)

    def contiguous(self) -> Tensor:
        return views.contiguous(self)

    # -- views and data movement (host side; see pyasc/views.py) ----------------------------
    def reshape(self, *shape) -> Tensor: return views.reshape(self, *shape)
    def view(self, *shape) -> Tensor: return views.view(self, *shape)
    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return views.flatten(self, start_dim, end_dim)
    def squeeze(self, dim=None) -> Tensor: return views.squeeze(self, dim)
    def unsqueeze(self, dim: int) -> Tensor: return views.unsqueeze(self, dim)
    def transpose(self, dim0: int, dim1: int) -> Tensor: return views.transpose(self, dim0, dim1)
    def permute(self, *dims) -> Tensor: return views.permute(self, *dims)
    def t(self) -> Tensor: return views.transpose(self, 0, 1) if self.ndim == 2 else views.permute(self, *range(self.ndim)[::-1])
    @property
    def T(self) -> Tensor: return views.permute(self, *range(self.ndim)[::-1])  # noqa: N802

    @property
    def mT(self) -> Tensor: return views.transpose(self, -2, -1)  # noqa: N802

    def split(self, split_size_or_sections, dim: int = 0): return views.split(self, split_size_or_sections, dim)
    def chunk(self, chunks: int, dim: int = 0): return views.chunk(self, chunks, dim)
    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
        return views.topk(self, k, dim, largest, sorted)
    def __getitem__(self, idx) -> Tensor: return views.getitem(self, idx)
    def __setitem__(self, idx, value) -> None: views.setitem(self, idx, value)

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    # -- comparisons and logic (host side until the compiler lowers them) --------------------
    def __eq__(self, other): return apply("eq", self, other)
    def __ne__(self, other): return apply("ne", self, other)
    def __lt__(self, other): return apply("lt", self, other)
    def __le__(self, other): return apply("le", self, other)
    def __gt__(self, other): return apply("gt", self, other)
    def __ge__(self, other): return apply("ge", self, other)
    def __invert__(self): return apply("logical_not", self)
    def __and__(self, other): return apply("logical_and", self, other)
    def __rand__(self, other): return apply("logical_and", other, self)
    def __or__(self, other): return apply("logical_or", self, other)
    def __ror__(self, other): return apply("logical_or", other, self)
    def __xor__(self, other): return apply("logical_xor", self, other)
    def eq(self, other): return apply("eq", self, other)
    def ne(self, other): return apply("ne", self, other)
    def lt(self, other): return apply("lt", self, other)
    def le(self, other): return apply("le", self, other)
    def gt(self, other): return apply("gt", self, other)
    def ge(self, other): return apply("ge", self, other)

    def isnan(self): return apply("isnan", self)
    def isinf(self): return apply("isinf", self)
    def isfinite(self): return apply("isfinite", self)
    def logical_not(self): return apply("logical_not", self)
    def logical_and(self, other): return apply("logical_and", self, other)
    def logical_or(self, other): return apply("logical_or", self, other)
    def logical_xor(self, other): return apply("logical_xor", self, other)

    def where(self, condition, other):
        """``self`` where ``condition`` holds, else ``other`` (``torch.Tensor.where``)."""
        return apply("where", condition, self, other)

    def clamp(self, min=None, max=None):  # noqa: A002
        from .composite import clamp

        return clamp(self, min, max)

    def norm(self, p=2, dim=None, keepdim: bool = False):
        from .composite import norm

        return norm(self, p, dim, keepdim)

    # matrix products on the cube (pyasc/ops_linalg.py)
    def __matmul__(self, other):
        from .ops_linalg import matmul

        return matmul(self, other)

    def __rmatmul__(self, other):
        from .ops_linalg import matmul

        return matmul(other, self)

    # reductions and row-wise composites (pyasc/ops_reduce.py)
    def sum(self, dim=None, keepdim: bool = False): return _reduce_ops().sum(self, dim, keepdim)
    def mean(self, dim=None, keepdim: bool = False): return _reduce_ops().mean(self, dim, keepdim)
    def prod(self, dim=None, keepdim: bool = False): return _reduce_ops().prod(self, dim, keepdim)
    def amax(self, dim=None, keepdim: bool = False): return _reduce_ops().amax(self, dim, keepdim)
    def amin(self, dim=None, keepdim: bool = False): return _reduce_ops().amin(self, dim, keepdim)
    def max(self, dim=None, keepdim: bool = False): return _reduce_ops().max(self, dim, keepdim)
    def min(self, dim=None, keepdim: bool = False): return _reduce_ops().min(self, dim, keepdim)
    def argmax(self, dim=None, keepdim: bool = False): return _reduce_ops().argmax(self, dim, keepdim)
    def argmin(self, dim=None, keepdim: bool = False): return _reduce_ops().argmin(self, dim, keepdim)
    def softmax(self, dim: int = -1): return _reduce_ops().softmax(self, dim)
    def log_softmax(self, dim: int = -1): return _reduce_ops().log_softmax(self, dim)

    def equal(self, other) -> bool:
        """True when ``other`` has the same shape and values (``torch.equal``)."""
        from .interop import to_pyasc

        other = to_pyasc(other, "equal")
        return self._shape == other._shape and bool(np.array_equal(self.numpy(), other.numpy()))

    # -- conversion -------------------------------------------------------------------------
    def to(self, *args, dtype=None, device=None) -> Tensor:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or keywords: the tensor converted
        (itself when nothing changes). A device move copies, as ``copy_to_device``."""
        for a in args:
            if isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif _is_device_like(a) or (isinstance(a, str) and a.split(":")[0] in ("npu", "cpu")):
                device = a
            else:
                dtype = a
        out = self
        if dtype is not None:
            out = apply("cast", out, dtype=dtype)
        if device is not None and as_device(device, "to") is not out._device:
            from .device import copy_to_device

            out = copy_to_device(out, device)
        return out

    def astype(self, dtype) -> Tensor:
        """The tensor converted to ``dtype`` (NumPy's spelling of ``to(dtype)``)."""
        return apply("cast", self, dtype=dtype)

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

    # -- arithmetic operators ---------------------------------------------------------------
    def __add__(self, other): return apply("add", self, other)
    def __radd__(self, other): return apply("add", other, self)
    def __sub__(self, other): return apply("sub", self, other)
    def __rsub__(self, other): return apply("sub", other, self)
    def __mul__(self, other): return apply("mul", self, other)
    def __rmul__(self, other): return apply("mul", other, self)
    def __truediv__(self, other): return apply("div", self, other)
    def __rtruediv__(self, other): return apply("div", other, self)
    def __pow__(self, other): return apply("pow", self, other)
    def __rpow__(self, other): return apply("pow", other, self)
    def __neg__(self): return apply("neg", self)
    def __pos__(self): return self
    def __abs__(self): return apply("abs", self)

    __hash__ = object.__hash__

    # -- methods (the same ops as the pyasc.* functions) ------------------------------------
    def add(self, other): return apply("add", self, other)
    def sub(self, other): return apply("sub", self, other)
    def mul(self, other): return apply("mul", self, other)
    def div(self, other): return apply("div", self, other)
    def pow(self, other): return apply("pow", self, other)
    def maximum(self, other): return apply("maximum", self, other)
    def minimum(self, other): return apply("minimum", self, other)
    def neg(self): return apply("neg", self)
    def exp(self): return apply("exp", self)
    def log(self): return apply("log", self)
    def sqrt(self): return apply("sqrt", self)
    def rsqrt(self): return apply("rsqrt", self)
    def abs(self): return apply("abs", self)
    def tanh(self): return apply("tanh", self)
    def erf(self): return apply("erf", self)
    def relu(self): return apply("relu", self)
    def sigmoid(self): return apply("sigmoid", self)
    def gelu(self, approximate: str = "none"): return apply("gelu", self, approximate=approximate)


def _reduce_ops():
    from . import ops_reduce

    return ops_reduce
