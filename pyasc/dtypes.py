"""pyasc's element types and the PyTorch type-promotion rules.

The compiler computes in four dtypes: ``float32``, ``float16``, ``bfloat16`` (NumPy storage via
``ml_dtypes``) and ``int32`` (``ALL_DTYPES``). Two more are storage dtypes (``STORAGE_DTYPES``):
``int8`` and ``bool`` (the result of comparisons). They can be created, viewed, indexed, converted
with ``.to()`` (compiled, in ``pyasc.jit`` and eagerly: float -> int8 truncates toward zero and
keeps the value modulo 256, as NumPy and PyTorch) and used as ``where`` conditions. ``+``, ``*``,
maximum, minimum and the bitwise ops compute them in int32, comparisons and ``where`` in half (which
holds every int8), with PyTorch's result dtype; other arithmetic on them raises a ``PyascError``
that asks for a conversion to a compute dtype first. Each dtype knows its
NumPy dtype, MLIR element type and size (its row of ``pyasc.dialects.types.ELEMENTS``) and the
tolerance at which results in that dtype are compared with the float64 NumPy reference in tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from pyasc.dialects.types import ELEMENTS


@dataclass(frozen=True, eq=False)
class DType:
    """One element type. Compare with ``is``/``==``; ``str(d)`` is the PyTorch-style name. Its NumPy
    dtype, MLIR type, size and kind come from its row of ``pyasc.dialects.types.ELEMENTS``."""

    name: str                   # "float16"
    short: str                  # the MLIR element type's spelling, its row of ELEMENTS: "f16"
    rank: int                   # promotion order within a category
    rtol: float                 # test tolerance against the float64 reference
    atol: float
    np_dtype: np.dtype = field(init=False, repr=False)
    mlir: Attribute = field(init=False, repr=False)
    itemsize: int = field(init=False)
    is_floating_point: bool = field(init=False)

    def __post_init__(self) -> None:
        row = ELEMENTS[self.short]
        for name, value in (("np_dtype", row.np_dtype), ("mlir", row.attr()), ("itemsize", row.nbytes),
                            ("is_floating_point", row.is_float)):
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"pyasc.{self.name}"

    __str__ = lambda self: self.name  # noqa: E731

    def __reduce__(self):
        return (get_dtype, (self.name,))

    def tensor_type(self, shape) -> TensorType:
        """The builtin ``tensor<shape x T>`` type."""
        return TensorType(self.mlir, list(shape))


float32 = DType("float32", "f32", 2, 1.3e-5, 1e-5)
float16 = DType("float16", "f16", 1, 4e-3, 1e-3)
bfloat16 = DType("bfloat16", "bf16", 1, 3.2e-2, 1e-2)
int32 = DType("int32", "i32", 0, 0.0, 0.0)
int8 = DType("int8", "i8", -1, 0.0, 0.0)
bool_ = DType("bool", "i1", -2, 0.0, 0.0)

ALL_DTYPES: tuple[DType, ...] = (float32, float16, bfloat16, int32)   # the compute dtypes
STORAGE_DTYPES: tuple[DType, ...] = (int8, bool_)                   # storage only (see above)
DTYPES: tuple[DType, ...] = ALL_DTYPES + STORAGE_DTYPES
FLOAT_DTYPES: tuple[DType, ...] = (float32, float16, bfloat16)
DEFAULT_FLOAT = float32
DEFAULT_INT = int32

# names and MLIR spellings, and PyTorch's other spellings
_ALIASES = {**{d.name: d for d in DTYPES}, **{d.short: d for d in DTYPES},
            "float": float32, "fp32": float32, "half": float16, "fp16": float16, "int": int32}


def get_dtype(spec) -> DType:
    """Normalise a dtype given as a DType, a name ("float16", "f16", "half"...), a NumPy dtype
    or type, or an MLIR element type. Raises ``TypeError`` for anything else."""
    if isinstance(spec, DType):
        return spec
    if isinstance(spec, str):
        try:
            return _ALIASES[spec.lower()]
        except KeyError:
            raise TypeError(f"unknown dtype '{spec}'; supported: {', '.join(d.name for d in DTYPES)}") from None
    if isinstance(spec, Attribute):
        d = _ALIASES.get(str(spec))
        if d is None or d.mlir != spec:
            raise TypeError(f"unsupported element type {spec}")
        return d
    if spec is bool:
        return bool_
    try:
        npd = np.dtype(spec)
    except TypeError:
        raise TypeError(f"not a dtype: {spec!r}") from None
    for d in DTYPES:
        if d.np_dtype == npd:
            return d
    raise TypeError(f"unsupported dtype {npd}; supported: {', '.join(d.name for d in DTYPES)}")


def from_numpy_dtype(npd: np.dtype) -> DType | None:
    """The pyasc dtype that stores NumPy dtype ``npd`` (float64 -> float32, other integers -> int32,
    as pyasc has no 64-bit types); None if there is none."""
    npd = np.dtype(npd)
    for d in DTYPES:
        if d.np_dtype == npd:
            return d
    if npd.kind == "f":
        return float32
    if npd.kind in "iub":
        return int32
    return None


def promote_types(a: DType, b: DType) -> DType:
    """PyTorch's promotion of two tensor dtypes: int with float gives the float; two floats give
    the wider one, and float16 with bfloat16 gives float32; bool with anything gives the other;
    int8 with int32 gives int32."""
    if a is b:
        return a
    if a is bool_ or b is bool_:
        return b if a is bool_ else a
    if a.is_floating_point != b.is_floating_point:
        return a if a.is_floating_point else b
    if not a.is_floating_point:
        return a if a.rank > b.rank else b
    if a.rank == b.rank:        # float16 with bfloat16
        return float32
    return a if a.rank > b.rank else b


def is_python_scalar(x) -> bool:
    return isinstance(x, bool | int | float) and not isinstance(x, np.ndarray)


def result_type(*operands) -> DType:
    """The dtype PyTorch gives an elementwise op over tensors (given by their DType) and Python
    scalars (given as values): tensors decide, unless a scalar is of a higher category
    (a float scalar with only integer tensors gives the default float, float32)."""
    tensor_dtypes = [o for o in operands if isinstance(o, DType)]
    scalars = [o for o in operands if not isinstance(o, DType)]
    if not tensor_dtypes:
        if any(isinstance(s, float) for s in scalars):
            return DEFAULT_FLOAT
        return DEFAULT_INT
    out = tensor_dtypes[0]
    for d in tensor_dtypes[1:]:
        out = promote_types(out, d)
    if not out.is_floating_point and any(isinstance(s, float) for s in scalars):
        return DEFAULT_FLOAT
    if out is bool_ and any(not isinstance(s, bool) for s in scalars):
        return DEFAULT_INT
    return out


def tolerance(dtype) -> tuple[float, float]:
    """``(rtol, atol)`` for comparing results in ``dtype`` with the float64 reference."""
    d = get_dtype(dtype)
    return d.rtol, d.atol
