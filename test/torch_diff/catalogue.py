"""The op catalogue: one row per op of the tensor API (and per op PyTorch users expect).

Each row names the op, the pyasc callable and the torch callable (``SAME``: the same expression
evaluated on the ``torch`` module), the argument generator (``gens.py``; the number of tensors it
makes is the arity), the candidate dtypes (a dtype is tried only where torch accepts it), the
input domain and the accumulation length that scales the tolerance. A callable is
``fn(m, *tensors, **kwargs)`` with ``m`` the module (``pyasc`` or ``torch``), so a missing pyasc
op is found when the case runs, not when the suite is collected.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from . import gens as g
from .harness import ALL, FLOATS, NUMERIC

SAME = None


def F(m):
    """``torch.nn.functional`` or ``pyasc.nn.functional``."""
    return m.nn.functional


def D(m, name):
    """The dtype object called ``name`` in module ``m``."""
    return getattr(m, name)


def _rms_norm_torch(m, x, *w, ns):
    """RMSNorm as PyTorch users write it: in float32, then back to the input dtype (integer inputs
    are refused, as by ``torch.nn.functional.rms_norm``)."""
    if not x.is_floating_point():
        return F(m).rms_norm(x, ns)
    xf = x.float()
    eps = torch.finfo(x.dtype).eps  # rms_norm's default
    y = xf * torch.rsqrt(xf.pow(2).mean(tuple(range(x.ndim - len(ns), x.ndim)), keepdim=True) + eps)
    return (y * w[0].float() if w else y).to(x.dtype)


def _index(text):
    return eval(f"np.s_[{text}]", {"np": np})  # noqa: S307 - a fixed table of index forms


def acc_reduce(specs, kw):
    shape = tuple(specs[0])
    if "dim" not in kw:
        return math.prod(shape)
    dims = kw["dim"] if isinstance(kw["dim"], tuple) else (kw["dim"],)
    return math.prod(shape[d] for d in dims) if shape else 1


def acc_last(specs, kw):
    return tuple(specs[0])[-1] if specs[0] else 1


def acc_along(specs, kw):
    """The length of the reduced ``dim`` (softmax, log_softmax)."""
    shape = tuple(specs[0])
    return shape[kw["dim"]] if shape else 1


def acc_normalized(specs, kw):
    """The elements of ``normalized_shape`` each mean and variance sums (layer_norm, rms_norm)."""
    return math.prod(kw["ns"])


def acc_mm(specs, kw):
    return tuple(specs[0])[-1] if len(specs[0]) else 1


def acc_conv(specs, kw):
    w = specs[1]
    return w[1] * w[2] * w[3]


def acc_pool(specs, kw):
    k = kw.get("kernel_size", 1)
    return k * k if "kernel_size" in kw else max(1, specs[0][2] * specs[0][3])


@dataclass(frozen=True)
class Row:
    name: str
    pyasc: Callable
    torch: Callable | None
    gen: Callable
    dtypes: tuple = NUMERIC
    domain: str = "any"
    acc: Callable | None = None
    values: bool = True          # False: random results, compare shape and dtype only
    nan: bool = False            # also try inputs holding NaN and +-inf (shape class "nan")
    const: tuple = ()            # input positions a jit function captures as constants
    modes: tuple = ("eager", "jit")
    dtype_kw: bool = False       # pass the case dtype's name as the ``dtype`` keyword
    bcast: bool = False          # operands broadcast: the shape class notes "/bcast" or "/0d"
    light: bool = False          # default mode tries one float32 shape per mode only
    device: bool = False         # the result must come from kernels run on the device

    def torch_fn(self):
        return self.torch or self.pyasc


def R(name, pyasc, torch=SAME, gen=None, **kw):
    return Row(name, pyasc, torch, gen or g.unary(), **kw)


def ew(name, pyasc, torch=SAME, **kw):
    """An elementwise unary row (NaN and inf inputs tried too)."""
    kw.setdefault("nan", True)
    return R(name, pyasc, torch, kw.pop("gen", g.unary()), **kw)


def ew2(name, pyasc, torch=SAME, **kw):
    kw.setdefault("nan", True)
    kw.setdefault("bcast", True)
    return R(name, pyasc, torch, kw.pop("gen", g.binary()), **kw)


def red(name, pyasc, torch=SAME, gen=None, **kw):
    kw.setdefault("nan", True)
    return R(name, pyasc, torch, gen or g.reduce(), acc=kw.pop("acc", acc_reduce), **kw)


ELEMENTWISE = [
    ew("neg", lambda m, x: m.neg(x)),
    ew("exp", lambda m, x: m.exp(x)),
    ew("log", lambda m, x: m.log(x), domain="pos"),
    ew("sqrt", lambda m, x: m.sqrt(x), domain="pos"),
    ew("rsqrt", lambda m, x: m.rsqrt(x), domain="pos"),
    ew("abs", lambda m, x: m.abs(x)),
    ew("tanh", lambda m, x: m.tanh(x)),
    ew("erf", lambda m, x: m.erf(x)),
    ew("relu", lambda m, x: m.relu(x)),
    ew("sigmoid", lambda m, x: m.sigmoid(x)),
    ew("gelu", lambda m, x: m.gelu(x), lambda m, x: F(m).gelu(x)),
    ew("gelu_tanh", lambda m, x: m.gelu(x, approximate="tanh"), lambda m, x: F(m).gelu(x, approximate="tanh")),
    ew("leaky_relu", lambda m, x: m.leaky_relu(x, 0.1), lambda m, x: F(m).leaky_relu(x, 0.1)),
    ew("sin", lambda m, x: m.sin(x)),
    ew("cos", lambda m, x: m.cos(x)),
    ew("tan", lambda m, x: m.tan(x), domain="unit"),
    ew("log1p", lambda m, x: m.log1p(x), domain="pos"),
    ew("expm1", lambda m, x: m.expm1(x)),
    ew("floor", lambda m, x: m.floor(x)),
    ew("ceil", lambda m, x: m.ceil(x)),
    ew("round", lambda m, x: m.round(x)),
    ew("trunc", lambda m, x: m.trunc(x)),
    ew("sign", lambda m, x: m.sign(x)),
    ew("square", lambda m, x: m.square(x)),
    ew("reciprocal", lambda m, x: m.reciprocal(x), domain="nonzero"),
    ew("silu", lambda m, x: m.silu(x), lambda m, x: F(m).silu(x)),
    ew("softplus", lambda m, x: m.softplus(x), lambda m, x: F(m).softplus(x)),
    ew("hardswish", lambda m, x: m.hardswish(x), lambda m, x: F(m).hardswish(x)),
    ew("mish", lambda m, x: m.mish(x), lambda m, x: F(m).mish(x)),
    ew("isnan", lambda m, x: m.isnan(x), domain="special"),
    ew("isinf", lambda m, x: m.isinf(x), domain="special"),
    ew("isfinite", lambda m, x: m.isfinite(x), domain="special"),
    ew("logical_not", lambda m, x: m.logical_not(x), dtypes=ALL),
    ew("invert", lambda m, x: ~x, dtypes=ALL),
    ew("to_float32", lambda m, x: x.to(D(m, "float32")), dtypes=ALL, nan=False),
    ew("to_float16", lambda m, x: x.to(D(m, "float16")), dtypes=ALL),
    ew("to_bfloat16", lambda m, x: x.to(D(m, "bfloat16")), dtypes=ALL),
    ew("to_int32", lambda m, x: x.to(D(m, "int32")), dtypes=ALL, nan=False),   # NaN -> int: undefined
    ew("to_int8", lambda m, x: x.to(D(m, "int8")), dtypes=ALL, nan=False),
    ew("to_bool", lambda m, x: x.to(D(m, "bool")), dtypes=ALL),
    ew("float_method", lambda m, x: x.float(), dtypes=ALL),
    ew("clamp", lambda m, x: m.clamp(x, -0.5, 0.75)),
    ew("clamp_min", lambda m, x: m.clamp(x, min=0.25)),
    ew("clip", lambda m, x: m.clip(x, -1, 1)),
    ew2("clamp_tensor", lambda m, x, lo, hi: m.clamp(x, lo, hi), gen=g.binary(3)),
    ew2("add", lambda m, x, y: m.add(x, y)),
    ew2("sub", lambda m, x, y: m.sub(x, y)),
    ew2("mul", lambda m, x, y: m.mul(x, y)),
    ew2("div", lambda m, x, y: m.div(x, y), domain="nonzero"),
    ew2("pow", lambda m, x, y: m.pow(x, y), domain="pos"),
    ew2("maximum", lambda m, x, y: m.maximum(x, y)),
    ew2("minimum", lambda m, x, y: m.minimum(x, y)),
    ew2("add_op", lambda m, x, y: x + y, dtypes=ALL),
    ew2("floordiv", lambda m, x, y: x // y, domain="nonzero"),
    ew2("mod", lambda m, x, y: x % y, domain="nonzero"),
    ew2("eq", lambda m, x, y: m.eq(x, y), dtypes=ALL),
    ew2("ne", lambda m, x, y: x != y, dtypes=ALL),
    ew2("lt", lambda m, x, y: m.lt(x, y), dtypes=ALL),
    ew2("le", lambda m, x, y: x <= y, dtypes=ALL),
    ew2("gt", lambda m, x, y: x > y, dtypes=ALL),
    ew2("ge", lambda m, x, y: m.ge(x, y), dtypes=ALL),
    ew2("logical_and", lambda m, x, y: m.logical_and(x, y), dtypes=ALL),
    ew2("logical_or", lambda m, x, y: m.logical_or(x, y), dtypes=ALL),
    ew2("logical_xor", lambda m, x, y: m.logical_xor(x, y), dtypes=ALL),
    ew2("and_op", lambda m, x, y: x & y, dtypes=ALL),
    ew2("or_op", lambda m, x, y: x | y, dtypes=ALL),
    ew2("where", lambda m, c, x, y: m.where(c, x, y), gen=g.where, dtypes=ALL),
    ew("where_scalar", lambda m, x: m.where(x > 0, x, 0.5)),
    ew("add_scalar_int", lambda m, x, s: x + s, gen=g.scalar(2), dtypes=ALL),
    ew("add_scalar_float", lambda m, x, s: x + s, gen=g.scalar(-1.5), dtypes=ALL),
    ew("rsub_scalar", lambda m, x, s: s - x, gen=g.scalar(3, 0.5)),
    ew("mul_scalar", lambda m, x, s: x * s, gen=g.scalar(-2, 0.25)),
    ew("truediv_scalar", lambda m, x, s: x / s, gen=g.scalar(4, 0.5)),
    ew("rtruediv_scalar", lambda m, x, s: s / x, gen=g.scalar(1, 2.5), domain="nonzero"),
    ew("pow_scalar_int", lambda m, x, s: x ** s, gen=g.scalar(2, 3), domain="pos"),
    ew("pow_scalar_float", lambda m, x, s: x ** s, gen=g.scalar(0.5), domain="pos"),
    ew("rpow_scalar", lambda m, x, s: s ** x, gen=g.scalar(2.0, 0.5)),
    ew("floordiv_scalar", lambda m, x, s: x // s, gen=g.scalar(2, -3, 0.75)),
    ew("mod_scalar", lambda m, x, s: x % s, gen=g.scalar(3, -2, 1.5)),
    ew("eq_scalar", lambda m, x, s: x == s, gen=g.scalar(0, 1)),
]

REDUCTIONS = [
    red("sum", lambda m, x, **kw: m.sum(x, **kw), dtypes=ALL),
    red("mean", lambda m, x, **kw: m.mean(x, **kw)),
    red("prod", lambda m, x, **kw: m.prod(x, **kw), gen=g.reduce(multi=False), domain="unit", dtypes=ALL),
    red("amax", lambda m, x, **kw: m.amax(x, **kw), dtypes=ALL),
    red("amin", lambda m, x, **kw: m.amin(x, **kw), dtypes=ALL),
    red("max", lambda m, x: m.max(x), gen=g.unary(), dtypes=ALL),
    red("min", lambda m, x: m.min(x), gen=g.unary(), dtypes=ALL),
    red("max_dim", lambda m, x, **kw: tuple(m.max(x, **kw)), gen=g.along(keepdim=False), dtypes=ALL),
    red("min_dim", lambda m, x, **kw: tuple(m.min(x, **kw)), gen=g.along(keepdim=True), dtypes=ALL),
    red("argmax", lambda m, x, **kw: m.argmax(x, **kw), gen=g.reduce(multi=False), dtypes=ALL),
    red("argmin", lambda m, x, **kw: m.argmin(x, **kw), gen=g.reduce(multi=False), dtypes=ALL),
    red("var", lambda m, x, **kw: m.var(x, **kw), gen=g.variance),
    red("std", lambda m, x, **kw: m.std(x, **kw), gen=g.variance),
    red("logsumexp", lambda m, x, **kw: m.logsumexp(x, **kw), gen=g.reduce(none=False)),
    red("all", lambda m, x, **kw: m.all(x, **kw), gen=g.reduce(multi=False), dtypes=ALL),
    red("any", lambda m, x, **kw: m.any(x, **kw), gen=g.reduce(multi=False), dtypes=ALL),
    red("norm2", lambda m, x, **kw: m.norm(x, 2, **kw), lambda m, x, **kw: m.linalg.vector_norm(x, 2, **kw)),
    red("norm_inf", lambda m, x, **kw: m.norm(x, float("inf"), **kw),
        lambda m, x, **kw: m.linalg.vector_norm(x, float("inf"), **kw)),
    red("cumsum", lambda m, x, dim: m.cumsum(x, dim=dim), gen=g.along(), dtypes=ALL),
    red("cumprod", lambda m, x, dim: m.cumprod(x, dim=dim), gen=g.along(), domain="unit", dtypes=ALL),
    red("softmax", lambda m, x, dim: m.softmax(x, dim), gen=g.along(), acc=acc_along),
    red("log_softmax", lambda m, x, dim: m.log_softmax(x, dim), gen=g.along(), acc=acc_along),
    red("layer_norm", lambda m, x, *wb, ns: m.layer_norm(x, ns, *wb), gen=g.norm(), acc=acc_normalized),
    red("rms_norm", lambda m, x, *w, ns: m.rms_norm(x, ns, *w), _rms_norm_torch, gen=g.norm(1),
        acc=acc_normalized),
    R("batch_norm", lambda m, x, mu, var, w, b: m.batch_norm(x, mu, var, w, b, training=False, eps=1e-5),
      lambda m, x, mu, var, w, b: F(m).batch_norm(x, mu, var, w, b, training=False, eps=1e-5), g.batch_norm(3),
      dtypes=FLOATS),
    R("batch_norm_2d", lambda m, x, mu, var, w, b: m.batch_norm(x, mu, var, w, b),
      lambda m, x, mu, var, w, b: F(m).batch_norm(x, mu, var, w, b), g.batch_norm(2, 2), dtypes=FLOATS),
    R("batch_norm_const", lambda m, x, mu, var, w, b: m.batch_norm(x, mu, var, w, b),
      lambda m, x, mu, var, w, b: F(m).batch_norm(x, mu, var, w, b), g.batch_norm(3), dtypes=FLOATS,
      const=(1, 2, 3, 4)),
]

MATRIX = [
    R("mm", lambda m, a, b: m.mm(a, b), gen=g.mm, acc=acc_mm),
    R("matmul", lambda m, a, b: m.matmul(a, b), gen=g.mm, acc=acc_mm),
    R("matmul_3d", lambda m, a, b: a @ b, gen=g.matmul_3d, acc=acc_mm),
    R("matmul_4d", lambda m, q, k: q @ k.transpose(-2, -1), gen=g.matmul_4d, acc=acc_mm),
    R("matmul_bcast", lambda m, a, b: m.matmul(a, b), gen=g.matmul_bcast, acc=acc_mm),
    R("matmul_vec", lambda m, a, b: m.matmul(a, b), gen=g.matmul_vec, acc=acc_mm),
    R("matmul_sliced", lambda m, a, b: a[1:] @ b.t().t(), gen=g.mm, acc=acc_mm),
    R("matmul_relu", lambda m, a, b: m.relu(a @ b), gen=g.mm, acc=acc_mm),
    R("matmul_ones", lambda m, a: a @ m.ones(a.shape[-1], 4, dtype=a.dtype), gen=g.unary(2, 2), acc=acc_mm),
    R("bmm", lambda m, a, b: m.bmm(a, b), gen=g.bmm, acc=acc_mm),
    R("linear", lambda m, x, w, b: m.linear(x, w, b), lambda m, x, w, b: F(m).linear(x, w, b),
      gen=g.linear(True), acc=acc_mm),
    R("linear_nobias", lambda m, x, w: m.linear(x, w), lambda m, x, w: F(m).linear(x, w), gen=g.linear(False),
      acc=acc_mm),
    R("linear_gelu", lambda m, x, w, b: m.gelu(m.linear(x, w, b)),
      lambda m, x, w, b: F(m).gelu(F(m).linear(x, w, b)), gen=g.linear(True), acc=acc_mm),
    R("addmm", lambda m, i, a, b, **kw: m.addmm(i, a, b, **kw), gen=g.addmm(False), acc=acc_mm),
    R("addmm_scaled", lambda m, i, a, b, **kw: m.addmm(i, a, b, **kw), gen=g.addmm(True), acc=acc_mm),
    R("outer", lambda m, a, b: m.outer(a, b), gen=g.outer),
    R("conv2d", lambda m, x, w, b, **kw: m.conv2d(x, w, b, **kw), gen=g.conv2d(True), acc=acc_conv),
    R("conv2d_nobias", lambda m, x, w, **kw: m.conv2d(x, w, **kw), gen=g.conv2d(False), acc=acc_conv),
    R("max_pool2d", lambda m, x, **kw: F(m).max_pool2d(x, **kw), gen=g.pool(), nan=True),
    R("avg_pool2d", lambda m, x, **kw: F(m).avg_pool2d(x, **kw), gen=g.pool(), acc=acc_pool),
    R("adaptive_avg_pool2d", lambda m, x, **kw: F(m).adaptive_avg_pool2d(x, **kw), gen=g.pool(True),
      acc=acc_pool),
    R("max_pool2d:ceil", lambda m, x, **kw: F(m).max_pool2d(x, **kw), gen=g.pool(ceil_mode=(True,)), nan=True),
    R("max_pool2d:dilation", lambda m, x, **kw: F(m).max_pool2d(x, **kw),
      gen=g.pool(dilation=(2, 3), ceil_mode=(False, True)), nan=True),
    R("max_pool2d:indices", lambda m, x, **kw: tuple(F(m).max_pool2d(x, **kw)),
      gen=g.pool(return_indices=(True,), ceil_mode=(False, True), dilation=(1, 2)), nan=True),
    R("avg_pool2d:ceil", lambda m, x, **kw: F(m).avg_pool2d(x, **kw),
      gen=g.pool(ceil_mode=(True,), count_include_pad=(True, False)), acc=acc_pool),
] + [R(f"einsum:{f}", lambda m, *xs, eq: m.einsum(eq, *xs), gen=g.einsum(f), acc=acc_mm)
     for f in ("ij,jk->ik", "bij,bjk->bik", "ij->ji", "i,j->ij", "ii->", "ijk->j", "bhqd,bhkd->bhqk",
               "...ij,...jk->...ik", "...ij,jk", "b...->b", "...ii->...i")]

VIEWS = [
    R("reshape", lambda m, x, shape: x.reshape(shape), gen=g.reshape, dtypes=ALL),
    R("view", lambda m, x, shape: x.view(*shape), gen=g.reshape, dtypes=ALL),
    R("transpose", lambda m, x, **kw: x.transpose(kw["dim0"], kw["dim1"]), gen=g.transpose, dtypes=ALL),
    R("permute", lambda m, x, dims: x.permute(*dims), gen=g.permute, dtypes=ALL),
    R("squeeze", lambda m, x, **kw: x.squeeze(**kw), gen=g.squeeze, dtypes=ALL),
    R("unsqueeze", lambda m, x, dim: x.unsqueeze(dim), gen=g.unsqueeze, dtypes=ALL),
    R("flatten", lambda m, x, **kw: x.flatten(**kw), gen=g.flatten, dtypes=ALL),
    R("t", lambda m, x: x.t(), gen=g.unary(2, 2), dtypes=ALL),
    R("mT", lambda m, x: x.mT, gen=g.unary(2, 4), dtypes=ALL),
    R("contiguous", lambda m, x: x.transpose(0, -1).contiguous(), gen=g.unary(2, 4), dtypes=ALL),
    R("cat", lambda m, *xs, dim: m.cat(list(xs), dim=dim), gen=g.joined(), dtypes=ALL),
    R("stack", lambda m, *xs, dim: m.stack(list(xs), dim=dim), gen=g.joined(True), dtypes=ALL),
    R("split", lambda m, x, split, dim: tuple(x.split(split, dim=dim)), gen=g.split(), dtypes=ALL),
    R("split_sections", lambda m, x, split, dim: tuple(x.split(split, dim=dim)), gen=g.split(True), dtypes=ALL),
    R("chunk", lambda m, x, chunks, dim: tuple(x.chunk(chunks, dim=dim)), gen=g.chunk, dtypes=ALL),
    R("getitem", lambda m, x, index: x[_index(index)], gen=g.getitem, dtypes=ALL),
    R("index_tensor", lambda m, x, i: x[i], gen=g.index_tensor, dtypes=ALL),
    R("index_bool", lambda m, x, mask: x[mask], gen=g.bool_index, dtypes=ALL),
    R("index_along", lambda m, x, i, dim, ellipsis: x[(..., i) if ellipsis else (slice(None),) * dim + (i,)],
      gen=g.index_along, dtypes=ALL),
    R("topk", lambda m, x, k, **kw: tuple(x.topk(k, **kw)), gen=g.topk, domain="distinct"),
    R("sort", lambda m, x, **kw: tuple(m.sort(x, stable=True, **kw)), gen=g.sort, domain="distinct"),
    R("argsort", lambda m, x, **kw: m.argsort(x, stable=True, **kw), gen=g.sort, domain="distinct"),
    R("gather", lambda m, x, i, dim: m.gather(x, dim, i), gen=g.gather(), dtypes=ALL),
    R("scatter", lambda m, x, i, src, dim: m.scatter(x, dim, i, src), gen=g.gather(scatter=True), dtypes=ALL),
    R("index_select", lambda m, x, i, dim: m.index_select(x, dim, i), gen=g.gather(select=True), dtypes=ALL),
    R("scatter:add", lambda m, x, i, src, dim, reduce: x.scatter(dim, i, src, reduce=reduce),
      gen=g.gather(reduce="add")),
    R("scatter:multiply", lambda m, x, i, src, dim, reduce: x.scatter(dim, i, src, reduce=reduce),
      gen=g.gather(reduce="multiply"), domain="pos"),
    R("masked_fill", lambda m, x, mask, value: x.masked_fill(mask, value), gen=g.masked, bcast=True),
    R("expand", lambda m, x, size: x.expand(*size), gen=g.expand, dtypes=ALL),
    R("repeat", lambda m, x, repeats: x.repeat(*repeats), gen=g.repeat, dtypes=ALL),
    R("flip", lambda m, x, dims: m.flip(x, dims), gen=g.flip, dtypes=ALL),
    R("roll", lambda m, x, **kw: m.roll(x, **kw), gen=g.roll, dtypes=ALL),
    R("tril", lambda m, x, diagonal: m.tril(x, diagonal), gen=g.tri, dtypes=ALL),
    R("triu", lambda m, x, diagonal: m.triu(x, diagonal), gen=g.tri, dtypes=ALL),
    R("clone", lambda m, x: x.clone(), dtypes=ALL),
    R("detach", lambda m, x: x.detach(), dtypes=ALL),
    R("cpu", lambda m, x: x.cpu(), dtypes=ALL),
]

CREATION = [
    R("zeros", lambda m, size, dtype: m.zeros(*size, dtype=D(m, dtype)), gen=g.creation, dtypes=ALL,
      dtype_kw=True, modes=("eager",)),
    R("ones", lambda m, size, dtype: m.ones(size, dtype=D(m, dtype)), gen=g.creation, dtypes=ALL,
      dtype_kw=True, modes=("eager",)),
    R("full", lambda m, size, dtype: m.full(size, 3, dtype=D(m, dtype)), gen=g.creation, dtypes=ALL,
      dtype_kw=True, modes=("eager",)),
    R("empty", lambda m, size, dtype: m.empty(*size, dtype=D(m, dtype)), gen=g.creation, dtypes=ALL,
      dtype_kw=True, values=False, modes=("eager",)),
    R("eye", lambda m, n, cols, dtype: m.eye(n, cols, dtype=D(m, dtype)), gen=g.eye, dtypes=ALL,
      dtype_kw=True, modes=("eager",)),
    R("arange", lambda m, dtype, **kw: m.arange(kw["start"], kw["end"], kw["step"], dtype=D(m, dtype)),
      gen=g.arange, dtypes=NUMERIC, dtype_kw=True, modes=("eager",)),
    R("rand", lambda m, size, dtype: m.rand(*size, dtype=D(m, dtype)), gen=g.creation, dtypes=FLOATS,
      dtype_kw=True, values=False, modes=("eager",)),
    R("randn", lambda m, size, dtype: m.randn(*size, dtype=D(m, dtype)), gen=g.creation, dtypes=FLOATS,
      dtype_kw=True, values=False, modes=("eager",)),
    R("tensor", lambda m, x: m.tensor(x.tolist()), dtypes=ALL, modes=("eager",)),
    R("zeros_like", lambda m, x: m.zeros_like(x), dtypes=ALL),
    R("ones_like", lambda m, x: m.ones_like(x), dtypes=ALL),
    R("full_like", lambda m, x: m.full_like(x, 7), dtypes=ALL),
    R("empty_like", lambda m, x: m.empty_like(x), dtypes=ALL, values=False),
    R("rand_like", lambda m, x: m.rand_like(x), dtypes=FLOATS, values=False),
    R("randn_like", lambda m, x: m.randn_like(x), dtypes=FLOATS, values=False),
]

FUNCTIONAL = [
    R("F.relu", lambda m, x: F(m).relu(x), nan=True),
    R("F.gelu", lambda m, x: F(m).gelu(x)),
    R("F.silu", lambda m, x: F(m).silu(x)),
    R("F.softmax", lambda m, x, dim: F(m).softmax(x, dim=dim), gen=g.along(), acc=acc_along),
    R("F.log_softmax", lambda m, x, dim: F(m).log_softmax(x, dim=dim), gen=g.along(), acc=acc_along),
    R("F.layer_norm", lambda m, x, *wb, ns: F(m).layer_norm(x, ns, *wb), gen=g.norm(), acc=acc_normalized),
    R("F.linear", lambda m, x, w, b: F(m).linear(x, w, b), gen=g.linear(True), acc=acc_mm),
    R("F.conv2d", lambda m, x, w, b, **kw: F(m).conv2d(x, w, b, **kw), gen=g.conv2d(True), acc=acc_conv),
    R("dropout", lambda m, x: m.dropout(x, 0.3, training=False), lambda m, x: F(m).dropout(x, 0.3, training=False)),
    R("F.dropout", lambda m, x: F(m).dropout(x, p=0.3, training=False)),
    R("F.cross_entropy", lambda m, x, t: F(m).cross_entropy(x, t), gen=g.cross_entropy, acc=acc_last),
    R("F.pad", lambda m, x, **kw: F(m).pad(x, **kw), gen=g.pad("constant"), dtypes=ALL),
    *(R(f"F.pad:{mode}", lambda m, x, **kw: F(m).pad(x, **kw), gen=g.pad(mode), dtypes=NUMERIC)
      for mode in ("reflect", "replicate", "circular")),
]


# rows whose op must compile to device kernels (``clone``, ``detach`` and ``cpu`` compute nothing:
# a copy of the storage, the same storage, a copy in host memory)
ON_DEVICE = frozenset(
    "square reciprocal expand repeat mm outer silu softplus hardswish mish masked_fill tril triu all any var std "
    "logsumexp floordiv mod floordiv_scalar mod_scalar sign log1p expm1 floor ceil round trunc flip roll "
    "index_select gather scatter cumsum cumprod sort argsort max_pool2d avg_pool2d adaptive_avg_pool2d "
    "F.silu F.cross_entropy F.pad F.pad:reflect F.pad:replicate F.pad:circular max_pool2d:ceil max_pool2d:dilation max_pool2d:indices avg_pool2d:ceil scatter:add "
    "scatter:multiply".split()) | {r.name for r in MATRIX if r.name.startswith("einsum:")}


def all_rows():
    from dataclasses import replace

    from .catalogue_extra import EXTRA

    rows = ELEMENTWISE + REDUCTIONS + MATRIX + VIEWS + CREATION + FUNCTIONAL + EXTRA
    rows = [replace(r, device=True) if r.name in ON_DEVICE else r for r in rows]
    names = [r.name for r in rows]
    assert len(names) == len(set(names)), "duplicate row names"
    return {r.name: r for r in rows}
