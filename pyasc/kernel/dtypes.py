"""Data types of the kernel DSL (``asc.float16``, ``asc.float32``, ...): the official names over
pyasc's element-type table."""

from __future__ import annotations

import numpy as np

from pyasc.dialects.types import element_info


class DataType:
    """One element type: ``name`` (official), ``ir`` (printed MLIR type), ``sizeof()`` in bytes."""

    def __init__(self, name: str, ir: str):
        self.name = name
        self.ir = ir

    def sizeof(self) -> int:
        return element_info(self.ir).nbytes

    @property
    def attr(self):
        return element_info(self.ir).attr()

    @property
    def np_dtype(self) -> np.dtype:
        return element_info(self.ir).np_dtype

    @property
    def is_float(self) -> bool:
        return element_info(self.ir).is_float

    def __repr__(self) -> str:
        return f"asc.{self.name}"

    def __eq__(self, other) -> bool:
        return isinstance(other, DataType) and other.ir == self.ir

    def __hash__(self) -> int:
        return hash(self.ir)


float16 = DataType("float16", "f16")
bfloat16 = DataType("bfloat16", "bf16")
float32 = DataType("float32", "f32")
float64 = DataType("float64", "f64")
int8 = DataType("int8", "i8")
uint8 = DataType("uint8", "ui8")
int16 = DataType("int16", "i16")
uint16 = DataType("uint16", "ui16")
int32 = DataType("int32", "i32")
uint32 = DataType("uint32", "ui32")
int64 = DataType("int64", "i64")
uint64 = DataType("uint64", "ui64")
bool_ = DataType("bool", "i1")
half = float16
float_ = float32
double = float64
int_ = int32

ALL = (float16, bfloat16, float32, float64, int8, uint8, int16, uint16, int32, uint32, int64, uint64, bool_)
_BY_IR = {d.ir: d for d in ALL}


def from_ir(name: str) -> DataType:
    return _BY_IR[name]


def from_numpy(dt) -> DataType:
    """The DataType of a NumPy dtype (``ValueError`` if none)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return bool_
    for d in ALL:
        if d is not bool_ and d.np_dtype == dt:
            return d
    raise ValueError(f"no kernel data type for NumPy dtype {dt}")


def from_torch(dt) -> DataType:
    """The DataType of a torch dtype (``torch.float16`` -> ``asc.float16``)."""
    name = str(dt).removeprefix("torch.")
    for d in ALL:
        if d.name == name or (name == "bool" and d is bool_):
            return d
    raise ValueError(f"no kernel data type for torch dtype {dt}")
