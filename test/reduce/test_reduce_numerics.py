"""Reductions and row-wise composites compiled and run on the simulator, against float64 NumPy.

Every reduction (sum, mean, prod, amax, amin; max/min over all elements) is checked in the three
float dtypes over the last, first and middle axes, several axes, all axes and negative axes, with
and without ``keepdim``; softmax/log_softmax over each axis; layer_norm and rms_norm with and
without the affine parameters. Each program runs through ``jit(...).lower().compile().simulate()``
so the simulator's report is checked as well: no findings (races, flag errors, UB overflow).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyasc

DTYPES = {"float32": pyasc.float32, "float16": pyasc.float16, "bfloat16": pyasc.bfloat16}
# unit roundoff of each dtype
EPS = {"float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}
# (rtol, atol) of the composites (softmax, log_softmax, layer_norm, rms_norm): computed in f32
# on the device and rounded once to the storage dtype
COMPOSITE_TOL = {"float32": (2e-5, 2e-5), "float16": (1e-2, 1e-2), "bfloat16": (3e-2, 3e-2)}
SHAPE = (3, 5, 7)



def _input(shape, dtype_name, rng, low=-2.0, high=2.0):
    t = pyasc.tensor(rng.uniform(low, high, size=shape).astype(np.float32)).to(DTYPES[dtype_name])
    return t, t.numpy().astype(np.float64)


def _run(fn, *tensors, options=None):
    """Compile, simulate and check the report; the output(s) as NumPy arrays."""
    compiled = pyasc.jit(fn, options=options).lower(*tensors).compile()
    out, report = compiled.simulate(*tensors)
    assert report.findings == [], report.findings
    return out


def _reduced_count(shape, dim) -> int:
    if dim is None:
        return int(np.prod(shape))
    dims = dim if isinstance(dim, tuple) else (dim,)
    return int(np.prod([shape[d] for d in dims]))


def _check_reduction(got, want, dtype_name, n, scale):
    """``n`` elements of magnitude up to ``scale`` reduced: a few roundings per element (the
    accumulation may be in the storage dtype) plus the final rounding."""
    eps = EPS[dtype_name]
    rtol = max(4 * eps, 1e-6)
    atol = max(4 * eps * scale * np.sqrt(n) * 2, 1e-6)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)


# (dim, keepdim): last, negative last, first, middle, negative middle, several, all
AXES = [
    pytest.param(2, False, id="last"),
    pytest.param(-1, True, id="neg_last-keep"),
    pytest.param(0, False, id="first"),
    pytest.param(0, True, id="first-keep"),
    pytest.param(1, False, id="middle"),
    pytest.param(-2, True, id="neg_middle-keep"),
    pytest.param((0, 2), False, id="first_last"),
    pytest.param((1, 2), True, id="trailing2-keep"),
    pytest.param(None, False, id="all"),
    pytest.param(None, True, id="all-keep"),
]

REDUCTIONS = {
    "sum": (pyasc.sum, np.sum),
    "mean": (pyasc.mean, np.mean),
    "amax": (pyasc.amax, np.max),
    "amin": (pyasc.amin, np.min),
}


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("dim,keepdim", AXES)
@pytest.mark.parametrize("op", list(REDUCTIONS))
def test_reduction(op, dim, keepdim, dtype_name, request):
    rng = np.random.default_rng(hash((op, str(dim), keepdim, dtype_name)) % 2**32)
    t, a = _input(SHAPE, dtype_name, rng)
    fn, ref = REDUCTIONS[op]
    got = _run(lambda x: fn(x, dim, keepdim), t)
    axis = dim if dim is None or isinstance(dim, tuple) else (dim,)
    want = ref(a, axis=axis, keepdims=keepdim)
    n = _reduced_count(SHAPE, dim)
    if op in ("amax", "amin"):
        # exact: the result is one of the inputs
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.astype(np.float64), want)
    else:
        _check_reduction(got, want, dtype_name, n if op == "sum" else 1, 2.0)


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("dim,keepdim", [
    pytest.param(-1, False, id="last"),
    pytest.param(0, True, id="first-keep"),
    pytest.param(1, False, id="middle"),
    pytest.param((0, 1), False, id="leading2"),
    pytest.param(None, False, id="all"),
])
def test_prod(dim, keepdim, dtype_name):
    """Values near 1 keep the product of up to 105 factors well inside every dtype's range."""
    rng = np.random.default_rng(7)
    t, a = _input(SHAPE, dtype_name, rng, 0.9, 1.1)
    got = _run(lambda x: pyasc.prod(x, dim, keepdim), t)
    axis = dim if dim is None or isinstance(dim, tuple) else (dim,)
    want = np.prod(a, axis=axis, keepdims=keepdim)
    n = _reduced_count(SHAPE, dim)
    assert got.shape == want.shape
    # one rounding per multiplication, relative: a random walk of n steps (4 sigma)
    rtol = max(4 * EPS[dtype_name] * np.sqrt(n) * 2, 1e-6)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("which", ["max", "min"])
