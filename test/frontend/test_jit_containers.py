"""Dicts, lists and tuples of tensors as ``pyasc.jit`` arguments and results (as ``torch.compile`` takes them),
against the same function run by PyTorch eagerly: the same structure, dtypes and values."""

from collections import namedtuple

import numpy as np
import optree
import pytest
import torch

import pyasc
from pyasc.lowering.emit.syntax import check_project

RNG = np.random.default_rng(3)
Pair = namedtuple("Pair", "weight bias")


def _params(lib):
    conv = lib.tensor if lib is pyasc else torch.from_numpy
    return {"layers": [Pair(conv(W1), conv(B1)), Pair(conv(W2), conv(B2))], "scale": 0.5, "act": "relu"}


W1, B1 = RNG.standard_normal((8, 16)).astype(np.float32), RNG.standard_normal(16).astype(np.float32)
W2, B2 = RNG.standard_normal((16, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
X = RNG.standard_normal((5, 8)).astype(np.float32)


def mlp(params, x):
    """Two layers from a dict of a list of named pairs; a dict of a tuple and None back."""
    h = x
    for layer in params["layers"]:
        h = h @ layer.weight + layer.bias
        h = h.relu() if params["act"] == "relu" else h.tanh()
    return {"out": h * params["scale"], "extra": (h.sum(1), None)}


def _same_tree(got, want, rtol=1e-5):
    got_leaves, got_spec = optree.tree_flatten(got)
    want_leaves, want_spec = optree.tree_flatten(want)
    assert str(got_spec).replace("tensor", "") == str(want_spec).replace("tensor", "")
    for g, w in zip(got_leaves, want_leaves):
        assert g.shape == tuple(w.shape) and g.dtype.name == str(w.dtype).removeprefix("torch.")
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=1e-5)


def test_a_dict_of_named_pairs_in_and_a_dict_out_like_torch():
    fn = pyasc.jit(mlp)
    want = mlp(_params(torch), torch.from_numpy(X))
    _same_tree(fn(_params(pyasc), pyasc.tensor(X)), want)
    _same_tree(fn(_params(pyasc), pyasc.tensor(X)), want)   # the compiled program again
    assert fn.cache_size() == 1
    assert list(fn(_params(pyasc), pyasc.tensor(X))) == ["out", "extra"]   # the dict keeps its order


def test_the_container_and_its_static_leaves_are_part_of_the_signature():
    fn = pyasc.jit(mlp)
    params = _params(pyasc)
    fn(params, pyasc.tensor(X))
    fn({**params, "act": "tanh"}, pyasc.tensor(X))             # another static leaf: another program
    _same_tree(fn({**params, "act": "tanh"}, pyasc.tensor(X)), mlp({**_params(torch), "act": "tanh"},
                                                                  torch.from_numpy(X)))
    fn({**params, "layers": tuple(params["layers"])}, pyasc.tensor(X))   # a tuple, not a list
    assert fn.cache_size() == 3


@pytest.mark.parametrize("make", [list, tuple])
def test_a_sequence_of_tensors_and_numbers(make):
    def fn(xs):
        return xs[0] * xs[2] + xs[1]

    xs = [RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)]
    got = pyasc.jit(fn)(make([pyasc.tensor(xs[0]), pyasc.tensor(xs[1]), 3.0]))
    _same_tree(got, fn(make([torch.from_numpy(xs[0]), torch.from_numpy(xs[1]), 3.0])))


def test_container_leaves_name_the_traced_inputs_and_the_emitted_project(tmp_path):
    lowered = pyasc.jit(mlp).lower(_params(pyasc), pyasc.tensor(X))
    text = lowered.as_text()
    assert "%params.layers.0.0: tensor<8x16xf32>" in text and "%params.layers.1.1: tensor<4xf32>" in text
    lowered.compile().write_project(tmp_path / "mlp")
    host = (tmp_path / "mlp" / "host" / "main.asc").read_text()
    assert "params_layers_0_0Device" in host
    results = check_project(tmp_path / "mlp")
    if any(r.skipped for r in results.values()):
        pytest.skip("no g++")
    assert all(r.ok for r in results.values()), results


def test_an_argument_of_another_kind_is_refused_by_name():
    with pytest.raises(pyasc.PyascError, match=r"argument 0 \('p'\) must be a tensor, a number, a string, None, or "
                                               r"a dict, list or tuple of them, got set"):
        pyasc.jit(lambda p: p)({1, 2})
