"""The functions of ``ops_tensor_functions``, the activations and elementwise functions added to
``ops_elementwise_extras`` and the losses added to ``pyasc.nn.functional``, against PyTorch CPU: values, dtypes
and shapes eagerly and inside ``pyasc.jit`` (special values included), gradients against ``torch.autograd``, and
errors that name the op."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pyasc
import pyasc.nn.functional as PF

from .torch_pairs import close_all, gradients_close

RNG = np.random.default_rng(47)
X = (RNG.standard_normal((3, 4, 6)) * 2).astype(np.float32)
SPECIAL = np.array([[np.nan, 1.0, -0.0, 0.0, np.inf, -np.inf, 0.5, -0.5, 0.3, -2.0],
                    [0.0, np.nan, 0.6, -0.7, -np.inf, 3.0, np.nan, 2.0, -1e-30, 180.0]], np.float32)
INTS = RNG.integers(-9, 9, (4, 6)).astype(np.int32)
M = RNG.standard_normal((5, 5)).astype(np.float32) * 0.5
V = RNG.standard_normal(5).astype(np.float32)
B1 = RNG.standard_normal((3, 5, 4)).astype(np.float32)
B2 = RNG.standard_normal((3, 4, 6)).astype(np.float32)
C = RNG.standard_normal((5, 6)).astype(np.float32)
OBS = RNG.standard_normal((3, 9)).astype(np.float32)
IDX = RNG.integers(0, 6, (3, 4, 2)).astype(np.int32)
SEQ = RNG.standard_normal((2, 3, 11)).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
PRELU_W = np.array([0.25, -0.5, 2.0], np.float32)
SIGNS = np.where(RNG.standard_normal((4, 6)) > 0, 1.0, -1.0).astype(np.float32)
MIXED = RNG.choice(np.array([1.0, -1.0, 0.0, 2.0], np.float32), (4, 6))
RATES = np.abs(RNG.standard_normal((4, 6))).astype(np.float32) * 3
COUNTS = RNG.integers(0, 6, (4, 6)).astype(np.float32)
LABELS = (RNG.random((4, 6)) > 0.5).astype(np.float32)
WITH_NAN = np.array([[3, 1, np.nan, 2, 8], [5, 4, 6, 0, -1], [np.nan, 2, np.nan, 7, 7], [1, 1, 9, -3, 0.5]], np.float32)
DISTINCT = RNG.permutation(40).astype(np.float32).reshape(5, 8) - 20
COLS = RNG.standard_normal((2, 3 * 2 * 2, 12)).astype(np.float32)
POSITIVE = np.abs(RNG.standard_normal((2, 3, 6, 7))).astype(np.float32) + 0.1
MODES = ("eager", "jit")
pytestmark = pytest.mark.filterwarnings("ignore:`nn.functional.upsample` is deprecated")


def _run(fn, mode, *arrays):
    args = [pyasc.tensor(a) for a in arrays]
    return pyasc.jit(lambda *a: fn(pyasc, PF, *a))(*args) if mode == "jit" else fn(pyasc, PF, *args)


def _products(m, f, c, mat, v, b1, b2):
    return (m.addmv(v, mat, v), m.addmv(v, mat, v, beta=0.5, alpha=2.0), m.addbmm(c[:, :6], b1, b2),
            m.addbmm(c, b1, b2, beta=0, alpha=-1))


def _take(m, f, x, i):
    return (m.ravel(x), m.take_along_dim(x, i.long(), 2), m.take_along_dim(x, i[:1].long(), -1),
            m.take_along_dim(x, i.reshape(-1)[:7].long()))


def _index_fill(m, f, x, i):
    return (x.index_fill(1, i[0, 0, :2].long(), -1.0), m.index_fill(x, 2, i[0, 0].long(), 5.0),
            m.index_fill(x, 0, (i[0, 0, :1] % 3).long(), x[0, 0, 0]))


def _ranking_margins(m, f, a, b, y, z):
    return (f.margin_ranking_loss(a, b, y), f.margin_ranking_loss(a, b, y, 0.5, reduction="none"),
            f.soft_margin_loss(a, y), f.soft_margin_loss(a, y, reduction="sum"), f.hinge_embedding_loss(a, z),
            f.hinge_embedding_loss(a, z, 0.5, reduction="none"))


def _quantiles(m, f, a, w):
    return (m.quantile(a, 0.3), m.quantile(a, 0.25, 1), m.quantile(a, m.tensor([0.1, 0.5, 0.9]), 0, True),
            m.quantile(w, 0.5, 1), m.nanquantile(w, 0.4, 1), m.nanquantile(w, 0.5),
            *(m.quantile(a, 0.37, 1, interpolation=i) for i in ("lower", "higher", "nearest", "midpoint")),
            a.quantile(m.tensor([0.2, 0.8]), 1))


def _scatters(m, f, x, s):
    return (m.slice_scatter(x, s[:, :2], 1, 1, 3), m.slice_scatter(x, s[:, ::2], 1, 0, None, 2),
            m.select_scatter(x, s[:, 0], 1, -1), x.diagonal_scatter(s[:, 0, :4], 0, 1, 2),
            m.diagonal_scatter(x[0], s[0, 0, :4], 2), m.diagonal_scatter(x[0], s[0, 0, :3], -1))


def _lp_pools(m, f, p, s):
    return (f.lp_pool2d(p, 2, 2), f.lp_pool2d(p, 3.0, (2, 3), 1, True), f.lp_pool1d(s.abs(), 2, 3),
            f.lp_pool1d(s.abs(), 1.5, 4, 2))


def _local_response_norms(m, f, i, s):
    return (f.local_response_norm(i, 2), f.local_response_norm(i, 3, 1e-2, 0.5, 2.0),
            f.local_response_norm(s, 5, 0.1))


CASES = {
    "heaviside": (lambda m, f, a, b: (m.heaviside(a, b), a.heaviside(b.flip(0))), (SPECIAL, SPECIAL[::-1].copy()), 0),
    "heaviside_int": (lambda m, f, a, b: m.heaviside(a, b), (INTS, INTS[::-1].copy()), 0),
    "sinc": (lambda m, f, a, i: (m.sinc(a), a.sinc(), m.sinc(i)), (np.concatenate([SPECIAL, X.reshape(-1, 12)[:, :10]]),
                                                                    INTS), 2e-6),
    "degrees": (lambda m, f, a, i: (m.deg2rad(a), m.rad2deg(a), i.deg2rad(), i.rad2deg()), (SPECIAL, INTS), 1e-6),
    "inf_real": (lambda m, f, a, i: (m.isposinf(a), m.isneginf(a), m.isreal(a), m.isposinf(i), i.isneginf(),
                                     m.isreal(i)), (SPECIAL, INTS), 0),
    "shrinks": (lambda m, f, a: (f.softshrink(a), f.softshrink(a, 1.0), f.hardshrink(a), f.hardshrink(a, 0.55),
                                 f.tanhshrink(a)), (SPECIAL,), 1e-6),
    "threshold": (lambda m, f, a: (f.threshold(a, 0.5, -3.0), f.threshold(a, -1.0, 7.0), m.threshold(a, 0.0, 0.0)),
                  (SPECIAL,), 0),
    "prelu": (lambda m, f, x, w: (f.prelu(x, w), f.prelu(x, w[:1]), f.prelu(x[0, 0], w[1:2])), (IMG, PRELU_W), 1e-6),
    "true_divide": (lambda m, f, a, i: (m.true_divide(a, 3.0), m.true_divide(i, 4)), (X, INTS), 1e-6),
    "inner": (lambda m, f, a, b, v: (m.inner(a, b), m.inner(v, v), m.inner(a[0], b[0, 0]), a.inner(b[1])),
              (X, X[1], X[0, 0]), 1e-5),
    "addmv_addbmm": (_products, (C, M, V, B1, B2), 1e-5),
    "matrix_power": (lambda m, f, a: (m.matrix_power(a, 0), m.matrix_power(a, 1), m.matrix_power(a, 5),
                                      a.matrix_power(2)), (M,), 1e-5),
    "ravel_take": (_take, (X, IDX), 0),
    "index_fill": (_index_fill, (X, IDX), 0),
    "meshgrid": (lambda m, f, a, b: (*m.meshgrid(a, b, indexing="ij"), *m.meshgrid(a, b, a[:2], indexing="xy"),
                                     *m.meshgrid([a, b], indexing="ij")), (V, X[0, 0]), 0),
    "cartesian_prod": (lambda m, f, a, b: (m.cartesian_prod(a, b), m.cartesian_prod(a[:2], b[:3], a[1:3]),
                                           m.cartesian_prod(a)), (V, X[0, 0]), 0),
    "block_diag": (lambda m, f, a, v, i: (m.block_diag(a[:2, :3], v, a[0, 0], a[:1]), m.block_diag(i[:2], i[2:, :2])),
                   (M, V, INTS), 0),
    "vander": (lambda m, f, v, i: (m.vander(v), m.vander(v, 3, True), m.vander(i[0]), m.vander(v, 0)), (V, INTS), 1e-5),
    "cov_corrcoef": (lambda m, f, o, v: (m.cov(o), m.cov(o, correction=0), m.cov(v), m.cov(o[:1]), m.corrcoef(o),
                                         o.cov(), m.corrcoef(v)), (OBS, V), 1e-5),
    "adaptive_pool1d": (lambda m, f, s: (f.adaptive_avg_pool1d(s, 4), f.adaptive_avg_pool1d(s, 11),
                                         f.adaptive_max_pool1d(s, 3), f.adaptive_max_pool1d(s[0], (5,))), (SEQ,), 1e-6),
    "ranking_margins": (_ranking_margins, (C[:4], C[1:], SIGNS, MIXED), 1e-5),
    "embedding_losses": (lambda m, f, a, b, y: (f.cosine_embedding_loss(a, b, y[:, 0]),
                                                f.cosine_embedding_loss(a, b, y[:, 1], 0.2, reduction="none"),
                                                f.cosine_embedding_loss(a[0], b[0], y[0, 0]),
                                                f.pairwise_distance(a, b), f.pairwise_distance(a, b, 1.0, keepdim=True),
                                                f.pairwise_distance(a, b, float("inf")),
                                                f.triplet_margin_loss(a, b, b.flip(0)),
                                                f.triplet_margin_loss(a, b, b.flip(0), 0.5, 1.0, swap=True,
                                                                      reduction="sum")),
                         (C[:4], C[1:], SIGNS), 1e-5),
    "likelihood_losses": (lambda m, f, x, r, c, v: (f.poisson_nll_loss(x, c), f.poisson_nll_loss(r, c, log_input=False),
                                                    f.poisson_nll_loss(x, c, full=True, reduction="none"),
                                                    f.gaussian_nll_loss(x, c, r), f.gaussian_nll_loss(x, c, r[:, :1],
                                                                                                      full=True),
                                                    f.gaussian_nll_loss(x, c, r[:, 0], reduction="sum"),
                                                    f.gaussian_nll_loss(x, c, r * 0, reduction="none")),
                          (C[:4], RATES, COUNTS, V), 1e-5),
    "multilabel_soft_margin": (lambda m, f, x, y, w: (f.multilabel_soft_margin_loss(x, y),
                                                      f.multilabel_soft_margin_loss(x, y, w, reduction="none"),
                                                      f.multilabel_soft_margin_loss(x * 30, y, reduction="sum")),
                               (C[:4], LABELS, RATES[0]), 1e-5),
    "median_nan": (lambda m, f, a: (*m.median(a, 1), m.median(a), *m.median(a, 0, keepdim=True), m.median(a[1]),
                                    *m.nanmedian(a, 1), m.nanmedian(a), *m.nanmedian(a[1:], 0)), (WITH_NAN,), 0),
    "kthvalue": (lambda m, f, a: (*m.kthvalue(a, 3), *m.kthvalue(a, 1, 0, True), *a.kthvalue(5, -1)), (DISTINCT,), 0),
    "quantile": (_quantiles, (DISTINCT, WITH_NAN), 1e-5),
    "histc": (lambda m, f, a, b: (m.histc(a, 7), m.histc(a, 5, -3, 3), a.histc(4, 0, 10), m.histc(b, 6),
                                  m.histc(b[0, :1] * 0 + 2, 3), m.histc(a[:0], 4)),
              (X.reshape(-1), DISTINCT), 0),
    "combinations": (lambda m, f, v: (m.combinations(v), m.combinations(v[:4], 3), m.combinations(v[:3], 2, True),
                                      m.combinations(v[:4], 1)), (V,), 0),
    "scatters": (_scatters, (X, X * 10), 0),
    "fold": (lambda m, f, c: (f.fold(c, (4, 5), 2), f.fold(c, (2, 6), 2, stride=(1, 2), padding=1),
                              f.fold(c[0, :, :4], (6, 5), (2, 2), dilation=(2, 1), stride=2)), (COLS,), 1e-6),
    "lp_pools": (_lp_pools, (POSITIVE, SEQ), 1e-5),
    "local_response_norm": (_local_response_norms, (IMG, SEQ), 1e-6),
    "bilinear": (lambda m, f, a, b, w, c: (f.bilinear(a, b, w), f.bilinear(a, b, w, c)), (C[:4, :3], C[1:, 2:],
                                                                                       B1[:, :3, :4], V[:3]), 1e-5),
    "upsample": (lambda m, f, i: f.upsample(i, scale_factor=2, mode="nearest"), (IMG,), 0),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_like_torch(name, mode):
    fn, arrays, tol = CASES[name]
    want = fn(torch, F, *(torch.tensor(a) for a in arrays))
    close_all(_run(fn, mode, *arrays), want, tol)


def test_triangle_indices_like_torch():
    """Functions of no tensors: eager only (``pyasc.jit`` refuses a function without tensor inputs, as documented)."""
    for fn in (lambda m: m.tril_indices(4, 5), lambda m: m.tril_indices(4, 3, -1), lambda m: m.triu_indices(3, 6, 2),
               lambda m: m.triu_indices(5, 5), lambda m: m.triu_indices(0, 3)):
        close_all(fn(pyasc), fn(torch), 0)


GRADS = {
    "shrinks": lambda m, f, x, y: ((f.softshrink(x) + f.hardshrink(x) + f.tanhshrink(x)) * y).sum(),
    "prelu": lambda m, f, x, y: (f.prelu(x, y[0, :, 0]) * y).sum(),
    "sinc": lambda m, f, x, y: (m.sinc(x) * y).sum(),
    "addbmm_inner": lambda m, f, x, y: (m.addbmm(x[0, :, :4], x[:, :, :4], y[:, :, :4]).sum()
                                        + m.inner(x, y).sum()),
    "matrix_power": lambda m, f, x, y: m.matrix_power(x[0, :, :4] * 0.5, 3).sum(),
    "take_along_dim": lambda m, f, x, y: (m.take_along_dim(x, (y > 0).long(), 2) ** 2).sum(),
    "cov": lambda m, f, x, y: (m.cov(x[0]) * m.corrcoef(y[1])).sum(),
    "quantile_kthvalue": lambda m, f, x, y: ((m.quantile(x, 0.3, 2) * y[:, :, 0]).sum()
                                             + m.kthvalue(x, 2, 1).values.sum()),
    "fold_lrn_bilinear": lambda m, f, x, y: ((f.fold(x.reshape(2, 4, 9), (4, 4), 2) ** 2).sum()
                                            + (f.local_response_norm(x, 3) * y).sum()
                                            + f.bilinear(x[0, :, :4], y[0], y[:, :4, :]).sum()),
    "losses": lambda m, f, x, y: (f.margin_ranking_loss(x, y, x.sign()) + f.triplet_margin_loss(x[0], y[0], y[1])
                                  + f.cosine_embedding_loss(x[0], y[0], y[0, :, 0].sign())
                                  + f.gaussian_nll_loss(x, y, x.abs() + 0.1) + f.poisson_nll_loss(x, y.abs())
                                  + f.multilabel_soft_margin_loss(x[0], (y[0] > 0).float())),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_like_torch(name):
    gradients_close(GRADS[name], (X, RNG.standard_normal(X.shape).astype(np.float32)), F)


@pytest.mark.parametrize("call, message", [
    (lambda: pyasc.heaviside(pyasc.tensor(X), pyasc.tensor(INTS)), "heaviside.*different dtypes"),
    (lambda: PF.softshrink(pyasc.tensor(X), -1.0), "softshrink.*lambda must be greater or equal to 0"),
    (lambda: PF.prelu(pyasc.tensor(IMG), pyasc.tensor(V)), r"prelu.*\(5,\).*3, dim 1"),
    (lambda: pyasc.matrix_power(pyasc.tensor(M), -1), "matrix_power.*negative power"),
    (lambda: pyasc.matrix_power(pyasc.tensor(C), 2), r"matrix_power.*square.*\(5, 6\)"),
    (lambda: pyasc.inner(pyasc.tensor(X), pyasc.tensor(M)), r"inner.*last dims must match"),
    (lambda: pyasc.cov(pyasc.tensor(X)), "cov.*two or fewer dimensions"),
    (lambda: pyasc.cov(pyasc.tensor(OBS), fweights=pyasc.tensor(INTS[0])), "cov.*fweights"),
    (lambda: pyasc.meshgrid(pyasc.tensor(M), pyasc.tensor(V)), "meshgrid.*0-d or 1-d"),
    (lambda: pyasc.take_along_dim(pyasc.tensor(X), pyasc.tensor(INTS), 1), "take_along_dim.*same number of dims"),
    (lambda: pyasc.vander(pyasc.tensor(M)), "vander.*one-dimensional"),
    (lambda: PF.adaptive_max_pool1d(pyasc.tensor(SEQ), 3, return_indices=True), "adaptive_max_pool1d.*return_indices"),
    (lambda: PF.gaussian_nll_loss(pyasc.tensor(C), pyasc.tensor(C), pyasc.tensor(-C)), "gaussian_nll_loss.*negative"),
    (lambda: PF.cosine_embedding_loss(pyasc.tensor(X), pyasc.tensor(X), pyasc.tensor(V)), "cosine_embedding_loss"),
    (lambda: pyasc.kthvalue(pyasc.tensor(X), 7), "kthvalue.*out of range for dimension 2 of size 6: 7"),
    (lambda: pyasc.quantile(pyasc.tensor(X), 1.5), r"quantile.*\[0, 1\]"),
    (lambda: pyasc.quantile(pyasc.tensor(INTS), 0.5), "quantile.*float or double"),
    (lambda: pyasc.histc(pyasc.tensor(X), 4, 3, 1), "histc.*max must be larger than min"),
    (lambda: pyasc.combinations(pyasc.tensor(M)), "combinations.*1-d"),
    (lambda: pyasc.slice_scatter(pyasc.tensor(X), pyasc.tensor(X), 1, 0, 2), "slice_scatter.*size equal to the slice"),
    (lambda: pyasc.diagonal_scatter(pyasc.tensor(M), pyasc.tensor(V[:3])), "diagonal_scatter.*does not fit"),
    (lambda: PF.fold(pyasc.tensor(COLS), (4, 4), 2), r"fold.*\(N, C \* 2 \* 2, 3 \* 3\)"),
    (lambda: PF.local_response_norm(pyasc.tensor(M), 2), "local_response_norm.*3 or more dims"),
    (lambda: PF.bilinear(pyasc.tensor(C), pyasc.tensor(C), pyasc.tensor(B1)), "bilinear"),
])
def test_errors_name_the_op(call, message):
    with pytest.raises(pyasc.PyascError, match=message):
        call()
