"""The user-facing exception of pyasc and the lookup of the user's source line.

Every mistake a user can make through the front end (shapes that do not broadcast, a dtype an
op does not support, an argument that is not a tensor, a bad compile option) raises
:class:`PyascError`. Its message always names the op, the shapes/dtypes involved and the line
of the user's program that asked for it, e.g.::

    pyasc.add: shapes (3, 4) and (5,) do not broadcast (at model.py:12)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from .dtypes import DType

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_frame(skip_dirs: Sequence[str] = ()):
    """The innermost stack frame whose code lives outside the ``pyasc`` package (or None)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PKG_DIR) and not any(filename.startswith(d) for d in skip_dirs):
            return frame
        frame = frame.f_back
    return None


def user_location() -> str:
    """``"file.py:LINE"`` of the first stack frame outside the pyasc package ("<unknown>" if none)."""
    frame = user_frame()
    if frame is None:
        return "<unknown>"
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def describe(x) -> str:
    """A short description of an operand for messages: ``float16[3, 4]`` or ``python float 1.5``."""
    if isinstance(getattr(x, "dtype", None), DType):    # a pyasc Tensor
        return f"{x.dtype.name}{list(x.shape)}"
    if isinstance(x, bool | int | float):
        return f"python {type(x).__name__} {x!r}"
    text = repr(x)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(x).__name__} {text}"


class PyascError(Exception):
    """A user mistake detected by pyasc.

    Fields: ``op`` (the op or API function, e.g. ``"add"``), ``detail`` (what is wrong),
    ``shapes`` and ``dtypes`` (of the operands involved, may be empty) and ``location``
    (``"file.py:LINE"`` of the user's code; looked up automatically when not given).
    """

    def __init__(self, op: str, detail: str, *, shapes: Sequence = (), dtypes: Sequence = (),
                 location: str | None = None):
        self.op = op
        self.detail = detail
        self.shapes = tuple(tuple(s) if s is not None else None for s in shapes)
        self.dtypes = tuple(dtypes)
        self.location = location if location is not None else user_location()
        super().__init__(self._message())

    def _message(self) -> str:
        parts = [f"pyasc.{self.op}: {self.detail}"]
        mentioned = self.detail
        info = []
        if self.shapes and not all(str(list(s)) in mentioned or str(s) in mentioned
                                   for s in self.shapes if s is not None):
            info.append("shapes " + ", ".join("scalar" if s is None else str(tuple(s)) for s in self.shapes))
        if self.dtypes and not all(str(d) in mentioned for d in self.dtypes):
            info.append("dtypes " + ", ".join(str(d) for d in self.dtypes))
        if info:
            parts.append(" [" + "; ".join(info) + "]")
        parts.append(f" (at {self.location})")
        return "".join(parts)


class HostOnlyError(PyascError):
    """An op without a compiler lowering was used inside ``pyasc.jit`` (it only runs eagerly,
    on the host)."""


class DataDependentShapeError(PyascError):
    """An op met while tracing whose result's shape depends on the values of its operands (a bool
    mask index): a compiled program's shapes are fixed, so ``pyasc.jit`` runs such a call eagerly."""


class TracedValuesError(DataDependentShapeError):
    """Python asked for the values of a traced tensor (``item()``, ``float()``, ``bool()``, ``numpy()``: a number
    or a branch that depends on data) while ``pyasc.jit`` traced the function; as ``torch.compile`` breaks its
    graph there, a ``pyasc.jit`` call runs such a function eagerly."""


class PyascIndexError(PyascError, IndexError):
    """An index or dimension out of range (also an ``IndexError``, so iteration protocols work)."""


def raise_host_only(name: str, operands=(), what: str = "") -> None:
    """The error for an op that has no compiler lowering yet, used inside ``pyasc.jit``."""
    tensors = [o for o in operands if isinstance(getattr(o, "dtype", None), DType)]
    raise HostOnlyError(name, f"{what or 'is'} not supported inside pyasc.jit yet: the compiler has no lowering "
                        "for it (outside jit it runs eagerly on the host)",
                        shapes=[t.shape for t in tensors], dtypes=[t.dtype.name for t in tensors])
