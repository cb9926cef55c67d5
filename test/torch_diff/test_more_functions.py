"""``ops_elementwise_extras``, ``ops_nn_functions`` and ``unique`` against PyTorch CPU: values, dtypes and shapes
eagerly and inside ``pyasc.jit`` (special values included), gradients against ``torch.autograd``, and errors that
name the op."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pyasc
import pyasc.nn.functional as PF

from .torch_pairs import close_all, gradients_close

RNG = np.random.default_rng(31)
X = (RNG.standard_normal((3, 4, 10)) * 2).astype(np.float32)
Y = RNG.standard_normal((3, 4, 10)).astype(np.float32)
SPECIAL = np.array([[np.nan, 1.0, -0.0, 0.0, np.inf, -np.inf, 2.0, -1e30, 1e-30, 5.0],
                    [1.0, np.nan, 0.0, -0.0, -np.inf, -np.inf, np.nan, 2.0, -1e-30, -5.0]], np.float32)
WIDE = np.array([-1e30, -3e8, -2.0, -1.0, -0.999, -1e-3, -1e-20, -0.0, 0.0, 1e-20, 0.5, 0.999, 1.0, 1.0000001,
                 1.5, 3.0, 4e8, 1e30, np.inf, -np.inf, np.nan], np.float32)
INTS = RNG.integers(-9, 9, (4, 6)).astype(np.int32)
GAMMA = np.concatenate([np.linspace(-20, 30, 1001), [1e-30, 1e-6, 0.5, 1, 2, 3, 1.4616321, 100, 1e4, 1e10, 1e30, -0.5,
                                                     -1, -2, -3.5, 0.0, np.inf, -np.inf, np.nan, -1e-6]]).astype(np.float32)
UNIT = np.concatenate([np.linspace(-1, 1, 1001), [0.9999, -0.99999, 1e-7, 1.5, -2, np.nan]]).astype(np.float32)
Q = RNG.standard_normal((2, 4, 5, 8)).astype(np.float32)
K = RNG.standard_normal((2, 4, 7, 8)).astype(np.float32)
V = RNG.standard_normal((2, 4, 7, 6)).astype(np.float32)
KV2 = RNG.standard_normal((2, 2, 7, 8)).astype(np.float32)
MASK = RNG.standard_normal((5, 7)).astype(np.float32)
SEQ = RNG.standard_normal((2, 4, 11)).astype(np.float32)
W1 = RNG.standard_normal((6, 4, 3)).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 7, 9)).astype(np.float32)
FMAP = RNG.standard_normal((2, 4, 5, 6)).astype(np.float32)
WT = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
WT_GROUPS = RNG.standard_normal((4, 2, 2, 3)).astype(np.float32)
MODES = ("eager", "jit")


_check = close_all


def _run(fn, mode, *arrays):
    args = [pyasc.tensor(a) for a in arrays]
    return pyasc.jit(lambda *a: fn(pyasc, PF, *a))(*args) if mode == "jit" else fn(pyasc, PF, *args)


def _sdpa(f, *args, **kw):
    return f.scaled_dot_product_attention(*args, **kw)


CASES = {
    "fmax_fmin": (lambda m, f, a, b: (m.fmax(a, b), m.fmin(a, b), a.fmax(b), a.fmin(b)), (SPECIAL, SPECIAL[::-1].copy()), 0),
    "fmax_fmin_int": (lambda m, f, a, b: (m.fmax(a, b), m.fmin(a, b)), (INTS, INTS[::-1].copy()), 0),
    "copysign": (lambda m, f, a, b: (m.copysign(a, b), m.copysign(a, -1.0), m.copysign(a, 0.0), a.copysign(-0.0)),
                 (SPECIAL, SPECIAL[::-1].copy()), 0),
    "copysign_int": (lambda m, f, a, b: (m.copysign(a, 2), m.copysign(a, -a.float())), (INTS, INTS), 0),
    "logaddexp2": (lambda m, f, a, b: (m.logaddexp2(a, b), a.logaddexp2(b * 40)), (SPECIAL, SPECIAL[::-1].copy()), 1e-6),
    "asinh": (lambda m, f, x: (m.asinh(x), x.arcsinh()), (WIDE,), 1e-6),
    "acosh": (lambda m, f, x: (m.acosh(x), m.acosh(x.abs() + 1), x.arccosh()), (WIDE,), 1e-6),
    "atanh": (lambda m, f, x: (m.atanh(x), m.atanh(x * 1e-3), x.arctanh()), (WIDE,), 1e-6),
    "inverse_hyperbolic_float16": (lambda m, f, x: (m.asinh(x.half()), m.atanh((x * 0.3).half()),
                                                    m.acosh(x.abs().half() + 1)), (X,), 1e-3),
    "inverse_hyperbolic_int": (lambda m, f, i: (m.asinh(i), m.acosh(i), m.atanh(i)), (INTS,), 1e-6),
    "lgamma_digamma": (lambda m, f, x: (m.lgamma(x), m.digamma(x), x.lgamma()), (GAMMA,), 1e-5),
    "erfinv": (lambda m, f, y: (m.erfinv(y), y.erfinv()), (UNIT,), 3e-6),
    "special_float16": (lambda m, f, x: (m.lgamma(x.half()), m.erfinv((x * 0.3).tanh().half())), (X,), 2e-3),
    "isin": (lambda m, f, i: (m.isin(i, m.tensor([1, 2, 3], dtype=m.int32)), m.isin(i, 5, invert=True),
                              m.isin(i, m.tensor([], dtype=m.int32))), (INTS,), 0),
    "isin_float": (lambda m, f, a: m.isin(a, m.tensor([1.0, float("nan"), 0.0, -5.0])), (SPECIAL,), 0),
    "aminmax": (lambda m, f, x: (m.aminmax(x, dim=1).min, m.aminmax(x, dim=1).max, x.aminmax()[0], x.aminmax()[1],
                                 m.aminmax(x, dim=-1, keepdim=True).max), (X,), 0),
    "sdpa": (lambda m, f, q, k, v: (_sdpa(f, q, k, v), _sdpa(f, q, k, v, scale=0.3)), (Q, K, V), 2e-6),
    "sdpa_causal": (lambda m, f, q, k, v: (_sdpa(f, q, q, q, is_causal=True), _sdpa(f, q, k, v, is_causal=True)),
                    (Q, K, V), 2e-6),
    "sdpa_masks": (lambda m, f, q, k, v, mk: (_sdpa(f, q, k, v, attn_mask=mk > -0.5), _sdpa(f, q, k, v, attn_mask=mk)),
                   (Q, K, V, MASK), 2e-6),
    "sdpa_grouped_heads": (lambda m, f, q, k: _sdpa(f, q, k, k, enable_gqa=True), (Q, KV2), 2e-6),
    "sdpa_matrices": (lambda m, f, q, k, v: _sdpa(f, q, k, v), (Q[0, 0], K[0, 0], V[0, 0]), 2e-6),
    "conv1d": (lambda m, f, x, w: (f.conv1d(x, w, padding=1), f.conv1d(x, w, stride=2), f.conv1d(x, w, dilation=2),
                                   f.conv1d(x, w[:, :2], groups=2), f.conv1d(x[0], w, w[:, 0, 0])), (SEQ, W1), 1e-5),
    "conv1d_same": (lambda m, f, x, w: (f.conv1d(x, w, padding="same"), f.conv1d(x, w[..., :2], padding="same",
                                                                                  dilation=3),
                                        f.conv1d(x, w, padding="valid")), (SEQ, W1), 1e-5),
    "conv_transpose2d": (lambda m, f, x, w: (f.conv_transpose2d(x, w), f.conv_transpose2d(x, w, stride=2, padding=1),
                                             f.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
                                             f.conv_transpose2d(x, w, stride=(2, 3), padding=(0, 2), dilation=(1, 2)),
                                             f.conv_transpose2d(x, w, stride=3, output_padding=2, padding=2),
                                             f.conv_transpose2d(x[0], w)), (FMAP, WT), 1e-5),
    "conv_transpose2d_groups": (lambda m, f, x, w: (f.conv_transpose2d(x, w, groups=2),
                                                    f.conv_transpose2d(x, w, w[:, 0, 0, 0], stride=2, groups=2)),
                                (FMAP, WT_GROUPS), 1e-5),
    "conv_transpose1d": (lambda m, f, x, w: (f.conv_transpose1d(x, w),
                                             f.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1)),
                         (SEQ, W1.transpose(1, 0, 2).copy()), 1e-5),
    "adaptive_max_pool2d": (lambda m, f, x: (f.adaptive_max_pool2d(x, (2, 3)), f.adaptive_max_pool2d(x, 4),
                                             f.adaptive_max_pool2d(x[0], (None, 2)), f.adaptive_max_pool2d(x, 1)),
                            (IMG,), 0),
    "diag_embed": (lambda m, f, x: (m.diag_embed(x), m.diag_embed(x, 1), m.diag_embed(x[0, 0], -2)), (X,), 0),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_like_torch(name, mode):
    fn, arrays, tol = CASES[name]
    want = fn(torch, F, *(torch.tensor(a) for a in arrays))
    _check(_run(fn, mode, *arrays), want, tol)


@pytest.mark.parametrize("mode", MODES)
def test_unique_like_torch(mode):
    """Sorted distinct values, inverse positions and counts (int32 here, int64 in PyTorch), of all elements or of
    slices along a dim; inside jit the function runs eagerly (its size depends on the values)."""
    rows = np.array([[1, 2], [3, 4], [1, 2], [0, 9]], np.int32)

    def fn(m, f, i, r):
        u, inverse, counts = m.unique(i, return_inverse=True, return_counts=True)
        by_row = r.unique(dim=0, return_inverse=True, return_counts=True)
        return (u, inverse, counts, m.unique(i.float() * 0.5), (i > 0).unique(), *by_row, m.unique(r, dim=1))

    want = fn(torch, F, torch.tensor(INTS), torch.tensor(rows))
    _check(_run(fn, mode, INTS, rows), want, 0)


def test_equal_is_a_python_bool_like_torch():
    for fn in (lambda m, a: m.equal(a, a), lambda m, a: m.equal(a, a + 1), lambda m, a: m.equal(a, a[:1]),
               lambda m, a: a.equal(a.clone()), lambda m, a: m.equal(a, a.reshape(-1))):
        got, want = fn(pyasc, pyasc.tensor(X)), fn(torch, torch.tensor(X))
        assert type(got) is bool and got == want


GRADS = {
    "fmax": lambda m, f, x, y: (m.fmax(x, y) * y).sum(),
    "copysign": lambda m, f, x, y: (m.copysign(x, y) * y).sum(),
    "logaddexp2": lambda m, f, x, y: m.logaddexp2(x, y).sum(),
    "asinh": lambda m, f, x, y: (m.asinh(x) * y).sum(),
    "acosh": lambda m, f, x, y: (m.acosh(x.abs() + 1.5) * y).sum(),
    "atanh": lambda m, f, x, y: (m.atanh(m.tanh(x) * 0.9) * y).sum(),
    "lgamma": lambda m, f, x, y: (m.lgamma(x) * y).sum(),
    "digamma": lambda m, f, x, y: (m.digamma(x.abs() + 0.1) * y).sum(),
    "erfinv": lambda m, f, x, y: (m.erfinv(m.tanh(x) * 0.95) * y).sum(),
    "sdpa": lambda m, f, x, y: (f.scaled_dot_product_attention(x, y, y, is_causal=True) * y).sum(),
    "conv1d": lambda m, f, x, y: (f.conv1d(x, y[:, :, :3], padding=1) ** 2).sum(),
    "adaptive_max_pool2d": lambda m, f, x, y: (f.adaptive_max_pool2d(x.unsqueeze(0), (3, 4)) ** 2).sum(),
    "diag_embed": lambda m, f, x, y: (m.diag_embed(x, 1) ** 2).sum(),
    "conv_transpose2d": lambda m, f, x, y: (f.conv_transpose2d(x.unsqueeze(0), y[:, :2, :3].unsqueeze(-1), stride=2,
                                                               padding=1, output_padding=1) ** 2).sum(),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_like_torch(name):
    gradients_close(GRADS[name], (X, Y), F)


def test_errors_name_the_op():
    q, k = pyasc.tensor(Q), pyasc.tensor(K)
    with pytest.raises(pyasc.PyascError, match="scaled_dot_product_attention.*dropout_p"):
        PF.scaled_dot_product_attention(q, k, k, dropout_p=0.1)
    with pytest.raises(pyasc.PyascError, match="scaled_dot_product_attention.*do not match"):
        PF.scaled_dot_product_attention(q, k[..., :4], k)
    with pytest.raises(pyasc.PyascError, match="scaled_dot_product_attention.*cannot both"):
        PF.scaled_dot_product_attention(q, k, k, attn_mask=pyasc.tensor(MASK), is_causal=True)
    with pytest.raises(pyasc.PyascError, match="conv1d.*strided"):
        PF.conv1d(pyasc.tensor(SEQ), pyasc.tensor(W1), stride=2, padding="same")
    with pytest.raises(pyasc.PyascError, match="conv1d.*3-d"):
        PF.conv1d(pyasc.tensor(IMG), pyasc.tensor(W1))
    with pytest.raises(pyasc.PyascError, match="adaptive_max_pool2d.*return_indices"):
        PF.adaptive_max_pool2d(pyasc.tensor(IMG), 2, return_indices=True)
    with pytest.raises(pyasc.PyascError, match="conv_transpose2d.*output_padding"):
        PF.conv_transpose2d(pyasc.tensor(FMAP), pyasc.tensor(WT), stride=2, output_padding=2)
    with pytest.raises(pyasc.PyascError, match="diag_embed.*last two dims"):
        pyasc.diag_embed(pyasc.tensor(X), dim1=0, dim2=2)
