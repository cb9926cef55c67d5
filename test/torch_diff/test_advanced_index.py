"""One advanced index among basic ones inside ``pyasc.jit`` (``x[:, idx]``, ``x[..., [0, 2]]``, ``x[0, :, idx]``,
a constant mask), and constant integer indices side by side (``x[rows, cols]``), against PyTorch CPU: values, dtype
and shape; and their gradients against torch.autograd, traced and eagerly (``loss.backward()``)."""

import numpy as np
import pytest
import torch

import pyasc

RNG = np.random.default_rng(7)

# (shape of x, the index with "I" for the index tensor or list, the index's values)
FORMS = [
    ((6, 8), (slice(None), "I"), [7, 0, -1, 3]),
    ((6, 8), (Ellipsis, "I"), [[1, 2], [5, 5]]),
    ((3, 4, 5), (0, slice(None), "I"), [4, 0]),            # the int is a view first (NumPy would put the index first)
    ((3, 4, 5), (1, "I"), [3, 1, 1]),                       # next to the int: at the int's place
    ((3, 4, 5), ("I", slice(1, None), None), [2, -3]),
    ((3, 4, 5), (slice(None, None, 2), "I", slice(None)), [0]),
    ((6, 8), (None, "I"), [5, 0, 2]),
    ((6, 8), ("I",), []),
]
MASKS = [
    ((6, 8), (slice(None), "M"), (8,)),
    ((3, 4, 5), ("M",), (3, 4)),
    ((3, 4, 5), (Ellipsis, "M"), (5,)),
]


def _index(form, value):
    return tuple(value if i in ("I", "M") else i for i in form)


def _values(shape, dtype):
    t = torch.from_numpy(RNG.standard_normal(shape).astype(np.float32) * 4)
    return t > 0 if dtype == "bool" else t.to(getattr(torch, dtype))


