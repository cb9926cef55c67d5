"""Element-type facts shared by every level: sizes and NumPy dtypes, in one table."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType, i32
from xdsl.ir import Attribute

# printed element type -> (bytes, numpy dtype)
ELEMENT_TABLE: dict[str, tuple[int, np.dtype]] = {
    "f16": (2, np.dtype(np.float16)),
    "bf16": (2, np.dtype(ml_dtypes.bfloat16)),
    "f32": (4, np.dtype(np.float32)),
    "i32": (4, np.dtype(np.int32)),
    "i16": (2, np.dtype(np.int16)),
    "i8": (1, np.dtype(np.int8)),
}


def element_bytes(t: Attribute) -> int:
    return ELEMENT_TABLE[str(t)][0]


def numpy_dtype(t: Attribute) -> np.dtype:
    return ELEMENT_TABLE[str(t)][1]


def element_type(name: str) -> Attribute:
    """The xDSL element type printed as ``name``."""
    return {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "i32": i32,
            "i16": IntegerType(16), "i8": IntegerType(8)}[name]


def is_float(t: Attribute) -> bool:
    return str(t) in ("f16", "bf16", "f32")
