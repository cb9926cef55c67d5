"""Issue 6, items 4, 5 and torch interop: custom ops (one op in the traced IR, eager and jit,
backward), mixed precision (autocast, precision_scope, PYASC_MODE) and PyTorch CPU tensors."""

import subprocess
import sys

import numpy as np
import pytest

import pyasc
from pyasc import cache

from .conftest import requires_backend


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.fixture(scope="module")
def swish():
    @pyasc.register_op("test_swish", replace=True,
                       backward=lambda g, x, beta=1.0: g * (pyasc.sigmoid(x * beta) * (1 + x * beta * (1 - pyasc.sigmoid(x * beta)))))
    def swish(x, beta=1.0):
        """x * sigmoid(beta * x)"""
        return x * pyasc.sigmoid(x * beta)

    return swish


# ----------------------------------------------------------------------------- custom ops

@requires_backend
def test_custom_op_eager_and_jit(swish):
    a = np.random.default_rng(0).standard_normal((4, 33)).astype(np.float32)
    x = pyasc.from_numpy(a)
    np.testing.assert_allclose(swish(x).numpy(), a * _sig(a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(swish(x, 2.0).numpy(), a * _sig(2 * a), rtol=1e-5, atol=1e-6)
    f = pyasc.jit(lambda x: swish(x) * 2 + 1)
    np.testing.assert_allclose(f(x).numpy(), 2 * a * _sig(a) + 1, rtol=1e-5, atol=1e-5)
    assert pyasc.get_custom_op("test_swish") is swish and swish.__doc__ == "x * sigmoid(beta * x)"


def test_custom_op_is_one_op_in_the_traced_ir_until_decomposed(swish):
    lowered = pyasc.jit(lambda x: swish(x) + swish(x) + swish(x, 3.0)).lower(pyasc.ones(8))
    main = str(lowered.traced).split("func.func private")[0]
    assert main.count('func.call @test_swish_') == 3 and "asctensor.sigmoid" not in main
    assert main.count('pyasc.custom_op = "test_swish"') == 3
    assert str(lowered.traced).count("func.func private") == 2          # one body per distinct signature
    decomposed = lowered.as_text("asctensor")
    assert "test_swish" not in decomposed and "func.func private" not in decomposed


@requires_backend
def test_custom_op_backward_against_finite_differences(swish):
    a = np.linspace(-3, 3, 64).astype(np.float32)
    (g,) = swish.vjp(pyasc.from_numpy(a))
    h = 1e-3
    numeric = ((a + h) * _sig(a + h) - (a - h) * _sig(a - h)) / (2 * h)
    np.testing.assert_allclose(g.numpy(), numeric, rtol=1e-3, atol=1e-3)
    grad_fn = pyasc.jit(lambda x, go: swish.vjp(x, grad_output=go)[0])
    np.testing.assert_allclose(grad_fn(a, np.full(64, 2.0, np.float32)).numpy(), 2 * numeric, rtol=1e-3, atol=2e-3)


def test_custom_op_with_a_host_only_part_runs_op_by_op_eagerly_and_raises_in_jit():
    @pyasc.register_op("test_pos_mask", replace=True)
    def pos_mask(x):
        return pyasc.where(x > 0, x, 0.0)

    np.testing.assert_array_equal(pos_mask(pyasc.tensor([-1.0, 2.0])).numpy(), [0.0, 2.0])
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.gt: is not supported inside pyasc\.jit"):
        pyasc.jit(lambda x: pos_mask(x))(pyasc.ones(3))


def test_register_op_errors(swish):
    with pytest.raises(pyasc.PyascError, match="already registered"):
        pyasc.register_op("test_swish")(lambda x: x)
    with pytest.raises(pyasc.PyascError, match="already registered"):
        pyasc.register_op("add")(lambda x: x)
    with pytest.raises(pyasc.PyascError, match="must be an identifier"):
        pyasc.register_op("not valid")
    with pytest.raises(pyasc.PyascError, match="has no backward"):
        pyasc.register_op("test_nobwd", replace=True)(lambda x: x * 2).vjp(pyasc.ones(2))
    with pytest.raises(pyasc.PyascError, match="must return a tensor"):
        pyasc.jit(pyasc.register_op("test_bad", replace=True)(lambda x: 3)).lower(pyasc.ones(2))


# ----------------------------------------------------------------------------- mixed precision

def test_autocast_casts_by_op_category():
    f = pyasc.jit(lambda x, y: (pyasc.exp(x), x + y, x * y))
    x16, y32 = pyasc.ones(8, dtype=pyasc.float16), pyasc.ones(8)
    with pyasc.amp.autocast(pyasc.float16):
        lowered = f.lower(x16, y32)
    exp_t, add_t, mul_t = (s.dtype for s in lowered.outputs)
    assert exp_t is pyasc.float32            # fp32 list: computed in float32
    assert add_t is pyasc.float32 and mul_t is pyasc.float32   # others: plain promotion
    pyasc.amp.register("mul", "lower")
    try:
        with pyasc.amp.autocast(pyasc.bfloat16):
            assert f.lower(x16, y32).outputs[2].dtype is pyasc.bfloat16
    finally:
        pyasc.amp.LOWER_PRECISION_OPS.discard("mul")
    assert f.lower(x16, y32).outputs[0].dtype is pyasc.float16       # outside: no policy


def test_precision_scope_and_cache_key():
    f = pyasc.jit(lambda x, y: x * y + 1.0)
    x, y = pyasc.ones(16), pyasc.ones(16)
    assert f.compile(x, y).outputs[0].dtype is pyasc.float32
    with pyasc.precision_scope(pyasc.float16):
        assert f.compile(x, y).outputs[0].dtype is pyasc.float16
        with pyasc.precision_scope("bf16"):
            assert f.compile(x, y).outputs[0].dtype is pyasc.bfloat16
    assert f.compile(x, y).outputs[0].dtype is pyasc.float32 and f.cache_size() == 3
    with pyasc.precision_scope(pyasc.float16):
        i = pyasc.tensor([1, 2])
        assert f.lower(i, i).outputs[0].dtype is pyasc.float32           # ints untouched; + 1.0 promotes
    with pytest.raises(pyasc.PyascError, match="needs a floating point dtype"):
        pyasc.precision_scope(pyasc.int32).__enter__()


@requires_backend
def test_precision_scope_eager():
    x = pyasc.tensor([1.0, 2.0, 3.0])
    with pyasc.precision_scope(pyasc.float16):
        y = x * x
    assert y.dtype is pyasc.float16 and y.tolist() == [1.0, 4.0, 9.0]


def test_pyasc_mode_environment_variable():
    code = ("import pyasc; f = pyasc.jit(lambda x: x * 2); "
            "print(pyasc.amp.get_mode(), f.lower(pyasc.ones(4)).outputs[0].dtype.name)")
    for mode, expected in (("FP16", "FP16 float16"), ("BF16", "BF16 bfloat16"), ("FP32", "FP32 float32")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**__import__("os").environ, "PYASC_MODE": mode}, check=True)
        assert out.stdout.strip() == expected
    pyasc.amp.set_mode("fp16")
    try:
        assert pyasc.jit(lambda x: x * 2).lower(pyasc.ones(4)).outputs[0].dtype is pyasc.float16
    finally:
        pyasc.amp.set_mode(None)
    with pytest.raises(pyasc.PyascError, match="unknown precision mode"):
        pyasc.amp.set_mode("FP8")


# ----------------------------------------------------------------------------- torch interop

torch = pytest.importorskip("torch")


def test_torch_tensors_accepted_wherever_a_tensor_is():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    x = pyasc.tensor(t)
    assert x.dtype is pyasc.float32 and x.shape == (2, 3)
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    assert pyasc.from_numpy(t).dtype is pyasc.float32
    assert pyasc.tensor(torch.ones(2, dtype=torch.bfloat16)).dtype is pyasc.bfloat16
    assert pyasc.tensor(torch.ones(2, dtype=torch.int64)).dtype is pyasc.int32
    assert pyasc.tensor(torch.tensor([True])).dtype is pyasc.bool
    assert pyasc.tensor(torch.ones(2, dtype=torch.float64)).dtype is pyasc.float32
    np.testing.assert_array_equal(pyasc.where(torch.tensor([True, False]), x[0, :2], torch.zeros(2)).numpy(), [0, 0])
    np.testing.assert_array_equal(pyasc.cat([t, x]).numpy(), np.concatenate([t.numpy()] * 2))
    assert pyasc.zeros_like(t).shape == (2, 3)


@requires_backend
def test_torch_tensors_in_eager_ops_and_jit():
    t = torch.randn(4, 5)
    x = pyasc.tensor(t)
    np.testing.assert_allclose((x + t).numpy(), (t + t).numpy(), rtol=1e-6)
    f = pyasc.jit(lambda a, b: a * b)
    np.testing.assert_allclose(f(t, x).numpy(), (t * t).numpy(), rtol=1e-6)


@pytest.mark.parametrize("fn,tfn", [
    (lambda x: x.reshape(3, -1).transpose(0, 1), lambda x: x.reshape(3, -1).transpose(0, 1)),
    (lambda x: x.permute(2, 0, 1).flatten(1), lambda x: x.permute(2, 0, 1).flatten(1)),
    (lambda x: x.unsqueeze(1).squeeze(), lambda x: x.unsqueeze(1).squeeze()),
    (lambda x: x[1:, None, ..., ::2], lambda x: x[1:, None, ..., ::2]),
    (lambda x: x.split(1, dim=2)[1], lambda x: x.split(1, dim=2)[1]),
    (lambda x: x.chunk(2, dim=1)[1], lambda x: x.chunk(2, dim=1)[1]),
    (lambda x: pyasc.stack([x, x], dim=-1), lambda x: torch.stack([x, x], dim=-1)),
    (lambda x: pyasc.cat([x, x], dim=1), lambda x: torch.cat([x, x], dim=1)),
    (lambda x: x.topk(2, dim=1).values, lambda x: x.topk(2, dim=1).values),
    (lambda x: x.topk(2, dim=0, largest=False).indices, lambda x: x.topk(2, dim=0, largest=False).indices),
    (lambda x: pyasc.norm(x, 2, dim=(0, 2)), lambda x: torch.linalg.vector_norm(x, 2, dim=(0, 2))),
    (lambda x: pyasc.norm(x, float("inf"), dim=1, keepdim=True),
     lambda x: torch.linalg.vector_norm(x, float("inf"), dim=1, keepdim=True)),
    (lambda x: pyasc.norm(x, 1), lambda x: torch.linalg.vector_norm(x, 1)),
    (lambda x: pyasc.where(x > 0, x, x * 0.5), lambda x: torch.where(x > 0, x, x * 0.5)),
    (lambda x: (x >= 0.1) & (x < 0.9), lambda x: (x >= 0.1) & (x < 0.9)),
    (lambda x: pyasc.clamp(x, -0.5, 0.5), lambda x: torch.clamp(x, -0.5, 0.5)),
    (lambda x: x[x > 0], lambda x: x[x > 0]),
    (lambda x: x.T.contiguous(), lambda x: x.permute(2, 1, 0).contiguous()),
], ids=lambda f: "")
def test_against_torch(fn, tfn):
    t = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(0))
    out = fn(pyasc.tensor(t))
    ref = tfn(t)
    assert tuple(out.shape) == tuple(ref.shape)
    if ref.dtype == torch.int64:
        assert out.dtype is pyasc.int32
    np.testing.assert_allclose(out.numpy().astype(np.float64), ref.double().numpy(), rtol=1e-5, atol=1e-5)


