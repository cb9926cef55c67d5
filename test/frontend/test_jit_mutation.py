"""A ``pyasc.jit`` function that updates its arguments in place (``x.add_(1)``, ``x[0] = 5``, through a view, in a
dict): the caller's tensors change as PyTorch's do when the same function runs eagerly (and as ``torch.compile``
keeps them), for pyasc, NumPy and torch arguments, on the first call and on the cached ones."""

import numpy as np
import pytest
import torch

import pyasc

RNG = np.random.default_rng(11)


def bump(a):
    return a.add_(1.0)


def set_and_scale(a, b):
    a[0] = 5.0
    b.mul_(2)
    return (a + b).sum()


def through_a_view(a):
    a[:, 1].mul_(-3)
    a[1:].clamp_(max=0.5)
    return a.sum(0)


def in_a_dict(state, g):
    state["m"].mul_(0.9).add_(g * 0.1)
    return state["m"] * 2


CASES = [(bump, [(5,)]), (set_and_scale, [(4,), (4,)]), (through_a_view, [(3, 4)])]


def _run(fn, arrays, kind):
    make = {"pyasc": pyasc.tensor, "numpy": lambda x: x, "torch": torch.from_numpy}[kind]
    return [make(a.copy()) for a in arrays]


def _values(x):
    if isinstance(x, pyasc.Tensor):
        return x.numpy()
    return x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


@pytest.mark.parametrize("kind", ["pyasc", "numpy", "torch"])
@pytest.mark.parametrize("fn,shapes", CASES)
def test_arguments_updated_in_place_like_torch(fn, shapes, kind):
    arrays = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    jitted = pyasc.jit(fn)
    for _ in range(2):  # the first call compiles; the second reuses the program
        want_args = [torch.from_numpy(a.copy()) for a in arrays]
        want = fn(*want_args)
        args = _run(fn, arrays, kind)
        got = jitted(*args)
        np.testing.assert_allclose(_values(got), want.numpy(), rtol=1e-6)
        for g, w in zip(args, want_args):
            np.testing.assert_allclose(_values(g), w.numpy(), rtol=1e-6)
    assert jitted.cache_size() == 1


def test_a_dict_entry_updated_in_place_like_torch():
    m, g = RNG.standard_normal(6).astype(np.float32), RNG.standard_normal(6).astype(np.float32)
    want_state = {"m": torch.from_numpy(m.copy())}
    want = in_a_dict(want_state, torch.from_numpy(g))
    state = {"m": pyasc.tensor(m.copy())}
    got = pyasc.jit(in_a_dict)(state, pyasc.tensor(g))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_allclose(state["m"].numpy(), want_state["m"].numpy(), rtol=1e-6)


def test_the_compiled_program_returns_the_updated_arguments_after_its_results():
    """``compile()`` gives the program itself: the function's result, then each updated argument, as torch
    leaves them."""
    x, y = RNG.standard_normal(4).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    compiled = pyasc.jit(set_and_scale).lower(pyasc.tensor(x), pyasc.tensor(y)).compile()
    assert [str(s) for s in compiled.outputs] == ["float32[]", "float32[4]", "float32[4]"]
    total, new_a, new_b = compiled(pyasc.tensor(x), pyasc.tensor(y))
    ta, tb = torch.from_numpy(x.copy()), torch.from_numpy(y.copy())
    want = set_and_scale(ta, tb)
    for got, ref in ((total, want), (new_a, ta), (new_b, tb)):
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6)


def rows_into_zeros(m, a):
    out = m.zeros(3, 4)
    out[0] = a[1]
    out[2] = a[0] * 2
    return out


def copy_into_empty(m, a):
    out = m.empty(3, 4)
    out.copy_(a * 3)
    return out + 1


def accumulate(m, a):
    acc = m.zeros(4)
    for i in range(3):
        acc += a[i] * (i + 1)
    return acc


@pytest.mark.parametrize("fn", [rows_into_zeros, copy_into_empty, accumulate])
def test_a_tensor_made_inside_and_filled_in_place_like_torch(fn):
    """``out = zeros(...); out[i] = x``, ``out.copy_(x)``, ``acc += x``: the tensor the function made holds traced
    values from then on (its own values a constant of the program), as PyTorch runs the same code."""
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    want = fn(torch, torch.from_numpy(x))
    got = pyasc.jit(lambda a: fn(pyasc, a))(pyasc.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    t = torch.from_numpy(x.copy()).requires_grad_()
    fn(torch, t).pow(2).sum().backward()
    g = pyasc.jit(pyasc.grad(lambda a: fn(pyasc, a).pow(2).sum()))(pyasc.tensor(x))
    np.testing.assert_allclose(g.numpy(), t.grad.numpy(), rtol=1e-5)


def test_a_made_tensor_with_a_live_view_is_not_filled_behind_the_view():
    """A view of the made tensor would keep its old values: refused by name rather than answered wrong."""
    def fill(a):
        out = pyasc.zeros(3, 4)
        row = out[0]
        out += a
        return out + row

    with pytest.raises(pyasc.PyascError, match="mixes a traced tensor with a concrete one"):
        pyasc.jit(fill).lower(pyasc.tensor(np.ones((3, 4), np.float32)))


def _branchy(a, b):
    """A branch on a value (``float(t)``): the call runs eagerly, as ``torch.compile`` breaks its graph."""
    if float(a.max()) > 0:
        a[0] = 5.0
        return a * b + int(b[0, 0])
    return a - b


@pytest.mark.parametrize("kind", ["pyasc", "numpy", "torch"])
def test_a_call_that_runs_eagerly_computes_on_pyasc_and_writes_back_like_torch(kind):
    """The eager fallback takes NumPy and torch arguments as pyasc tensors (it ran the function on them as they
    were, so NumPy or torch computed it and returned their arrays), and writes what it updated back."""
    x = RNG.standard_normal((3, 4)).astype(np.float32) + 1.0
    y = RNG.standard_normal((3, 4)).astype(np.float32)
    make = {"pyasc": pyasc.tensor, "numpy": np.array, "torch": torch.tensor}[kind]
    ta, tb = torch.tensor(x.copy()), torch.tensor(y.copy())
    want = _branchy(ta, tb)
    f = pyasc.jit(_branchy)
    for _ in range(2):  # the first call finds the branch, the second runs eagerly at once
        a, b = make(x.copy()), make(y.copy())
        got = f(a, b)
        assert isinstance(got, pyasc.Tensor)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(a.numpy() if kind != "numpy" else a), ta.numpy())
