"""Storage dtypes, formats, devices, torch interop, views sharing storage,
indexing, comparisons, conversion and the data-movement ops, against NumPy/PyTorch semantics."""

import math

import numpy as np
import pytest
import torch

import pyasc
from pyasc import ops

from .conftest import requires_backend


# ----------------------------------------------------------------------------- dtypes, creation

def test_storage_dtypes_create_and_convert():
    b = pyasc.tensor([True, False, True])
    assert b.dtype is pyasc.bool and b.numpy().dtype == np.bool_ and repr(b).endswith("dtype=pyasc.bool)")
    i8 = pyasc.tensor([1, -2, 127], dtype=pyasc.int8)
    assert i8.dtype is pyasc.int8 and i8.nbytes == 3 and i8.element_size() == 1
    assert pyasc.get_dtype("bool") is pyasc.bool and pyasc.get_dtype(bool) is pyasc.bool
    assert pyasc.get_dtype(np.int8) is pyasc.int8 and pyasc.get_dtype("i8") is pyasc.int8
    np.testing.assert_array_equal(b.float().numpy(), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(pyasc.tensor([0.0, 0.5, -2.0, float("nan")]).bool().numpy(),
                                  [False, True, True, True])
    np.testing.assert_array_equal(pyasc.tensor([1.7, -1.7, 300.0]).to(pyasc.int8).numpy()[:2], [1, -1])
    assert i8.to(pyasc.int32).dtype is pyasc.int32 and i8.astype("float16").dtype is pyasc.float16
    with pytest.raises(pyasc.PyascError, match="do not fit in int8"):
        pyasc.tensor([300], dtype=pyasc.int8)


def test_storage_dtypes_refuse_arithmetic_with_a_hint():
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.sub: does not support dtype int8.*storage dtype"):
        pyasc.tensor([1, 2], dtype=pyasc.int8) - pyasc.tensor([1, 2], dtype=pyasc.int8)


@pytest.mark.parametrize("a,b,out", [
    ("bool", "int32", "int32"), ("int8", "int32", "int32"), ("int8", "float16", "float16"),
    ("bool", "bool", "bool"), ("bool", "bfloat16", "bfloat16"), ("int8", "int8", "int8"),
])
def test_promotion_of_storage_dtypes(a, b, out):
    assert pyasc.promote_types(pyasc.get_dtype(a), pyasc.get_dtype(b)) is pyasc.get_dtype(out)


def test_result_type_bool_with_scalars():
    assert pyasc.result_type(pyasc.bool, 1) is pyasc.int32
    assert pyasc.result_type(pyasc.bool, 1.5) is pyasc.float32
    assert pyasc.result_type(pyasc.bool, True) is pyasc.bool


def test_creation_functions_take_format_and_device():
    x = pyasc.zeros(2, 3, 4, 5, format="nchw", device=1)
    assert x.format is pyasc.NCHW and str(x.format) == "NCHW" and str(x.device) == "npu:1"
    assert pyasc.ones_like(x).format is pyasc.NCHW and pyasc.ones_like(x).device is x.device
    assert pyasc.randn(32, 32, format=pyasc.FRACTAL_NZ).format is pyasc.FRACTAL_NZ
    assert pyasc.eye(3).format is pyasc.ND
    with pytest.raises(pyasc.PyascError, match="NHWC needs a 4-d tensor"):
        pyasc.zeros(3, 4, format="NHWC")
    with pytest.raises(pyasc.PyascError, match="unknown format"):
        pyasc.zeros(3, format="NC1HWC0")
    with pytest.raises(pyasc.PyascError, match="FRACTAL_NZ needs at least 2"):
        pyasc.ones(16).with_format("FRACTAL_NZ")


def test_array_to_numpy_and_like_functions():
    a = pyasc.array([[1, 2], [3, 4]], dtype=pyasc.float16)
    assert a.dtype is pyasc.float16 and pyasc.to_numpy(a) is a.numpy()
    for fn, val in ((pyasc.zeros_like, 0), (pyasc.ones_like, 1), (pyasc.empty_like, 0)):
        t = fn(a)
        assert t.shape == (2, 2) and t.dtype is pyasc.float16 and (t.numpy() == val).all()
    assert pyasc.full_like(a, 3, dtype=pyasc.int32).dtype is pyasc.int32
    assert pyasc.rand_like(a).dtype is pyasc.float16 and pyasc.randn_like(a).shape == (2, 2)
    assert pyasc.zeros_like(np.ones((2, 5))).shape == (2, 5)


def test_tensor_metadata():
    x = pyasc.ones(4, 6, dtype=pyasc.bfloat16)
    assert x.shape == (4, 6) and x.ndim == 2 and x.numel() == 24 and x.nbytes == 48
    assert x.device is pyasc.current_device() and x.format is pyasc.ND
    assert x.data_ptr() == x.numpy().ctypes.data
    assert x[1].data_ptr() == x.data_ptr() + 6 * 2
    assert x.stride() == (6, 1) and x.t().stride() == (1, 6)
    assert pyasc.tensor(2.5).item() == 2.5 and isinstance(pyasc.tensor(3).item(), int)


# ----------------------------------------------------------------------------- devices and target

def test_device_context_count_and_copy():
    assert pyasc.get_device_count() >= 2
    with pyasc.device(1) as d:
        x = pyasc.ones(3)
        assert x.device is d and pyasc.current_device() is d
    assert pyasc.current_device().index == 0 and x.device.index == 1
    y = pyasc.copy_to_device(x, 0)
    assert y.device.index == 0 and y.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    with pytest.raises(pyasc.PyascError, match="same device.*npu:1 and npu:0"):
        x + y
    with pytest.raises(pyasc.PyascError, match="out of range"):
        pyasc.device(99).__enter__()
    assert x.to("npu:0").device.index == 0 and x.to(x.device) is x


def test_device_count_from_environment(monkeypatch):
    monkeypatch.setenv("PYASC_DEVICE_COUNT", "3")
    assert pyasc.get_device_count() == 3
    with pytest.raises(pyasc.PyascError, match="3 simulated device"):
        pyasc.zeros(1, device=3)


def test_set_target_and_version():
    assert isinstance(pyasc.__version__, str) and pyasc.__version__.count(".") == 2
    saved = pyasc.get_target()
    try:
        pyasc.set_target("ascend910b4")
        assert pyasc.get_target() == "ascend910b4"
        with pytest.raises(pyasc.PyascError, match="unknown target 'ascend310'"):
            pyasc.set_target("ascend310")
    finally:
        pyasc.set_target(saved)


# ----------------------------------------------------------------------------- views

def test_views_share_storage_like_torch():
    x = pyasc.arange(24).float()
    v = x.view(2, 3, 4)
    r = x.reshape(4, 6)
    t = v.transpose(0, 2)
    p = v.permute(2, 0, 1)
    s = v.unsqueeze(0).squeeze(0)
    f = v.flatten()
    sl = v[1, :, ::2]
    for view in (v, r, t, p, s, f, sl):
        assert np.shares_memory(view.numpy(), x.numpy())
    x[0] = 100.0
    assert v[0, 0, 0].item() == 100.0 and t[0, 0, 0].item() == 100.0
    assert not t.is_contiguous() and t.contiguous().is_contiguous()
    assert not np.shares_memory(t.contiguous().numpy(), x.numpy())
    assert v.contiguous() is v
    assert t.shape == (4, 3, 2) and p.shape == (4, 2, 3) and f.shape == (24,) and sl.shape == (3, 2)


def test_view_of_non_contiguous_raises_and_reshape_copies():
    t = pyasc.arange(6).reshape(2, 3).t()
    with pytest.raises(pyasc.PyascError, match=r"view.*use \.reshape"):
        t.view(6)
    r = t.reshape(6)
    np.testing.assert_array_equal(r.numpy(), [0, 3, 1, 4, 2, 5])
    assert not np.shares_memory(r.numpy(), t.numpy())


def test_shape_errors():
    x = pyasc.ones(2, 3)
    with pytest.raises(pyasc.PyascError, match=r"shape \(4, 2\) is invalid for input of size 6"):
        x.reshape(4, 2)
    with pytest.raises(pyasc.PyascError, match="only one dimension can be inferred"):
        x.reshape(-1, -1)
    with pytest.raises(IndexError, match="dimension out of range"):
        x.transpose(0, 2)
    with pytest.raises(pyasc.PyascError, match="not a permutation"):
        x.permute(0, 0)
    assert x.reshape(-1, 2).shape == (3, 2) and x.flatten(0, 1).shape == (6,)


def test_indexing_against_numpy():
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = pyasc.from_numpy(a)
    for idx in [(1,), (slice(None), 2), (Ellipsis, 1), (None, 0), (slice(1, None), slice(None, None, 2), -1),
                (np.array([0, 2]),), (a > 30,)]:
        idx = idx[0] if len(idx) == 1 else idx
        np.testing.assert_array_equal(x[idx].numpy(), a[idx])
    np.testing.assert_array_equal(x[pyasc.tensor([2, 0])].numpy(), a[[2, 0]])
    np.testing.assert_array_equal(x[x > 30].numpy(), a[a > 30])
    assert x[1, 2, 3].shape == () and x[1, 2, 3].item() == a[1, 2, 3]
    with pytest.raises(IndexError):
        x[3]
    rows = list(pyasc.arange(6).reshape(3, 2))
    assert len(rows) == 3 and rows[2].tolist() == [4, 5]


def test_setitem_writes_storage():
    x = pyasc.zeros(3, 4)
    x[1] = 2.0
    x[:, 0] = pyasc.tensor([7.0, 8.0, 9.0])
    x[x > 8] = -1.0
    np.testing.assert_array_equal(x.numpy(), [[7, 0, 0, 0], [8, 2, 2, 2], [-1, 0, 0, 0]])


# ----------------------------------------------------------------------------- comparisons

@pytest.mark.parametrize("name,op", [("eq", "__eq__"), ("ne", "__ne__"), ("lt", "__lt__"), ("le", "__le__"),
                                     ("gt", "__gt__"), ("ge", "__ge__")])
def test_comparison_operators(name, op):
    a = np.array([[1.0, 2.0, float("nan")], [4.0, -1.0, 2.0]], np.float32)
    b = np.array([2.0, 2.0, 1.0], np.float32)
    x, y = pyasc.from_numpy(a), pyasc.from_numpy(b)
    out = getattr(x, op)(y)
    expected = getattr(a, op)(b)
    assert out.dtype is pyasc.bool and out.shape == (2, 3)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(getattr(x, op)(2).numpy(), getattr(a, op)(2))
    np.testing.assert_array_equal(getattr(pyasc, name)(x, y).numpy(), expected)


def test_mixed_dtype_comparison_and_logic():
    i = pyasc.tensor([1, 2, 3])
    f = pyasc.tensor([1.5, 2.0, 2.5], dtype=pyasc.float16)
    np.testing.assert_array_equal((i > f).numpy(), [False, False, True])
    m = (i >= 2) & ~(f > 2.2)
    np.testing.assert_array_equal(m.numpy(), [False, True, False])
    np.testing.assert_array_equal(((i == 1) | (i == 3)).numpy(), [True, False, True])
    np.testing.assert_array_equal(((i == 1) ^ (i < 3)).numpy(), [False, True, False])
    nan = pyasc.tensor([float("nan"), float("inf"), 1.0])
    np.testing.assert_array_equal(nan.isnan().numpy(), [True, False, False])
    np.testing.assert_array_equal(pyasc.isinf(nan).numpy(), [False, True, False])
    np.testing.assert_array_equal(pyasc.isfinite(nan).numpy(), [False, False, True])
    assert pyasc.tensor([1, 2]).equal(pyasc.tensor([1, 2])) and not pyasc.ones(2).equal(pyasc.ones(3))


def test_comparisons_compile_inside_jit():
    f = pyasc.jit(lambda x: pyasc.where(x > 0, x, 0.0))
    np.testing.assert_array_equal(f(pyasc.tensor([-1.0, 2.0, 0.0, 3.0])).numpy(), [0.0, 2.0, 0.0, 3.0])
    a = np.array([[3.0, -1.0], [-2.0, 5.0], [0.5, 4.0], [-7.0, -3.0]], np.float32)
    # a mask index has a data-dependent shape: the call runs eagerly; integer topk ranks by the sort
    np.testing.assert_array_equal(pyasc.jit(lambda x: x[x > 0])(pyasc.tensor(a)).numpy(), a[a > 0])
    top = pyasc.jit(lambda x: x.int().topk(1).values)(pyasc.tensor(a))
    assert top.dtype is pyasc.int32
    np.testing.assert_array_equal(top.numpy(), a.astype(np.int32).max(axis=1, keepdims=True))


@requires_backend
@pytest.mark.parametrize("fn", [
    lambda x: x.reshape(4, -1) * 2,
    lambda x: x.view(2, 4, 60).flatten(1) + 1,
    lambda x: x.unsqueeze(1).squeeze(1) - 1,
    lambda x: (x * 2).reshape(-1),
    lambda x: x[2:5, 3:40] * 3,
    lambda x: x[1] + x[-1],
    lambda x: x[None, 2:4] * x[3:4],
    lambda x: x[1:3][:, 5:6].contiguous(),
    lambda x: x.split(3)[1] + x.split([1, 2, 5], dim=0)[1][:1],
    lambda x: x.chunk(4, dim=1)[3] * 2,
], ids=lambda f: "")
def test_shape_changes_and_unit_slices_compile_to_the_device(fn):
    a = np.random.default_rng(4).standard_normal((8, 60)).astype(np.float32)
    f = pyasc.jit(fn)
    out = f(a)
    text = str(f.lower(a).traced)
    assert "asctensor.reshape" in text or "asctensor.slice" in text
    expected = fn(pyasc.from_numpy(a)).numpy()          # the eager (host) result
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)


