"""The eager autograd API against torch.autograd: requires_grad, backward, accumulation, no_grad,
detach, autograd.grad, custom ops' backward, and backward inside and around pyasc.jit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc import eager


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).normal(size=shape).astype(np.float32)
    return pyasc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(p, t, tol=1e-5):
    np.testing.assert_allclose(p.numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def test_backward_accumulates_and_compiles_once():
    x, tx = _pair((4, 8))
    w, tw = _pair((8,), 1)

    def f(m, a, b):
        return (m.tanh(a * b) + a.exp() / 3.0).sum()

    f(pyasc, x, w).backward()
    f(torch, tx, tw).backward()
    _close(x.grad, tx.grad)
    _close(w.grad, tw.grad)
    f(pyasc, x, w).backward()          # accumulated into .grad
    f(torch, tx, tw).backward()
    programs = eager.cache_info()["programs"]
    f(pyasc, x, w).backward()          # the same graph: its backward program is reused
    f(torch, tx, tw).backward()
    assert eager.cache_info()["programs"] == programs
    _close(x.grad, tx.grad)
    _close(w.grad, tw.grad)


def test_backward_with_gradient_and_intermediate_results():
    x, tx = _pair((3, 5))
    y, ty = x.softmax(-1) * 2.0, torch.softmax(tx, -1) * 2.0
    g = np.random.default_rng(2).normal(size=(3, 5)).astype(np.float32)
    y.backward(pyasc.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad)
    assert not x.grad.requires_grad and y.grad_fn is not None and x.is_leaf and not y.is_leaf


def test_no_grad_detach_and_requires_grad_flags():
    x, _ = _pair((4,))
    with pyasc.no_grad():
        y = x * 2.0
    assert not y.requires_grad and y.grad_fn is None
    z = x.detach() * 2.0
    assert not z.requires_grad and x.detach().numpy() is not None
    assert (x * 2.0).requires_grad
    assert not pyasc.tensor([1.0, 2.0]).requires_grad
    with pytest.raises(pyasc.PyascError, match="floating point"):
        pyasc.tensor([1, 2]).requires_grad_()
    with pytest.raises(pyasc.PyascError, match="scalar outputs"):
        (x * 2.0).backward()
    with pytest.raises(pyasc.PyascError, match="does not require grad"):
        pyasc.tensor([1.0]).backward()


def test_autograd_grad_leaves_dot_grad_alone():
    x, tx = _pair((2, 6))
    y = (x * x).mean()
    (gx,) = pyasc.autograd.grad(y, x)
    (tgx,) = torch.autograd.grad((tx * tx).mean(), tx)
    _close(gx, tgx)
    assert x.grad is None


def test_an_op_without_a_backward_is_named():
    @pyasc.register_op("grad_test_no_backward", replace=True)
    def no_backward(x):
        return x * pyasc.sigmoid(x)

    x, _ = _pair((4, 8))
    with pytest.raises(pyasc.PyascError, match=r"grad_test_no_backward: has no backward"):
        no_backward(x).sum().backward()


def test_strided_grouped_conv2d_backward():
    x, tx = _pair((1, 4, 7, 7))
    w, tw = _pair((6, 2, 3, 3), 1)
    (pyasc.conv2d(x, w, stride=2, padding=1, groups=2) ** 2).sum().backward()
    (torch.nn.functional.conv2d(tx, tw, stride=2, padding=1, groups=2) ** 2).sum().backward()
    _close(x.grad, tx.grad, 1e-4)
    _close(w.grad, tw.grad, 1e-4)


def test_custom_op_backward_is_its_rule():
    @pyasc.register_op("grad_test_swish", backward=lambda g, x: g * (s := pyasc.sigmoid(x)) * (1 + x * (1 - s)),
                       replace=True)
    def swish(x):
        return x * pyasc.sigmoid(x)

    x, tx = _pair((4, 8))
    (swish(x) * 3.0).sum().backward()
    (tx * torch.sigmoid(tx) * 3.0).sum().backward()
    _close(x.grad, tx.grad)


def test_custom_op_grad_op_by_name():
    """As in the documentation: op "<Name>" and its backward op "<Name>Grad"."""
    @pyasc.register_op("GradTestRelu", replace=True)
    def relu_forward(x):
        return pyasc.maximum(x, 0.0)

    @pyasc.register_op("GradTestReluGrad", replace=True)
    def relu_backward(dy, y):
        return pyasc.where(y > 0, dy, 0.0)

    x, tx = _pair((4, 8))
    g = pyasc.jit(pyasc.grad(lambda a: (relu_forward(a) * a).sum()))(x)
    (torch.relu(tx) * tx).sum().backward()
    _close(g, tx.grad)


def test_backward_inside_jit_and_grad_around_jit():
    a = np.random.default_rng(3).normal(size=(4, 8)).astype(np.float32)

    @pyasc.jit
    def inside(x):
        x = x.detach().requires_grad_()
        (pyasc.gelu(x) * x).sum().backward()
        return x.grad

    tx = torch.tensor(a, requires_grad=True)
    (torch.nn.functional.gelu(tx) * tx).sum().backward()
    _close(inside(a), tx.grad, 1e-4)
    around = pyasc.grad(pyasc.jit(lambda x: (pyasc.gelu(x) * x).sum()))
    _close(around(a), tx.grad, 1e-4)
    value, g = pyasc.jit(pyasc.value_and_grad(lambda x: (pyasc.gelu(x) * x).sum()))(a)
    _close(g, tx.grad, 1e-4)
    assert abs(value.item() - (torch.nn.functional.gelu(tx) * tx).sum().item()) < 1e-3


def test_vjp_eager_pullback():
    x, tx = _pair((3, 4))
    out, back = pyasc.vjp(lambda a: a.sigmoid() * a, x)
    ct = np.random.default_rng(4).normal(size=(3, 4)).astype(np.float32)
    (g,) = back(pyasc.tensor(ct))
    (torch.sigmoid(tx) * tx).backward(torch.tensor(ct))
    _close(g, tx.grad)
    _close(out, torch.sigmoid(tx) * tx)


@pytest.mark.parametrize("bshape", [(8,), (4, 1)])
def test_value_and_grad_eager_with_a_bias_over_part_of_the_row(bshape):
    # the forward and backward of a whole-tensor sum read a bias broadcast over part of the reduced
    # row: the compiler puts them in different kernels instead of failing
    a = np.random.default_rng(2).normal(size=(4, 8)).astype(np.float32)
    c = np.random.default_rng(3).normal(size=bshape).astype(np.float32)
    value, gx = pyasc.value_and_grad(lambda x, b: (pyasc.tanh(x + b) * x.exp()).sum())(a, c)
    tx, tb = torch.tensor(a, requires_grad=True), torch.tensor(c)
    tv = (torch.tanh(tx + tb) * tx.exp()).sum()
    tv.backward()
    np.testing.assert_allclose(np.asarray(value.numpy()), tv.detach().numpy(), rtol=1e-5, atol=1e-4)
    _close(gx, tx.grad, 1e-5)


def test_retain_grad_retain_graph_and_inputs_like_torch():
    x, tx = _pair((4, 6))
    b, tb = x * 2, tx * 2
    b.retain_grad()
    tb.retain_grad()
    assert b.retains_grad and tb.retains_grad and not x.retains_grad
    y, ty = (b * b).sum(), (tb * tb).sum()
    y.backward(retain_graph=True)
    ty.backward(retain_graph=True)
    y.backward()                        # a second backward of the same graph accumulates
    ty.backward()
    _close(b.grad, tb.grad)
    _close(x.grad, tx.grad)
    w, tw = _pair((6,), 1)
    (x * w).sum().backward(inputs=[w])  # only ``inputs`` take gradients
    (tx * tw).sum().backward(inputs=[tw])
    _close(w.grad, tw.grad)
    _close(x.grad, tx.grad)
    with pytest.raises(pyasc.PyascError, match="create_graph=True: gradients of gradients are not supported"):
        (x * x).sum().backward(create_graph=True)
    with pytest.raises(pyasc.PyascError, match="autograd.grad.*create_graph"):
        pyasc.autograd.grad((x * x).sum(), x, create_graph=True)
