"""Corner cases of programs written the PyTorch way, each compared with PyTorch CPU: reductions
over a size-1 dim, convolutions whose output pixels see only padding or add a constant bias,
batch_norm with its statistics as jit arguments, logical ops over broadcast masks, in-place
updates of views inside jit (bool and int8 too), ops on int32, int8 and bool operands, int32
convolutions and scaled products, splits with empty sections, tensor indices and item
assignment inside jit, and NaN, inf and signed operands of erf, pow and the arg reductions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

from .harness import run_counting_launches
from .torch_pairs import close, pair, run

RNG = np.random.default_rng(11)
MODES = ("eager", "jit")


def _pair(*shape, dtype="float32"):
    return pair(RNG, *shape, dtype=dtype)


_close, _run = close, run


# ------------------------------------------------------------------------ reductions


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("shape,dim,keepdim", [((1, 7), 0, False), ((7, 31, 1, 3), 2, False),
                                               ((1, 1, 1, 19), 0, True), ((5, 1), -1, False)])
def test_arg_reduction_over_a_size_one_dim(mode, op, shape, dim, keepdim):
    x, t = _pair(*shape)
    _close(_run(lambda v: getattr(v, op)(dim=dim, keepdim=keepdim), mode, x), getattr(t, op)(dim=dim, keepdim=keepdim))


@pytest.mark.parametrize("mode", MODES)
def test_max_over_a_size_one_dim_gives_values_and_indices(mode):
    x, t = _pair(1, 19, 31, dtype="bfloat16")
    got, want = _run(lambda v: v.max(dim=0), mode, x), t.max(dim=0)
    _close(got[0], want[0], tol=0)
    _close(got[1], want[1], tol=0)


# ------------------------------------------------------------------------ convolutions


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("xshape,wshape,stride,padding", [((1, 1, 1, 1), (4, 1, 1, 1), 2, 1),
                                                          ((2, 3, 1, 2), (5, 3, 1, 1), 2, 1),
                                                          ((1, 2, 3, 3), (4, 2, 3, 3), 3, 1)])
def test_conv2d_output_pixels_that_see_only_padding(mode, dtype, xshape, wshape, stride, padding):
    (x, tx), (w, tw), (b, tb) = _pair(*xshape, dtype=dtype), _pair(*wshape, dtype=dtype), _pair(wshape[0], dtype=dtype)
    want = torch.nn.functional.conv2d(tx.float(), tw.float(), tb.float(), stride=stride, padding=padding)
    got = _run(lambda x, w, b: pyasc.conv2d(x, w, b, stride=stride, padding=padding), mode, x, w, b)
    _close(got, want.to(tx.dtype), tol=2e-3 if dtype == "float32" else 3e-2)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("bias", ["splat", "distinct"])
def test_conv2d_with_a_constant_closure_bias_inside_jit(dtype, bias):
    (x, tx), (w, tw) = _pair(1, 3, 1, 1, dtype=dtype), _pair(2, 3, 1, 1, dtype=dtype)
    tb = torch.full((2,), 0.75) if bias == "splat" else torch.tensor([0.5, -1.25])
    tb = tb.to(tx.dtype)
    b = pyasc.tensor(tb)
    got = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, b, stride=2, padding=1))(x, w)
    want = torch.nn.functional.conv2d(tx.float(), tw.float(), tb.float(), stride=2, padding=1)
    _close(got, want.to(tx.dtype), tol=2e-3 if dtype == "float32" else 3e-2)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_linear_with_a_constant_closure_bias_inside_jit(dtype):
    (x, tx), (w, tw) = _pair(5, 8, dtype=dtype), _pair(3, 8, dtype=dtype)
    tb = torch.full((3,), -0.5).to(tx.dtype)
    b = pyasc.tensor(tb)
    got = pyasc.jit(lambda x, w: pyasc.linear(x, w, b))(x, w)
    want = torch.nn.functional.linear(tx.float(), tw.float(), tb.float())
    _close(got, want.to(tx.dtype), tol=2e-3 if dtype == "float32" else 3e-2)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("op", ["linear", "linear_gelu", "addmm"])
@pytest.mark.parametrize("m,n", [(11, 17), (5, 2)])
def test_product_with_an_empty_k_is_the_broadcast_bias_inside_jit(dtype, op, m, n):
    """K = 0: the bias broadcast (and its activation) is the loop-invariant prologue, whose dependent
    vector ops need barriers (the suite fails on simulator races)."""
    (x, tx), (w, tw), (b, tb) = _pair(m, 0, dtype=dtype), _pair(n, 0, dtype=dtype), _pair(n, dtype=dtype)
    F = torch.nn.functional
    if op == "addmm":
        (wt, twt) = _pair(0, n, dtype=dtype)
        got, want = _on_device(lambda b, x, w: pyasc.addmm(b, x, w), "jit", b, x, wt), torch.addmm(tb, tx, twt)
    elif op == "linear":
        got, want = _on_device(lambda x, w, b: pyasc.linear(x, w, b), "jit", x, w, b), F.linear(tx, tw, tb)
    else:
        got = _on_device(lambda x, w, b: pyasc.gelu(pyasc.linear(x, w, b)), "jit", x, w, b)
        want = F.gelu(F.linear(tx.float(), tw.float(), tb.float())).to(tx.dtype)
    _close(got, want, tol=2e-3 if dtype == "float32" else 1e-2)


# ------------------------------------------------------------------------ batch_norm


@pytest.mark.parametrize("xshape", [(2, 3, 4, 5), (3, 7, 5), (1, 4, 3, 2, 3), (2, 17, 9, 33)])
def test_batch_norm_with_statistics_as_jit_arguments(xshape):
    c = xshape[1]
    (x, tx), (m, tm), (w, tw), (b, tb) = _pair(*xshape), _pair(c), _pair(c), _pair(c)
    tv = torch.rand(c) + 0.5
    got = pyasc.jit(lambda x, m, v, w, b: pyasc.batch_norm(x, m, v, w, b))(x, m, pyasc.tensor(tv), w, b)
    _close(got, torch.nn.functional.batch_norm(tx, tm, tv, tw, tb, training=False), tol=1e-4)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("xshape", [(27, 25), (9, 25, 7), (1, 31, 23, 1)])
def test_batch_norm_in_half_precision_folds_the_statistics_in_float32(mode, dtype, xshape):
    """PyTorch's CPU kernel folds mean, var, weight and bias into a float32 scale and shift and applies
    them in float32: one rounding of the result. Statistics of large magnitude make a half fold
    visibly wrong."""
    c = xshape[1]
    (x, tx), (m, tm), (w, tw), (b, tb) = (_pair(*s, dtype=dtype) for s in (xshape, (c,), (c,), (c,)))
    tv = (torch.rand(c) * 40 + 0.1).to(tx.dtype)
    tm, tb = (tm.float() * 30).to(tx.dtype), (tb.float() * 30).to(tx.dtype)
    m, b, v = pyasc.tensor(tm), pyasc.tensor(tb), pyasc.tensor(tv)
    got = _on_device(lambda x, m, v, w, b: pyasc.batch_norm(x, m, v, w, b), mode, x, m, v, w, b)
    want = torch.nn.functional.batch_norm(tx, tm, tv, tw, tb, training=False)
    assert got.shape == tuple(want.shape) and got.dtype.name == dtype
    ulp = torch.finfo(tx.dtype).eps * want.float().abs().clamp_min(1e-3)     # within one rounding
    err = (torch.from_numpy(got.float().numpy()) - want.float()).abs()
    assert bool((err <= ulp).all()), f"max error {float((err / ulp).max()):.1f} ulp"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("xshape", [(2, 0, 3), (0, 0, 4, 4), (3, 0)])
def test_batch_norm_with_zero_channels_is_refused_as_by_torch(mode, xshape):
    tx, ts = torch.zeros(xshape), torch.zeros(0)
    with pytest.raises(IndexError):
        torch.nn.functional.batch_norm(tx, ts, ts + 1, ts, ts, training=False)
    with pytest.raises(pyasc.PyascError, match="batch_norm.*no channels"):
        _run(lambda x, m, v: pyasc.batch_norm(x, m, v), mode, pyasc.tensor(tx), pyasc.tensor(ts), pyasc.tensor(ts))


# ------------------------------------------------------------------------ in-place updates of views in jit


def _u_view_add(u, y):
    v = u[1]
    v += 1
    return u


def _slice_mul(u, y):
    u[:, 1:].mul_(3)
    return u


def _transpose_imul(u, y):
    u.transpose(0, 1).__imul__(y[0])
    return u


def _sibling_view_sees_update(u, y):
    v, w = u[1], u[:, 2]
    v.add_(y)
    return u + w[:, None]


def _view_of_view(u, y):
    a = u[1:3]
    b = a[:, 1:3]
    b += 10
    return a * 2


def _view_after_root_update(u, y):
    v = u.reshape(-1)
    v -= 2
    u += 1
    return v


def _copy_into_row(u, y):
    u[0].copy_(y)
    return u


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("fn", [_u_view_add, _slice_mul, _transpose_imul, _sibling_view_sees_update, _view_of_view,
                                _view_after_root_update, _copy_into_row])
def test_inplace_update_of_a_view_inside_jit_is_functionalized(fn, dtype):
    tu = torch.from_numpy(RNG.integers(-4, 5, (4, 6)).astype(np.float32)).to(getattr(torch, dtype))
    ty = torch.from_numpy(RNG.integers(-4, 5, (6,)).astype(np.float32)).to(getattr(torch, dtype))
    got = pyasc.jit(fn)(pyasc.tensor(tu.clone()), pyasc.tensor(ty))
    _close(got, fn(tu.clone(), ty), tol=0)


# ------------------------------------------------------------------------ logical ops over broadcast masks


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype", ["bool", "float16", "int32"])
@pytest.mark.parametrize("sa,sb", [((4, 8), (1, 8)), ((5, 5, 9, 3), (3,)), ((1, 13, 1, 5), (1, 1, 1, 5))])
def test_logical_ops_with_a_broadcast_mask(mode, op, dtype, sa, sb):
    """The broadcast operand becomes a mask once, before the tile loop (compare, duplicate,
    select): its dependent vector steps need barriers there too (the suite fails on races)."""
    a, b = (RNG.integers(-1, 2, s) for s in (sa, sb))
    ta, tb = (torch.from_numpy(v) != 0 if dtype == "bool" else torch.from_numpy(v).to(getattr(torch, dtype))
              for v in (a, b))
    got = _run(lambda x, y: getattr(pyasc, op)(x, y), mode, pyasc.tensor(ta), pyasc.tensor(tb))
    _close(got, getattr(torch, op)(ta, tb), tol=0)


# ------------------------------------------------------------------------ integer and bool operands


def _int_pair(shape, dtype, lo=-9, hi=10):
    a = np.asarray(RNG.random(shape) < 0.5) if dtype == "bool" else np.asarray(RNG.integers(lo, hi, shape))
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    return pyasc.tensor(t.clone()), t


def _on_device(fn, mode, *args):
    """``fn`` run in ``mode``; the simulator must have run at least one kernel meanwhile."""
    out, launches = run_counting_launches(mode, fn, list(args))
    assert launches > 0, "computed on the host"
    return out


INT_CASES = [  # name, fn(module, *tensors), operand (shape, dtype)s
    ("bitwise_and", lambda m, x, y: x & y, [((5, 7), "int32"), ((7,), "int32")]),
    ("bitwise_or", lambda m, x, y: x | y, [((3, 9), "int8"), ((), "int8")]),
    ("bitwise_xor", lambda m, x, y: x ^ y, [((4, 6), "int32"), ((4, 6), "int32")]),
    ("bitwise_not", lambda m, x: ~x, [((3, 11), "int32")]),
    ("bitwise_not_int8", lambda m, x: ~x, [((2, 3, 5), "int8")]),
    ("bitwise_not_bool", lambda m, x: ~x, [((2, 13), "bool")]),
    ("bitwise_or_bool", lambda m, x, y: x | y, [((5, 7), "bool"), ((5, 1), "bool")]),
    ("exp_int32", lambda m, x: m.exp(x), [((3, 5), "int32")]),
    ("sigmoid_int32", lambda m, x: m.sigmoid(x), [((17,), "int32")]),
    ("erf_int32", lambda m, x: m.erf(x), [((2, 9), "int32")]),
    ("abs_int32", lambda m, x: m.abs(x), [((3, 7), "int32")]),
    ("isfinite_int32", lambda m, x: m.isfinite(x), [((3, 7), "int32")]),
    ("isnan_int32", lambda m, x: m.isnan(x), [((3, 7), "int32")]),
    ("isinf_int32", lambda m, x: m.isinf(x), [((3, 7), "int32")]),
    ("lt_int8", lambda m, x, y: x < y, [((3, 5), "int8"), ((5,), "int8")]),
    ("eq_int8_0d", lambda m, x, y: m.eq(x, y), [((11,), "int8"), ((), "int8")]),
    ("where_int8", lambda m, c, x, y: m.where(c, x, y), [((7,), "bool"), ((7,), "int8"), ((7,), "int8")]),
    ("where_bool", lambda m, c, x, y: m.where(c, x, y), [((5, 7), "bool"), ((5, 7), "bool"), ((7,), "bool")]),
    ("add_int8", lambda m, x, y: x + y, [((13, 11, 2), "int8"), ((13, 1, 1), "int8")]),
    ("add_bool", lambda m, x, y: x + y, [((9,), "bool"), ((), "bool")]),
    ("add_scalar_bool", lambda m, x: x + 2, [((4, 3), "bool")]),
    ("add_float_bool", lambda m, x, y: x + y, [((2, 3), "bool"), ((3,), "float32")]),
    ("mul_int8_0d_int32", lambda m, x, y: x * y, [((2, 3), "int8"), ((), "int32")]),
    ("add_bf16_0d_f32", lambda m, x, y: x + y, [((2, 3), "bfloat16"), ((), "float32")]),
    ("where_bf16_0d_f32", lambda m, c, x, y: m.where(c, x, y), [((2, 3), "bool"), ((2, 3), "bfloat16"), ((), "float32")]),
    ("logical_xor_int8_0d", lambda m, x, y: m.logical_xor(x, y), [((), "int8"), ((3, 7), "int8")]),
    ("pow_int32_scalar", lambda m, x: x ** 3, [((3, 23), "int32")]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn,specs", INT_CASES, ids=[c[0] for c in INT_CASES])
def test_integer_and_bool_operands_as_torch(mode, name, fn, specs):
    """Results, dtypes (torch's promotion, 0-d operands included) and values of ops on int32, int8
    and bool tensors, computed by kernels."""
    pairs = [_int_pair(s, d) for s, d in specs]
    got = _on_device(lambda *xs: fn(pyasc, *xs), mode, *[p for p, _ in pairs])
    _close(got, fn(torch, *[t for _, t in pairs]), tol=1e-3 if got.dtype.is_floating_point else 0)


@pytest.mark.parametrize("mode", MODES)
def test_int32_bitwise_ops_on_all_bits(mode):
    """And/Or run on the int16 view of int32 buffers: values over the whole int32 range."""
    a, b = (torch.from_numpy(RNG.integers(-2 ** 31, 2 ** 31, (37, 53)).astype(np.int32)) for _ in range(2))
    got = _on_device(lambda x, y: ((x & y) | ~x) ^ y, mode, pyasc.tensor(a), pyasc.tensor(b))
    _close(got, ((a & b) | ~a) ^ b, tol=0)


@pytest.mark.parametrize("mode", MODES)
def test_int32_pow_with_a_tensor_exponent(mode):
    """Exact and wrapping as torch's, negative exponents included (0 unless the base is 1 or -1)."""
    x = torch.tensor([[1, -1, 0, 2, -3, 7, 9], [-1, 1, 5, -2, 3, 10, -9]], dtype=torch.int32)
    y = torch.tensor([-3, -4, -1, 30, 7, 12, 9], dtype=torch.int32)
    got = _on_device(lambda a, b: pyasc.pow(a, b), mode, pyasc.tensor(x), pyasc.tensor(y))
    _close(got, torch.pow(x, y), tol=0)


def test_int32_pow_with_a_negative_scalar_exponent_is_refused_as_by_torch():
    with pytest.raises(RuntimeError):
        torch.ones(3, dtype=torch.int32) ** -1
    with pytest.raises(pyasc.PyascError, match="negative integer powers"):
        pyasc.ones(3, dtype=pyasc.int32) ** -1


@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_ops_on_floats_are_refused_as_by_torch(op):
    with pytest.raises(RuntimeError):
        getattr(torch, op)(torch.ones(3), torch.ones(3))
    with pytest.raises(pyasc.PyascError, match="does not support dtype float32"):
        getattr(pyasc, op)(pyasc.ones(3), pyasc.ones(3))


def test_rms_norm_of_int32_is_refused_as_by_torch():
    with pytest.raises(NotImplementedError):
        torch.nn.functional.rms_norm(torch.ones(2, 4, dtype=torch.int32), (4,))
    with pytest.raises(pyasc.PyascError, match="rms_norm"):
        pyasc.rms_norm(pyasc.ones(2, 4, dtype=pyasc.int32), (4,))

def _copy_into_transposed_column(u, y):
    u.transpose(0, 1)[2].copy_(y[:4])
    return u


def _copy_into_rows(u, y):
    u[1:3].copy_(y)
    return u


@pytest.mark.parametrize("dtype", ["bool", "int8"])
@pytest.mark.parametrize("fn", [_copy_into_row, _copy_into_rows, _copy_into_transposed_column])
def test_inplace_copy_into_a_bool_or_int8_view_inside_jit(fn, dtype):
    """bool and int8 data move as float16: the update undoes the carrier's conversions."""
    tu, ty = (torch.from_numpy(RNG.integers(-100, 100, s)) for s in ((4, 6), (6,)))
    tu, ty = (t > 0 if dtype == "bool" else t.to(torch.int8) for t in (tu, ty))
    got = pyasc.jit(fn)(pyasc.tensor(tu.clone()), pyasc.tensor(ty))
    _close(got, fn(tu.clone(), ty), tol=0)


# ------------------------------------------------------------------------ int32 products and convolutions


def _int32(*shape):
    return torch.from_numpy(RNG.integers(-2 ** 31, 2 ** 31, size=shape, dtype=np.int64).astype(np.int32))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("xshape,wshape,kw", [((2, 3, 7, 6), (4, 3, 3, 3), dict(stride=2, padding=1)),
                                              ((1, 4, 5, 5), (6, 2, 3, 3), dict(groups=2, stride=(1, 2), padding=2)),
                                              ((1, 1, 1, 1), (3, 1, 1, 1), dict(stride=2, padding=1))])
def test_int32_conv2d_wraps_around_as_torch(mode, xshape, wshape, kw):
    tx, tw, tb = _int32(*xshape), _int32(*wshape), _int32(wshape[0])
    got = _run(lambda x, w, b: pyasc.conv2d(x, w, b, **kw), mode, *map(pyasc.tensor, (tx, tw, tb)))
    _close(got, torch.nn.functional.conv2d(tx, tw, tb, **kw), tol=0)


@pytest.mark.parametrize("mode", MODES)
def test_int32_conv2d_with_constant_operands_inside_jit(mode):
    """A closure weight (small values: digits that are all 0 or all -1) and a closure bias."""
    tx, tw, tb = _int32(1, 3, 7, 3), torch.tensor([[-3], [-1], [-7]], dtype=torch.int32).reshape(1, 3, 1, 1), _int32(1)
    w, b = pyasc.tensor(tw), pyasc.tensor(tb)
    got = _run(lambda x: pyasc.conv2d(x, w, b, stride=2, padding=1), mode, pyasc.tensor(tx))
    _close(got, torch.nn.functional.conv2d(tx, tw, tb, stride=2, padding=1), tol=0)


def test_int32_dilated_conv2d_is_refused_as_by_torch():
    tx, tw = _int32(1, 2, 7, 7), _int32(3, 2, 3, 3)
    with pytest.raises(NotImplementedError):
        torch.nn.functional.conv2d(tx, tw, dilation=2)
    with pytest.raises(pyasc.PyascError, match="dilated"):
        pyasc.conv2d(pyasc.tensor(tx), pyasc.tensor(tw), dilation=2)


def _long_only(request):
    if not request.config.getoption("--diff-long"):
        pytest.skip("many kernels: runs with --diff-long")


def test_int32_conv2d_summing_more_terms_than_float32_holds_exactly(request):
    """130 channels x 3 x 3 = 1170 products per output: the sum is split over the channels."""
    _long_only(request)
    tx, tw = _int32(1, 130, 3, 3), _int32(2, 130, 3, 3)
    got = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, padding=1))(pyasc.tensor(tx), pyasc.tensor(tw))
    _close(got, torch.nn.functional.conv2d(tx, tw, padding=1), tol=0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("beta,alpha", [(0.5, 2.0), (1.5, 2.5), (-0.5, 1), (1, 0.5)])
def test_int32_addmm_truncates_float_scalars_as_torch(mode, beta, alpha):
    tc, ta, tb = (torch.from_numpy(RNG.integers(-50, 50, s).astype(np.int32)) for s in ((3, 4), (3, 5), (5, 4)))
    got = _run(lambda c, a, b: pyasc.addmm(c, a, b, beta=beta, alpha=alpha), mode, *map(pyasc.tensor, (tc, ta, tb)))
    _close(got, torch.addmm(tc, ta, tb, beta=beta, alpha=alpha), tol=0)


# ------------------------------------------------------------------------ split, indices and item assignment in jit


@pytest.mark.parametrize("sizes,dim", [([0, 3], 0), ([1, 0, 2, 0, 3], 1), ([6, 0], 1), ([0, 0, 3], 0)])
def test_split_with_empty_sections_inside_jit(sizes, dim):
    x, t = _pair(3, 6)
    got = pyasc.jit(lambda v: tuple(p * 2 for p in v.split(sizes, dim=dim)))(x)
    want = [p * 2 for p in t.split(sizes, dim=dim)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w, tol=0)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32", "int8", "bool"])
@pytest.mark.parametrize("xshape,index", [((5, 3), [4, -1, 2, 0]), ((7,), [[1, 6], [0, 0]])])
def test_getitem_with_an_index_tensor_inside_jit(dtype, xshape, index):
    t = torch.from_numpy(RNG.standard_normal(xshape).astype(np.float32) * 4)
    t = t > 0 if dtype == "bool" else t.to(getattr(torch, dtype))
    if dtype == "float32":
        t.view(-1)[0], t.view(-1)[-1] = float("nan"), float("-inf")
    ti = torch.tensor(index)
    got = pyasc.jit(lambda v, i: v[i])(pyasc.tensor(t), pyasc.tensor(ti.to(torch.int32)))
    want = t[ti]
    assert got.shape == tuple(want.shape) and got.dtype.name == str(want.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(got.float().numpy() if dtype == "bfloat16" else got.numpy(),
                                  want.float().numpy() if dtype == "bfloat16" else want.numpy())


def test_getitem_with_a_traced_bool_mask_inside_jit_runs_eagerly():
    """The result's shape depends on the mask's values: the call runs eagerly (as torch.compile
    breaks its graph there) and matches torch; compiling that signature explicitly is refused."""
    x, t = _pair(4, 5)
    fn = pyasc.jit(lambda v, m: v[m] * 2)
    for _ in range(2):     # the second call reuses the decision
        _close(fn(x, pyasc.tensor(t > 0)), t[t > 0] * 2, tol=0)
    with pytest.raises(pyasc.PyascError, match="depends on the mask's values"):
        fn.lower(x, pyasc.tensor(t > 0))


def _scaled_by_item(m, v):
    return v * float(v.sum().item())


def _branch_on_a_value(m, v):
    if v.sum() > 0:
        return v * 2
    return v - 1


def _rows_from_a_value(m, v):
    return v[: int(v.abs().max().item() * 2) % 4 + 1].sum(0)


@pytest.mark.parametrize("fn", [_scaled_by_item, _branch_on_a_value, _rows_from_a_value])
def test_a_value_python_reads_inside_jit_runs_eagerly(fn):
    """``item()``, ``float()``, a branch on a tensor: as torch.compile breaks its graph there, the call runs
    eagerly and matches torch; compiling that signature explicitly is refused with the reason."""
    for sign in (1, -1):
        x, t = _pair(4, 5)
        x, t = x * sign, t * sign
        jitted = pyasc.jit(lambda v: fn(pyasc, v))
        for _ in range(2):     # the second call reuses the decision
            _close(jitted(x), fn(torch, t), tol=1e-6)
        with pytest.raises(pyasc.PyascError, match="has no values while pyasc.jit traces"):
            jitted.lower(x)


def _setitems(m, u, y):
    u[1] = y
    u[:, 0] = 5
    u[::2, 2] = -1
    u[m.tensor([3, 0])] = 7
    u[u.shape[0] - 1, 1:] = y[1:]
    return u


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int8", "bool"])
def test_setitem_inside_jit_is_functionalized(dtype):
    tu = torch.from_numpy(RNG.integers(-4, 5, (5, 3))).to(getattr(torch, dtype))
    ty = torch.from_numpy(RNG.integers(-4, 5, (3,))).to(getattr(torch, dtype))
    got = pyasc.jit(lambda u, y: _setitems(pyasc, u, y))(pyasc.tensor(tu.clone()), pyasc.tensor(ty))
    _close(got, _setitems(torch, tu.clone(), ty), tol=0)


@pytest.mark.parametrize("dtype,largest,shape,k,dim", [("float16", True, (2, 90), 70, 1),
                                                       ("bfloat16", False, (67, 2), 67, 0)])
def test_topk_beyond_one_kernel_inside_jit(request, dtype, largest, shape, k, dim):
    """k above one kernel's 64 rounds: rounds of at most 64 over a key where the chosen drop out;
    the input's own infinities still rank before them."""
    if dtype == "bfloat16":
        _long_only(request)
    p = RNG.permutation(int(np.prod(shape))).reshape(shape)     # distinct values, exact in 8 bits
    a = ((2 * (p % 64) + 1) * 2.0 ** (p // 64) * RNG.choice((-1, 1), shape)).astype(np.float32)
    a.flat[[3, 7]] = -np.inf, np.inf
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    got = pyasc.jit(lambda v: tuple(v.topk(k, dim=dim, largest=largest)))(pyasc.tensor(t))
    want = t.topk(k, dim=dim, largest=largest)
    _close(got[0], want[0], tol=0)
    _close(got[1], want[1], tol=0)

# ------------------------------------------------------------------------ NaN, inf and signs

NAN, INF = float("nan"), float("inf")
SPECIAL = [NAN, INF, -INF, 0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 0.3, -0.7, 1e30, -1e30]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_erf_of_infinities_saturates(mode, dtype):
    t = torch.tensor([NAN, INF, -INF, 0.0, 3.5, -9.0, 20.0, -1e30, 0.25]).to(getattr(torch, dtype))
    got = _on_device(lambda x: pyasc.erf(x), mode, pyasc.tensor(t))
    _close(got, torch.erf(t), tol=2e-3 if dtype == "float32" else 1e-2)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_pow_follows_c_pow_at_nan_inf_zero_and_negative_bases(mode, dtype):
    """Every pair of special values: pow(nan, 0) = pow(1, nan) = 1, pow(x < 0, non-integer) = nan,
    odd integer exponents keep the base's sign, pow(0, y < 0) = inf, pow(-1, +-inf) = 1."""
    xs, ys = np.meshgrid(SPECIAL, SPECIAL, indexing="ij")
    tx, ty = (torch.tensor(v.ravel()).to(getattr(torch, dtype)) for v in (xs, ys))
    got = _on_device(lambda x, y: pyasc.pow(x, y), mode, pyasc.tensor(tx), pyasc.tensor(ty))
    _close(got, torch.pow(tx, ty), tol=2e-3 if dtype == "float32" else 1e-2)


@pytest.mark.parametrize("mode,dtype", [("eager", "float32"), ("jit", "float16"), ("eager", "float16"),
                                        ("jit", "bfloat16")])
@pytest.mark.parametrize("exponent", [0.5, -0.5, 2.5, -3.0, NAN, -INF])
def test_pow_by_a_python_scalar_at_special_bases(mode, dtype, exponent):
    """As PyTorch's CPU kernel: 0.5 and -0.5 are sqrt and rsqrt except on float16 (C's pow)."""
    t = torch.tensor(SPECIAL).to(getattr(torch, dtype))
    got = _on_device(lambda x: x ** exponent, mode, pyasc.tensor(t))
    _close(got, t ** exponent, tol=2e-3 if dtype == "float32" else 1e-2)


def _special_rows(shape, dtype):
    """Values with NaN and +-inf at chosen places: rows with two NaNs, NaN after inf, inf alone."""
    a = RNG.standard_normal(shape)
    flat = a.reshape(-1)
    for i, v in zip((1, 4, 9, 12, 13, 20, 27, 30), (NAN, NAN, INF, NAN, -INF, INF, -INF, NAN)):
        flat[i % flat.size] = v
    return torch.from_numpy(a).to(getattr(torch, dtype))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("op", ["argmax", "argmin", "max", "min"])
@pytest.mark.parametrize("shape,dim,mode", [((13, 7), 0, "jit"), ((5, 11, 3), 1, "eager")])
def test_arg_reductions_take_the_first_nan_then_the_first_extreme(mode, dtype, op, shape, dim):
    t = _special_rows(shape, dtype)
    got = _on_device(lambda x: getattr(x, op)(dim=dim), mode, pyasc.tensor(t))
    want = getattr(t, op)(dim=dim)
    if op in ("max", "min"):
        _close(got[0], want[0], tol=0)
        got, want = got[1], want[1]
    _close(got, want, tol=0)
