"""Copies, repetitions, masks, scans and einsum written with the device ops
(``OpDef``s of kind ``composite``; each compiles as one program, ``fused.py``).

``clone``, ``detach``, ``cpu`` (no computation: a copy or the same storage), ``expand``,
``repeat``, ``mm``, ``outer``, ``masked_fill``, ``tril``, ``triu``, ``flip``, ``roll``,
``cumsum``, ``cumprod`` and ``einsum`` (selections and sorting: ``ops_select``).

* Scans (``cumsum``/``cumprod``) take ``ceil(log2(n))`` steps, each adding (multiplying) the
  input rolled by ``2**i`` along ``dim`` with its first ``2**i`` positions masked.
* ``einsum`` takes the diagonal of repeated indices, sums indices used once, and contracts two
  operands at a time with a batched matmul on the cube (a product of broadcasts when nothing is
  contracted).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes as dt
from .autograd import tape
from .args import dim_index, dims_arg, operand, tensor_operand
from .creation import zeros_like
from .errors import PyascError, describe
from .fused import fused_op
from .opdef import COMPOSITE, OpDef
from .ops_compare import GT, WHERE
from .ops_compare import OPS as _COMPARE
from .ops_elementwise import BY_NAME as EW
from .ops_elementwise import CAST
from .ops_linalg import MATMUL
from .ops_reduce import SUM
from .tensor import Tensor
from .views import OPS as _VIEWS

ADD, MUL = EW["add"], EW["mul"]
CAT = next(op for op in _VIEWS if op.name == "cat")
LOGICAL_AND = next(op for op in _COMPARE if op.name == "logical_and")

F16, F32, I32 = dt.float16, dt.float32, dt.int32


def constant(a: np.ndarray, d: dt.DType | None = None) -> Tensor:
    return Tensor(np.ascontiguousarray(a), d)


def mask(test, grid: np.ndarray, value) -> Tensor | bool:
    """The bool constant ``test(grid, value)`` (a NumPy comparison of a grid of positions); a
    Python bool when every position gives the same answer (the device has no bool splat)."""
    m = np.ascontiguousarray(test(grid, value))
    flat = m.reshape(-1)
    if flat.size and (flat == flat[0]).all():
        return bool(flat[0])
    return constant(m, dt.bool_)


def broadcast_mask(m: Tensor, shape) -> Tensor:
    """A bool tensor broadcast to ``shape``, through float 0/1 (bools do not broadcast on the device)."""
    shape = tuple(shape)
    if m.shape == shape:
        return m
    ones = WHERE(m, 1.0, 0.0).reshape((1,) * (len(shape) - m.ndim) + m.shape)
    return GT(broadcast_to(ones, shape), 0.5)


def _copy(x: Tensor) -> Tensor:
    """A copy of x computed on the device."""
    return moved_as_half(x, lambda v: MUL(v, 1))


def moved_as_half(x: Tensor, fn):
    """``fn(x)`` with bool and int8 data carried as float16 (exact) and converted back."""
    if x.dtype not in dt.STORAGE_DTYPES:
        return fn(x)
    return CAST(fn(CAST(x, dtype=F16)), dtype=x.dtype)


def broadcast_to(x: Tensor, shape) -> Tensor:
    """``x`` (of rank ``len(shape)``) broadcast to ``shape`` (a copy), differentiated as ``expand``. The first
    dim that grows from 1 is copied by a concat when it is the source's first dim longer than 1 (the compiler's
    row broadcast of a one-row source fails to bufferize), the others are broadcast."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    with tape.set_grad_enabled(False):  # recorded below as one expand
        out = _broadcast_copy(x, shape)
    return tape.record_expand(x, out)


