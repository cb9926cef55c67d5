"""``pyasc.Tensor``: a concrete tensor (NumPy storage + dtype) or a traced one (an SSA value).

Outside ``pyasc.jit`` a tensor holds its values in a NumPy array (bfloat16 through
``ml_dtypes``) and every op runs eagerly as a cached one-op compiled program. Inside a traced
function the arguments are tensors without storage; the same operators then record IR.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .dispatch import apply
from .dtypes import DType
from .errors import PyascError


class Tensor:
    """An n-dimensional array of one pyasc dtype (float32, float16, bfloat16 or int32)."""

    __slots__ = ("_data", "_dtype", "_shape", "_value", "_trace", "__weakref__")
    __array_ufunc__ = None          # NumPy defers ``ndarray + Tensor`` to ``Tensor.__radd__``
    __array_priority__ = 1000

    def __init__(self, data: np.ndarray, dtype: DType | None = None):
        """Wrap ``data`` (no copy when it already has the dtype's NumPy type). Prefer
        ``pyasc.tensor`` / ``pyasc.from_numpy``, which also convert Python data."""
        dtype = dt.get_dtype(dtype) if dtype is not None else dt.from_numpy_dtype(np.asarray(data).dtype)
        if dtype is None:
            raise PyascError("Tensor", f"unsupported NumPy dtype {np.asarray(data).dtype}")
        self._data = np.asarray(data, dtype=dtype.np_dtype)
        self._dtype = dtype
        self._shape = tuple(int(d) for d in self._data.shape)
        self._value = None
        self._trace = None

    @classmethod
    def _traced(cls, trace, value, dtype: DType, shape) -> Tensor:
        t = cls.__new__(cls)
        t._data, t._dtype, t._shape, t._value, t._trace = None, dtype, tuple(shape), value, trace
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

    # -- conversion -------------------------------------------------------------------------
    def to(self, dtype) -> Tensor:
        """The tensor converted to ``dtype`` (itself when it already has it)."""
        return apply("cast", self, dtype=dtype)

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
