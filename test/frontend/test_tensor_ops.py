"""The composed ops of the tensor API (``ops_math``, ``ops_shape``, ``ops_pool``) and
``pyasc.nn.functional`` at the edges PyTorch defines: rounding ties, signs of ``//`` and ``%``,
large integers, accuracy near 0, NaN in sorting, out-of-range indices. PyTorch CPU is the
reference; every computing op is checked to run kernels on the simulated device."""

import numpy as np
import pytest
import torch

import pyasc

from .conftest import count_launches, requires_backend

pytestmark = [requires_backend, pytest.mark.filterwarnings(r"ignore:var\(\). degrees of freedom:UserWarning")]


_launches = count_launches


def _same(out, ref, rtol=1.3e-6, atol=1e-5):
    assert tuple(out.shape) == tuple(ref.shape)
    got = torch.from_numpy(np.asarray(out.numpy(), dtype=np.float64 if ref.is_floating_point() else np.int64))
    torch.testing.assert_close(got, ref.to(got.dtype), rtol=rtol, atol=atol, equal_nan=True)


EDGES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.3, 2.0 ** 24 + 2, 1e9, 3.7, -3.7,
                  np.nan, np.inf, -np.inf], np.float32)


@pytest.mark.parametrize("name", ["round", "floor", "ceil", "trunc", "sign"])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_rounding_matches_torch_on_ties_large_values_and_specials(name, mode):
    x = pyasc.tensor(EDGES)
    fn = getattr(pyasc, name) if mode == "eager" else pyasc.jit(getattr(pyasc, name))
    out, n = _launches(fn, x)
    assert n > 0
    _same(out, getattr(torch, name)(torch.from_numpy(EDGES)), rtol=0, atol=0)


def test_round_with_decimals_and_half_precision():
    a = np.array([0.125, 2.675, -1.005, 1234.5], np.float32)
    _same(pyasc.round(pyasc.tensor(a), decimals=2), torch.round(torch.from_numpy(a), decimals=2), rtol=0, atol=0)
    h = pyasc.tensor(EDGES[:12]).half()
    assert pyasc.floor(h).dtype is pyasc.float16
    _same(pyasc.round(h).float(), torch.round(torch.from_numpy(EDGES[:12]).half()).float(), rtol=0, atol=0)