def _broadcast_copy(x: Tensor, shape: tuple) -> Tensor:
    if not x.is_traced:
        return Tensor(np.broadcast_to(x.numpy(), shape).copy(), x.dtype)
    j = next(i for i, n in enumerate(shape) if n > 1)
    if x.shape[j] == 1:
        x = CAT([x] * shape[j], dim=j)
        if x.shape == shape:
            return x

    def go(v):
        tr = v._trace
        return Tensor._traced(tr, tr.broadcast(v._value, shape), v.dtype, shape)
    return moved_as_half(x, go)


# ----------------------------------------------------------------------------- copies

def _clone(x, *, memory_format=None):
    """A copy of x with its own storage (its gradient passes through)."""
    x = tensor_operand("clone", x)
    if x.is_traced:  # the same value in a tensor of its own (an in-place update of it rebinds it alone)
        return tape.record_copy(x, Tensor._traced(x._trace, x._value, x.dtype, x.shape))
    return tape.record_copy(x, Tensor(x.numpy().copy(), x.dtype, format=x.format, device=x.device))


def _detach(x):
    """x sharing its storage, outside any gradient tracking."""
    x = tensor_operand("detach", x)
    if x.is_traced:
        return x.detach() if x._requires_grad else x
    return Tensor(x.numpy(), x.dtype, format=x.format, device=x.device)


def _cpu(x):
    """The values of x in host memory (a copy)."""
    x = tensor_operand("cpu", x)
    if x.is_traced:
        return x
    return Tensor(x.numpy().copy(), x.dtype, format=x.format, device=x.device)


# ----------------------------------------------------------------------------- expand and repeat

def _sizes(name, x, sizes):
    if len(sizes) == 1 and isinstance(sizes[0], tuple | list):
        sizes = tuple(sizes[0])
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise PyascError(name, f"sizes must be integers, got {describe(s)}", shapes=[x.shape])
    return tuple(int(s) for s in sizes)


def _expand_signature(x, *sizes):
    x = tensor_operand("expand", x)
    sizes = _sizes("expand", x, sizes)
    extra = len(sizes) - x.ndim
    if extra < 0:
        raise PyascError("expand", f"the number of sizes ({len(sizes)}) must be at least the number of dims "
                         f"({x.ndim})", shapes=[x.shape])
    out = []
    for i, s in enumerate(sizes):
        src = x.shape[i - extra] if i >= extra else None
        if s == -1:
            if src is None:
                raise PyascError("expand", f"-1 is not allowed in a new leading dim ({sizes})", shapes=[x.shape])
            s = src
        if s < 0 or (src is not None and src != 1 and src != s):
            raise PyascError("expand", f"the expanded size {s} must match the existing size {src} at dim {i} "
                             f"(sizes {sizes})", shapes=[x.shape])
        out.append(s)
    return [x], {"shape": tuple(out)}


def _expand(x, shape):
    """x broadcast to ``shape`` (-1 keeps a size; new dims lead)."""
    return broadcast_to(x.reshape((1,) * (len(shape) - x.ndim) + x.shape), shape)


def _expand_vjp(ctx, g):
    """The gradient summed over the dimensions the expansion added or grew from 1."""
    x = ctx.inputs[0]
    return (ctx.sum_to(g, x.shape),)


def _repeat_signature(x, *repeats):
    x = tensor_operand("repeat", x)
    reps = _sizes("repeat", x, repeats)
    if len(reps) < x.ndim or any(r < 0 for r in reps):
        raise PyascError("repeat", f"needs one non-negative count per dim (at least {x.ndim}), got {reps}",
                         shapes=[x.shape])
    return [x], {"repeats": reps}


def _repeat(x, repeats):
    """x tiled ``repeats[i]`` times along dim i (leading repeats add dims)."""
    out = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
    for d, r in enumerate(repeats):
        if r != 1:
            out = CAT([out] * r, dim=d)
    return out if out is not x else (MUL(x, 1) if x.dtype not in dt.STORAGE_DTYPES else CAST(CAST(x, dtype=F16),
                                                                                                dtype=x.dtype))


