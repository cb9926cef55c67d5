"""Differential test: random elementwise programs, compiled and simulated, against NumPy.

Hypothesis draws an expression tree over two or three inputs whose shapes broadcast (size-1 and
missing dims, odd and prime lengths), a dtype and the codegen options; the program is traced,
compiled through every pass, run on the simulator and compared with the tree evaluated op by op
by the NumPy oracle of each op (``pyasc.reference``), at the dtype's tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyasc

# op name -> arity; the unary ops keep values in ranges where every dtype is well conditioned
BINARY = ["add", "sub", "mul", "maximum", "minimum"]
UNARY = ["relu", "sigmoid", "tanh", "gelu", "neg", "abs"]
FLOAT_DTYPES = {"float32": pyasc.float32, "float16": pyasc.float16, "bfloat16": pyasc.bfloat16}
# tolerance per dtype (a few units in the last place through a chain of ops)
TOL = {"float32": (1e-4, 1e-4), "float16": (8e-3, 8e-3), "bfloat16": (5e-2, 5e-2), "int32": (0, 0)}


@st.composite
def shapes(draw):
    """An output shape and 2-3 input shapes that broadcast to it."""
    rank = draw(st.integers(1, 3))
    dims = draw(st.lists(st.sampled_from([1, 2, 3, 5, 7, 16, 31, 64, 97, 130]), min_size=rank, max_size=rank))
    inputs = []
    for _ in range(draw(st.integers(2, 3))):
        keep = draw(st.integers(0, rank))  # drop leading dims
        shape = [d if draw(st.booleans()) or d == 1 else 1 for d in dims[rank - keep:]]
        inputs.append(tuple(shape))
    inputs[0] = tuple(dims)  # at least one input has the full shape
    return tuple(dims), inputs


@st.composite
def trees(draw, n_inputs: int, depth: int, integer: bool):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.integers(0, 4)) == 0:
            return ("scalar", draw(st.sampled_from([0.5, 1.5, -2.0, 3.0] if not integer else [1, -3, 7])))
        return ("input", draw(st.integers(0, n_inputs - 1)))
    if not integer and draw(st.booleans()):
        return (draw(st.sampled_from(UNARY)), draw(trees(n_inputs, depth - 1, integer)))
    ops = BINARY if not integer else ["add", "sub", "mul", "maximum", "minimum"]
    return (draw(st.sampled_from(ops)), draw(trees(n_inputs, depth - 1, integer)),
            draw(trees(n_inputs, depth - 1, integer)))


def build(tree, inputs):
    """Evaluate the tree with pyasc ops (inside a jit trace)."""
    kind = tree[0]
    if kind == "input":
        return inputs[tree[1]]
    if kind == "scalar":
        return tree[1]
    args = [build(t, inputs) for t in tree[1:]]
    if all(not isinstance(a, pyasc.Tensor) and not hasattr(a, "shape") for a in args):
        return _scalar_fold(kind, args)
    return getattr(pyasc, kind)(*args)


def oracle(tree, arrays):
    kind = tree[0]
    if kind == "input":
        return arrays[tree[1]]
    if kind == "scalar":
        return tree[1]
    args = [oracle(t, arrays) for t in tree[1:]]
    if all(not isinstance(a, np.ndarray) for a in args):
        return _scalar_fold(kind, args)
    return pyasc.reference(kind, *args)


def _scalar_fold(kind, args):
    table = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
             "maximum": max, "minimum": min}
    if kind in table:
        return table[kind](*args)
    return float(np.asarray(pyasc.reference(kind, np.array([args[0]], dtype=np.float32)))[0])


def _has_input(tree) -> bool:
    return tree[0] == "input" or any(_has_input(t) for t in tree[1:] if isinstance(t, tuple))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_elementwise_programs(data):
    dtype_name = data.draw(st.sampled_from(list(FLOAT_DTYPES) + ["int32"]))
    integer = dtype_name == "int32"
    out_shape, in_shapes = data.draw(shapes())
    tree = data.draw(trees(len(in_shapes), 3, integer))
    if not _has_input(tree) or tree[0] in ("input", "scalar"):
        tree = ("add", tree, ("input", 0))
    options = {
        "sync_style": data.draw(st.sampled_from(["queue", "flags"])),
        "buffers": data.draw(st.sampled_from([1, 2])),
        "cores": data.draw(st.sampled_from([1, 3, 48])),
    }
    if data.draw(st.booleans()):
        options["tile_size"] = data.draw(st.sampled_from([64, 160, 1024]))

    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    if integer:
        arrays = [rng.integers(-1000, 1000, size=s).astype(np.int32) for s in in_shapes]
        tensors = [pyasc.tensor(a) for a in arrays]
    else:
        dtype = FLOAT_DTYPES[dtype_name]
        tensors = [pyasc.tensor(rng.uniform(-3, 3, size=s).astype(np.float32)).to(dtype) for s in in_shapes]
        arrays = [t.numpy() for t in tensors]

    fn = pyasc.jit(lambda *xs: build(tree, xs), options=options)
    got = fn(*tensors).numpy()
    want = np.asarray(oracle(tree, arrays))
    assert got.shape == want.shape
    rtol, atol = TOL[dtype_name]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg=f"tree={tree} shapes={in_shapes} options={options}")


@pytest.mark.parametrize("style", ["queue", "flags"])
def test_prime_length_with_tail_tiles(style):
    """A prime length that no tile size divides: every tail tile is partial."""
    n = 100003
    rng = np.random.default_rng(1)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    fn = pyasc.jit(lambda x, y: pyasc.relu(x * y - 0.25), options={"sync_style": style, "tile_size": 4000})
    got = fn(pyasc.tensor(a), pyasc.tensor(b)).numpy()
    np.testing.assert_allclose(got, np.maximum(a * b - np.float32(0.25), 0), rtol=1e-6, atol=1e-6)