@requires_backend
def test_reshape_of_a_strided_slice_is_a_strided_view():
    """``x[..., 0]`` is a slice (8, 1) reshaped to (8,): a view with element stride 60."""
    a = np.arange(8 * 60, dtype=np.float32).reshape(8, 60)
    out = pyasc.jit(lambda x: x[..., 0] + 1)(pyasc.tensor(a))
    np.testing.assert_array_equal(out.numpy(), a[..., 0] + 1)


def test_traced_index_errors():
    with pytest.raises(IndexError, match="out of bounds"):
        pyasc.jit(lambda x: x[4]).lower(pyasc.ones(4))
    with pytest.raises(pyasc.PyascError, match="too many indices"):
        pyasc.jit(lambda x: x[0, 0]).lower(pyasc.ones(4))
    out = pyasc.jit(lambda x: x[2:2] + 1)(pyasc.ones(4))      # an empty slice: as torch.ones(4)[2:2] + 1
    assert out.shape == tuple((torch.ones(4)[2:2] + 1).shape) == (0,)


# ----------------------------------------------------------------------------- more ops

def test_where_broadcasts_and_promotes():
    c = pyasc.tensor([[True], [False]])
    out = pyasc.where(c, pyasc.tensor([1, 2, 3]), pyasc.tensor([0.5], dtype=pyasc.float16))
    assert out.dtype is pyasc.float16 and out.shape == (2, 3)
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 3], [0.5, 0.5, 0.5]])
    np.testing.assert_array_equal(pyasc.ones(3).where(pyasc.tensor([True, False, True]), -1.0).numpy(), [1, -1, 1])
    with pytest.raises(pyasc.PyascError, match="condition must be a bool tensor, got float32"):
        pyasc.where(pyasc.ones(3), 1.0, 0.0)


