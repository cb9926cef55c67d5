"""The activations, losses, normalisations, resampling, distances, 1-d pools and index lookups of ``ops_nn_extras``,
``autograd.losses`` and ``batch_norm(training=True)`` against PyTorch CPU: values, dtypes and shapes eagerly and
inside ``pyasc.jit``, gradients against ``torch.autograd``, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pyasc
import pyasc.nn.functional as PF

from .torch_pairs import close_all

RNG = np.random.default_rng(23)
X = (RNG.standard_normal((3, 4, 10)) * 2).astype(np.float32)
Y = RNG.standard_normal((3, 4, 10)).astype(np.float32)
IMG = RNG.standard_normal((2, 8, 5, 6)).astype(np.float32)
LABELS = np.array([[0, 3, 9, 2], [1, 1, 0, 7], [9, 4, 4, -100]], np.int64)
MODES = ("eager", "jit")


_check = close_all


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
    "logsigmoid": lambda m, f, x, y: f.logsigmoid(x * 20),
    "glu": lambda m, f, x, y: (f.glu(x), f.glu(x, 1)),
    "softmin": lambda m, f, x, y: f.softmin(x, dim=2),
    "isclose": lambda m, f, x, y: (m.isclose(x, x + 1e-6), m.isclose(x, y, rtol=0.5, atol=0.1)),
    "tensordot": lambda m, f, x, y: (m.tensordot(x, y, dims=([0, 2], [0, 2])), m.tensordot(x, y[0], dims=2)),
    "group_norm": lambda m, f, x, y: (f.group_norm(x, 2), f.group_norm(x, 4, y[0, :, 0], y[1, :, 0])),
    "instance_norm": lambda m, f, x, y: f.instance_norm(x, weight=y[0, :, 0], bias=y[1, :, 1]),
    "pixel_shuffle": lambda m, f, x, y: (f.pixel_shuffle(x.reshape(3, 4, 2, 5), 2),
                                         f.pixel_unshuffle(x.reshape(3, 1, 4, 10), 2)),
    "nll_loss": lambda m, f, x, y: (f.nll_loss(m.log_softmax(x[..., 0], 1), m.tensor(LABELS[:, 0] % 4)),
                                    f.nll_loss(m.log_softmax(x.transpose(1, 2), 1), m.tensor(LABELS), reduction="sum"),
                                    f.nll_loss(m.log_softmax(x.transpose(1, 2), 1), m.tensor(LABELS),
                                               weight=y[0, 0], reduction="mean")),
    "kl_div": lambda m, f, x, y: (f.kl_div(m.log_softmax(x, 2), m.softmax(y, 2), reduction="batchmean"),
                                  f.kl_div(m.log_softmax(x, 2), m.log_softmax(y, 2), reduction="sum",
                                           log_target=True)),
    "binary_cross_entropy": lambda m, f, x, y: (f.binary_cross_entropy(m.sigmoid(x), (y > 0).float()),
                                                f.binary_cross_entropy(m.sigmoid(x * 30), m.sigmoid(y), y.abs(),
                                                                       reduction="none")),
    "unfold": lambda m, f, x, y: (f.unfold(x.reshape(3, 2, 4, 5), 3),
                                  f.unfold(x.reshape(3, 2, 4, 5), (2, 3), dilation=(2, 1), padding=1, stride=2)),
    "nonzero": lambda m, f, x, y: (m.nonzero(x > 1), m.argwhere(x < -1), *m.nonzero(y > 1, as_tuple=True)),
    "masked_select": lambda m, f, x, y: (m.masked_select(x, y > 0), x.masked_select(y[0] > 0)),
    "searchsorted": lambda m, f, x, y: (m.searchsorted(m.tensor([-1.0, 0.0, 1.0]), x),
                                        m.searchsorted(y.sort(2)[0], x[..., :3].round(), right=True),
                                        m.bucketize(x, m.tensor([-1.0, 0.0, 1.0])),
                                        m.bucketize(x.round(), m.tensor([-1.0, 0.0, 1.0]), right=True)),
    "interpolate": lambda m, f, x, y: (f.interpolate(x.reshape(3, 2, 4, 5), scale_factor=2),
                                       f.interpolate(x.reshape(3, 2, 4, 5), size=(7, 3), mode="bilinear"),
                                       f.interpolate(x.reshape(3, 2, 4, 5), scale_factor=1.5, mode="bilinear",
                                                     align_corners=True),
                                       f.interpolate(x, size=17, mode="linear")),
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


@pytest.mark.parametrize("mode", MODES)
def test_batch_norm_training_updates_the_running_statistics_like_torch(mode):
    rm, rv, w, b = (RNG.standard_normal(8).astype(np.float32) for _ in range(4))
    rv = np.abs(rv) + 0.5
    ours = [pyasc.tensor(a.copy()) for a in (rm, rv)]
    theirs = [torch.tensor(a.copy()) for a in (rm, rv)]

    def fn(m, f, x, r_mean, r_var, weight, bias):
        return f.batch_norm(x, r_mean, r_var, weight, bias, training=True, momentum=0.3)

    want = fn(torch, F, torch.tensor(IMG), *theirs, torch.tensor(w), torch.tensor(b))
    args = [pyasc.tensor(IMG), *ours, pyasc.tensor(w), pyasc.tensor(b)]
    got = pyasc.jit(lambda *a: fn(pyasc, PF, *a))(*args) if mode == "jit" else fn(pyasc, PF, *args)
    _check(got, want, 2e-5)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)


def test_batch_norm_training_gradients_and_float16_like_torch():
    w = RNG.standard_normal(8).astype(np.float32)
    x, xt = pyasc.tensor(IMG, requires_grad=True), torch.tensor(IMG, requires_grad=True)
    ww, wt = pyasc.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    (PF.batch_norm(x, None, None, ww, training=True) ** 3).sum().backward()
    (F.batch_norm(xt, None, None, wt, training=True) ** 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ww.grad.numpy(), wt.grad.numpy(), rtol=1e-4, atol=1e-4)
    h = IMG.astype(np.float16)
    _check(PF.batch_norm(pyasc.tensor(h), None, None, training=True),
           F.batch_norm(torch.tensor(h), None, None, training=True), 2e-3)
    with pytest.raises(pyasc.PyascError, match="more than 1 value per channel"):
        PF.batch_norm(pyasc.tensor(IMG[:1, :, :1, :1]), None, None, training=True)


def test_linspace_and_allclose_like_torch():
    for args in [(0, 1, 5), (-3.5, 7.25, 11), (2, -1, 7), (0, 10, 0), (1e-3, 1e3, 100), (4, 4, 1)]:
        got, want = pyasc.linspace(*args).numpy(), torch.linspace(*args).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)   # FMA in PyTorch's vector loop: an ulp
    np.testing.assert_array_equal(pyasc.linspace(0, 10, 6, dtype=pyasc.int32).numpy(),
                                  torch.linspace(0, 10, 6, dtype=torch.int32).numpy())
    near = X * np.float32(1 + 1e-6)
    assert pyasc.allclose(pyasc.tensor(X), pyasc.tensor(near)) is torch.allclose(torch.tensor(X),
                                                                                   torch.tensor(near)) is True
    assert pyasc.tensor(X).allclose(pyasc.tensor(Y)) is False


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
    "group_norm": lambda m, f, x, y, w: (f.group_norm(x, 2, y[0, :, 0]) * y).sum(),
    "glu": lambda m, f, x, y, w: (f.glu(x) ** 2).sum(),
    "kl_div": lambda m, f, x, y, w: f.kl_div(m.log_softmax(x, 2), m.softmax(y, 2), reduction="batchmean"),
    "nll_loss": lambda m, f, x, y, w: f.nll_loss(m.log_softmax(x.transpose(1, 2), 1), m.tensor(LABELS),
                                                 weight=m.tensor(np.linspace(0.5, 2, 10, dtype=np.float32))),
    "interpolate": lambda m, f, x, y, w: (f.interpolate(x.reshape(3, 2, 4, 5), size=(7, 3), mode="bilinear")
                                          ** 2).sum(),
    "unfold": lambda m, f, x, y, w: (f.unfold(x.reshape(3, 2, 4, 5), 2, padding=1, stride=2) ** 2).sum(),
    "masked_select": lambda m, f, x, y, w: (m.masked_select(x, y > 0) ** 2).sum(),
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
    with pytest.raises(pyasc.PyascError, match="nll_loss.*weight"):
        PF.nll_loss(pyasc.tensor(X[..., 0]), pyasc.tensor(np.array([0, 1, 2])), weight=pyasc.tensor(Y[0, 0]))
    with pytest.raises(pyasc.PyascError, match="index_add.*out of range"):
        x.index_add(1, pyasc.tensor(np.array([4])), pyasc.tensor(Y[:, 0:1]))
    with pytest.raises(RuntimeError):
        F.one_hot(torch.tensor([0, 5]), 3)
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.zeros(3, 4).index_add(1, torch.tensor([4]), torch.ones(3, 1))


def test_accumulations_by_index_keep_non_finite_values_in_their_place():
    """An infinity or a NaN of the source reaches only the place it is added to, as in PyTorch."""
    src = np.array([[1, np.inf, np.nan], [2, 3, -np.inf]], np.float32)
    index = np.array([0, 2, 0])
    got = pyasc.tensor(np.zeros((2, 5), np.float32)).index_add(1, pyasc.tensor(index), pyasc.tensor(src))
    want = torch.zeros(2, 5).index_add(1, torch.tensor(index), torch.tensor(src))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    scattered = pyasc.zeros(2, 5).scatter_add(1, pyasc.tensor(np.array([[4, 1, 1], [0, 0, 3]])), pyasc.tensor(src))
    expected = torch.zeros(2, 5).scatter_add(1, torch.tensor([[4, 1, 1], [0, 0, 3]]), torch.tensor(src))
    np.testing.assert_array_equal(scattered.numpy(), expected.numpy())
