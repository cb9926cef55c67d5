"""What the hand-written PyTorch comparisons share: a pyasc tensor and the torch tensor of the same
values, the comparison of a result with torch's (shape, dtype and values), and a call in a mode."""

from __future__ import annotations

import numpy as np
import torch

import pyasc


def pair(rng, *shape, dtype="float32"):
    a = rng.standard_normal(shape).astype(np.float32)
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    return pyasc.tensor(t), t


def close(got, want, tol=2e-3):
    assert got.shape == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).removeprefix("torch.").replace("int64", "int32")
    g = got.float().numpy().astype(np.float64) if got.dtype.is_floating_point else got.numpy()
    np.testing.assert_allclose(g, want.double().numpy(), rtol=tol, atol=tol)


def close_all(got, want, tol):
    """Each result (one tensor, or a tuple or list of them) against torch's: shape, dtype (torch's int64 is
    pyasc's int32), integers and bools exactly, floats within ``tol``."""
    got = tuple(got) if isinstance(got, tuple | list) else (got,)
    want = tuple(want) if isinstance(want, tuple | list) else (want,)
    for g, w in zip(got, want, strict=True):
        w, g = w.detach().numpy(), g.numpy()
        assert g.shape == w.shape
        if w.dtype == np.int64:
            assert g.dtype == np.int32
            np.testing.assert_array_equal(g, w)
        elif w.dtype == np.bool_:
            assert g.dtype == np.bool_
            np.testing.assert_array_equal(g, w)
        else:
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)


def run(fn, mode, *args):
    return (pyasc.jit(fn) if mode == "jit" else fn)(*args)


def gradients_close(fn, arrays, functional) -> None:
    """``fn(module, functional, *leaves).backward()`` for pyasc and for torch on leaves made of ``arrays``: each
    leaf's gradient against torch's (zeros where one is None) within 1e-4."""
    import pyasc.nn.functional as PF

    ours = [pyasc.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(pyasc, PF, *ours).backward()
    fn(torch, functional, *theirs).backward()
    for o, t in zip(ours, theirs):
        want = np.zeros(t.shape, np.float32) if t.grad is None else t.grad.numpy()
        got = np.zeros_like(want) if o.grad is None else o.grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