@requires_backend
def test_clamp_on_the_device_with_scalar_and_tensor_bounds():
    a = np.array([-3.0, -0.5, 0.0, 0.7, 5.0, np.nan], np.float32)
    x = pyasc.from_numpy(a)
    np.testing.assert_array_equal(pyasc.clamp(x, -1, 1).numpy(), np.clip(a, -1, 1))
    np.testing.assert_array_equal(x.clamp(min=0.0).numpy(), np.maximum(a, 0))
    lo = pyasc.tensor([-4.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(pyasc.clamp(x, lo, 2.0).numpy(), np.minimum(np.maximum(a, lo.numpy()), 2.0))
    # min > max gives max, as in PyTorch
    np.testing.assert_array_equal(pyasc.clamp(pyasc.tensor([0.0, 9.0]), 3, 1).numpy(), [1.0, 1.0])
    f = pyasc.jit(lambda x, lo: pyasc.clamp(x, lo, 2.0))
    np.testing.assert_array_equal(f(x, lo).numpy(), np.minimum(np.maximum(a, lo.numpy()), 2.0))
    with pytest.raises(pyasc.PyascError, match="at least one of 'min' or 'max'"):
        pyasc.clamp(x)


def test_cat_stack_split_chunk():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(3, dtype=np.float32).reshape(1, 3)
    x, y = pyasc.from_numpy(a), pyasc.from_numpy(b)
    np.testing.assert_array_equal(pyasc.cat([x, y]).numpy(), np.concatenate([a, b]))
    np.testing.assert_array_equal(pyasc.cat([x, x], dim=-1).numpy(), np.concatenate([a, a], -1))
    assert pyasc.cat([x, pyasc.ones(1, 3, dtype=pyasc.float16)]).dtype is pyasc.float32
    assert pyasc.cat([pyasc.ones(2, dtype=pyasc.int32), pyasc.ones(1)]).dtype is pyasc.float32
    np.testing.assert_array_equal(pyasc.stack([x, x], dim=1).numpy(), np.stack([a, a], 1))
    parts = pyasc.split(pyasc.arange(7), 3)
    assert [p.tolist() for p in parts] == [[0, 1, 2], [3, 4, 5], [6]]
    parts = x.split([1, 2], dim=1)
    assert [p.shape for p in parts] == [(2, 1), (2, 2)] and np.shares_memory(parts[1].numpy(), a)
    assert [c.shape for c in pyasc.arange(10).chunk(3)] == [(4,), (4,), (2,)]
    with pytest.raises(pyasc.PyascError, match=r"sizes of tensors must match except in dimension 0: shapes \(2, 3\), \(1, 2\)"):
        pyasc.cat([x, pyasc.ones(1, 2)])
    with pytest.raises(pyasc.PyascError, match="expects each tensor to be equal size"):
        pyasc.stack([x, y])
    with pytest.raises(pyasc.PyascError, match=r"do not sum to 3"):
        x.split([1, 1], dim=1)
    with pytest.raises(pyasc.PyascError, match="list or tuple of tensors"):
        pyasc.cat(x)


def test_topk():
    a = np.array([[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]], np.float32)
    v, i = pyasc.topk(pyasc.from_numpy(a), 3)
    np.testing.assert_array_equal(v.numpy(), [[5, 4, 3], [9, 6, 5]])
    np.testing.assert_array_equal(i.numpy(), [[4, 2, 0], [0, 2, 3]])
    assert i.dtype is pyasc.int32
    v, i = pyasc.from_numpy(a).topk(2, dim=0, largest=False)
    np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=0)[:2])
    with pytest.raises(pyasc.PyascError, match=r"k \(6\) out of range"):
        pyasc.topk(pyasc.from_numpy(a), 6)


