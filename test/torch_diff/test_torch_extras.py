"""The tensor functions written as compositions (``pyasc/ops_torch_extras.py``), the in-place ``name_`` methods,
``new_*``, the elementwise ``max``/``min`` of two tensors and the extra losses, each against PyTorch CPU, eagerly
and inside ``pyasc.jit``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

from .torch_pairs import close, pair

RNG = np.random.default_rng(23)


def _F(m):
    return m.nn.functional


CASES = {
    "narrow": (lambda m, x: x.narrow(1, 1, 3), [(4, 6)]),
    "narrow_negative": (lambda m, x: m.narrow(x, 0, -3, 2), [(4, 6)]),
    "select": (lambda m, x: m.select(x, 1, -1) * 2, [(4, 6)]),
    "unbind": (lambda m, x: m.unbind(x, 1)[2] + m.unbind(x)[0][:1], [(3, 5)]),
    "movedim": (lambda m, x: m.movedim(x, 0, -1) + 1, [(2, 3, 4)]),
    "movedim_pairs": (lambda m, x: m.movedim(x, (0, 2), (2, 0)), [(2, 3, 4)]),
    "moveaxis": (lambda m, x: m.moveaxis(x, -1, 0).exp(), [(2, 3, 4)]),
    "swapaxes": (lambda m, x: x.swapaxes(0, 2).sum(0), [(2, 3, 4)]),
    "swapdims": (lambda m, x: m.swapdims(x, 1, 0), [(3, 5)]),
    "unflatten": (lambda m, x: m.unflatten(x, 1, (2, -1)).sum(-1), [(3, 8)]),
    "tensor_split_sections": (lambda m, x: m.tensor_split(x, 3, 1)[0][:, :2] * m.tensor_split(x, 3, 1)[2], [(2, 7)]),
    "tensor_split_indices": (lambda m, x: m.tensor_split(x, [1, 4], 0)[1].sum(0), [(6, 3)]),
    "hstack": (lambda m, x, y: m.hstack([x, y, x]), [(3, 2), (3, 4)]),
    "vstack": (lambda m, x, y: m.vstack([x[0], y]), [(3, 4), (2, 4)]),
    "dstack": (lambda m, x, y: m.dstack([x, y]), [(3, 4), (3, 4)]),
    "column_stack": (lambda m, x, y: m.column_stack([x[:, 0], y]), [(3, 4), (3, 2)]),
    "fliplr": (lambda m, x: m.fliplr(x), [(3, 5)]),
    "flipud": (lambda m, x: m.flipud(x) - x, [(4, 2)]),
    "rot90": (lambda m, x: m.rot90(x) + 0, [(3, 5)]),
    "rot90_k2": (lambda m, x: m.rot90(x, 2, (0, 1)), [(3, 5)]),
    "rot90_k3": (lambda m, x: m.rot90(x, -1, (1, 0)), [(2, 3, 5)]),
    "diagonal": (lambda m, x: m.diagonal(x), [(4, 6)]),
    "diagonal_offset": (lambda m, x: m.diagonal(x, 2) * m.diagonal(x, -1)[:4], [(5, 6)]),
    "diagonal_dims": (lambda m, x: m.diagonal(x, 0, 1, 2), [(2, 4, 3)]),
    "trace": (lambda m, x: m.trace(x) + x.sum(), [(5, 4)]),
    "repeat_interleave": (lambda m, x: m.repeat_interleave(x, 3, 0), [(3, 4)]),
    "repeat_interleave_flat": (lambda m, x: m.repeat_interleave(x, 2), [(2, 3)]),
    "expand_as": (lambda m, x, y: x.expand_as(y) * y, [(3, 1), (3, 5)]),
    "type_as": (lambda m, x, y: x.type_as(y) + 1, [(3, 4), (3, 4, "float16")]),
    "view_as": (lambda m, x, y: x.view_as(y) + y, [(3, 4), (2, 6)]),
    "reshape_as": (lambda m, x, y: x.t().reshape_as(y) + y, [(3, 4), (2, 6)]),
    "broadcast_to": (lambda m, x: m.broadcast_to(x, (2, 3, 4)) * 2, [(3, 1)]),
    "tile": (lambda m, x: m.tile(x, (2,)) + m.tile(x, (2, 1, 2))[0], [(3, 4)]),
    "clamp_min": (lambda m, x: m.clamp_min(x, 0.1), [(3, 4)]),
    "clamp_max": (lambda m, x: x.clamp_max(-0.2), [(3, 4)]),
    "lerp": (lambda m, x, y: m.lerp(x, y, 0.3), [(3, 4), (3, 4)]),
    "lerp_tensor": (lambda m, x, y, w: m.lerp(x, y, w), [(3, 4), (3, 4), (4,)]),
    "addcmul": (lambda m, x, y, z: m.addcmul(x, y, z, value=0.5), [(3, 4), (3, 4), (4,)]),
    "addcdiv": (lambda m, x, y, z: m.addcdiv(x, y, z.abs() + 1, value=2), [(3, 4), (3, 4), (3, 4)]),
    "hypot": (lambda m, x, y: m.hypot(x, y), [(3, 4), (3, 4)]),
    "logaddexp": (lambda m, x, y: m.logaddexp(x * 30, y), [(3, 4), (3, 4)]),
    "sinh": (lambda m, x: m.sinh(x), [(3, 4)]),
    "sinh_small": (lambda m, x: m.sinh(x * 1e-4), [(3, 4)]),
    "cosh": (lambda m, x: m.cosh(x), [(3, 4)]),
    "exp2": (lambda m, x: m.exp2(x * 3), [(3, 4)]),
    "log2": (lambda m, x: m.log2(x.abs() + 0.1), [(3, 4)]),
    "log10": (lambda m, x: m.log10(x.abs() + 0.1), [(3, 4)]),
    "fmod": (lambda m, x: m.fmod(x * 7, 1.5), [(3, 4)]),
    "fmod_negative": (lambda m, x, y: m.fmod(x * 7, -(y.abs() + 0.5)), [(3, 4), (3, 4)]),
    "nan_to_num": (lambda m, x: m.nan_to_num(m.log(x) + 1 / x, nan=-1.0), [(3, 4)]),
    "count_nonzero": (lambda m, x: m.count_nonzero(m.relu(x), 1), [(3, 5)]),
    "diff": (lambda m, x: m.diff(x) + m.diff(x, 2, 0).sum(), [(4, 5)]),
    "var_mean": (lambda m, x: m.var_mean(x, 1)[0] + m.var_mean(x, 1)[1], [(3, 6)]),
    "std_mean": (lambda m, x: m.std_mean(x, 0, correction=0)[0] * m.std_mean(x)[1], [(4, 3)]),
    "max_of_two": (lambda m, x, y: m.max(x, y) - m.min(x, y), [(3, 4), (4,)]),
    "in_place_clamp_": (lambda m, x: x.clone().clamp_(-0.5, 0.5), [(3, 4)]),
    "in_place_masked_fill_": (lambda m, x: x.clone().masked_fill_(x > 0, 2.0), [(3, 4)]),
    "in_place_exp_": (lambda m, x: (x * 1).exp_() + 1, [(3, 4)]),
    "in_place_fill_zero_": (lambda m, x: x.clone().fill_(3.0) + x.clone().zero_(), [(3, 4)]),
    "new_zeros_ones_full": (lambda m, x: x + x.new_zeros(3, 4) + x.new_ones((4,)) * 2 + x.new_full((1, 4), 0.5),
                            [(3, 4)]),
    "softmax_dtype": (lambda m, x: m.softmax(x, 1, dtype=m.float16), [(3, 4)]),
    "sum_dtype": (lambda m, x: m.sum(x, dtype=m.float16) + x.mean(1, dtype=m.float16).float().sum(), [(3, 4)]),
    "prod_dtype": (lambda m, x: x.prod(1, dtype=m.float32), [(3, 4, "float16")]),
    "div_trunc": (lambda m, x, y: m.div(x * 5, y, rounding_mode="trunc"), [(3, 4), (4,)]),
    "div_floor": (lambda m, x, y: (x * 5).div(y, rounding_mode="floor"), [(3, 4), (3, 4)]),
    "div_trunc_int": (lambda m, x, y: m.div((x * 9).int(), (y * 4).int() + (y > 0).int() * 2 - 1,
                                            rounding_mode="trunc"), [(3, 4), (3, 4)]),
    "mse_loss": (lambda m, x, y: _F(m).mse_loss(x, y), [(3, 4), (3, 4)]),
    "l1_loss": (lambda m, x, y: _F(m).l1_loss(x, y, reduction="sum"), [(3, 4), (3, 4)]),
    "smooth_l1_loss": (lambda m, x, y: _F(m).smooth_l1_loss(x, y, beta=0.5), [(3, 4), (3, 4)]),
    "huber_loss": (lambda m, x, y: _F(m).huber_loss(x, y, reduction="none", delta=0.7), [(3, 4), (3, 4)]),
    "bce_with_logits": (lambda m, x, y: _F(m).binary_cross_entropy_with_logits(x * 20, (y > 0).float()),
                        [(3, 4), (3, 4)]),
}


def _inputs(shapes):
    out = []
    for s in shapes:
        dtype = s[-1] if isinstance(s[-1], str) else "float32"
        shape = s[:-1] if isinstance(s[-1], str) else s
        out.append(pair(RNG, *shape, dtype=dtype))
    return out


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, mode):
    fn, shapes = CASES[name]
    ins = _inputs(shapes)
    ours = [a for a, _ in ins]
    want = fn(torch, *[t for _, t in ins])
    got = fn(pyasc, *ours) if mode == "eager" else pyasc.jit(lambda *a: fn(pyasc, *a))(*ours)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).removeprefix("torch.").replace("int64", "int32")  # the device's int
    close(got, want, 1e-4)


@pytest.mark.parametrize("call,message", [
    (lambda x: x.narrow(1, 4, 3), "exceeds dimension size"),
    (lambda x: pyasc.movedim(x, (0, 1), (1,)), "different lengths"),
    (lambda x: pyasc.rot90(x, 1, (0, 0)), "rotation dims to be different"),
    (lambda x: pyasc.tensor_split(x, 0), "larger than 0"),
    (lambda x: x.sum_(), "no attribute"),
])
def test_errors_name_the_op(call, message):
    x = pyasc.tensor(np.zeros((3, 5), np.float32))
    with pytest.raises((pyasc.PyascError, AttributeError), match=message):
        call(x)


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_shifts_and_signbit_like_torch(mode):
    """Shifts wrap in 32 bits (0 from 32 bits on; a right shift keeps the sign), by a number or a tensor."""
    i = np.array([[7, -7, 0, 2147483647, -2147483648, 3], [-1, 1, 5, -5, 9, -9]], np.int32)
    k = np.array([[0, 1, 31, 32, 5, 40], [3, 1, 2, 30, 31, 1]], np.int32)
    f = np.array([1.5, -2.5, np.nan, 0.0, -0.0, np.inf, -np.inf], np.float32)

    def fn(m, a, s, x):
        return a << 5, a >> 31, a << 32, a >> 40, a << s, a >> s, m.signbit(x)

    args = [pyasc.tensor(v) for v in (i, k, f)]
    got = pyasc.jit(lambda *a: fn(pyasc, *a))(*args) if mode == "jit" else fn(pyasc, *args)
    for g, w in zip(got, fn(torch, *[torch.tensor(v) for v in (i, k, f)]), strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
