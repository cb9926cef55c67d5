"""Ops written as compositions (``pyasc/fused.py``) are differentiated through their parts: their
gradients against ``torch.autograd`` in float32."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

F = torch.nn.functional
CASES = {
    "square": (lambda m, a: m.square(a), None),
    "reciprocal": (lambda m, a: m.reciprocal(a + 3.0), None),
    "silu": (lambda m, a: m.silu(a) if m is pyasc else F.silu(a), None),
    "softplus": (lambda m, a: m.softplus(a) if m is pyasc else F.softplus(a), None),
    "mish": (lambda m, a: m.mish(a) if m is pyasc else F.mish(a), None),
    "hardswish": (lambda m, a: m.hardswish(a) if m is pyasc else F.hardswish(a), None),
    "logsumexp": (lambda m, a: m.logsumexp(a, dim=-1), None),
    "var": (lambda m, a: m.var(a, dim=-1), None),
    "std": (lambda m, a: m.std(a, dim=0), None),
    "expm1": (lambda m, a: m.expm1(a), None),
    "log1p": (lambda m, a: m.log1p(a * a), None),
    "flip": (lambda m, a: m.flip(a, [1]) * a, None),
    "roll": (lambda m, a: m.roll(a, 2, 1) * a, None),
    "cumprod": (lambda m, a: m.cumprod(a, 1), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_composition_gradient_matches_torch(name):
    fn, _ = CASES[name]
    x = np.random.default_rng(len(name)).normal(size=(4, 9)).astype(np.float32)
    got = pyasc.grad(lambda a: fn(pyasc, a).sum())(pyasc.tensor(x)).numpy()
    xt = torch.tensor(x, requires_grad=True)
    fn(torch, xt).sum().backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), rtol=1e-4, atol=1e-5)