def test_norm_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    x = pyasc.from_numpy(a)
    for p, ref in ((1, lambda a, ax, k: np.abs(a).sum(ax, keepdims=k)),
                   (2, lambda a, ax, k: np.sqrt((a * a).sum(ax, keepdims=k))),
                   (math.inf, lambda a, ax, k: np.abs(a).max(ax, keepdims=k)),
                   (-math.inf, lambda a, ax, k: np.abs(a).min(ax, keepdims=k)),
                   (3, lambda a, ax, k: (np.abs(a) ** 3).sum(ax, keepdims=k) ** (1 / 3))):
        for dim, keep in ((None, False), (1, False), ((0, 2), True), (-1, True)):
            ax = tuple(range(3)) if dim is None else dim
            out = pyasc.norm(x, p, dim=dim, keepdim=keep)
            np.testing.assert_allclose(out.numpy(), ref(a.astype(np.float64), ax, keep), rtol=2e-5, atol=1e-5)
    with pytest.raises(pyasc.PyascError, match="floating point"):
        pyasc.norm(pyasc.ones(3, dtype=pyasc.int32))


def test_dropout():
    x = pyasc.ones(1000)
    assert pyasc.dropout(x, 0.3) is x                      # eval: identity
    pyasc.manual_seed(1)
    y = pyasc.dropout(x, 0.25, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)} and 0.15 < (y == 0).mean() < 0.35
    assert (pyasc.dropout(x, 1.0, training=True).numpy() == 0).all()
    with pytest.raises(pyasc.PyascError, match="between 0 and 1"):
        pyasc.dropout(x, 1.5)
    with pytest.raises(pyasc.PyascError, match="training-mode dropout is not supported inside pyasc.jit"):
        pyasc.jit(lambda x: pyasc.dropout(x, 0.5, training=True))(x)


