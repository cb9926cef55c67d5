"""Small programs written the PyTorch way, each compared with PyTorch CPU: matmul with NumPy
semantics, views and constants feeding the cube, masks that broadcast, integer reductions,
in-place updates through views, nested jit and the precision policy."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import pyasc

from .torch_pairs import close, pair, run

RNG = np.random.default_rng(7)


def _pair(*shape, dtype="float32"):
    return pair(RNG, *shape, dtype=dtype)


_close, _run = close, run


MODES = ("eager", "jit")


# ----------------------------------------------------------------------------- matmul


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sa,sb", [((1, 5, 4), (3, 4, 2)), ((4,), (4, 3)), ((2, 3), (3,)), ((5,), (5,)),
                                   ((2, 1, 6, 4), (3, 4, 5)), ((7,), (2, 7, 3))])
def test_matmul_broadcasts_batches_and_vectors(mode, sa, sb):
    (a, ta), (b, tb) = _pair(*sa), _pair(*sb)
    _close(_run(lambda x, y: x @ y, mode, a, b), ta @ tb)


@pytest.mark.parametrize("mode", MODES)
def test_attention_scores_on_4d_operands(mode):
    (q, tq), (k, tk) = _pair(2, 3, 7, 8), _pair(2, 3, 7, 8)
    _close(_run(lambda q, k: q @ k.transpose(-2, -1) / 8 ** 0.5, mode, q, k), tq @ tk.transpose(-2, -1) / 8 ** 0.5)


@pytest.mark.parametrize("dtype,tol", [("float16", 1e-2), ("bfloat16", 3e-2)])
@pytest.mark.parametrize("k", [1, 7, 24, 72])
@pytest.mark.parametrize("fn", [lambda a, b, x, y: a @ b, lambda a, b, x, y: a @ y.transpose(-2, -1),
                                lambda a, b, x, y: x.transpose(-2, -1) @ b,
                                lambda a, b, x, y: x.transpose(-2, -1) @ y.transpose(-2, -1)])
def test_2_byte_products_whose_k_is_not_whole_fractals(fn, k, dtype, tol):
    """K not a multiple of 16: the cube reads B as K x N and transposed operands in place."""
    (a, ta), (b, tb) = _pair(2, 5, k, dtype=dtype), _pair(2, k, 9, dtype=dtype)
    (x, tx), (y, ty) = _pair(2, k, 5, dtype=dtype), _pair(2, 9, k, dtype=dtype)
    _close(pyasc.jit(fn)(a, b, x, y), fn(ta, tb, tx, ty), tol)


_EPILOGUE_VIEWS = {
    "bias_is_a_column": lambda m, a, b: m.nn.functional.linear(a, b, b[:, 0]),
    "plus_a_transposed_input": lambda m, a, b: a @ b + a.t(),
    "plus_every_other_column_repeated": lambda m, a, b: a @ b + b[:, ::2].repeat(1, 2),
    "plus_its_columns_reversed": lambda m, a, b: a @ b + b.flip(1),
    "gelu_of_row_bias_times_a_column": lambda m, a, b: m.nn.functional.gelu(a @ b + b[0]) * b[:, 1:2],
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(_EPILOGUE_VIEWS))
def test_products_plus_views_whose_columns_are_not_contiguous(name, mode):
    """An elementwise op after a product that reads a view across its columns (a column of the weights as the
    bias, a transpose) stops the product's vector epilogue, which loads rows of contiguous columns; it was
    refused inside jit ("read with a column stride")."""
    fn = _EPILOGUE_VIEWS[name]
    (a, ta), (b, tb) = _pair(8, 8), _pair(8, 8)
    _close(_run(lambda x, y: fn(pyasc, x, y), mode, a, b), fn(torch, ta, tb))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", [lambda m, x: x + x.t(), lambda m, x: (x @ x * 2).t() * 0.5 + x @ x,
                                lambda m, x: m.maximum(x.transpose(0, 1), x).exp()])
def test_a_value_with_its_own_transpose(fn, mode):
    """``x + x.t()``: ``asctensor-sink-transposes`` rebuilt the same add below a new transpose without end, so
    the call never returned, eagerly or inside jit."""
    x, tx = _pair(6, 6)
    _close(_run(lambda v: fn(pyasc, v), mode, x), fn(torch, tx))



@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(20,), (3, 40), (2, 3, 130)])
def test_min_max_scaling_with_masks_of_the_range_like_torch(shape, mode):
    """``(x - lo) / (hi - lo)`` next to ``x >= lo`` and ``x <= hi``: the bufferizer computed ``hi - lo`` in place
    over ``lo``, whose row broadcast the comparison read after it, so inside jit every ``x >= lo`` was False."""
    def fn(x):
        lo, hi = x.amin(-1, keepdim=True), x.amax(-1, keepdim=True)
        return (x - lo) / (hi - lo), x >= lo, x <= hi, (x >= lo) & (x <= hi)

    x, tx = _pair(*shape)
    got = _run(fn, mode, x)
    for g, w in zip(got, fn(tx)):
        _close(g, w)

def _conv_block(m, x, w, scale, shift, residual):
    """A convolution, a batch norm's per-channel affine, a residual add and a ReLU (an epilogue, read by the next
    op), and the convolution's own result, which a later op reads too."""
    y = m.nn.functional.conv2d(x, w, stride=1, padding=1) if m is torch else m.conv2d(x, w, stride=1, padding=1)
    z = (y * scale + shift + residual).relu()
    return z.transpose(2, 3), y.sum(dim=(2, 3))


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-3), ("float16", 3e-2), ("bfloat16", 1.5e-1)])
@pytest.mark.parametrize("n,c,oc,hw", [(2, 8, 8, 9), (1, 3, 16, 7), (3, 4, 4, 5)])
def test_a_convolutions_epilogue_runs_with_its_product(n, c, oc, hw, dtype, tol):
    """The epilogue of a convolution through im2col joins its matmul (``asctensor-fuse-matmul``, MIX)."""
    (x, tx), (w, tw) = _pair(n, c, hw, hw, dtype=dtype), _pair(oc, c, 3, 3, dtype=dtype)
    (sc, tsc), (sh, tsh) = _pair(oc, 1, 1, dtype=dtype), _pair(oc, 1, 1, dtype=dtype)
    (r, tr) = _pair(n, oc, hw, hw, dtype=dtype)
    got = pyasc.jit(lambda *a: _conv_block(pyasc, *a))(x, w, sc, sh, r)
    want = _conv_block(torch, tx.float(), tw.float(), tsc.float(), tsh.float(), tr.float())
    for g, t in zip(got, want):
        _close(g.float(), t, tol * max(1.0, float(t.abs().max())))


