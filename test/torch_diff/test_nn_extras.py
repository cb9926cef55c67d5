"""The activations, distances, 1-d pools and index lookups of ``ops_nn_extras`` against PyTorch CPU: values, dtypes
and shapes eagerly and inside ``pyasc.jit``, gradients against ``torch.autograd``, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pyasc
import pyasc.nn.functional as PF

RNG = np.random.default_rng(23)
X = (RNG.standard_normal((3, 4, 10)) * 2).astype(np.float32)
Y = RNG.standard_normal((3, 4, 10)).astype(np.float32)
MODES = ("eager", "jit")


def _check(got, want, tol):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        w = w.detach().numpy()
        g = g.numpy()
        assert g.shape == w.shape
        if w.dtype == np.int64:          # pyasc's integers are int32
            assert g.dtype == np.int32
            np.testing.assert_array_equal(g, w)
        else:
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)


def _run(fn, mode, *arrays):
    args = [pyasc.tensor(a) for a in arrays]
    return pyasc.jit(lambda *a: fn(pyasc, PF, *a))(*args) if mode == "jit" else fn(pyasc, PF, *args)


CASES = {
    "elu": lambda m, f, x, y: f.elu(x, 0.7),
    "celu": lambda m, f, x, y: f.celu(x, 1.5),
    "selu": lambda m, f, x, y: f.selu(x),
    "hardtanh": lambda m, f, x, y: (f.hardtanh(x), f.hardtanh(x, -0.5, 2.0)),
    "relu6": lambda m, f, x, y: f.relu6(x * 3),
    "hardsigmoid": lambda m, f, x, y: f.hardsigmoid(x * 3),
    "softsign": lambda m, f, x, y: f.softsign(x),
    "frac": lambda m, f, x, y: (x * 3.3).frac(),
    "logit": lambda m, f, x, y: (m.logit(m.sigmoid(y)), m.logit(m.sigmoid(x), eps=0.01)),
    "normalize": lambda m, f, x, y: (f.normalize(x), f.normalize(x, p=1.0, dim=-1)),
    "cosine_similarity": lambda m, f, x, y: (f.cosine_similarity(x, y), f.cosine_similarity(x, y[0], dim=-1)),
    "cdist": lambda m, f, x, y: (m.cdist(x, y), m.cdist(x[0], y[1], p=1.0), m.cdist(x, y, p=float("inf")),
                                 m.cdist(x, y, p=3.0)),
    "diag": lambda m, f, x, y: (m.diag(x[0, 0]), m.diag(x[0, 0], 2), m.diag(x[0, 0], -3), m.diag(x[0], 1)),
    "max_pool1d": lambda m, f, x, y: (f.max_pool1d(x, 3), f.max_pool1d(x, 3, 2, 1), f.max_pool1d(x[0], 2)),
    "avg_pool1d": lambda m, f, x, y: (f.avg_pool1d(x, 3), f.avg_pool1d(x, 3, 1, 1),
                                      f.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
    "index_add": lambda m, f, x, y: (x.index_add(1, m.tensor([0, 2, 0]), y[:, 0:3]),
                                     x.index_add(2, m.tensor([9, 1]), y[..., 4:6], alpha=0.5)),
    "scatter_add": lambda m, f, x, y: (x.scatter_add(2, m.tensor(np.array([[[0, 1, 1, 9]] * 4] * 3)), y),
                                       x.scatter_add(0, m.tensor(np.array([[[2, 0, 2]] * 2] * 2)), y)),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_values_like_torch(name, mode):
    fn = CASES[name]
    _check(_run(fn, mode, X, Y), fn(torch, F, torch.tensor(X), torch.tensor(Y)), 2e-5)


@pytest.mark.parametrize("name", ["elu", "hardtanh", "softsign", "normalize", "cosine_similarity"])
def test_float16_values_like_torch(name):
    fn = CASES[name]
    x, y = X.astype(np.float16), Y.astype(np.float16)
    _check(_run(fn, "eager", x, y), fn(torch, F, torch.tensor(x), torch.tensor(y)), 2e-2)


@pytest.mark.parametrize("mode", MODES)
def test_one_hot_and_embedding_like_torch(mode):
    idx = RNG.integers(0, 6, (3, 5)).astype(np.int64)
    weight = RNG.standard_normal((6, 4)).astype(np.float32)

    def fn(m, f, i, w):
        return f.one_hot(i, 7), f.embedding(i, w)

    _check(_run(fn, mode, idx, weight), fn(torch, F, torch.tensor(idx), torch.tensor(weight)), 0)
    got = PF.one_hot(pyasc.tensor(idx))                       # classes from the data, eagerly
    _check(got, F.one_hot(torch.tensor(idx)), 0)


GRADS = {
    "elu": lambda m, f, x, y, w: f.elu(x).sum(),
    "selu": lambda m, f, x, y, w: (f.selu(x) * y).sum(),
    "normalize": lambda m, f, x, y, w: (f.normalize(x) * y).sum(),
    "cosine_similarity": lambda m, f, x, y, w: f.cosine_similarity(x, y).sum(),
    "cdist": lambda m, f, x, y, w: m.cdist(x, y).sum(),
    "max_pool1d": lambda m, f, x, y, w: (f.max_pool1d(x, 3, 2, 1) * f.max_pool1d(y, 3, 2, 1)).sum(),
    "embedding": lambda m, f, x, y, w: (f.embedding(m.tensor([[0, 2, 2], [1, 0, 3]]), w, padding_idx=1) ** 2).sum(),
    "index_add": lambda m, f, x, y, w: (x.index_add(1, m.tensor([0, 2, 0]), y[:, 0:3], alpha=2.0) ** 2).sum(),
    "scatter_add": lambda m, f, x, y, w: (x.scatter_add(2, m.tensor(np.array([[[0, 1, 1]] * 4] * 3)), y[..., :3]) ** 2
                                          ).sum(),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_like_torch(name):
    fn = GRADS[name]
    w = RNG.standard_normal((4, 5)).astype(np.float32)
    ours = [pyasc.tensor(a, requires_grad=True) for a in (X, Y, w)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (X, Y, w)]
    fn(pyasc, PF, *ours).backward()
    fn(torch, F, *theirs).backward()
    for o, t in zip(ours, theirs):
        want = np.zeros_like(X if t.shape == X.shape else w) if t.grad is None else t.grad.numpy()
        got = np.zeros_like(want) if o.grad is None else o.grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_errors_name_the_op_like_torch():
    x = pyasc.tensor(X)
    with pytest.raises(pyasc.PyascError, match="hardtanh.*min_val"):
        PF.hardtanh(x, 2.0, 1.0)
    with pytest.raises(pyasc.PyascError, match="one_hot.*class values"):
        PF.one_hot(pyasc.tensor(np.array([0, 5])), 3)
    with pytest.raises(pyasc.PyascError, match="cdist.*same number of columns"):
        pyasc.cdist(x, pyasc.tensor(Y[..., :4]))
    with pytest.raises(pyasc.PyascError, match="index_add.*out of range"):
        x.index_add(1, pyasc.tensor(np.array([4])), pyasc.tensor(Y[:, 0:1]))
    with pytest.raises(RuntimeError):
        F.one_hot(torch.tensor([0, 5]), 3)
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.zeros(3, 4).index_add(1, torch.tensor([4]), torch.ones(3, 1))