# ----------------------------------------------------------------------------- products

def _mm_signature(a, b):
    a, b = tensor_operand("mm", a), tensor_operand("mm", b)
    if a.ndim != 2 or b.ndim != 2:
        raise PyascError("mm", f"expects two 2-D tensors, got {a.shape} and {b.shape}", shapes=[a.shape, b.shape])
    return [a, b], {}


def _mm(a, b):
    """The matrix product of two 2-D tensors."""
    return MATMUL(a, b)


def _outer_signature(a, b):
    a, b = tensor_operand("outer", a), tensor_operand("outer", b)
    if a.ndim != 1 or b.ndim != 1:
        raise PyascError("outer", f"expects two 1-D tensors, got {a.shape} and {b.shape}", shapes=[a.shape, b.shape])
    return [a, b], {}


def _outer(a, b):
    """a[i] * b[j]"""
    return MUL(a.reshape(a.shape[0], 1), b.reshape(1, b.shape[0]))


# ----------------------------------------------------------------------------- masks

def _masked_fill_signature(x, mask, value):
    x, mask = tensor_operand("masked_fill", x), tensor_operand("masked_fill", mask)
    if mask.dtype is not dt.bool_:
        raise PyascError("masked_fill", f"the mask must be a bool tensor, got {mask.dtype.name}",
                         shapes=[x.shape, mask.shape])
    try:
        ok = np.broadcast_shapes(mask.shape, x.shape) == x.shape
    except ValueError:
        ok = False
    if not ok:
        raise PyascError("masked_fill", f"the mask of shape {mask.shape} does not broadcast to {x.shape}",
                         shapes=[x.shape, mask.shape])
    if mask.shape != x.shape and not mask.is_traced:   # the device has no broadcast of bools
        mask = Tensor(np.broadcast_to(mask.numpy(), x.shape).copy(), dt.bool_)
    value = operand("masked_fill", value)
    if isinstance(value, Tensor) and value.ndim:
        raise PyascError("masked_fill", f"value must be a number or a 0-d tensor, got shape {value.shape}")
    return [x, mask, value], {}


def _masked_fill(x, mask, value):
    """x with the elements where mask holds set to value."""
    def go(v):
        val = CAST(value, dtype=v.dtype) if isinstance(value, Tensor) else (
            float(value) if v.dtype.is_floating_point else int(value))
        return WHERE(broadcast_mask(mask, v.shape), val, v)
    return moved_as_half(x, go)


def _tri_signature(name):
    def signature(x, diagonal=0):
        x = tensor_operand(name, x)
        if x.ndim < 2:
            raise PyascError(name, f"needs a tensor of at least 2 dims, got {x.shape}", shapes=[x.shape])
        return [x], {"diagonal": int(diagonal)}
    return signature


def _tri(lower: bool):
    def fn(x, diagonal):
        n, m = x.shape[-2:]
        offset = np.broadcast_to(np.arange(m)[None, :] - np.arange(n)[:, None], x.shape)   # j - i
        keep = mask(np.less_equal if lower else np.greater_equal, offset, diagonal)
        if keep is True:
            return _copy(x)
        if keep is False:
            return moved_as_half(x, zeros_like)
        if x.dtype is dt.bool_:
            return LOGICAL_AND(x, keep)
        return moved_as_half(x, lambda v: WHERE(keep, v, 0))
    fn.__doc__ = f"x with the elements {'above' if lower else 'below'} the diagonal set to 0"
    return fn


# ----------------------------------------------------------------------------- flip and roll

def _flip_signature(x, dims):
    x = tensor_operand("flip", x)
    return [x], {"dims": dims_arg("flip", dims, x.ndim, x.shape)}


def _flip(x, dims):
    """x with the order of the elements along ``dims`` reversed."""
    dims = [d for d in dims if x.shape[d] > 1]
    if not dims:
        return MUL(x, 1) if x.dtype not in dt.STORAGE_DTYPES else x
    return x[tuple(slice(None, None, -1) if i in dims else slice(None) for i in range(x.ndim))]