def test_integer_floor_divide_and_remainder_are_exact_with_signs_and_large_values():
    a = np.array([7, -7, 7, -7, 2 ** 30 + 3, -(2 ** 30) - 5, 2 ** 31 - 1, 0, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, 7, 2 ** 20 + 1, -3, -5], np.int32)
    x, y = pyasc.tensor(a), pyasc.tensor(b)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    _same(x // y, ta // tb, rtol=0, atol=0)
    _same(x % y, ta % tb, rtol=0, atol=0)
    _same(pyasc.jit(lambda u: u % -3)(x), ta % -3, rtol=0, atol=0)
    assert (x // y).dtype is pyasc.int32


def test_float_floor_divide_and_remainder_follow_the_divisors_sign():
    a = np.array([5.5, -5.5, 5.5, -5.5, 0.0, 1e-3], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, -1.5], np.float32)
    _same(pyasc.tensor(a) // pyasc.tensor(b), torch.from_numpy(a) // torch.from_numpy(b))
    _same(pyasc.tensor(a) % pyasc.tensor(b), torch.from_numpy(a) % torch.from_numpy(b))
    _same(7 % pyasc.tensor(b), 7 % torch.from_numpy(b))


def test_integer_division_by_zero_is_refused():
    with pytest.raises(pyasc.PyascError, match="floor_divide.*division by zero"):
        pyasc.tensor([1, 2]) // 0
    with pytest.raises(pyasc.PyascError, match="remainder.*division by zero"):
        pyasc.tensor([1, 2]) % pyasc.tensor([1, 0])


def test_log1p_and_expm1_keep_their_accuracy_near_zero():
    a = np.array([1e-10, -1e-7, 3e-5, 1e-3, -0.5, 20.0, 0.0], np.float32)
    for name in ("log1p", "expm1"):
        out, n = _launches(getattr(pyasc, name), pyasc.tensor(a))
        assert n > 0
        _same(out, getattr(torch, name)(torch.from_numpy(a)), rtol=4e-6, atol=0)


def test_sort_is_stable_and_puts_nan_last_or_first_like_torch():
    a = np.array([[3.0, np.nan, 1.0, 3.0, -np.inf, 1.0, np.nan, 0.0]], np.float32)
    for descending in (False, True):
        ref = torch.sort(torch.from_numpy(a), dim=1, descending=descending, stable=True)
        out = pyasc.sort(pyasc.tensor(a), 1, descending)
        _same(out.values, ref.values, rtol=0, atol=0)
        _same(out.indices, ref.indices, rtol=0, atol=0)
    ints = np.array([2 ** 30 + 1, -5, 2 ** 30, 7, -(2 ** 31) + 1], np.int32)
    ref = torch.sort(torch.from_numpy(ints))
    out = pyasc.jit(lambda t: tuple(pyasc.sort(t)))(pyasc.tensor(ints))
    _same(out[0], ref.values, rtol=0, atol=0)


def test_selections_move_int32_values_exactly():
    x = np.array([[2 ** 31 - 1, -(2 ** 31) + 3, 16777217], [5, -16777219, 0]], np.int32)
    idx = np.array([[1, 0, 1], [0, 0, 1]], np.int32)
    t, ti = torch.from_numpy(x), torch.from_numpy(idx).long()
    _same(pyasc.gather(pyasc.tensor(x), 0, pyasc.tensor(idx)), torch.gather(t, 0, ti), rtol=0, atol=0)
    _same(pyasc.index_select(pyasc.tensor(x), 1, pyasc.tensor(np.array([2, -1, 0], np.int32))),
          torch.index_select(t, 1, torch.tensor([2, 2, 0])), rtol=0, atol=0)
    src = np.array([[9, 8, 7]], np.int32)
    _same(pyasc.scatter(pyasc.tensor(x), 0, pyasc.tensor(idx[:1]), pyasc.tensor(src)),
          torch.scatter(t, 0, ti[:1], torch.from_numpy(src)), rtol=0, atol=0)


def test_indices_out_of_range_are_refused_naming_the_op():
    x = pyasc.tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(pyasc.PyascError, match="gather.*out of range"):
        pyasc.gather(x, 1, pyasc.tensor(np.array([[4]], np.int32)))
    with pytest.raises(pyasc.PyascError, match="index_select.*out of range"):
        pyasc.index_select(x, 0, pyasc.tensor(np.array([-4], np.int32)))


def test_variance_with_a_correction_of_at_least_n_gives_torchs_inf_or_nan():
    a = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]], np.float32)
    for c in (0, 1, 3, 4):
        _same(pyasc.var(pyasc.tensor(a), 1, correction=c), torch.var(torch.from_numpy(a), 1, correction=c))
    _same(pyasc.std(pyasc.tensor(a), unbiased=False), torch.std(torch.from_numpy(a), unbiased=False))


def test_einsum_forms_and_bad_equations():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    for eq, ops in (("ij,jk->ik", (a, b)), ("ij,jk", (a, b)), ("ij,ij->i", (a, a)), ("ij,jk,kl->il", (a, b, b.T))):
        _same(pyasc.einsum(eq, *[pyasc.tensor(o) for o in ops]), torch.einsum(eq, *[torch.from_numpy(o) for o in ops]),
              atol=1e-5 * 4)
    _same(pyasc.einsum("ii", pyasc.tensor(a[:, :3])), torch.einsum("ii", ta[:, :3]))
    with pytest.raises(pyasc.PyascError, match="einsum.*sizes"):
        pyasc.einsum("ij,ij->i", pyasc.tensor(a), pyasc.tensor(b))
    _same(pyasc.einsum("...j->j", pyasc.tensor(a)), torch.einsum("...j->j", ta), atol=1e-5 * 4)
    with pytest.raises(pyasc.PyascError, match="einsum.*'...'"):
        pyasc.einsum("....j->j", pyasc.tensor(a))
    del tb


