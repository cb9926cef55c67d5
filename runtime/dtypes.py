"""Element types of the simulated memories: MLIR element type -> NumPy dtype.

``bf16`` is ``ml_dtypes.bfloat16``; every other type is a plain NumPy dtype.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.ir import Attribute

NUMPY_DTYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "i1": np.dtype(np.bool_),
}

FLOAT_TYPES = frozenset({"f16", "f32", "f64", "bf16"})


def type_name(t: Attribute) -> str:
    """The short MLIR spelling of an element type (``f16``, ``i32``, ``index``...)."""
    return str(t)


def numpy_dtype(t: Attribute | str) -> np.dtype:
    """The NumPy dtype of an element type; ``ValueError`` for types the simulator does not model."""
    name = t if isinstance(t, str) else type_name(t)
    try:
        return NUMPY_DTYPES[name]
    except KeyError:
        raise ValueError(f"element type {name} is not supported by the simulator") from None


def dtype_key(dt: np.dtype) -> str:
    """A short identifier for a dtype, usable in generated variable names."""
    for k, v in NUMPY_DTYPES.items():
        if v == dt:
            return k
    raise ValueError(f"unsupported dtype {dt}")


def scalar_of(t: Attribute | str):
    """The Python/NumPy constructor used for scalar values of an element type."""
    name = t if isinstance(t, str) else type_name(t)
    if name in FLOAT_TYPES:
        return NUMPY_DTYPES[name].type
    return int
