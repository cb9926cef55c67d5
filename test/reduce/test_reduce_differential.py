"""Differential test: random programs mixing elementwise ops and reductions, against NumPy.

Hypothesis draws a shape (1-3 dims, odd sizes), a dtype, the codegen options and a program of one
of these forms, with f, g, h random elementwise ops:

* ``f(g(x) op reduce(h(x), dim, keepdim=True))`` (sum, mean, amax, amin over one axis or all)
* ``softmax/log_softmax(g(x) op y, dim)``
* ``layer_norm/rms_norm(x + y (+ z), trailing dims, weight, bias)``

compiled through every pass, run on the simulator (no findings allowed) and compared with the
float64 NumPy evaluation at the dtype's tolerance.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyasc

FLOAT_DTYPES = {"float32": pyasc.float32, "float16": pyasc.float16, "bfloat16": pyasc.bfloat16}
STORAGE = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}  # NumPy's own rounding
TOL = {"float32": (2e-4, 2e-4), "float16": (2e-2, 2e-2), "bfloat16": (6e-2, 6e-2)}
# elementwise ops that keep values in [-3, 3]-ish ranges
UNARY = {
    "id": (lambda t: t, lambda a: a),
    "tanh": (pyasc.tanh, np.tanh),
    "sigmoid": (pyasc.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "neg": (pyasc.neg, np.negative),
    "relu": (pyasc.relu, lambda a: np.maximum(a, 0)),
    "half": (lambda t: t * 0.5, lambda a: a * 0.5),
}
BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "maximum": (pyasc.maximum, np.maximum),
}
REDUCE = {
    "sum": (pyasc.sum, np.sum),
    "mean": (pyasc.mean, np.mean),
    "amax": (pyasc.amax, np.max),
    "amin": (pyasc.amin, np.min),
}


def _softmax(a, axis, log):
    s = a - a.max(axis=axis, keepdims=True)
    lse = np.log(np.exp(s).sum(axis=axis, keepdims=True))
    return s - lse if log else np.exp(s - lse)


def _norm(a, k, w, b, rms, eps=1e-5):
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


@st.composite
def programs(draw, ndim):
    form = draw(st.sampled_from(["reduce", "softmax", "norm"]))
    f, g, h = (draw(st.sampled_from(list(UNARY))) for _ in range(3))
    op = draw(st.sampled_from(list(BINARY)))
    if form == "reduce":
        dim = draw(st.sampled_from([None, *range(-ndim, ndim)]))
        return ("reduce", f, g, h, op, draw(st.sampled_from(list(REDUCE))), dim)
    if form == "softmax":
        return ("softmax", g, op, draw(st.integers(-ndim, ndim - 1)), draw(st.booleans()))
    return ("norm", draw(st.integers(1, ndim)), draw(st.booleans()), draw(st.booleans()), draw(st.booleans()),
            draw(st.booleans()))


def run_program(prog, x, y, w, b, lib, rounded=lambda a: a):
    """The program on pyasc tensors (lib="pyasc") or float64 arrays (lib="np"); ``rounded`` rounds an array to the
    tensors' dtype, as PyTorch rounds each op's result (a norm's input sums cancel, so the rounding decides)."""
    u = (lambda n: UNARY[n][0]) if lib == "pyasc" else (lambda n: UNARY[n][1])
    bi = (lambda n: BINARY[n][0]) if lib == "pyasc" else (lambda n: BINARY[n][1])
    if prog[0] == "reduce":
        _, f, g, h, op, red, dim = prog
        if lib == "pyasc":
            r = REDUCE[red][0](u(h)(x), dim, True)
        else:
            r = REDUCE[red][1](u(h)(x), axis=dim, keepdims=True)
        return u(f)(bi(op)(u(g)(x), r))
    if prog[0] == "softmax":
        _, g, op, dim, log = prog
        v = bi(op)(u(g)(x), y)
        if lib == "pyasc":
            return (pyasc.log_softmax if log else pyasc.softmax)(v, dim)
        return _softmax(v, dim, log)
    _, k, rms, three, has_w, has_b = prog
    v = x + y if lib == "pyasc" else rounded(x + y)
    if three:
        v = v + x * y if lib == "pyasc" else rounded(v + rounded(x * y))
    ns = tuple(x.shape[x.ndim - k:])
    if lib == "pyasc":
        return (pyasc.rms_norm if rms else pyasc.layer_norm)(v, ns, weight=w if has_w else None,
                                                             bias=b if has_b else None, eps=1e-5)
    return _norm(v, k, w if has_w else None, b if has_b else None, rms)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_reduction_programs(data):
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.lists(st.sampled_from([1, 3, 5, 7, 13, 31, 65]), min_size=ndim, max_size=ndim)))
    dtype_name = data.draw(st.sampled_from(list(FLOAT_DTYPES)))
    prog = data.draw(programs(ndim))
    options = {
        "sync_style": data.draw(st.sampled_from(["queue", "flags"])),
        "buffers": data.draw(st.sampled_from([1, 2])),
        "cores": data.draw(st.sampled_from([1, 3, 48])),
    }
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    dtype = FLOAT_DTYPES[dtype_name]

    def make(s, lo=-2.0, hi=2.0):
        return pyasc.tensor(rng.uniform(lo, hi, size=s).astype(np.float32)).to(dtype)

    k = prog[1] if prog[0] == "norm" else 1
    ns = shape[ndim - k:]
    x, y, w, b = make(shape), make(shape), make(ns, 0.5, 1.5), make(ns, -1.0, 1.0)
    arrays = [t.numpy().astype(np.float64) for t in (x, y, w, b)]

    compiled = pyasc.jit(lambda x, y, w, b: run_program(prog, x, y, w, b, "pyasc"),
                         options=options).lower(x, y, w, b).compile()
    got, report = compiled.simulate(x, y, w, b)
    assert report.findings == [], report.findings
    storage = STORAGE[dtype_name]
    want = np.asarray(run_program(prog, *arrays, "np", lambda a: a.astype(storage).astype(np.float64)))
    assert got.shape == want.shape
    rtol, atol = TOL[dtype_name]
    if prog[0] == "reduce" and prog[5] == "sum":
        atol *= np.sqrt(want.size and np.prod(shape) / max(1, want.size))  # rounding grows with the count
    if prog[0] == "norm":
        atol *= 4  # |y| up to a few units, the affine part in the storage dtype
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol,
                               err_msg=f"prog={prog} shape={shape} dtype={dtype_name} options={options}")