@requires_backend
def test_dropout_in_eval_compiles_to_nothing():
    f = pyasc.jit(lambda x: pyasc.dropout(x, 0.5) * 2)
    assert f(pyasc.ones(100)).numpy().tolist() == [2.0] * 100


def _bn_ref(a, mean, var, w, b, eps):
    shape = (1, -1) + (1,) * (a.ndim - 2)
    return (a - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)


@requires_backend
def test_batch_norm_inference():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    mean, var = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    out = pyasc.batch_norm(pyasc.from_numpy(a), *map(pyasc.from_numpy, (mean, var, w, b)), eps=1e-3)
    np.testing.assert_allclose(out.numpy(), _bn_ref(a, mean, var, w, b, 1e-3), rtol=1e-5, atol=1e-5)
    # 2-d input inside jit with traced statistics compiles to the device
    a2 = a[:, :, 0, 0].copy()
    f = pyasc.jit(lambda x, m, v, w, b: pyasc.batch_norm(x, m, v, w, b))
    np.testing.assert_allclose(f(a2, mean, var, w, b).numpy(), _bn_ref(a2, mean, var, w, b, 1e-5), rtol=1e-5, atol=1e-5)
    # 4-d input with constant statistics inside jit
    stats = [pyasc.from_numpy(s) for s in (mean, var, w, b)]
    g = pyasc.jit(lambda x: pyasc.batch_norm(x, *stats))
    np.testing.assert_allclose(g(a).numpy(), _bn_ref(a, mean, var, w, b, 1e-5), rtol=1e-5, atol=1e-5)
    # 4-d input with traced statistics (no weight nor bias) inside jit
    h = pyasc.jit(lambda x, m, v: pyasc.batch_norm(x, m, v))
    np.testing.assert_allclose(h(a, mean, var).numpy(), _bn_ref(a, mean, var, np.ones(3), np.zeros(3), 1e-5), rtol=1e-5, atol=1e-5)
    with pytest.raises(pyasc.PyascError, match=r"running_mean must have shape \(3,\)"):
        pyasc.batch_norm(pyasc.from_numpy(a), pyasc.ones(4), pyasc.ones(3))
    with pytest.raises(pyasc.PyascError, match="momentum must be a number"):
        pyasc.batch_norm(pyasc.from_numpy(a), pyasc.ones(3), pyasc.ones(3), training=True, momentum=None)


