"""Gradients through in-place updates, copies, ``detach`` and values the trace computes once, against
``torch.autograd`` (eagerly with ``backward()``, and with ``pyasc.grad`` and inside ``pyasc.jit``); and the updates
gradients cannot follow, refused by name."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], np.float32)


def _inplace_mul(m, a):
    b = a * 1.0
    b *= a
    return b


def _add_(m, a):
    b = a.clone()
    b.add_(a * a, alpha=2.0) if m is torch else b.add_(a * a, alpha=2.0)
    return b * 3.0


def _setitem(m, a):
    b = a.clone()
    b[0] = 0.0
    return b * a


def _setitem_value(m, a):
    b = a * 2.0
    b[:, 1:] = a[:, :2] * a[:, :2]
    return b


def _copy_(m, a):
    b = a * 0.0
    b.copy_(a.exp())
    return b * a


def _detached(m, a):
    return a.detach() * a * 3.0


def _contiguous(m, a):
    return a.t().contiguous() * a.t()


def _cast_twice(m, a):
    return (a.float() + a.float()) * a.float()


def _used_before_the_update(m, a):
    b = a * 2.0
    c = b + 1.0      # reads b before it changes
    b.mul_(a)
    return c + b


CASES = [_inplace_mul, _add_, _setitem, _setitem_value, _copy_, _detached, _contiguous, _cast_twice,
         _used_before_the_update]


def _torch_grad(fn, x):
    t = torch.tensor(x, requires_grad=True)
    fn(torch, t).sum().backward()
    return t.grad.numpy()


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("mode", ["backward", "grad", "jit"])
def test_gradient_matches_torch(fn, mode):
    want = _torch_grad(fn, X)
    if mode == "backward":
        a = pyasc.tensor(X, requires_grad=True)
        fn(pyasc, a).sum().backward()
        got = a.grad.numpy()
    else:
        g = pyasc.grad(lambda a: fn(pyasc, a).sum())
        got = (pyasc.jit(g) if mode == "jit" else g)(pyasc.tensor(X)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_an_update_of_a_leaf_that_requires_grad_is_refused():
    a = pyasc.tensor(X, requires_grad=True)
    with pytest.raises(pyasc.PyascError, match="leaf tensor that requires grad is updated in place"):
        a.mul_(2.0)
    with pyasc.no_grad():
        a.mul_(2.0)  # allowed outside the recording, as in PyTorch
    np.testing.assert_array_equal(a.numpy(), 2 * X)


def test_gradients_of_gradients_are_refused():
    x = pyasc.tensor(X)
    with pytest.raises(pyasc.PyascError, match="gradients of gradients are not supported"):
        pyasc.grad(lambda p: pyasc.grad(lambda q: (q * q * q).sum())(p).sum())(x)
