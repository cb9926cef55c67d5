"""Catalogue rows for the cases of issue 16: in-place updates through views, autocast result
dtypes, mixed-dtype promotion, constants captured by a jit function and nested jit.

In-place rows return the base tensor, so a write that does not reach it is a wrong value.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import torch

from . import gens as g
from .catalogue import R, acc_conv, acc_last, acc_mm, acc_reduce, F
from .harness import ALL, FLOATS, NUMERIC, Like


def inplace(rng, cls):
    """A base tensor (first dim >= 2) and an update of the shape of one row."""
    u = (int(rng.choice((2, 3, 5))),) + g.shape(rng, cls, 1, 2, 1024)
    return [u, u[1:]], {}


def _iadd_view(m, u, y):
    v = u[1]
    v += y
    return u


def _isub_slice(m, u, y):
    v = u[:, 1:]
    v -= 2
    return u


def _imul_transpose(m, u, y):
    v = u.transpose(0, 1)
    v *= 3
    return u


def _idiv_view(m, u, y):
    v = u[0]
    v /= 2
    return u


def _iadd_alias(m, u, y):
    z = u
    z += 1
    return u


def _add_(m, u, y):
    u[1].add_(y)
    return u


def _mul_(m, u, y):
    u[:, :1].mul_(3)
    return u


def _copy_(m, u, y):
    u[0].copy_(y)
    return u


def _setitem_tensor(m, u, y):
    u[1] = y
    return u


def _setitem_scalar(m, u, y):
    u[:, 0] = 5
    return u


INPLACE = [R(f"inplace.{name}", fn, gen=inplace, dtypes=dts, light=True) for name, fn, dts in (
    ("iadd_view", _iadd_view, NUMERIC), ("isub_slice", _isub_slice, NUMERIC),
    ("imul_transpose", _imul_transpose, NUMERIC), ("idiv_view", _idiv_view, FLOATS),
    ("iadd_alias", _iadd_alias, NUMERIC), ("add_", _add_, NUMERIC), ("mul_", _mul_, NUMERIC),
    ("copy_", _copy_, ALL), ("setitem_tensor", _setitem_tensor, ALL), ("setitem_scalar", _setitem_scalar, NUMERIC))]


@contextmanager
def _torch_autocast(dtype: str):
    """PyTorch CPU's autocast to ``dtype``, on its own kernels: oneDNN's bfloat16 convolution gives wrong values (NaN
    among them) on AVX-512 CPUs for some shapes, e.g. (2, 1, 521, 3) * (5, 1, 3, 3) with stride 2, in every call."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "TF32 acceleration on top of oneDNN", UserWarning)
        with torch.backends.mkldnn.flags(enabled=False), torch.autocast("cpu", dtype=getattr(torch, dtype)):
            yield


def _autocast(m, dtype):
    if m is torch:
        return _torch_autocast(dtype)
    return m.amp.autocast(getattr(m, dtype))


def _under(dtype, fn):
    def call(m, *xs, **kw):
        with _autocast(m, dtype):
            return fn(m, *xs, **kw)
    return call


_AUTOCAST_OPS = (
    ("matmul", lambda m, a, b: a @ b, g.mm, acc_mm),
    ("linear", lambda m, x, w, b: F(m).linear(x, w, b), g.linear(True), acc_mm),
    ("bmm", lambda m, a, b: m.bmm(a, b), g.bmm, acc_mm),
    ("addmm", lambda m, i, a, b, **kw: m.addmm(i, a, b, **kw), g.addmm(False), acc_mm),
    ("conv2d", lambda m, x, w, b, **kw: m.conv2d(x, w, b, **kw), g.conv2d(True), acc_conv),
    ("sum", lambda m, x, **kw: m.sum(x, **kw), g.reduce(), acc_reduce),
    ("mean", lambda m, x, **kw: m.mean(x, **kw), g.reduce(), acc_reduce),
    ("softmax", lambda m, x, dim: m.softmax(x, dim), g.along(), acc_last),
    ("log_softmax", lambda m, x, dim: m.log_softmax(x, dim), g.along(), acc_last),
    ("layer_norm", lambda m, x, *wb, ns: F(m).layer_norm(x, ns, *wb), g.norm(), acc_last),
    ("exp", lambda m, x: m.exp(x), g.unary(), None),
    ("add", lambda m, x, y: x + y, g.binary(), None),
    ("gelu", lambda m, x: F(m).gelu(x), g.unary(), None),
)

AUTOCAST = [R(f"autocast_{short}.{name}", _under(dtype, fn), gen=gen, acc=acc, dtypes=FLOATS, light=True)
            for short, dtype in (("f16", "float16"), ("bf16", "bfloat16"))
            for name, fn, gen, acc in _AUTOCAST_OPS]


def mixed(dtype):
    """Two broadcasting tensors, the second of ``dtype``."""
    def gen(rng, cls):
        (a, b), _ = g.binary()(rng, cls)
        return [a, Like(tuple(b), dtype=dtype)], {}
    return gen


def _nested(m):
    inner = (lambda a: a * 2 + 1)
    return m.jit(inner) if m is not torch else inner


EXTRA = INPLACE + AUTOCAST + [
    R("add_mixed_float32", lambda m, x, y: x + y, gen=mixed("float32"), dtypes=ALL, bcast=True),
    R("mul_mixed_int32", lambda m, x, y: x * y, gen=mixed("int32"), dtypes=ALL, bcast=True),
    R("where_mixed", lambda m, x, y: m.where(x > 0, x, y), gen=mixed("float32"), dtypes=NUMERIC, bcast=True),
    R("matmul_const", lambda m, a, b: a @ b, gen=g.mm, acc=acc_mm, const=(1,)),
    R("linear_const", lambda m, x, w, b: F(m).linear(x, w, b), gen=g.linear(True), acc=acc_mm, const=(1, 2)),
    R("conv2d_const", lambda m, x, w, b, **kw: m.conv2d(x, w, b, **kw), gen=g.conv2d(True), acc=acc_conv,
      const=(1, 2)),
    R("jit_nested", lambda m, x: _nested(m)(x), dtypes=FLOATS),
]
