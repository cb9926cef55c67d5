"""PyTorch CPU tensors accepted wherever a tensor is, and the tensor API against PyTorch's
semantics (torch is a test dependency: ``pip install -e '.[dev]'``)."""

import numpy as np
import pytest

import pyasc

from .conftest import requires_backend

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


@requires_backend
def test_int8_conversions_match_torch():
    t = torch.tensor([[1.7, -2.9, 127.9, -128.9, 300.7, -300.7, 255.5, 1000.25, -0.5, 65000.0]] * 3)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        src = t.to(dtype)
        got = pyasc.jit(lambda x: x.to(pyasc.int8))(src)
        np.testing.assert_array_equal(got.numpy(), src.to(torch.int8).numpy())
        np.testing.assert_array_equal(pyasc.tensor(src).to(pyasc.int8).numpy(), src.to(torch.int8).numpy())
    q = torch.arange(-128, 128, dtype=torch.int8).reshape(8, 32)
    back = pyasc.jit(lambda x: x.to(pyasc.float16))(q)
    np.testing.assert_array_equal(back.numpy(), q.to(torch.float16).numpy())