def test_max_min_of_all_elements(which, dtype_name):
    rng = np.random.default_rng(3)
    t, a = _input((4, 9), dtype_name, rng)
    got = _run(lambda x: getattr(pyasc, which)(x), t)
    want = a.max() if which == "max" else a.min()
    assert got.shape == ()
    assert float(got) == want


ARG_CASES = [((5, 12), 1), ((5, 12), 0), ((4, 9, 6), 1), ((2, 3, 4, 5), 0), ((2, 3, 4, 5), 2), ((70, 3), 0),
             ((17,), 0)]


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("shape,dim", ARG_CASES, ids=[f"{s}-dim{d}" for s, d in ARG_CASES])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reductions_over_every_axis(op, shape, dim, dtype_name):
    """Small integers make many ties: the first index wins, as in NumPy and PyTorch."""
    rng = np.random.default_rng(2)
    t = pyasc.tensor(rng.integers(-3, 4, size=shape).astype(np.float32)).to(DTYPES[dtype_name])
    a = t.numpy()
    for keep in (False, True):
        got = _run(lambda x: getattr(pyasc, op)(x, dim, keep), t)
        want = getattr(np, op)(a, axis=dim, keepdims=keep)
        assert got.shape == want.shape and got.dtype == np.int32
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rows", [20, 73])
def test_argmax_ties_among_entries_left_over_by_the_tree(rows):
    """20 = 2 * 8 + 4 and 73 = 9 * 8 + 1 (then 9 = 8 + 1): entries outside the groups of eight are
    combined last, in index order, so equal maxima there still give the first index."""
    a = -np.ones((rows, 3), np.float32)
    a[[rows - 4, rows - 1], 0] = 1.0
    a[[3, rows - 3], 1] = 1.0
    a[[rows - 2, rows - 1], 2] = 1.0
    got = _run(lambda x: pyasc.argmax(x, 0), pyasc.tensor(a))
    np.testing.assert_array_equal(got, np.argmax(a, axis=0))


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_with_dim_returns_values_and_indices_over_a_leading_axis(op):
    rng = np.random.default_rng(4)
    t = pyasc.tensor(rng.integers(-3, 4, size=(9, 4, 3)).astype(np.float32))
    a = t.numpy()
    values, indices = _run(lambda x: tuple(getattr(pyasc, op)(x, 0)), t)
    np.testing.assert_array_equal(values, getattr(np, op)(a, axis=0))
    np.testing.assert_array_equal(indices, getattr(np, f"arg{op}")(a, axis=0))


@pytest.mark.parametrize("n", [1 << 16, 65537])
def test_argmax_of_rows_longer_than_ub(n):
    """Rows cut into pieces (with a tail when ``n`` has no suitable divisor); ties across pieces
    keep the first index."""
    rng = np.random.default_rng(6)
    a = rng.integers(-50, 50, size=(2, n)).astype(np.float32)
    a[0, [100, n - 3]] = 60.0  # the same maximum in the first piece and in the last piece or tail
    a[1, n - 1] = 70.0
    t = pyasc.tensor(a)
    got = _run(lambda x: pyasc.argmax(x, -1), t, options={"cores": 4})
    np.testing.assert_array_equal(got, np.argmax(a, axis=-1))


def _softmax_ref(a, axis, log):
    s = a - a.max(axis=axis, keepdims=True)
    lse = np.log(np.exp(s).sum(axis=axis, keepdims=True))
    return s - lse if log else np.exp(s - lse)


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("dim", [-1, 2, 0, 1, -2])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax(op, dim, dtype_name):
    rng = np.random.default_rng(11)
    t, a = _input(SHAPE, dtype_name, rng, -4.0, 4.0)
    got = _run(lambda x: getattr(pyasc, op)(x, dim), t)
    want = _softmax_ref(a, dim, op == "log_softmax")
    rtol, atol = COMPOSITE_TOL[dtype_name]
    if op == "log_softmax":
        atol *= 8  # values down to about -10, rounded to the dtype
    assert got.shape == want.shape and got.dtype == t.numpy().dtype
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)


def test_softmax_tensor_method_and_sync_flags():
    rng = np.random.default_rng(5)
    t, a = _input((37, 19), "float32", rng)
    got = _run(lambda x: x.softmax(-1), t, options={"sync_style": "flags"})
    np.testing.assert_allclose(got, _softmax_ref(a, -1, False), rtol=2e-5, atol=2e-6)