def _heads(m, qkv, heads):
    """Multi-head attention from a fused projection, written as PyTorch users do: the heads split off by
    reshape and transpose, ``q @ k^T``, softmax, ``@ v`` and the heads merged back."""
    b, s, e3 = qkv.shape
    d = e3 // 3 // heads
    q, k, v = (t.reshape(b, s, heads, d).transpose(1, 2) for t in qkv.chunk(3, dim=-1))
    attn = m.softmax(q @ k.transpose(-2, -1) / d ** 0.5, dim=-1)
    return (attn @ v).transpose(1, 2).reshape(b, s, e3 // 3), v.transpose(-2, -1) @ attn


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-3), ("float16", 2e-2)])
@pytest.mark.parametrize("shape,heads", [((2, 7, 96), 4), ((1, 16, 48), 2), ((3, 5, 72), 3)])
def test_attention_heads_split_and_merged_by_views(shape, heads, dtype, tol):
    """The head split's transposes meet the cube's own (``asctensor-sink-transposes``); the values match PyTorch."""
    x, tx = _pair(*shape, dtype=dtype)
    got = pyasc.jit(lambda x: _heads(pyasc, x, heads))(x)
    want = _heads(torch, tx, heads)
    for g, w in zip(got, want):
        _close(g, w, tol)


def _lin(m):
    return m.nn.functional.linear if m is torch else m.linear


