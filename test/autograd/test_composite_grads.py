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
    **{f"pad_{mode}": ((lambda mode: lambda m, a: m.square(m.nn.functional.pad(a, (3, -1), mode=mode)))(mode), None)
       for mode in ("constant", "reflect", "replicate", "circular")},
    # compositions that broadcast, repeat an operand or read one value twice
    "expand": (lambda m, a: m.square(a[:, 1:2].expand(4, 5)), None),
    "expand_unsqueezed": (lambda m, a: m.square(a.unsqueeze(1).expand(4, 3, 9)), None),
    "repeat": (lambda m, a: m.square(a.repeat(2, 3)), None),
    "einsum_same_operand": (lambda m, a: m.einsum("ij,ij->i", a, a), None),
    "gather": (lambda m, a: m.square(m.gather(a, 1, m.tensor([[0, 0], [1, 8], [2, 2], [5, 3]]))), None),
    "scatter": (lambda m, a: m.square(m.scatter(a, 1, m.tensor([[0], [1], [2], [8]]), a[:, 3:4] * 3)), None),
    "index_select": (lambda m, a: m.square(m.index_select(a, 1, m.tensor([0, 0, 7]))), None),
    "roll_rows": (lambda m, a: m.roll(a, 1, 0) * a, None),
    "max_pool_windows": (lambda m, a: m.square(m.nn.functional.max_pool2d(a.reshape(1, 1, 4, 9), 2, 1)), None),
    "avg_pool_windows": (lambda m, a: m.square(m.nn.functional.avg_pool2d(a.reshape(1, 1, 4, 9), 2, 1)), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_composition_gradient_matches_torch(name):
    fn, _ = CASES[name]
    x = np.random.default_rng(len(name)).normal(size=(4, 9)).astype(np.float32)
    got = pyasc.grad(lambda a: fn(pyasc, a).sum())(pyasc.tensor(x)).numpy()
    xt = torch.tensor(x, requires_grad=True)
    fn(torch, xt).sum().backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("args", [((3, 2, 1), {}), ((2,), {}), ((3, 1, 1), {"dilation": 2}), ((3, 2, 1), {"ceil_mode": True})],
                         ids=["3x3-s2-p1", "2x2", "dilated", "ceil"])
def test_max_pool2d_gradient_matches_torch(args):
    """Each window's maximum takes its gradient (the values are distinct: no ties), through the gathered
    windows (``pool_windows``) or, with ceil_mode's extra windows, the padded slices."""
    pos, kw = args
    x = np.random.default_rng(5).permutation(2 * 3 * 9 * 10).reshape(2, 3, 9, 10).astype(np.float32) / 7
    weights = np.random.default_rng(6).normal(size=TF_shape(x, pos, kw)).astype(np.float32)

    def loss(m, a):
        pool = pyasc.nn.functional.max_pool2d if m is pyasc else F.max_pool2d
        return (pool(a, *pos, **kw) * (pyasc.tensor(weights) if m is pyasc else torch.tensor(weights))).sum()

    got = pyasc.grad(lambda a: loss(pyasc, a))(pyasc.tensor(x)).numpy()
    xt = torch.tensor(x, requires_grad=True)
    loss(torch, xt).backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def TF_shape(x, pos, kw):  # noqa: N802 - the shape torch's max_pool2d gives
    return tuple(F.max_pool2d(torch.tensor(x), *pos, **kw).shape)


@pytest.mark.parametrize("inside_jit", [False, True])
def test_one_tensor_given_twice_has_a_gradient_per_position(inside_jit):
    """``vjp(f, a, a)`` differentiates each position on its own (inside ``pyasc.jit`` both are one traced value),
    as ``torch.autograd.functional.vjp`` does."""
    rng = np.random.default_rng(11)
    a, v = (rng.normal(size=(3, 5)).astype(np.float32) for _ in range(2))

    def f(x, y):
        return x * x * y

    def ours(t, w):
        _, pullback = pyasc.vjp(f, t, t)
        return pullback(w)

    got = pyasc.jit(ours)(pyasc.tensor(a), pyasc.tensor(v)) if inside_jit else ours(pyasc.tensor(a), pyasc.tensor(v))
    _, want = torch.autograd.functional.vjp(f, (torch.tensor(a), torch.tensor(a)), torch.tensor(v))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw", [{}, {"padding": 1}, {"stride": 2}], ids=["plain", "padded", "strided"])
def test_jit_of_the_gradient_of_a_convolution_sum(kw):
    """The seed's splat reaches the convolution of the backward (and its MIX epilogue) reshaped."""
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(2, 3, 6, 6)).astype(np.float32), rng.normal(size=(4, 3, 3, 3)).astype(np.float32)
    got = pyasc.jit(pyasc.grad(lambda a, b: pyasc.conv2d(a, b, **kw).sum(), argnums=(0, 1)))(pyasc.tensor(x),
                                                                                           pyasc.tensor(w))
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    F.conv2d(tx, tw, **kw).sum().backward()
    for g, want in zip(got, (tx.grad, tw.grad)):
        np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)


