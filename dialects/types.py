"""Element-type facts shared by every level: sizes and NumPy dtypes, in one table."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType, Signedness, i32
from xdsl.ir import Attribute

# printed element type -> (bytes, numpy dtype)
ELEMENT_TABLE: dict[str, tuple[int, np.dtype]] = {
    "f16": (2, np.dtype(np.float16)),
    "bf16": (2, np.dtype(ml_dtypes.bfloat16)),
    "f32": (4, np.dtype(np.float32)),
    "i32": (4, np.dtype(np.int32)),
    "i16": (2, np.dtype(np.int16)),
    "i8": (1, np.dtype(np.int8)),
    "ui8": (1, np.dtype(np.uint8)),   # bit masks of Compare/Select (one bit per element)
    "i1": (1, np.dtype(np.bool_)),    # bool tensors: one byte (0/1) per element in GM and UB
}


def element_bytes(t: Attribute) -> int:
    return ELEMENT_TABLE[str(t)][0]


def numpy_dtype(t: Attribute) -> np.dtype:
    return ELEMENT_TABLE[str(t)][1]


def element_type(name: str) -> Attribute:
    """The xDSL element type printed as ``name``."""
    return {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "i32": i32,
            "i16": IntegerType(16), "i8": IntegerType(8), "i1": IntegerType(1),
            "ui8": IntegerType(8, Signedness.UNSIGNED)}[name]


def is_float(t: Attribute) -> bool:
    return str(t) in ("f16", "bf16", "f32")