@pytest.mark.parametrize("fn", [
    lambda m, x, w: x[1:5] @ w,
    lambda m, x, w: (x[:, 2:] @ w[2:]).relu().exp(),
    lambda m, x, w: x.reshape(4, 32) @ w.reshape(32, 2),
    lambda m, x, w: _lin(m)(x[:, :8], w[:8].t()).sigmoid(),
    lambda m, x, w: m.bmm(x.reshape(2, 4, 16), w.reshape(2, 8, 4).transpose(1, 2).reshape(2, 16, 2)),
    lambda m, x, w: x[1:5].t() @ w[:4],  # a transposed slice: written out, not read in place
    lambda m, x, w: x.reshape(16, 8).t() @ w + x.reshape(16, 8).sum(),  # a reshape the cube and others read
    lambda m, x, w: (x.reshape(16, 8).t() @ w).exp() + x.reshape(16, 8)[:8, :4].sum(),  # ... with an epilogue
])
def test_views_feed_the_cube_inside_jit(fn):
    (x, tx), (w, tw) = _pair(8, 16), _pair(16, 4)
    _close(pyasc.jit(lambda x, w: fn(pyasc, x, w))(x, w), fn(torch, tx, tw))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bool"])
def test_concat_of_a_full_tensor(mode, dtype):
    (a, ta), = [_pair(3, 4, dtype=dtype)]

    def fn(m, x):
        fill = m.full((2, 4), 1, dtype=x.dtype)
        return m.cat([fill, x, fill[:1].expand(2, 4), m.zeros(3, 1, dtype=x.dtype).t().expand(2, 3).t()[:, :1]
                      .expand(3, 4)[:1]], 0)
    got, want = _run(lambda x: fn(pyasc, x), mode, a), fn(torch, ta)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("fn", [
    lambda m, x, w, v: m.nn.functional.linear(m.nn.functional.conv2d(x, w).flatten(1), v),
    lambda m, x, w, v: m.nn.functional.conv2d(x, w).reshape(2, -1) @ v.t(),
], ids=["conv-flatten-linear", "conv-reshape-matmul"])
def test_a_convolution_read_through_a_reshape_by_a_product(fn):
    (x, tx), (w, tw), (v, tv) = _pair(2, 3, 6, 6), _pair(4, 3, 3, 3), _pair(5, 64)
    _close(pyasc.jit(lambda x, w, v: fn(pyasc, x, w, v))(x, w, v), fn(torch, tx, tw, tv))


@pytest.mark.parametrize("fn", [
    lambda m, x, w: m.nn.functional.conv2d(x[:, :2], w),
    lambda m, x, w: m.nn.functional.conv2d(x[:, 1:3], w, dilation=2),
    lambda m, x, w: x[0, 0] @ x[1, 1, :, 2:5],
    lambda m, x, w: m.nn.functional.max_pool2d(x[0], 2),
    lambda m, x, w: m.nn.functional.max_pool2d(x[1:].reshape(1, 4, 9, 9), (1, 3), (1, 2), (0, 1)),
], ids=["conv", "dilated-conv", "matmul", "pool", "pool-of-reshape"])
def test_products_and_pools_of_slices_of_an_input_inside_jit(fn):
    """The slice is copied by a kernel first: a cube or pool kernel reads whole tensors."""
    (x, tx), (w, tw) = _pair(2, 4, 9, 9), _pair(6, 2, 3, 3)
    _close(pyasc.jit(lambda x, w: fn(pyasc, x, w))(x, w), fn(torch, tx, tw))


@pytest.mark.parametrize("fn", [lambda t: t[:, :2].reshape(-1), lambda t: t[:, 1:3].flatten(),
                                lambda t: t[:, None].expand(6, 2, 5).reshape(12, 5), lambda t: (t * 2)[:, :2].reshape(-1),
                                lambda t: t.t().reshape(-1) + 1], ids=["slice", "flatten", "expanded", "computed", "t"])
def test_reshapes_of_views_that_need_a_copy_inside_jit(fn):
    (a, ta), = [_pair(6, 5)]
    np.testing.assert_array_equal(pyasc.jit(fn)(a).numpy(), fn(ta).numpy())