def test_views_share_storage_where_torch_does():
    t = torch.arange(24.0).reshape(2, 3, 4)
    x = pyasc.tensor(t)
    for name, f in (("view", lambda a: a.view(6, 4)), ("transpose", lambda a: a.transpose(0, 1)),
                    ("permute", lambda a: a.permute(2, 1, 0)), ("getitem", lambda a: a[:, 1]),
                    ("unsqueeze", lambda a: a.unsqueeze(0)), ("split", lambda a: a.split(2, dim=2)[1]),
                    ("flatten", lambda a: a.flatten())):
        tv, pv = f(t), f(x)
        assert (tv.data_ptr() != t.data_ptr() or tv.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()) \
            and np.shares_memory(pv.numpy(), x.numpy()), name
        assert tv.data_ptr() - t.data_ptr() == pv.data_ptr() - x.data_ptr(), name   # same element offset
    assert not np.shares_memory(x.transpose(0, 1).reshape(-1).numpy(), x.numpy())   # torch copies here too


def test_batch_norm_against_torch():
    g = torch.Generator().manual_seed(1)
    t = torch.randn(2, 3, 4, 4, generator=g)
    m, v = torch.randn(3, generator=g), torch.rand(3, generator=g) + 0.5
    w, b = torch.randn(3, generator=g), torch.randn(3, generator=g)
    saved = pyasc.get_eager_backend()
    pyasc.set_eager_backend("reference")
    try:
        out = pyasc.batch_norm(t, m, v, w, b, eps=1e-3)
    finally:
        pyasc.set_eager_backend(saved)
    ref = torch.nn.functional.batch_norm(t, m, v, w, b, training=False, eps=1e-3)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    assert pyasc.dropout(t, 0.5).numpy().tolist() == torch.nn.functional.dropout(t, 0.5, training=False).tolist()
