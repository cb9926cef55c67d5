"""What the ONNX operator tables share: the node as a conversion sees it, the entry of a table, and the helpers
that turn constants into operands and indices into views."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import pyasc

from .errors import UnsupportedOnnxError


@dataclass
class Node:
    """One ONNX node as the table sees it."""

    op_type: str
    name: str
    attrs: dict
    n_outputs: int
    float_dtype: object      # the model's float dtype (pyasc.float32 or pyasc.float16)

    def attr(self, name: str, default=None):
        return self.attrs.get(name, default)

    def fail(self, detail: str, attribute: str | None = None):
        raise UnsupportedOnnxError(self.op_type, self.name, detail, attribute)


@dataclass(frozen=True)
class OnnxOp:
    """How one ONNX op type converts: ``convert(node, inputs) -> output or list of outputs``."""

    convert: Callable
    attrs: frozenset = frozenset()


def _op(convert: Callable, *attrs: str) -> OnnxOp:
    return OnnxOp(convert, frozenset(attrs))


# ------------------------------------------------------------------------------------- helpers

def is_const(v) -> bool:
    return isinstance(v, np.ndarray)


def const_tensor(node: Node, a: np.ndarray, like=None):
    """A constant as a concrete pyasc tensor: floats in the dtype of ``like`` (else the model's)."""
    if a.dtype.kind == "f":
        d = like.dtype if like is not None and like.dtype.is_floating_point else node.float_dtype
        return pyasc.tensor(a, dtype=d)
    if a.dtype.kind == "b":
        return pyasc.tensor(a, dtype=pyasc.bool_)
    return pyasc.tensor(a.astype(np.int32), dtype=pyasc.int32)


def operand(node: Node, v, like=None):
    """A value as an operand of an elementwise op: a one-element constant becomes a Python number
    (a splat), any other constant a concrete tensor."""
    if not is_const(v):
        return v
    if v.size == 1 and (like is None or v.ndim <= like.ndim):
        x = v.reshape(-1)[0].item()
        return float(x) if v.dtype.kind == "f" else x
    return const_tensor(node, v, like)


def _traced_of(values):
    return next((v for v in values if v is not None and not is_const(v)), None)


def ints(v) -> list[int]:
    return [int(i) for i in np.asarray(v).reshape(-1)]


def scalar(node: Node, v, what: str) -> float:
    if v is None:
        return None
    if not is_const(v) or v.size != 1:
        node.fail(f"the {what} input must be a constant scalar")
    return float(v.reshape(-1)[0])


def _axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


def _axes_input(node: Node, inputs, index: int) -> list[int] | None:
    """Axes given as the ``index``-th input (recent opsets) or as the ``axes`` attribute."""
    if len(inputs) > index and inputs[index] is not None:
        if not is_const(inputs[index]):
            node.fail("axes must be a constant")
        return ints(inputs[index])
    axes = node.attr("axes")
    return None if axes is None else list(axes)


def _runs(idx: np.ndarray) -> list[slice]:
    """``idx`` as consecutive slices of constant positive step (for gathers of views)."""
    out, i = [], 0
    while i < len(idx):
        j = i
        if i + 1 < len(idx) and idx[i + 1] > idx[i]:
            step = idx[i + 1] - idx[i]
            while j + 1 < len(idx) and idx[j + 1] - idx[j] == step:
                j += 1
            out.append(slice(int(idx[i]), int(idx[j]) + 1, int(step)))
        else:
            out.append(slice(int(idx[i]), int(idx[i]) + 1, 1))
        i = j + 1
    return out


def take(x, axis: int, idx) -> object:
    """``x`` at indices ``idx`` (a constant 1-D array) along ``axis``: views joined by ``cat``."""
    parts = []
    for s in _runs(np.asarray(idx)):
        index = [slice(None)] * x.ndim
        index[axis] = s
        parts.append(x[tuple(index)])
    return parts[0] if len(parts) == 1 else pyasc.cat(parts, axis)