def test_constant_indices_made_inside_jit():
    (a, ta), (s, ts) = _pair(6, 8), _pair(6, 2)
    got = pyasc.jit(lambda x, v: pyasc.scatter(x, 1, pyasc.tensor([[0, 3]] * 6), v))(a, s)
    np.testing.assert_array_equal(got.numpy(), torch.scatter(ta, 1, torch.tensor([[0, 3]] * 6), ts).numpy())


@pytest.mark.parametrize("shape,k,dim,largest,dtype", [((2, 5000), 5, 1, True, "float32"),
                                                    ((7000, 2), 3, 0, False, "float16"),
                                                    ((1, 5003), 1, -1, False, "int32")])
def test_topk_of_rows_longer_than_ub_inside_jit(shape, k, dim, largest, dtype):
    """Two stages: the top k of each piece of the row, then of the candidates (distinct values: no ties; the
    float16 ones distinct bit patterns)."""
    n = int(np.prod(shape))
    order = np.random.default_rng(k).permutation(n).reshape(shape)
    x = (order + 0x3000).astype(np.uint16).view(np.float16) if dtype == "float16" else (order - n // 2).astype(dtype)
    v, i = pyasc.jit(lambda t: pyasc.topk(t, k, dim, largest=largest))(pyasc.tensor(x))
    tv, ti = torch.topk(torch.tensor(x), k, dim, largest=largest)
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


@pytest.mark.parametrize("shape,k,dim,largest", [((2, 300), 5, 1, True), ((200, 3), 4, 0, False), ((1, 64), 1, -1, True)])
def test_int32_topk_with_ties_inside_jit(shape, k, dim, largest):
    """int32 with a small k, in rounds: values as PyTorch's, indices the lowest first among equal values (NumPy's
    stable argsort; PyTorch leaves the order of ties unspecified), the extremes of int32 included."""
    x = np.random.default_rng(k).integers(-4, 4, shape).astype(np.int32)
    x.flat[0], x.flat[-1] = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    v, i = pyasc.jit(lambda t: pyasc.topk(t, k, dim, largest=largest))(pyasc.tensor(x))
    tv, _ = torch.topk(torch.tensor(x), k, dim, largest=largest)
    order = np.argsort(-x.astype(np.int64) if largest else x, axis=dim, kind="stable")
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    np.testing.assert_array_equal(i.numpy(), np.take(order, np.arange(k), axis=dim))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kw", [{}, {"reduction": "none"}, {"weight": True}, {"weight": True, "label_smoothing": 0.1},
                                {"label_smoothing": 0.2, "reduction": "sum"}], ids=str)
def test_cross_entropy_over_positions_and_with_weight_and_smoothing(mode, kw):
    """Logits (N, C, d1, d2), as a segmentation loss, and a class weight with label smoothing, against PyTorch."""
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=(2, 5, 3, 4)).astype(np.float32), rng.uniform(0.5, 1.5, 5).astype(np.float32)
    t = rng.integers(0, 5, (2, 3, 4)).astype(np.int32)
    t[0, 0, 0] = -100  # ignored
    ours = {k: (pyasc.tensor(w) if k == "weight" else v) for k, v in kw.items()}
    theirs = {k: (torch.tensor(w) if k == "weight" else v) for k, v in kw.items()}
    got = _run(lambda a, b: pyasc.cross_entropy(a, b, **ours), mode, pyasc.tensor(x), pyasc.tensor(t))
    want = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t).long(), **theirs)
    _close(got, want, 1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_scatter_to_one_place_twice_keeps_the_last_value(mode):
    (a, ta), (s, ts) = _pair(3, 6), _pair(3, 4)
    idx = np.array([[0, 0, 5, 5], [2, 1, 2, 2], [3, 4, 3, 0]])
    got = _run(lambda x, v: pyasc.scatter(x, 1, pyasc.tensor(idx), v), mode, a, s)
    np.testing.assert_array_equal(got.numpy(), torch.scatter(ta, 1, torch.tensor(idx), ts).numpy())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_rms_norm_default_eps_is_torchs(mode, dtype):
    (a, ta), (w, tw) = _pair(4, 8, dtype=dtype), _pair(8, dtype=dtype)
    a, ta = a * 0.01, ta * 0.01  # small enough for eps to matter
    got = _run(lambda x, y: pyasc.nn.functional.rms_norm(x, (8,), y), mode, a, w)
    want = torch.nn.functional.rms_norm(ta.float(), (8,), tw.float(), eps=torch.finfo(ta.dtype).eps)
    _close(got.float() if dtype == "float16" else got, want.to(ta.dtype).float() if dtype == "float16" else want,
           tol=2e-3 if dtype == "float16" else 1e-4)


@pytest.mark.parametrize("mode", MODES)
def test_constant_operand(mode):
    (a, ta), = [_pair(8, 16)]
    _close(_run(lambda x: x @ pyasc.ones(16, 4), mode, a), ta @ torch.ones(16, 4))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["linear", "addmm"])
