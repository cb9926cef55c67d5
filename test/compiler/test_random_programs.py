"""Random programs beyond elementwise, compiled and simulated, against NumPy.

A seeded generator draws one program per case from a menu (reductions with an epilogue,
matmul/bmm/linear with epilogues, views, casts, topk and where) with random shapes, and compares
the simulated output with the same computation in NumPy (float64 on the inputs the program saw) at
the output dtype's tolerance. The default run checks one program of each kind; ``--random-long`` runs 5,000.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import pyasc

FAST = 8
LONG = 5000
TOL = {np.float32: 2e-4, np.float16: 2e-2}
KINDS = ("reduce", "matmul", "bmm", "linear", "view", "cast", "where", "topk")


def _data(rng: np.random.Generator, shape, dtype):
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def _epilogue(r: random.Random):
    """A scalar epilogue: (pyasc form, NumPy form)."""
    kind = r.choice(["none", "relu", "scale", "shift"])
    s = r.choice([0.5, 2.0, -1.5])
    return {
        "none": (lambda t: t, lambda a: a),
        "relu": (lambda t: pyasc.relu(t), lambda a: np.maximum(a, 0.0)),
        "scale": (lambda t: t * s, lambda a: a * s),
        "shift": (lambda t: t + s, lambda a: a + s),
    }[kind]


def make_program(seed: int):
    """(name, function, inputs, NumPy reference of the output, output dtype) for one seed."""
    r = random.Random(seed)
    rng = np.random.default_rng(seed)
    dims = [1, 3, 8, 16, 31, 64]
    kind = KINDS[seed % len(KINDS)]  # every kind in any run of len(KINDS) seeds
    post, ref_post = _epilogue(r)
    m, n = r.choice(dims), r.choice(dims[1:])
    if kind == "reduce":
        x = _data(rng, (m, n), np.float32)
        dim = r.choice([0, 1])
        return (f"sum(dim={dim})", lambda a: post(pyasc.sum(a, dim=dim)), [x],
                ref_post(x.astype(np.float64).sum(axis=dim)), np.float32)
    if kind in ("matmul", "bmm", "linear"):
        k = r.choice([16, 32, 48])
        if kind == "matmul":
            a, b = _data(rng, (m, k), np.float16), _data(rng, (k, n), np.float16)
            want = a.astype(np.float64) @ b.astype(np.float64)
            fn = lambda a_, b_: post(pyasc.matmul(a_, b_))  # noqa: E731
            return f"matmul {m}x{k}x{n}", fn, [a, b], ref_post(want), np.float16
        if kind == "bmm":
            batch = r.choice([1, 2, 3])
            a, b = _data(rng, (batch, m, k), np.float16), _data(rng, (batch, k, n), np.float16)
            want = a.astype(np.float64) @ b.astype(np.float64)
            return f"bmm {batch}x{m}x{k}x{n}", lambda a_, b_: post(pyasc.bmm(a_, b_)), [a, b], ref_post(want), np.float16
        x, w, bias = _data(rng, (m, k), np.float16), _data(rng, (n, k), np.float16), _data(rng, (n,), np.float16)
        want = x.astype(np.float64) @ w.astype(np.float64).T + bias.astype(np.float64)
        return (f"linear {m}x{k}->{n}", lambda x_, w_, b_: post(pyasc.linear(x_, w_, b_)), [x, w, bias],
                ref_post(want), np.float16)
    if kind == "view":
        x = _data(rng, (m, n), np.float32)
        lo = r.randrange(n)
        hi = r.randrange(lo + 1, n + 1)
        return (f"transpose+slice [{lo}:{hi}]", lambda a: post(pyasc.transpose(a, 0, 1)[lo:hi] * 2.0), [x],
                ref_post(x.astype(np.float64).T[lo:hi] * 2.0), np.float32)
    if kind == "cast":
        x = _data(rng, (m, n), np.float32)
        want = x.astype(np.float16).astype(np.float64) * 2.0
        return "cast f32->f16", lambda a: post(a.to(pyasc.float16) * 2.0), [x], ref_post(want), np.float16
    if kind == "where":
        x, y = _data(rng, (m, n), np.float32), _data(rng, (m, n), np.float32)
        want = np.where(x > y, x.astype(np.float64) * 2.0, y.astype(np.float64))
        return "where", lambda a, b: post(pyasc.where(a > b, a * 2.0, b)), [x, y], ref_post(want), np.float32
    x = _data(rng, (m, n), np.float32)
    k = r.randrange(1, min(n, 4) + 1)
    want = -np.sort(-x.astype(np.float64), axis=-1)[:, :k]
    return f"topk(k={k})", lambda a: post(pyasc.topk(a, k)[0]), [x], ref_post(want), np.float32


def check(seed: int) -> None:
    name, fn, inputs, want, dtype = make_program(seed)
    out = pyasc.jit(fn)(*inputs).numpy()
    assert out.shape == want.shape, f"seed {seed} {name}: shape {out.shape}, NumPy {want.shape}"
    tol = TOL[dtype]
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=tol, atol=tol * scale,
                               err_msg=f"seed {seed}: {name}")


def pytest_generate_tests(metafunc):
    if "seed" in metafunc.fixturenames:
        n = LONG if metafunc.config.getoption("--random-long") else FAST
        metafunc.parametrize("seed", range(n))


def test_random_program_matches_numpy(seed):
    check(seed)


def test_the_menu_covers_every_kind():
    names = {make_program(s)[0].split(" ")[0].split("(")[0] for s in range(FAST)}
    assert {"sum", "matmul", "bmm", "linear", "transpose+slice", "cast", "where", "topk"} <= names
