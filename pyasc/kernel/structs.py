"""Structs passed to kernels (``asc.adv.TCubeTiling``): plain records of int32 fields on the host,
a ``GM_ADDR`` of those fields in the kernel (each field read with ``GetValue`` when first used)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, i32

from pyasc.dialects import ascendc as A

from .trace import Scalar, current


class Struct:
    """A record of int32 ``FIELDS`` (all 0 unless given)."""

    FIELDS: tuple[str, ...] = ()

    def __init__(self, **values):
        for f in self.FIELDS:
            object.__setattr__(self, f, 0)
        for k, v in values.items():
            setattr(self, k, v)

    def __setattr__(self, name, value):
        if name not in self.FIELDS:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'")
        object.__setattr__(self, name, int(value))

    def pack(self) -> np.ndarray:
        """The fields as an int32 array (what the kernel's argument points to)."""
        return np.array([getattr(self, f) for f in self.FIELDS], np.int32)

    def values(self) -> tuple[int, ...]:
        return tuple(getattr(self, f) for f in self.FIELDS)

    def __repr__(self) -> str:
        body = ", ".join(f"{f}={getattr(self, f)}" for f in self.FIELDS if getattr(self, f))
        return f"{type(self).__name__}({body})"


class KernelStruct:
    """A struct argument inside a kernel: ``s.field`` is a run-time scalar (its launch value known)."""

    def __init__(self, cls: type[Struct], arg, host: Struct, name: str):
        object.__setattr__(self, "_cls", cls)
        object.__setattr__(self, "_arg", arg)
        object.__setattr__(self, "_host", host)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_fields", {})
        object.__setattr__(self, "_gm", None)

    @property
    def struct_type(self):
        return self._cls

    def __getattr__(self, name):
        cls = object.__getattribute__(self, "_cls")
        if name not in cls.FIELDS:
            raise AttributeError(f"{cls.__name__} has no field '{name}'")
        fields = object.__getattribute__(self, "_fields")
        if name not in fields:
            t = current()
            if self._gm is None:
                g = t.preamble(A.GlobalTensorOp(self._arg, len(cls.FIELDS), i32))
                g.name_hint = f"{self._name}Gm"
                object.__setattr__(self, "_gm", g)
            idx = t.preamble(arith.ConstantOp.from_int_and_width(cls.FIELDS.index(name), IndexType()))
            raw = t.preamble(A.GetValueOp(self._gm, idx))
            v = t.preamble(arith.IndexCastOp(raw, IndexType()))
            v.name_hint = name
            fields[name] = Scalar(v, "int", getattr(self._host, name))
        return fields[name]

    def __setattr__(self, name, value):
        raise AttributeError(f"{self._cls.__name__} fields are read-only inside a kernel")