def test_pools_match_torch_with_padding_ceil_mode_dilation_and_indices():
    x = np.random.default_rng(4).standard_normal((2, 3, 7, 9)).astype(np.float32)
    F, TF = pyasc.nn.functional, torch.nn.functional
    t = torch.from_numpy(x)
    _same(F.max_pool2d(pyasc.tensor(x), (3, 2), stride=2, padding=1), TF.max_pool2d(t, (3, 2), stride=2, padding=1))
    _same(F.avg_pool2d(pyasc.tensor(x), 3, 2, 1, count_include_pad=False),
          TF.avg_pool2d(t, 3, 2, 1, count_include_pad=False))
    _same(F.adaptive_avg_pool2d(pyasc.tensor(x), (3, None)), TF.adaptive_avg_pool2d(t, (3, None)))
    _same(F.max_pool2d(pyasc.tensor(x), 2, ceil_mode=True), TF.max_pool2d(t, 2, ceil_mode=True))
    _same(F.max_pool2d(pyasc.tensor(x), 3, 1, 1, dilation=2), TF.max_pool2d(t, 3, 1, 1, dilation=2))
    v, i = F.max_pool2d(pyasc.tensor(x), 3, 2, 1, return_indices=True, ceil_mode=True)
    tv, ti = TF.max_pool2d(t, 3, 2, 1, return_indices=True, ceil_mode=True)
    _same(v, tv)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    with pytest.raises(pyasc.PyascError, match="max_pool2d.*dilation"):
        F.max_pool2d(pyasc.tensor(x), 2, dilation=0)


def test_cross_entropy_weights_ignore_index_smoothing_and_probabilities():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    tg = np.array([0, 3, -100, 2, 1, 3])
    w = np.array([0.5, 1.0, 2.0, 1.5], np.float32)
    F, TF = pyasc.nn.functional, torch.nn.functional
    px, pt = pyasc.tensor(x), pyasc.tensor(tg.astype(np.int32))
    tx, tt = torch.from_numpy(x), torch.from_numpy(tg)
    for kw in ({}, {"reduction": "none"}, {"reduction": "sum", "label_smoothing": 0.2}):
        _same(F.cross_entropy(px, pt, **kw), TF.cross_entropy(tx, tt, **kw))
    _same(F.cross_entropy(px, pt, pyasc.tensor(w)), TF.cross_entropy(tx, tt, torch.from_numpy(w)))
    probs = np.abs(rng.standard_normal((6, 4))).astype(np.float32)
    _same(F.cross_entropy(px, pyasc.tensor(probs)), TF.cross_entropy(tx, torch.from_numpy(probs)))
    with pytest.raises(pyasc.PyascError, match="cross_entropy.*out of bounds"):
        F.cross_entropy(px, pyasc.tensor(np.array([0, 1, 2, 3, 4, 0], np.int32)))


def test_functional_names_are_the_op_table_ops_and_dropout_trains_by_default():
    F = pyasc.nn.functional
    assert F.relu is pyasc.relu and F.linear is pyasc.linear and F.silu is pyasc.silu
    x = pyasc.tensor(np.ones((64, 64), np.float32))
    kept = F.dropout(x, 0.5).numpy()
    assert set(np.unique(kept)) <= {0.0, 2.0} and 0 < (kept == 0).sum() < kept.size
    np.testing.assert_array_equal(F.dropout(x, 0.5, training=False).numpy(), x.numpy())


def test_copies_share_or_own_storage_like_torch():
    x = pyasc.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    c, d = x.clone(), x.detach()
    assert c.data_ptr() != x.data_ptr() and d.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(x.cpu().numpy(), x.numpy())
    out, n = _launches(lambda t: t.expand(4, 2, 3), x)
    assert n > 0 and out.shape == (4, 2, 3)
