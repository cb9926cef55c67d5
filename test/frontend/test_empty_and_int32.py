"""Zero-size tensors launch no kernel (eagerly and inside jit) and reduce as PyTorch does; int32
products and reductions inside jit are exact modulo 2**32, as PyTorch's int32 arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from .conftest import count_launches


_launches = count_launches


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_empty_inputs_launch_nothing_and_match_torch(mode):
    x = np.zeros((0, 5), np.float32)

    def f(m, a):
        return (m.exp(a) + 1, a.sum(), a.prod(1), a.mean(0), a.sum(0))

    ref = f(torch, torch.from_numpy(x))
    run = (lambda a: f(pyasc, a)) if mode == "eager" else pyasc.jit(lambda a: f(pyasc, a))
    out, launches = _launches(run, pyasc.tensor(x))
    for o, r in zip(out, ref):
        assert o.shape == tuple(r.shape)
        np.testing.assert_array_equal(o.numpy(), r.numpy())
    if mode == "eager":     # (inside jit the non-empty constant results are filled by a kernel)
        assert launches == 0


def test_jit_with_only_empty_results_runs_no_kernel():
    x = pyasc.tensor(np.zeros((3, 0), np.float32))
    out, launches = _launches(pyasc.jit(lambda a: (a * 2).exp()), x)
    assert out.shape == (3, 0) and launches == 0


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_extremum_of_nothing_raises_like_torch(mode):
    x = np.zeros((0,), np.int32)
    with pytest.raises(RuntimeError):
        torch.from_numpy(x).amax()
    fn = (lambda a: a.amax()) if mode == "eager" else pyasc.jit(lambda a: a.amax())
    with pytest.raises(pyasc.PyascError):
        fn(pyasc.tensor(x))


def _full_range(rng, *shape):
    return rng.integers(-2 ** 31, 2 ** 31, size=shape, dtype=np.int64).astype(np.int32)


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_int32_matmul_wraps_around_as_torch(mode):
    rng = np.random.default_rng(7)
    a, b, bias = _full_range(rng, 5, 9), _full_range(rng, 9, 3), _full_range(rng, 3)
    ref = torch.addmm(torch.from_numpy(bias), torch.from_numpy(a), torch.from_numpy(b)).numpy()
    fn = (lambda x, y, z: pyasc.addmm(z, x, y))
    fn = fn if mode == "eager" else pyasc.jit(fn)
    out = fn(pyasc.tensor(a), pyasc.tensor(b), pyasc.tensor(bias))
    assert out.dtype == pyasc.int32
    np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "argmax", "argmin"])
def test_int32_reductions_in_jit_are_exact(name):
    rng = np.random.default_rng(3)
    x = _full_range(rng, 6, 11)
    ref = getattr(torch.from_numpy(x), name)(1).to(torch.int32).numpy()
    out = pyasc.jit(lambda a: getattr(a, name)(1))(pyasc.tensor(x))
    np.testing.assert_array_equal(out.numpy(), ref)


_EAGER_REDUCTIONS = [("sum", {}), ("sum", {"dim": (0, 2)}), ("prod", {"dim": 1}), ("amax", {"dim": -1}),
                     ("amin", {}), ("max", {}), ("min", {}), ("max", {"dim": 0}), ("min", {"dim": 2}),
                     ("argmax", {}), ("argmin", {"dim": 1, "keepdim": True})]


@pytest.mark.parametrize("name, kw", _EAGER_REDUCTIONS, ids=[f"{n}-{k}" for n, k in _EAGER_REDUCTIONS])
@pytest.mark.parametrize("dtype", ["int32", "int8", "bool"])
def test_eager_integer_reductions_run_on_device(name, kw, dtype):
    """Eager integer and bool reductions launch kernels and give PyTorch's values (int32 sums and
    products wrap around modulo 2**32)."""
    rng = np.random.default_rng(11)
    if dtype == "int32":
        x = _full_range(rng, 5, 7, 3)
    elif dtype == "int8":
        x = rng.integers(-128, 128, size=(5, 7, 3)).astype(np.int8)
    else:
        x = rng.random((5, 7, 3)) < 0.5
    try:
        ref = getattr(torch.from_numpy(x), name)(**kw)
    except RuntimeError:                    # argmax/argmin of bool: PyTorch refuses, so must pyasc
        with pytest.raises(pyasc.PyascError):
            getattr(pyasc.tensor(x), name)(**kw)
        return
    out, launches = _launches(lambda a: getattr(a, name)(**kw), pyasc.tensor(x))
    assert launches > 0
    refs = ref if isinstance(ref, tuple) else (ref,)
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        r = r.to(torch.int32) if r.dtype == torch.int64 else r
        assert o.shape == tuple(r.shape)
        assert o.dtype.name == str(r.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(o.numpy(), r.numpy())