def _norm_ref(a, k, w, b, eps, rms):
    axes = tuple(range(a.ndim - k, a.ndim))
    if rms:
        y = a / np.sqrt((a * a).mean(axis=axes, keepdims=True) + eps)
    else:
        mu = a.mean(axis=axes, keepdims=True)
        y = (a - mu) / np.sqrt(((a - mu) ** 2).mean(axis=axes, keepdims=True) + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("op", ["layer_norm", "rms_norm"])
def test_norm(op, k, affine, dtype_name):
    rng = np.random.default_rng(13)
    t, a = _input(SHAPE, dtype_name, rng, -3.0, 3.0)
    ns = SHAPE[3 - k:]
    w = b = None
    tensors = [t]
    if affine in ("weight", "both"):
        w, wa = _input(ns, dtype_name, rng, 0.5, 1.5)
        tensors.append(w)
    if affine in ("bias", "both"):
        b, ba = _input(ns, dtype_name, rng, -1.0, 1.0)
        tensors.append(b)
    eps = 1e-5 if op == "layer_norm" else 1e-6

    def fn(x, *params):
        it = iter(params)
        wv = next(it) if w is not None else None
        bv = next(it) if b is not None else None
        return getattr(pyasc, op)(x, ns, weight=wv, bias=bv, eps=eps)

    got = _run(fn, *tensors)
    want = _norm_ref(a, k, wa if w is not None else None, ba if b is not None else None, eps, op == "rms_norm")
    rtol, atol = COMPOSITE_TOL[dtype_name]
    if dtype_name != "float32":
        atol *= 3  # |y| up to about 3 (x 1.5 + 1), the affine part in the storage dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("sync_style", ["queue", "flags"])
@pytest.mark.parametrize("op", ["sum", "amax", "mean_dim0", "layer_norm", "log_softmax"])
def test_sync_styles(op, sync_style):
    rng = np.random.default_rng(17)
    t, a = _input((33, 70), "float32", rng)
    w, wa = _input((70,), "float32", rng)
    fns = {
        "sum": (lambda x, w: x.sum(-1, keepdim=True) * w, lambda: a.sum(-1, keepdims=True) * wa),
        "amax": (lambda x, w: x.amax(1) + 1.0, lambda: a.max(1) + 1.0),
        "mean_dim0": (lambda x, w: x.mean(0) - w, lambda: a.mean(0) - wa),
        "layer_norm": (lambda x, w: pyasc.layer_norm(x, 70, weight=w), lambda: _norm_ref(a, 1, wa, None, 1e-5, False)),
        "log_softmax": (lambda x, w: (x * w).log_softmax(1), lambda: _softmax_ref(a * wa, 1, True)),
    }
    fn, ref = fns[op]
    got = _run(fn, t, w, options={"sync_style": sync_style, "cores": 4, "buffers": 2})
    np.testing.assert_allclose(got, ref(), rtol=1e-4, atol=1e-4)


def test_tensor_methods():
    rng = np.random.default_rng(19)
    t, a = _input((6, 10), "float32", rng, 0.9, 1.1)

    def fn(x):
        return (x.sum(1) + x.mean(1) + x.amax(1) + x.amin(1)
                + x.softmax(1).sum(1) + x.log_softmax(1).amax(-1) + x.max() - x.min())

    got = _run(fn, t)
    want = (a.sum(1) + a.mean(1) + a.max(1) + a.min(1) + 1.0
            + _softmax_ref(a, 1, True).max(-1) + a.max() - a.min())
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_prod_mixed_with_row_reduction():
    rng = np.random.default_rng(19)
    t, a = _input((6, 10), "float32", rng, 0.9, 1.1)
    got = _run(lambda x: x.prod(1) + x.sum(1), t)
    np.testing.assert_allclose(got, a.prod(1) + a.sum(1), rtol=1e-5, atol=1e-5)


def test_long_row_softmax():
    """A row of 300000 floats does not fit in UB: the row is reduced by trees of kernels."""
    rng = np.random.default_rng(23)
    t, a = _input((1, 300000), "float32", rng, -5.0, 5.0)
    got = _run(lambda x: pyasc.softmax(x, -1), t)
    want = _softmax_ref(a, -1, False)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-9)
    assert abs(float(got.astype(np.float64).sum()) - 1.0) < 1e-3


@pytest.mark.parametrize("dtype_name", list(DTYPES))
def test_one_row(dtype_name):
    """A single row: one core, one row tile."""
    rng = np.random.default_rng(29)
    t, a = _input((1, 33), dtype_name, rng)
    got = _run(lambda x: pyasc.layer_norm(x, 33) + pyasc.softmax(x, 1) + pyasc.sum(x, 1, keepdim=True), t)
    want = _norm_ref(a, 1, None, None, 1e-5, False) + _softmax_ref(a, 1, False) + a.sum(1, keepdims=True)
    rtol, atol = COMPOSITE_TOL[dtype_name]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=4 * atol)


def test_one_dim_input():
    rng = np.random.default_rng(31)
    t, a = _input((41,), "float32", rng)
    got = _run(lambda x: (pyasc.sum(x), pyasc.softmax(x, 0), pyasc.amin(x, 0, keepdim=True)), t)
    np.testing.assert_allclose(got[0], a.sum(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], _softmax_ref(a, 0, False), rtol=2e-5, atol=1e-6)
    np.testing.assert_array_equal(got[2], a.min(0, keepdims=True))