def test_a_jitted_training_step_returns_the_loss_and_every_gradient():
    """``pyasc.jit(pyasc.value_and_grad(loss, argnums=(0, 1)))``: nested results come back nested."""
    rng = np.random.default_rng(8)
    w, b, x = (rng.normal(size=s).astype(np.float32) for s in ((4, 3), (3,), (5, 4)))
    step = pyasc.jit(pyasc.value_and_grad(lambda w, b, x: ((x @ w + b).tanh() ** 2).mean(), argnums=(0, 1)))
    for _ in range(2):  # the second call takes the cached program
        loss, (gw, gb) = step(pyasc.tensor(w), pyasc.tensor(b), pyasc.tensor(x))
    tw, tb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    want = ((torch.tensor(x) @ tw + tb).tanh() ** 2).mean()
    want.backward()
    np.testing.assert_allclose(loss.numpy(), want.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(gw.numpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gb.numpy(), tb.grad.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("inside_jit", [False, True])
def test_grad_with_auxiliary_results(inside_jit):
    """``has_aux=True``: the function returns ``(loss, aux)``; ``grad`` gives ``(gradient, aux)`` and
    ``value_and_grad`` gives ``((loss, aux), gradient)``, the gradient torch's and aux the forward's values."""
    rng = np.random.default_rng(12)
    w, x = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(5, 4)).astype(np.float32)

    def loss(m, w, x):
        y = (x @ w).tanh()
        return (y * y).mean(), (y, [y.sum(0)])

    g = pyasc.grad(lambda w, x: loss(pyasc, w, x), has_aux=True)
    vg = pyasc.value_and_grad(lambda w, x: loss(pyasc, w, x), has_aux=True)
    if inside_jit:
        g, vg = pyasc.jit(g), pyasc.jit(vg)
    gw, (y, [s]) = g(pyasc.tensor(w), pyasc.tensor(x))
    (value, (y2, _)), gw2 = vg(pyasc.tensor(w), pyasc.tensor(x))
    tw = torch.tensor(w, requires_grad=True)
    tl, (ty, _) = loss(torch, tw, torch.tensor(x))
    tl.backward()
    for got in (gw, gw2):
        np.testing.assert_allclose(got.numpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y2.numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s.numpy(), ty.detach().numpy().sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(value.numpy(), tl.detach().numpy(), rtol=1e-5)


@pytest.mark.parametrize("n", [64, 96])
@pytest.mark.parametrize("inside_jit", [False, True], ids=["eager", "jit"])
def test_gradient_of_a_whole_tensor_loss_over_a_product(n, inside_jit):
    """The loss's sum and the gradient's elementwise work run in different kernels: together their live buffers
    over a whole-tensor row of ``n * n`` elements did not fit UB."""
    rng = np.random.default_rng(n)
    an, bn = rng.normal(size=(n, n)).astype(np.float32), rng.normal(size=(n, n)).astype(np.float32)
    g = pyasc.value_and_grad(lambda a, b: pyasc.nn.functional.gelu(a @ b).sum(), argnums=(0, 1))
    loss, (ga, gb) = (pyasc.jit(g) if inside_jit else g)(pyasc.tensor(an), pyasc.tensor(bn))
    at, bt = torch.tensor(an, requires_grad=True), torch.tensor(bn, requires_grad=True)
    ref = F.gelu(at @ bt).sum()
    ref.backward()
    np.testing.assert_allclose(float(loss.numpy()), ref.item(), rtol=1e-4)
    np.testing.assert_allclose(ga.numpy(), at.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gb.numpy(), bt.grad.numpy(), rtol=1e-4, atol=1e-4)