def _roll_signature(x, shifts, dims=None):
    x = tensor_operand("roll", x)
    shifts = tuple(shifts) if isinstance(shifts, tuple | list) else (shifts,)
    if dims is None:
        if len(shifts) != 1:
            raise PyascError("roll", f"shifts {shifts} need dims", shapes=[x.shape])
        return [x], {"shifts": shifts, "dims": None}
    dims = tuple(dims) if isinstance(dims, tuple | list) else (dims,)
    if len(dims) != len(shifts):
        raise PyascError("roll", f"shifts {shifts} and dims {dims} must have the same length", shapes=[x.shape])
    return [x], {"shifts": tuple(int(s) for s in shifts), "dims": tuple(dim_index("roll", d, x.ndim, x.shape)
                                                                          for d in dims)}


def _sl(ndim, dim, start, stop):
    return tuple(slice(start, stop) if i == dim else slice(None) for i in range(ndim))


def roll_along(x, shift: int, dim: int):
    n = x.shape[dim]
    s = shift % n if n else 0
    if s == 0:
        return x
    return CAT([x[_sl(x.ndim, dim, n - s, None)], x[_sl(x.ndim, dim, 0, n - s)]], dim=dim)


def _roll(x, shifts, dims):
    """x with its elements shifted by ``shifts`` along ``dims`` (wrapping around; all elements as one
    row when dims is None)."""
    if dims is None:
        return roll_along(x.reshape(-1), shifts[0], 0).reshape(x.shape)
    out = x
    for s, d in zip(shifts, dims):
        out = roll_along(out, s, d)
    return out if out is not x else (MUL(x, 1) if x.dtype not in dt.STORAGE_DTYPES else x)


# ----------------------------------------------------------------------------- scans

def _scan_signature(name):
    def signature(x, dim, *, dtype=None):
        x = tensor_operand(name, x)
        return [x], {"dim": dim_index(name, dim, x.ndim, x.shape), "dtype": None if dtype is None else
                     dt.get_dtype(dtype)}
    return signature


def _scan(combine, identity):
    def fn(x, dim, dtype):
        res = dtype or (x.dtype if x.dtype.is_floating_point else I32)
        work = F32 if res.is_floating_point else I32
        v = CAST(x, dtype=work)
        if v is x:
            v = MUL(x, 1)
        n = x.shape[dim] if x.ndim else 1
        if x.ndim == 0:
            return CAST(v, dtype=res)
        pos = np.broadcast_to(np.arange(n).reshape([n if i == dim else 1 for i in range(x.ndim)]), x.shape)
        k = 1
        while k < n:
            shifted = WHERE(mask(np.greater_equal, pos, k), roll_along(v, k, dim), identity)
            v = combine(v, shifted)
            k *= 2
        return CAST(v, dtype=res)
    return fn


def _cumsum(x, dim, dtype):
    """Running sums along dim (integers give int32)."""
    return _scan(ADD, 0)(x, dim, dtype)


def _cumsum_vjp(ctx, g):
    """The running sums of the gradient from the end: flip, cumsum, flip back."""
    dim = ctx.attrs["dim"]
    if ctx.inputs[0].ndim == 0:
        return g
    return _flip(_cumsum(_flip(g, [dim]), dim, None), [dim])


def _cumprod(x, dim, dtype):
    """Running products along dim (integers give int32)."""
    return _scan(MUL, 1)(x, dim, dtype)


# ----------------------------------------------------------------------------- einsum