def test_bf16_product_with_bias(mode, op):
    (x, tx), (w, tw), (b, tb) = _pair(9, 16, dtype="bfloat16"), _pair(5, 16, dtype="bfloat16"), \
        _pair(5, dtype="bfloat16")
    if op == "linear":
        got, want = _run(pyasc.linear, mode, x, w, b), torch.nn.functional.linear(tx, tw, tb)
    else:
        got = _run(lambda b, x, w: pyasc.addmm(b, x, w.t()), mode, b, x, w)
        want = torch.addmm(tb, tx, tw.t())
    _close(got, want, tol=3e-2)


def test_empty_products_give_zeros_without_a_launch():
    (a, ta), (b, tb) = _pair(0, 5), _pair(5, 3)
    _close(a @ b, ta @ tb)
    (a, ta), (b, tb) = _pair(4, 0), _pair(0, 3)
    _close(a @ b, ta @ tb)


# ----------------------------------------------------------------------------- masks


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("mshape,xshape", [((1, 8), (4, 8)), ((8,), (4, 8)), ((6, 6), (6, 6, 6))])
def test_bool_mask_broadcast_along_leading_dims(mode, mshape, xshape):
    tm = torch.from_numpy(RNG.random(mshape) > 0.5)
    x, tx = _pair(*xshape)
    m = pyasc.tensor(tm)
    _close(_run(lambda m, x: pyasc.where(m, float("-inf"), x), mode, m, x),
           torch.where(tm, float("-inf"), tx))


# ----------------------------------------------------------------------------- integer reductions


@pytest.mark.parametrize("mode", MODES)
def test_bool_sum_counts(mode):
    x, tx = _pair(5, 7)
    _close(_run(lambda x: (x > 0).sum(), mode, x), (tx > 0).sum())
    _close(_run(lambda x: (x > 0).sum(1), mode, x), (tx > 0).sum(1))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("view", [lambda x: x[:, 1:5], lambda x: x.t()[:, :3], lambda x: x[1:, ::2],
                                  lambda x: x[:, :1].expand(6, 4)], ids=["columns", "transposed", "strided", "expanded"])
@pytest.mark.parametrize("reduce", ["sum", "amax", "mean", "prod"])
def test_whole_reductions_of_views(mode, view, reduce):
    """Every element of a view that is not one run per row (whole, and along dim 0)."""
    (a, ta), = [_pair(6, 9)]
    for fn in (lambda x: getattr(view(x), reduce)(), lambda x: getattr(view(x), reduce)(0)):
        _close(_run(fn, mode, a), fn(ta))


def test_int32_reductions_eagerly():
    t = torch.from_numpy(RNG.integers(-1000, 1000, (6, 9)).astype(np.int32))
    x = pyasc.tensor(t)
    for got, want in ((x.sum(), t.sum()), (x.sum(0), t.sum(0)), (x.amax(1), t.amax(1)), (x.argmin(1), t.argmin(1)),
                      (x.prod(1) if False else x.amin(), t.amin())):
        _close(got, want)


# ----------------------------------------------------------------------------- in-place


def test_inplace_writes_through_views():
    tu = torch.from_numpy(RNG.standard_normal((3, 5)).astype(np.float32))
    u = pyasc.tensor(tu.clone())
    for f in (lambda u: u[1].__iadd__(1), lambda u: u[:, 1:].__isub__(2), lambda u: u.transpose(0, 1).__imul__(3),
              lambda u: u[0].__itruediv__(2), lambda u: u[2].add_(u[0]), lambda u: u[:, :1].mul_(3),
              lambda u: u[1].copy_(u[0])):
        f(u)
        f(tu)
    _close(u, tu)