def _same(got, want):
    assert got.shape == tuple(want.shape) and got.dtype.name == str(want.dtype).removeprefix("torch.")
    g = got.float().numpy() if got.dtype.name == "bfloat16" else got.numpy()
    np.testing.assert_array_equal(g, want.float().numpy() if want.dtype == torch.bfloat16 else want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bool"])
@pytest.mark.parametrize("shape,form,index", FORMS)
def test_a_list_index_inside_jit_like_torch(dtype, shape, form, index):
    t = _values(shape, dtype)
    want = t[_index(form, index)]
    _same(pyasc.jit(lambda v: v[_index(form, index)])(pyasc.tensor(t)), want)


@pytest.mark.parametrize("shape,form,index", FORMS[:6])
def test_a_traced_index_tensor_inside_jit_like_torch(shape, form, index):
    t = _values(shape, "float32")
    ti = torch.tensor(index)
    want = t[_index(form, ti)] * 2
    got = pyasc.jit(lambda v, i: v[_index(form, i)] * 2)(pyasc.tensor(t), pyasc.tensor(ti.to(torch.int32)))
    _same(got, want)


@pytest.mark.parametrize("shape,form,mask_shape", MASKS)
def test_a_constant_mask_inside_jit_like_torch(shape, form, mask_shape):
    t = _values(shape, "float32")
    mask = RNG.random(mask_shape) < 0.5
    want = t[_index(form, torch.from_numpy(mask))]
    _same(pyasc.jit(lambda v: v[_index(form, mask.tolist())] + 0)(pyasc.tensor(t)), want + 0)


@pytest.mark.parametrize("shape,form,index", FORMS[:5])
def test_gradients_through_an_advanced_index_like_torch(shape, form, index):
    """Repeated indices add their gradients, as in torch.autograd."""
    base = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal(torch.from_numpy(base)[_index(form, index)].shape).astype(np.float32)
    t = torch.from_numpy(base.copy()).requires_grad_()
    (t[_index(form, index)] * torch.from_numpy(w)).sum().backward()
    loss = lambda v: (v[_index(form, index)] * pyasc.tensor(w)).sum()  # noqa: E731
    for g in (pyasc.grad(loss), pyasc.jit(pyasc.grad(loss))):
        np.testing.assert_allclose(g(pyasc.tensor(base)).numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape,form,index", FORMS[:7] + [(shape, form, RNG.random(m) < 0.5) for shape, form, m in MASKS])
def test_eager_backward_through_an_advanced_index_like_torch(shape, form, index):
    """``x[idx]`` of a tensor that requires grad, then ``loss.backward()``: repeated indices add their gradients."""
    base = RNG.standard_normal(shape).astype(np.float32)
    ti = torch.from_numpy(index) if isinstance(index, np.ndarray) else index
    w = RNG.standard_normal(torch.from_numpy(base)[_index(form, ti)].shape).astype(np.float32)
    t = torch.from_numpy(base.copy()).requires_grad_()
    (t[_index(form, ti)] * torch.from_numpy(w)).sum().backward()
    x = pyasc.tensor(base, requires_grad=True)
    pi = pyasc.tensor(index) if isinstance(index, np.ndarray) else index
    (x[_index(form, pi)] * pyasc.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("index", [
    lambda m: (m.arange(4), m.tensor([0, 2, 1, 2])),                 # a class's logit per row
    lambda m: (slice(None), [[0, 1], [4, 2]], [2, -1]),              # broadcast, after a slice
    lambda m: ([1, 0, 1], [2, 2, 0], 1),
])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_integer_indices_side_by_side_like_torch(index, mode):
    base = RNG.standard_normal((4, 5, 3)).astype(np.float32)
    t = torch.from_numpy(base.copy()).requires_grad_()
    want = t[index(torch)]
    (want ** 2).sum().backward()
    if mode == "jit":
        got = pyasc.jit(lambda v: v[index(pyasc)])(pyasc.tensor(base))
        g = pyasc.grad(lambda v: (v[index(pyasc)] ** 2).sum())(pyasc.tensor(base))
    else:
        x = pyasc.tensor(base, requires_grad=True)
        got = x[index(pyasc)]
        (got ** 2).sum().backward()
        g = x.grad
    np.testing.assert_array_equal(got.detach().numpy() if mode == "eager" else got.numpy(), want.detach().numpy())
    np.testing.assert_allclose(g.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_advanced_index_errors_name_the_op():
    x = pyasc.tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match=r"getitem.*index 4 is out of bounds for dimension 1 with size 4"):
        pyasc.jit(lambda v: v[:, [0, 4]]).lower(x)
    with pytest.raises(IndexError, match=r"getitem.*mask of shape \(3,\) does not match the dims \(4,\)"):
        pyasc.jit(lambda v: v[:, [True, False, True]]).lower(x)
    with pytest.raises(pyasc.PyascError, match=r"getitem.*two or more index tensors"):
        pyasc.jit(lambda v, i: v[i, i]).lower(x, pyasc.tensor(np.array([0, 1], np.int32)))
    with pytest.raises(IndexError, match=r"getitem.*index 3 is out of bounds for dimension 0 with size 3"):
        pyasc.jit(lambda v: v[[0, 3], [1, 2]]).lower(x)


def _clip_rows(m, a, value):
    b = a.clone()
    b[b > 0.5] = -1.0
    b[b.sum(1) > 0] = value
    return b * 2


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
def test_setitem_through_a_traced_mask_inside_jit_like_torch(dtype):
    t = _values((6, 8), dtype)
    for value in (3, "first"):
        want = _clip_rows(torch, t, t[0, 0] if value == "first" else value)
        got = pyasc.jit(lambda a: _clip_rows(pyasc, a, a[0, 0] if value == "first" else value))(pyasc.tensor(t))
        _same(got, want)


def test_gradients_through_a_masked_setitem_like_torch():
    base = RNG.standard_normal((6, 8)).astype(np.float32)
    t = torch.from_numpy(base.copy()).requires_grad_()
    _clip_rows(torch, t, t[0, 0]).pow(2).sum().backward()
    loss = lambda a: _clip_rows(pyasc, a, a[0, 0]).pow(2).sum()  # noqa: E731
    for g in (pyasc.grad(loss), pyasc.jit(pyasc.grad(loss))):
        np.testing.assert_allclose(g(pyasc.tensor(base)).numpy(), t.grad.numpy(), rtol=1e-6)


def test_a_masked_setitem_of_many_values_is_refused_by_name():
    def fill(a):
        b = a.clone()
        b[b > 0] = pyasc.ones(3)
        return b

    with pytest.raises(pyasc.PyascError, match=r"setitem.*a value of shape \(3,\).*depends on its values"):
        pyasc.jit(fill).lower(pyasc.tensor(np.zeros((2, 3), np.float32)))


# (shape of x, the constant index, the shape of the traced value assigned there)
SETS = [
    ((5, 6), ([1, 3, 1],), (3, 6)),                 # whole rows, a repeat: the later value wins, as in PyTorch
    ((5, 6), ([0, 4],), (6,)),                      # one row broadcast
    ((5, 6), (slice(None), [0, 5]), (5, 2)),
    ((5, 6), ([0, 1, 2], [3, 4, 5]), (3,)),
    ((4, 3, 5), (slice(None), [2, 0]), (4, 2, 5)),
    ((4, 3, 5), ([-1, 0],), (2, 3, 5)),
    ((5, 6), (np.array([True, False, True, False, False]),), (2, 6)),
    ((5, 6), (slice(None, None, 2), slice(1, None, 2)), (3, 3)),
]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("shape,index,value_shape", SETS)
def test_setitem_of_a_traced_value_at_a_constant_index_inside_jit_like_torch(shape, index, value_shape, dtype):
    """``x[[0, 2]] = v`` with ``v`` computed inside jit was refused ("takes a traced value of one element")."""
    x, v = _values(shape, dtype), _values(value_shape, dtype)

    def put(m, a, b):
        out = a.clone()
        out[index] = b * 2
        return out

    got = pyasc.jit(lambda a, b: put(pyasc, a, b))(pyasc.tensor(x.numpy()), pyasc.tensor(v.numpy()))
    _same(got, put(torch, x, v))


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_index_put_like_torch(mode):
    x, v = _values((5, 6), "float32"), _values((3, 6), "float32")
    i, rows, cols = torch.tensor([0, 0, 2]), torch.tensor([1, 2]), torch.tensor([0, 5])

    def put(m, a, b):
        return (a.index_put((m.tensor(i.numpy()),), b, accumulate=True), a.index_put((m.tensor(i.numpy()),), b),
                m.index_put(a, (m.tensor(rows.numpy()), m.tensor(cols.numpy())), m.tensor(-1.0)))

    args = (pyasc.tensor(x.numpy()), pyasc.tensor(v.numpy()))
    got = pyasc.jit(lambda a, b: put(pyasc, a, b))(*args) if mode == "jit" else put(pyasc, *args)
    for g, w in zip(got, put(torch, x, v)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-6)


def test_setitem_of_a_traced_value_that_does_not_fit_names_the_shapes():
    def put(a, b):
        out = a.clone()
        out[[0, 1]] = b
        return out

    with pytest.raises(pyasc.PyascError, match=r"setitem: cannot assign a value of shape \(5, 6\) to x\[index\] of "
                                               r"x of shape \(3, 4\): the expanded size"):
        pyasc.jit(put).lower(pyasc.tensor(np.ones((3, 4), np.float32)), pyasc.tensor(np.ones((5, 6), np.float32)))