@requires_backend
@pytest.mark.parametrize("p", [1, 2, math.inf])
def test_norm_inside_jit_on_the_device(p):
    a = np.random.default_rng(3).standard_normal((6, 45)).astype(np.float32)
    f = pyasc.jit(lambda x: pyasc.norm(x, p, dim=-1, keepdim=True))
    assert "asctensor.reduce" in str(f.lower(a).traced)
    ref = np.linalg.norm(a.astype(np.float64), ord=p, axis=-1, keepdims=True)
    np.testing.assert_allclose(f(a).numpy(), ref, rtol=2e-5, atol=1e-5)


def test_leaky_relu_matches_pytorch_semantics():
    a = np.array([-2.0, -0.5, -0.0, 0.0, 1.5, np.nan, -np.inf, np.inf], np.float32)
    got = pyasc.leaky_relu(pyasc.tensor(a), 0.1).numpy()
    want = np.where(a >= 0, a, a * np.float32(0.1))
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[2]) and not np.signbit(got[3])
    traced = pyasc.jit(lambda x: pyasc.leaky_relu(x))(pyasc.tensor(a)).numpy()
    np.testing.assert_array_equal(traced, np.where(a >= 0, a, a * np.float32(0.01)))
    with pytest.raises(pyasc.PyascError, match="negative_slope must be a number"):
        pyasc.leaky_relu(pyasc.tensor(a), "0.1")