def test_inplace_on_int_rejects_float_result():
    u = pyasc.zeros(3, dtype=pyasc.int32)
    with pytest.raises(pyasc.PyascError, match="can't be cast"):
        u += 0.5


def test_inplace_inside_jit_is_functional():
    def f(u, y):
        z = u
        z += y
        z *= 2
        return u
    (u, tu), (y, ty) = _pair(4, 6), _pair(6)
    _close(pyasc.jit(f)(u, y), (tu + ty) * 2)


def test_inplace_of_a_strided_view_inside_jit_is_refused():
    def f(u):
        v = u[::2]
        v += 1
        return u
    with pytest.raises(pyasc.PyascError, match="in-place update of this view"):
        pyasc.jit(f)(pyasc.zeros(3, 4))


# ----------------------------------------------------------------------------- nested jit


def test_nested_jit_inlines():
    inner = pyasc.jit(lambda a: a * 2 + 1)
    outer = pyasc.jit(lambda x: inner(x).exp())
    x, tx = _pair(3, 5)
    _close(outer(x), (tx * 2 + 1).exp())


# ----------------------------------------------------------------------------- precision policy


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_autocast_products_follow_torch(mode, dtype):
    (x, tx), (w, tw), (b, tb) = _pair(6, 8), _pair(4, 8), _pair(4)
    img, timg = _pair(1, 2, 5, 5)
    k, tk = _pair(3, 2, 3, 3)
    progs = [(lambda m, x, w, b: x @ w.t()), (lambda m, x, w, b: m.nn.functional.linear(x, w, b)
                                               if m is torch else m.linear(x, w, b)),
             (lambda m, x, w, b: m.addmm(b, x, w.t())), (lambda m, x, w, b: x.sum()),
             (lambda m, x, w, b: m.softmax(x, -1)), (lambda m, x, w, b: x.prod(1))]
    for p in progs:
        with torch.autocast("cpu", dtype=getattr(torch, dtype)):
            want = p(torch, tx, tw, tb)
        with pyasc.amp.autocast(getattr(pyasc, dtype)):
            got = _run(lambda x, w, b: p(pyasc, x, w, b), mode, x, w, b)
        _close(got, want, tol=5e-2)
    with torch.autocast("cpu", dtype=getattr(torch, dtype)):
        want = torch.conv2d(timg, tk, padding=1)
    with pyasc.amp.autocast(getattr(pyasc, dtype)):
        got = _run(lambda i, k: pyasc.conv2d(i, k, padding=1), mode, img, k)
    _close(got, want, tol=5e-2)


def test_precision_scope_reaches_products_and_reductions():
    (x, tx), (w, tw) = _pair(6, 8), _pair(8, 4)
    with pyasc.precision_scope(pyasc.float16):
        assert (x @ w).dtype is pyasc.float16
        assert x.sum().dtype is pyasc.float16
        assert pyasc.softmax(x, -1).dtype is pyasc.float16


def test_pyasc_mode_is_read_when_an_op_runs(monkeypatch):
    (x, _), (w, _) = _pair(6, 8), _pair(8, 4)
    monkeypatch.setenv("PYASC_MODE", "FP16")
    assert (x @ w).dtype is pyasc.float16 and x.sum().dtype is pyasc.float16
    monkeypatch.delenv("PYASC_MODE")
    assert (x @ w).dtype is pyasc.float32
    assert os.environ.get("PYASC_MODE") is None


def test_operands_that_view_one_tensor_eagerly():
    """``x - x[0:1]`` and ``x[1:] * x[:-1]`` eagerly: both GM arguments view one array, and the simulator's record of
    the lines read keeps each at its own place in it."""
    (x, tx), = [_pair(7, 6, 7)]
    _close(x - x[0:1], tx - tx[0:1])
    _close(x[1:] * x[:-1], tx[1:] * tx[:-1])
