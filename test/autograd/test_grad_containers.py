"""Gradients with respect to dicts, lists and tuples of tensors, against ``torch.func.grad`` (which takes and
gives them in the same shapes): eagerly, under ``pyasc.jit``, and with ``value_and_grad`` and ``argnums``."""

import numpy as np
import optree
import pytest
import torch
from torch.func import grad as torch_grad

import pyasc

RNG = np.random.default_rng(5)
SHAPES = {"w1": (6, 8), "b1": (8,), "w2": (8, 3)}


def loss(params, x):
    h = (x @ params["w1"] + params["b1"]).tanh()
    out = h @ params["layers"][0] * params["layers"][1]
    return (out * out).mean()


def _params():
    arrays = {k: RNG.standard_normal(s).astype(np.float32) for k, s in SHAPES.items()}
    arrays["scale"] = RNG.standard_normal(3).astype(np.float32)
    return arrays


def _tree(arrays, conv):
    return {"w1": conv(arrays["w1"]), "b1": conv(arrays["b1"]), "layers": [conv(arrays["w2"]), conv(arrays["scale"])]}


def _close_trees(got, want):
    got_leaves, got_spec = optree.tree_flatten(got)
    want_leaves, want_spec = optree.tree_flatten(want)
    assert got_spec.num_leaves == want_spec.num_leaves and str(got_spec) == str(want_spec).replace("tensor", "")
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_grad_of_a_dict_of_parameters_like_torch_func(compiled):
    arrays, x = _params(), RNG.standard_normal((4, 6)).astype(np.float32)
    want = torch_grad(loss)(_tree(arrays, torch.from_numpy), torch.from_numpy(x))
    fn = pyasc.grad(loss)
    fn = pyasc.jit(fn) if compiled else fn
    _close_trees(fn(_tree(arrays, pyasc.tensor), pyasc.tensor(x)), want)


def test_value_and_grad_of_two_arguments_one_a_list_like_torch_func():
    arrays, x = _params(), RNG.standard_normal((4, 6)).astype(np.float32)
    want_g = torch_grad(loss, argnums=(0, 1))(_tree(arrays, torch.from_numpy), torch.from_numpy(x))
    value, got_g = pyasc.value_and_grad(loss, argnums=(0, 1))(_tree(arrays, pyasc.tensor), pyasc.tensor(x))
    np.testing.assert_allclose(value.numpy(), loss(_tree(arrays, torch.from_numpy), torch.from_numpy(x)).numpy(),
                               rtol=1e-5)
    _close_trees(got_g[0], want_g[0])
    np.testing.assert_allclose(got_g[1].numpy(), want_g[1].numpy(), rtol=2e-5, atol=1e-6)


def test_a_container_holding_other_things_is_refused_by_name():
    with pytest.raises(pyasc.PyascError, match=r"grad: argument 0 is differentiated, and the dicts, lists and "
                                               r"tuples it holds must hold tensors only, got python float 2.0"):
        pyasc.grad(lambda p: (p[0] * p[1]).sum())([pyasc.ones(3), 2.0])