def _einsum_signature(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], tuple | list):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise PyascError("einsum", f"the equation must be a string, got {describe(equation)}")
    ts = [tensor_operand("einsum", o) for o in operands]
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    shapes = [t.shape for t in ts]
    if "." in eq:
        terms, out, ts = _without_ellipsis(equation, terms, out, arrow, ts)
        arrow = "->"
    if len(terms) != len(ts) or not all(t.isalpha() or t == "" for t in terms + [out]):
        raise PyascError("einsum", f"equation {equation!r} does not match {len(ts)} operand(s)", shapes=shapes)
    sizes = {}
    for t, x in zip(terms, ts):
        if len(t) != x.ndim:
            raise PyascError("einsum", f"term {t!r} has {len(t)} indices for an operand of shape {x.shape}",
                             shapes=shapes)
        for c, s in zip(t, x.shape):
            if sizes.setdefault(c, s) != s:
                raise PyascError("einsum", f"index {c!r} has sizes {sizes[c]} and {s}", shapes=shapes)
    if not arrow:
        out = "".join(sorted(c for c in sizes if lhs.count(c) == 1))
    if len(set(out)) != len(out) or any(c not in sizes for c in out):
        raise PyascError("einsum", f"output {out!r} of {equation!r} is invalid", shapes=shapes)
    names = [t.dtype.name for t in ts]
    if len(set(names)) > 1:
        raise PyascError("einsum", f"operands must have one dtype, got {names}", shapes=shapes, dtypes=names)
    return ts, {"terms": tuple(terms), "out": out}


def _without_ellipsis(equation, terms, out, arrow, ts):
    """The equation with each '...' spelled as letters of its own (the broadcast dims, aligned on
    the right; an operand's size-1 dims among them expanded), and the output made explicit."""
    shapes = [t.shape for t in ts]
    if len(terms) != len(ts) or any(t.count("...") > 1 or t.replace("...", "").count(".") for t in terms + [out]):
        raise PyascError("einsum", f"equation {equation!r} has a malformed '...'", shapes=shapes)
    ranks = [x.ndim - len(t.replace("...", "")) if "..." in t else 0 for t, x in zip(terms, ts)]
    if min(ranks) < 0:
        raise PyascError("einsum", f"equation {equation!r} has more indices than an operand has dims", shapes=shapes)
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in equation][:max(ranks)]
    parts = [x.shape[t.index("..."):t.index("...") + e] if "..." in t else () for t, x, e in zip(terms, ts, ranks)]
    try:
        bshape = np.broadcast_shapes(*parts)
    except ValueError:
        raise PyascError("einsum", f"the '...' dims {parts} do not broadcast", shapes=shapes) from None
    new_terms, new_ts = [], []
    for t, x, e, part in zip(terms, ts, ranks, parts):
        if "..." in t:
            want = bshape[len(bshape) - e:]
            if part != want:
                i = t.index("...")
                x = x.expand(*x.shape[:i], *want, *x.shape[i + e:])
            t = t.replace("...", "".join(free[len(free) - e:]))
        new_terms.append(t)
        new_ts.append(x)
    if arrow:        # (an output without '...' sums over those dims)
        out = out.replace("...", "".join(free))
    else:
        lhs = "".join(terms).replace("...", "")
        out = "".join(free) + "".join(sorted(c for c in set(lhs) if lhs.count(c) == 1))
    return new_terms, out, new_ts


def _diagonal(x, term):
    """x and its term with every repeated index reduced to its diagonal."""
    while len(set(term)) < len(term):
        c = next(c for c in term if term.count(c) > 1)
        i = term.index(c)
        j = term.index(c, i + 1)
        n = x.shape[i]
        grid = np.indices(x.shape)
        eye = mask(np.equal, grid[i] - grid[j], 0)
        x = SUM(x if eye is True else WHERE(eye, x, 0), dim=j)
        term = term[:j] + term[j + 1:]
    return x, term


def _permuted(x, term, order):
    if term == order:
        return x
    return x.permute(*[term.index(c) for c in order])


