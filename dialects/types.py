"""Element-type facts shared by every level, in one table.

Each row is one MLIR element type (keyed by its printed spelling) with everything any level needs
to know about it: its size, its NumPy dtype (the simulator's storage), its C++ spelling in a kernel
and in the host program, its AscendCL enum, and the tolerance at which a result in that type is
compared with its golden. The front end's ``pyasc.dtypes``, the simulator and the emitters read
this table; none keeps its own. NumPy (and ml_dtypes, for bfloat16) is imported when a row's
``np_dtype`` is first read: parsing and printing IR need neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class ElementInfo:
    """One element type: printed name, bytes, NumPy dtype, kernel and host C++ types, ACL enum,
    float or not, and the (rtol, atol) used to compare a result with its golden."""

    name: str
    nbytes: int
    np_name: str           # the NumPy dtype's name ("bfloat16": ml_dtypes')
    kernel_ctype: str
    host_ctype: str
    acl: str
    is_float: bool
    tolerance: tuple[float, float] = (0.0, 0.0)

    @cached_property
    def np_dtype(self) -> np.dtype:
        """The NumPy dtype (the simulator's storage of the type)."""
        import numpy as np

        if self.np_name == "bfloat16":
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(self.np_name)

    def attr(self) -> Attribute:
        """The xDSL element type."""
        if self.name == "f16":
            return Float16Type()
        if self.name == "bf16":
            return BFloat16Type()
        if self.name == "f32":
            return Float32Type()
        if self.name == "f64":
            return Float64Type()
        unsigned = self.name.startswith("ui")
        width = int(self.name.lstrip("ui"))
        return IntegerType(width, Signedness.UNSIGNED if unsigned else Signedness.SIGNLESS)


def _row(name, nbytes, np_name, kernel_ctype, host_ctype, acl, is_float=False, tolerance=(0.0, 0.0)):
    return name, ElementInfo(name, nbytes, np_name, kernel_ctype, host_ctype, acl, is_float, tolerance)


# printed element type -> its facts; f16/bf16 hosts store raw 16-bit patterns
ELEMENTS: dict[str, ElementInfo] = dict([
    _row("f16", 2, "float16", "half", "uint16_t", "F16", True, (4e-3, 1e-3)),          # 2-4 ulp
    _row("bf16", 2, "bfloat16", "bfloat16_t", "uint16_t", "BF16", True, (1.6e-2, 1e-2)),  # 2 ulp
    _row("f32", 4, "float32", "float", "float", "F32", True, (1e-4, 1e-5)),  # vector exp/ln/sqrt
    _row("f64", 8, "float64", "double", "double", "F64", True, (1e-12, 1e-12)),
    _row("i8", 1, "int8", "int8_t", "int8_t", "I8"),
    _row("ui8", 1, "uint8", "uint8_t", "uint8_t", "U8"),        # Compare/Select bit masks
    _row("i16", 2, "int16", "int16_t", "int16_t", "I16"),
    _row("ui16", 2, "uint16", "uint16_t", "uint16_t", "U16"),
    _row("i32", 4, "int32", "int32_t", "int32_t", "I32"),
    _row("ui32", 4, "uint32", "uint32_t", "uint32_t", "U32"),
    _row("i64", 8, "int64", "int64_t", "int64_t", "I64"),
    _row("ui64", 8, "uint64", "uint64_t", "uint64_t", "U64"),
    _row("i1", 1, "bool", "bool", "bool", "BOOL"),             # bool tensors: one byte per element
])

FLOAT_TYPES = frozenset(n for n, e in ELEMENTS.items() if e.is_float)


_PRINTED: dict[Attribute, str] = {}  # element type -> its printed name (printing costs tens of us)


def type_name(t: Attribute | str) -> str:
    """The printed name of an element type (``t`` itself when it is a string)."""
    if isinstance(t, str):
        return t
    name = _PRINTED.get(t)
    if name is None:
        name = _PRINTED[t] = str(t)
    return name


def element_info(t: Attribute | str) -> ElementInfo:
    """The row of an element type (given as an attribute or its printed name); ``ValueError`` if the
    type has none."""
    name = type_name(t)
    try:
        return ELEMENTS[name]
    except KeyError:
        raise ValueError(f"element type {name} is not supported") from None


def element_bytes(t: Attribute | str) -> int:
    return element_info(t).nbytes


def numpy_dtype(t: Attribute | str) -> np.dtype:
    return element_info(t).np_dtype


def element_type(name: str) -> Attribute:
    """The xDSL element type printed as ``name``."""
    return element_info(name).attr()


def is_float(t: Attribute | str) -> bool:
    return type_name(t) in FLOAT_TYPES


def from_numpy(dt: np.dtype) -> ElementInfo:
    """The row whose NumPy dtype is ``dt``; ``ValueError`` if none."""
    import numpy as np

    dt = np.dtype(dt)
    for e in ELEMENTS.values():
        if e.np_dtype == dt:
            return e
    raise ValueError(f"NumPy dtype {dt} has no element type")


def kernel_ctype(t: Attribute) -> str:
    """The C++ spelling of a scalar type inside a kernel: index -> int64_t, f16 -> half, ..."""
    if isinstance(t, IndexType):
        return "int64_t"
    return element_info(t).kernel_ctype
