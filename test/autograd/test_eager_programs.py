"""Ordinary training-step code run eagerly, ``loss.backward()``, against torch.autograd: gathers, scatters, index
lookups (the target's log-probability by ``[arange(n), labels]``), selections, sorts, joins and splits, pooling and
batch statistics."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pyasc

PF = pyasc.nn.functional
RNG = np.random.default_rng(3)
X = RNG.standard_normal((4, 6)).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
LABELS = np.array([0, 2, 5, 1])
ROWS = np.array([[0, 1], [2, 3], [4, 5], [0, 0]])

PROGRAMS = {
    "gather": (lambda m, f, x: x.gather(1, m.tensor(ROWS)).pow(2).sum(), X),
    "target_log_probability": (lambda m, f, x: -f.log_softmax(x, 1)[m.arange(4), m.tensor(LABELS)].mean(), X),
    "cross_entropy": (lambda m, f, x: f.cross_entropy(x, m.tensor(LABELS)), X),
    "embedding_rows": (lambda m, f, x: f.embedding(m.tensor(np.array([[1, 1], [3, 0]])), x).pow(2).sum(), X),
    "index_select": (lambda m, f, x: m.index_select(x, 1, m.tensor([0, 0, 3])).pow(2).sum(), X),
    "mask_selection": (lambda m, f, x: (x[x > 0] ** 2).sum() + x[:, [5, 0]].sum(), X),
    "masked_fill_where": (lambda m, f, x: (x.masked_fill(x > 0.5, 0.0) * x + m.where(x < 0, x * 3, x)).sum(), X),
    "max_and_topk": (lambda m, f, x: x.max(dim=1)[0].sum() + x.topk(3, dim=1)[0].pow(2).sum(), X),
    "sort": (lambda m, f, x: (x.sort(dim=1)[0] * m.arange(6).float()).sum(), X),
    "cat_stack_split": (lambda m, f, x: m.cat([x, x * 2], 1).pow(2).sum() + m.stack([x, x], 0).sum()
                        + sum(s.pow(3).sum() for s in x.split(2, 1)), X),
    "pad_repeat_unbind": (lambda m, f, x: (f.pad(x, (1, 2)) ** 2 * m.arange(9).float()).sum()
                          + (x.repeat(2, 1) * m.arange(8).float()[:, None]).sum()
                          + sum(r.pow(2).sum() * i for i, r in enumerate(x.unbind(0))), X),
    "conv_relu_pool": (lambda m, f, x, w: f.max_pool2d(f.relu(f.conv2d(x, w)), 2).sum(), IMG, W),
    "batch_statistics": (lambda m, f, x: f.batch_norm(x, None, None, training=True).pow(3).sum(), IMG),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_eager_backward_matches_torch(name):
    fn, *arrays = PROGRAMS[name]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours = [pyasc.tensor(a, requires_grad=True) for a in arrays]
    fn(torch, F, *theirs).backward()
    fn(pyasc, PF, *ours).backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_training_from_parameters_made_by_creation_functions(optimizer):
    """``zeros(..., requires_grad=True)``, ``randn_like(..., requires_grad=True)`` and the other creation functions
    take PyTorch's ``requires_grad``: three optimizer steps match torch's."""

    def train(m):
        w = m.tensor(X[:, :5] * 0.1, requires_grad=True)
        b = m.zeros(5, requires_grad=True)
        s = m.ones_like(b, requires_grad=True)
        opt = getattr(m.optim, optimizer)([w, b, s], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            loss = (((m.tensor(X.T) @ w + b) * s).relu() - 1).pow(2).mean()
            loss.backward()
            opt.step()
        return w, b, s, loss

    for got, want in zip(train(pyasc), train(torch)):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-6)
    for make in (lambda: pyasc.full((2,), 1.0, requires_grad=True), lambda: pyasc.arange(3.0, requires_grad=True),
                 lambda: pyasc.randn(2, requires_grad=True), lambda: pyasc.eye(2, requires_grad=True)):
        assert make().requires_grad
    with pytest.raises(pyasc.PyascError, match="only floating point"):
        pyasc.zeros(3, dtype=pyasc.int32, requires_grad=True)


def test_long_and_double_conversions():
    """``long()`` gives pyasc's integers (int32, where PyTorch's are int64); ``double()`` is refused by name."""
    x = pyasc.tensor(X * 3)
    np.testing.assert_array_equal(x.long().numpy(), torch.tensor(X * 3).long().numpy())
    assert x.long().dtype is pyasc.int32
    with pytest.raises(pyasc.PyascError, match="double.*float64 is not supported"):
        x.double()
