"""Argument generators of the op catalogue: ``gen(rng, cls) -> (inputs, kwargs)``.

``inputs`` lists one entry per tensor operand (a shape, a ``Like`` or a ``Fixed``); ``kwargs``
are the static arguments. Every extent comes from ``harness.dims`` for the shape class ``cls``.
"""

from __future__ import annotations

import math

import numpy as np

from .harness import Fixed, Like, dims


def _rank(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def shape(rng, cls, lo=1, hi=4, cap=4096):
    return dims(rng, cls, _rank(rng, lo, hi), cap)


def _cap(cls):
    return 1 << 15 if cls == "large" else 2048


def unary(lo=1, hi=4, cap=None, **fixed):
    """One tensor of rank lo..hi; ``fixed`` kwargs are passed through."""
    def gen(rng, cls):
        return [shape(rng, cls, lo, hi, cap or _cap(cls))], dict(fixed)
    return gen


def _broadcast_partner(rng, a):
    how = int(rng.integers(0, 3))
    if how == 0 or not a:
        return a
    if how == 1:        # some dims set to 1
        return tuple(1 if rng.random() < 0.5 else d for d in a)
    return a[int(rng.integers(1, len(a) + 1)):]      # leading dims dropped


def binary(n=2, **fixed):
    """``n`` tensors that broadcast together (the first has the full shape or the others do)."""
    def gen(rng, cls):
        a = shape(rng, cls, 1, 4, _cap(cls))
        shapes = [a] + [_broadcast_partner(rng, a) for _ in range(n - 1)]
        if rng.random() < 0.3:
            shapes = shapes[::-1]
        return shapes, dict(fixed)
    return gen


def scalar(*values):
    """One tensor and one Python scalar ``s`` out of ``values``."""
    def gen(rng, cls):
        return [shape(rng, cls, 1, 4, _cap(cls))], {"s": values[int(rng.integers(len(values)))]}
    return gen


def where(rng, cls):
    shapes, _ = binary(3)(rng, cls)
    cond = rng.random(shapes[0]) < 0.5
    return [Fixed(cond), shapes[1], shapes[2]], {}


def masked(rng, cls):
    """A tensor and a bool mask that broadcasts to it (masked_fill)."""
    a = shape(rng, cls, 1, 4, _cap(cls))
    m = _broadcast_partner(rng, a)
    return [a, Fixed(rng.random(m) < 0.5)], {"value": float(rng.choice((-1.5, 0.0, 7.0)))}


def _pick_dim(rng, cls, a):
    if cls == "one" and 1 in a:
        return a.index(1)
    return int(rng.integers(-len(a), len(a)))


def reduce(multi=True, none=True, keepdim=True, lo=1, **fixed):
    """A tensor and ``dim`` (None, an int, or a tuple when ``multi``) and ``keepdim``."""
    def gen(rng, cls):
        a = shape(rng, cls, lo, 4, _cap(cls))
        kw = dict(fixed)
        r = rng.random()
        if none and r < 0.25:
            pass
        elif multi and r > 0.75 and len(a) > 1:
            kw["dim"] = tuple(sorted(int(d) for d in rng.choice(len(a), 2, replace=False)))
        else:
            kw["dim"] = _pick_dim(rng, cls, a)
        if keepdim and "dim" in kw:
            kw["keepdim"] = bool(rng.random() < 0.5)
        return [a], kw
    return gen


def along(lo=1, **fixed):
    """A tensor and one ``dim`` (softmax, cumsum, sort ...)."""
    def gen(rng, cls):
        a = shape(rng, cls, lo, 4, _cap(cls))
        return [a], {"dim": _pick_dim(rng, cls, a), **fixed}
    return gen


def variance(rng, cls):
    [a], kw = reduce(multi=True)(rng, cls)
    kw["correction"] = int(rng.choice((0, 1, 2)))
    return [a], kw


def norm(params=2):
    """An input, ``normalized_shape`` (1 or 2 trailing dims) and, 70% of the time, ``params``
    affine parameters of that shape (weight, bias)."""
    def gen(rng, cls):
        a = shape(rng, cls, 2, 4, _cap(cls))
        k = int(rng.integers(1, min(2, len(a)) + 1))
        ns = a[len(a) - k:]
        affine = bool(rng.random() < 0.7)
        return [a] + ([ns] * params if affine else []), {"ns": ns}
    return gen


def batch_norm(lo, hi=4):
    """An (N, C, ...) input of rank lo..hi and its running mean, variance, weight and bias."""
    def gen(rng, cls):
        a = shape(rng, cls, lo, hi, _cap(cls))
        c = (a[1],)
        return [a, Like(c, "any"), Like(c, "pos"), Like(c, "any"), Like(c, "any")], {}
    return gen


# ----------------------------------------------------------------------------- matrix products


def _mkn(rng, cls, cap=None):
    m, k, n = dims(rng, cls, 3, cap or (1 << 15 if cls == "large" else 1 << 12))
    if cls == "large":
        m, k, n = min(m, 257), min(k, 257), min(n, 257)
    return m, k, n


def mm(rng, cls):
    m, k, n = _mkn(rng, cls)
    return [(m, k), (k, n)], {}


def bmm(rng, cls):
    m, k, n = _mkn(rng, cls)
    b = dims(rng, "prime" if cls != "empty" else cls, 1)[0]
    return [(b, m, k), (b, k, n)], {}


def matmul_3d(rng, cls):
    (a, b), _ = bmm(rng, cls)
    return ([a, b[1:]] if rng.random() < 0.5 else [a, b]), {}


def matmul_4d(rng, cls):
    """Attention scores: (B, H, S, D) @ (B, H, D, S)."""
    s, d = dims(rng, cls, 2, 1024)
    bsz, h = int(rng.choice((1, 2))), int(rng.choice((2, 3)))
    return [(bsz, h, s, d), (bsz, h, s, d)], {}


def matmul_bcast(rng, cls):
    m, k, n = _mkn(rng, cls)
    b = int(rng.choice((2, 3, 5)))
    forms = [[(1, m, k), (b, k, n)], [(b, 1, m, k), (3, k, n)], [(m, k), (b, 2, k, n)]]
    return forms[int(rng.integers(len(forms)))], {}


def matmul_vec(rng, cls):
    m, k, n = _mkn(rng, cls)
    forms = [[(k,), (k, n)], [(m, k), (k,)], [(k,), (k,)], [(2, m, k), (k,)], [(k,), (3, k, n)]]
    return forms[int(rng.integers(len(forms)))], {}


def linear(bias: bool):
    def gen(rng, cls):
        m, k, n = _mkn(rng, cls)
        lead = (m,) if rng.random() < 0.5 else (2, m)
        return [lead + (k,), (n, k)] + ([(n,)] if bias else []), {}
    return gen


def addmm(scaled: bool):
    """``addmm(input, a, b)``: a 1-D input (a bias) or, ``scaled``, a 2-D input with beta/alpha."""
    def gen(rng, cls):
        m, k, n = _mkn(rng, cls)
        if not scaled:
            return [(n,), (m, k), (k, n)], {}
        beta, alpha = [(0.5, 2.0), (1, 0.5), (0, 1)][int(rng.integers(3))]
        return [(m, n), (m, k), (k, n)], {"beta": beta, "alpha": alpha}
    return gen


def outer(rng, cls):
    m, n = dims(rng, cls, 2)
    return [(m,), (n,)], {}


def conv2d(bias: bool):
    return lambda rng, cls: _conv2d(rng, cls, bias)


def _conv2d(rng, cls, bias):
    """NCHW input, (OC, C/groups, KH, KW) weight and a bias; stride/padding/dilation/groups."""
    if cls == "one":      # 1x1 images, including output pixels that see only padding
        n, c, oc = 1, int(rng.choice((1, 3))), int(rng.choice((1, 4)))
        h = w = 1
        k, stride, pad, dil, groups = 1, 2, 1, 1, 1
    else:
        n = 0 if cls == "empty" else int(rng.choice((1, 2)))
        c, oc = int(rng.choice((1, 3, 4))), int(rng.choice((2, 5, 8)))
        h, w = dims(rng, "prime" if cls == "empty" else cls, 2, 400 if cls != "large" else 4096)
        h, w = max(h, 3), max(w, 3)
        k, stride, pad = int(rng.choice((1, 3))), int(rng.choice((1, 2))), int(rng.choice((0, 1)))
        dil = 2 if k == 3 and min(h, w) >= 5 and rng.random() < 0.2 else 1
        groups = c if c > 1 and oc % c == 0 and rng.random() < 0.3 else 1
    specs = [(n, c, h, w), (oc, c // groups, k, k)] + ([(oc,)] if bias else [])
    return specs, {"stride": stride, "padding": pad, "dilation": dil, "groups": groups}


def pool(adaptive=False, **options):
    """An NCHW input and a window; ``options`` (ceil_mode, dilation, return_indices,
    count_include_pad) are drawn from their given choices."""
    def gen(rng, cls):
        n = 0 if cls == "empty" else 1
        c = int(rng.choice((1, 3)))
        h, w = dims(rng, "prime" if cls == "empty" else cls, 2, 600)
        if cls == "one":
            h, w = 1, max(w, 2)
        if adaptive:
            return [(n, c, h, w)], {"output_size": (int(rng.choice((1, 2))), int(rng.choice((1, 3))))}
        k = int(rng.choice((1, 2, 3))) if min(h, w) >= 3 else 1
        s = int(rng.choice((1, k)))
        p = int(rng.integers(0, k // 2 + 1))
        kw = {"kernel_size": k, "stride": s, "padding": p}
        for name, choices in options.items():
            kw[name] = choices[int(rng.integers(0, len(choices)))]
        if kw.get("dilation", 1) > 1 and min(h, w) < kw["dilation"] * (k - 1) + 1:
            kw["dilation"] = 1
        return [(n, c, h, w)], kw
    return gen


# ----------------------------------------------------------------------------- views and movement


def reshape(rng, cls):
    a = shape(rng, cls, 1, 4, _cap(cls))
    n = math.prod(a)
    if n == 0:
        return [a], {"shape": (0, a[-1]) if a[-1] else (-1,)}
    f = [d for d in range(1, n + 1) if n % d == 0]
    d0 = int(rng.choice(f))
    new = (d0, -1) if rng.random() < 0.5 else (-1, d0, 1)
    return [a], {"shape": new}


def transpose(rng, cls):
    a = shape(rng, cls, 2, 4, _cap(cls))
    d0, d1 = (int(d) for d in rng.choice(len(a), 2, replace=False))
    return [a], {"dim0": d0, "dim1": d1}


def permute(rng, cls):
    a = shape(rng, cls, 2, 4, _cap(cls))
    return [a], {"dims": tuple(int(d) for d in rng.permutation(len(a)))}


def squeeze(rng, cls):
    a = shape(rng, cls, 1, 4, _cap(cls))
    a = a[:1] + (1,) + a[1:]
    return [a], ({"dim": 1} if rng.random() < 0.5 else {})


def unsqueeze(rng, cls):
    a = shape(rng, cls, 1, 3, _cap(cls))
    return [a], {"dim": int(rng.integers(-len(a) - 1, len(a) + 1))}


def flatten(rng, cls):
    a = shape(rng, cls, 2, 4, _cap(cls))
    s = int(rng.integers(0, len(a)))
    return [a], {"start_dim": s, "end_dim": int(rng.integers(s, len(a)))}


def joined(stack=False):
    """2..3 tensors for cat (equal except along dim) or stack (equal)."""
    def gen(rng, cls):
        a = shape(rng, cls, 1, 3, _cap(cls) // 3)
        d = int(rng.integers(0, len(a) + (1 if stack else 0)))
        shapes = [a]
        for _ in range(int(rng.integers(1, 3))):
            b = list(a)
            if not stack:
                b[d] = int(rng.choice((0, 1, 3, 5) if cls in ("empty", "one") else (2, 3, 5)))
            shapes.append(tuple(b))
        return shapes, {"dim": d}
    return gen


def split(sections=False):
    def gen(rng, cls):
        a = shape(rng, cls, 1, 3, _cap(cls))
        d = int(rng.integers(0, len(a)))
        if sections:
            n = a[d]
            cut = int(rng.integers(0, n + 1))
            return [a], {"split": [cut, n - cut], "dim": d}
        return [a], {"split": int(rng.choice((1, 2, 4))), "dim": d}
    return gen


def chunk(rng, cls):
    a = shape(rng, cls, 1, 3, _cap(cls))
    return [a], {"chunks": int(rng.choice((1, 2, 3))), "dim": int(rng.integers(0, len(a)))}


def getitem(rng, cls):
    a = shape(rng, cls, 2, 4, _cap(cls))
    forms = ["1:", "::2", "..., -1", "None, 0", ":, 1:3", "-1, ..., ::3"]
    return [a], {"index": forms[int(rng.integers(len(forms)))]}


def index_tensor(rng, cls):
    """A tensor and an integer index tensor into dim 0 (``x[idx]``)."""
    a = shape(rng, cls, 1, 3, _cap(cls))
    idx = rng.integers(0, a[0], size=int(rng.integers(0 if cls == "empty" else 1, 5))) if a[0] else \
        np.zeros(0, np.int64)
    return [a, Fixed(idx)], {}


def index_along(rng, cls):
    """A tensor and an integer index tensor into one of its dims (``x[:, idx]``, ``x[..., idx]``), negative
    indices and repeats included."""
    a = shape(rng, cls, 1, 3, _cap(cls))
    d = int(rng.integers(0, len(a)))
    n = a[d]
    idx = rng.integers(-n, n, size=int(rng.integers(0 if cls == "empty" else 1, 5))) if n else np.zeros(0, np.int64)
    return [a, Fixed(idx)], {"dim": d, "ellipsis": bool(d == len(a) - 1 and rng.random() < 0.5)}


def bool_index(rng, cls):
    a = shape(rng, cls, 1, 3, _cap(cls))
    return [a, Fixed(rng.random(a) < 0.5)], {}


def topk(rng, cls):
    a = shape(rng, cls, 1, 3, 256)
    d = _pick_dim(rng, cls, a)
    return [a], {"k": int(rng.integers(0, a[d] + 1)), "dim": d, "largest": bool(rng.random() < 0.6)}


def sort(rng, cls):
    a = shape(rng, cls, 1, 3, 256)
    return [a], {"dim": _pick_dim(rng, cls, a), "descending": bool(rng.random() < 0.5)}


def gather(scatter=False, select=False, reduce=None):
    """A tensor, ``dim`` and an int64 index (and a ``src`` for scatter; with ``reduce``, targets
    repeat and the reduce= keyword is set)."""
    def gen(rng, cls):
        a = shape(rng, cls, 1, 3, _cap(cls))
        d = int(rng.integers(0, len(a)))
        if select:
            idx = rng.integers(0, max(a[d], 1), size=int(rng.integers(1, 5)) if a[d] else 0)
            return [a, Fixed(idx)], {"dim": d}
        ishape = tuple(int(rng.integers(0 if cls == "empty" else 1, n + 1)) if n else 0 for n in a)
        if reduce is not None:     # repeated targets: every src element is combined
            idx = rng.integers(0, max(a[d], 1), size=ishape) if a[d] else np.zeros(ishape, np.int64)
            return [a, Fixed(idx), ishape], {"dim": d, "reduce": reduce}
        if scatter:    # distinct targets per column so the result does not depend on write order
            other = ishape[:d] + ishape[d + 1:]
            cols = [rng.permutation(a[d])[: ishape[d]] for _ in range(math.prod(other))]
            perm = np.stack(cols, -1) if cols else np.zeros((ishape[d], 0), np.int64)
            idx = np.moveaxis(perm.reshape((ishape[d],) + other), 0, d)
            return [a, Fixed(idx), ishape], {"dim": d}
        idx = rng.integers(0, max(a[d], 1), size=ishape) if a[d] else np.zeros(ishape, np.int64)
        return [a, Fixed(idx)], {"dim": d}
    return gen


def expand(rng, cls):
    a = shape(rng, cls, 1, 3, 512)
    a = tuple(1 if rng.random() < 0.5 else d for d in a)
    new = tuple(int(rng.choice((2, 3, 5))) if d == 1 else (-1 if rng.random() < 0.3 else d) for d in a)
    return [a], {"size": ((int(rng.choice((1, 2))),) if rng.random() < 0.4 else ()) + new}


def repeat(rng, cls):
    a = shape(rng, cls, 1, 3, 512)
    reps = tuple(int(rng.choice((1, 2, 3))) for _ in range(len(a) + int(rng.integers(0, 2))))
    return [a], {"repeats": reps}


def flip(rng, cls):
    a = shape(rng, cls, 1, 4, _cap(cls))
    k = int(rng.integers(1, len(a) + 1))
    return [a], {"dims": tuple(int(d) for d in rng.choice(len(a), k, replace=False))}


def roll(rng, cls):
    a = shape(rng, cls, 1, 4, _cap(cls))
    d = int(rng.integers(0, len(a)))
    return [a], {"shifts": int(rng.integers(-7, 8)), "dims": d}


def tri(rng, cls):
    a = shape(rng, cls, 2, 3, _cap(cls))
    return [a], {"diagonal": int(rng.integers(-2, 3))}


def creation(rng, cls):
    return [], {"size": shape(rng, cls, 1, 3, _cap(cls))}


def eye(rng, cls):
    n, m = dims(rng, cls, 2, 1024)
    return [], {"n": n, "cols": m}


def arange(rng, cls):
    n = 0 if cls == "empty" else (1 if cls == "one" else dims(rng, cls, 1)[0])
    start = int(rng.integers(-5, 5))
    step = int(rng.choice((1, 2, 3)))
    return [], {"start": start, "end": start + n * step, "step": step}


def cross_entropy(rng, cls):
    n, c = dims(rng, cls, 2, 2048)
    return [(n, c), Fixed(rng.integers(0, max(c, 1), size=n) if c else np.zeros(n, np.int64))], {}


def einsum(form):
    def gen(rng, cls):
        m, k, n = _mkn(rng, cls)
        b = 2
        shapes = {"ij,jk->ik": [(m, k), (k, n)], "bij,bjk->bik": [(b, m, k), (b, k, n)],
                  "ij->ji": [(m, k)], "i,j->ij": [(m,), (n,)], "ii->": [(m, m)], "ijk->j": [(m, k, n)],
                  "bhqd,bhkd->bhqk": [(1, b, m, k), (1, b, n, k)],
                  "...ij,...jk->...ik": [(b, 3, m, k), (b, 3, k, n)], "...ij,jk": [(b, m, k), (k, n)],
                  "b...->b": [(b, m, k)], "...ii->...i": [(b, m, m)]}[form]
        return shapes, {"eq": form}
    return gen


def pad(mode):
    """An input and ``F.pad`` arguments of ``mode``: 1 to 3 padded dimensions (of an input with 1 or 2 more in the
    non-constant modes), each pad from -2 to 4 and one at least positive, at times past what the mode allows (both must then refuse).
    Circular pads stay within what remains after cropping: past it, PyTorch reads memory outside the input."""
    def gen(rng, cls):
        k = int(rng.integers(1, 4))
        a = shape(rng, cls, k, 4, _cap(cls)) if mode == "constant" else shape(rng, cls, k + 1, k + 2, 1024)
        pads = []
        for i in range(k):
            size = a[len(a) - 1 - i]
            lo, hi = (int(v) for v in rng.integers(-2, 5, 2))
            if mode == "circular":
                kept = size - max(-lo, 0) - max(-hi, 0)
                lo, hi = (min(p, max(kept, 0)) for p in (lo, hi))
                if kept < 1:
                    lo = hi = 0
            pads += [lo, hi]
        if max(pads) <= 0:  # something to compute on the device (a crop alone is a copy: test_pad.py)
            pads[1] = 1
        kw = {"pad": tuple(pads), "mode": mode}
        if mode == "constant" and rng.random() < 0.5:
            kw["value"] = float(rng.choice((-1.5, 2.0, 0.25)))
        return [a], kw
    return gen