def _contract(a, ta, b, tb, keep):
    """The product of a and b summed over their shared indices not in ``keep``; its term. A sum
    over shared indices is a (batched) matmul of the operands permuted, their batch, free and summed
    indices each flattened into one (as PyTorch contracts, so autocast applies); a product with
    nothing summed multiplies broadcasts in float32 (products of half inputs are exact there)."""
    batch = [c for c in ta if c in tb and c in keep]
    summed = [c for c in ta if c in tb and c not in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    size = dict(zip(ta, a.shape)) | dict(zip(tb, b.shape))
    if len(batch) <= 1 and len(left) == len(summed) == len(right) == 1:
        prod = MATMUL(_permuted(a, ta, "".join(batch + left + summed)), _permuted(b, tb, "".join(batch + summed + right)))
        return prod, "".join(batch + left + right)
    if summed:
        bs, ls, ss, rs = ([size[c] for c in group] for group in (batch, left, summed, right))
        am = _permuted(a, ta, "".join(batch + left + summed)).reshape(math.prod(bs), math.prod(ls), math.prod(ss))
        bm = _permuted(b, tb, "".join(batch + summed + right)).reshape(math.prod(bs), math.prod(ss), math.prod(rs))
        return MATMUL(am, bm).reshape(*bs, *ls, *rs), "".join(batch + left + right)
    order = "".join(batch + left + summed + right)

    def aligned(x, t):
        own = "".join(c for c in order if c in t)
        return CAST(_permuted(x, t, own), dtype=F32).reshape(tuple(size[c] if c in t else 1 for c in order))
    return CAST(MUL(aligned(a, ta), aligned(b, tb)), dtype=a.dtype), order


def _einsum(*xs, terms, out):
    """Einstein summation: products of the operands summed over the indices not in the output."""
    pairs = [_diagonal(x, t) for x, t in zip(xs, terms)]
    for k, (x, t) in enumerate(pairs):      # indices only this operand has and the output lacks
        others = out + "".join(tt for j, (_, tt) in enumerate(pairs) if j != k)
        lone = [i for i, c in enumerate(t) if c not in others]
        if lone:
            pairs[k] = (SUM(x, dim=tuple(lone)), "".join(c for c in t if c not in [t[i] for i in lone]))
    x, t = pairs[0]
    for k in range(1, len(pairs)):
        b, tb = pairs[k]
        keep = out + "".join(tt for _, tt in pairs[k + 1:])
        x, t = _contract(x, t, b, tb, keep)
        lone = [i for i, c in enumerate(t) if c not in keep]
        if lone:
            x, t = SUM(x, dim=tuple(lone)), "".join(c for c in t if c in keep)
    if t == out:
        return MUL(x, 1) if any(x is y for y in xs) else x
    return _permuted(x, t, out)


# ----------------------------------------------------------------------------- the table

OPS = [
    OpDef("clone", decompose=_clone, kind=COMPOSITE, vjp=lambda ctx, g: (g,)),
    OpDef("detach", decompose=_detach, kind=COMPOSITE),
    OpDef("cpu", decompose=_cpu, kind=COMPOSITE, function=False),
    fused_op("expand", _expand, _expand_signature, function=False, vjp=_expand_vjp),
    fused_op("repeat", _repeat, _repeat_signature, function=False),
    fused_op("mm", _mm, _mm_signature),
    fused_op("outer", _outer, _outer_signature),
    fused_op("masked_fill", _masked_fill, _masked_fill_signature),
    fused_op("tril", _tri(True), _tri_signature("tril")),
    fused_op("triu", _tri(False), _tri_signature("triu")),
    fused_op("flip", _flip, _flip_signature),
    fused_op("roll", _roll, _roll_signature),
    fused_op("cumsum", _cumsum, _scan_signature("cumsum"), vjp=_cumsum_vjp),
    fused_op("cumprod", _cumprod, _scan_signature("cumprod")),
    fused_op("einsum", _einsum, _einsum_signature, method=False),
]
