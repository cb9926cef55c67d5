"""Training against PyTorch: one step of an MLP and of a transformer encoder block with the same
weights (every parameter's gradient), the losses, and SGD with momentum and Adam over a few steps."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

import pyasc

from .cases import TORCH


def _params(shapes, seed):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=s) / np.sqrt(s[-1])).astype(np.float32) for s in shapes]


def _check(grads, tparams, tol=1e-4):
    for i, (g, t) in enumerate(zip(grads, tparams)):
        ref = t.grad.numpy()
        scale = max(1.0, float(np.abs(ref).max()))
        np.testing.assert_allclose(g.numpy(), ref, rtol=tol, atol=tol * scale, err_msg=f"parameter {i}")


def mlp(m, x, w1, b1, w2, b2, w3, b3):
    return m.linear(m.relu(m.linear(m.gelu(m.linear(x, w1, b1)), w2, b2)), w3, b3)


def test_mlp_step_gradients_match_torch():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(16, 12)).astype(np.float32), rng.integers(0, 5, 16).astype(np.int32)
    shapes = [(24, 12), (24,), (20, 24), (20,), (5, 20), (5,)]
    params = _params(shapes, 1)
    loss_fn = pyasc.value_and_grad(lambda x, y, *p: pyasc.cross_entropy(mlp(pyasc, x, *p), y),
                                   argnums=tuple(range(2, 8)))
    loss, grads = loss_fn(x, y, *params)
    tp = [torch.tensor(p, requires_grad=True) for p in params]
    tloss = F.cross_entropy(mlp(TORCH, torch.tensor(x), *tp), torch.tensor(y).long())
    tloss.backward()
    assert abs(loss.item() - tloss.item()) < 1e-5
    _check(grads, tp)


def encoder_block(m, x, wq, bq, wk, bk, wv, bv, wo, bo, g1, c1, g2, c2, w1, d1, w2, d2):
    """A pre-norm transformer encoder layer with one attention head (``nn.TransformerEncoderLayer(
    norm_first=True, activation="gelu")`` without dropout; the compiler takes 2-D and 3-D products)."""
    d = x.shape[-1]
    h = m.layer_norm(x, (d,), g1, c1)
    q, k, v = m.linear(h, wq, bq), m.linear(h, wk, bk), m.linear(h, wv, bv)
    att = m.softmax(m.bmm(q, k.transpose(1, 2)) * (1.0 / np.sqrt(d)), -1)
    x = x + m.linear(m.bmm(att, v), wo, bo)
    return x + m.linear(m.gelu(m.linear(m.layer_norm(x, (d,), g2, c2), w1, d1)), w2, d2)


def test_transformer_block_gradients_match_torch():
    b, s, d, ff = 2, 8, 16, 32
    shapes = [(d, d), (d,)] * 4 + [(d,)] * 4 + [(ff, d), (ff,), (d, ff), (d,)]
    params = _params(shapes, 2)
    for i in (8, 10):          # layer-norm scales around one
        params[i] = params[i] + 1.0
    rng = np.random.default_rng(3)
    x, ct = rng.normal(size=(b, s, d)).astype(np.float32), rng.normal(size=(b, s, d)).astype(np.float32)

    def pullback(x, ct, *p):
        _, back = pyasc.vjp(lambda x, *p: encoder_block(pyasc, x, *p), x, *p)
        return back(ct)

    grads = pyasc.jit(pullback)(x, ct, *params)
    tx = torch.tensor(x, requires_grad=True)
    tp = [torch.tensor(p, requires_grad=True) for p in params]
    encoder_block(TORCH, tx, *tp).backward(torch.tensor(ct))
    _check(grads, [tx, *tp], 2e-4)


def multi_head_block(x, wq, bq, wk, bk, wv, bv, wo, bo, g1, c1, g2, c2, w1, d1, w2, d2, heads=4):
    """``nn.TransformerEncoderLayer(norm_first=True, activation="gelu", batch_first=True)`` without
    dropout, its attention split in ``heads`` heads (4-D products)."""
    b, s, d = x.shape
    dh = d // heads

    def split(t):
        return t.reshape(b, s, heads, dh).permute(0, 2, 1, 3)

    h = pyasc.layer_norm(x, (d,), g1, c1)
    q, k, v = (split(pyasc.linear(h, w, c)) for w, c in ((wq, bq), (wk, bk), (wv, bv)))
    att = pyasc.softmax(pyasc.matmul(q, k.transpose(-2, -1)) * (1.0 / np.sqrt(dh)), -1)
    o = pyasc.matmul(att, v).permute(0, 2, 1, 3).reshape(b, s, d)
    x = x + pyasc.linear(o, wo, bo)
    return x + pyasc.linear(pyasc.gelu(pyasc.linear(pyasc.layer_norm(x, (d,), g2, c2), w1, d1)), w2, d2)


def _torch_layer(params, d, ff, heads):
    """The torch layer holding the same weights as ``params`` (in ``multi_head_block``'s order)."""
    wq, bq, wk, bk, wv, bv, wo, bo, g1, c1, g2, c2, w1, d1, w2, d2 = (torch.tensor(p) for p in params)
    layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation="gelu", batch_first=True,
                                             norm_first=True)
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(torch.cat([wq, wk, wv]))
        layer.self_attn.in_proj_bias.copy_(torch.cat([bq, bk, bv]))
        for mod, w, c in ((layer.self_attn.out_proj, wo, bo), (layer.linear1, w1, d1), (layer.linear2, w2, d2),
                          (layer.norm1, g1, c1), (layer.norm2, g2, c2)):
            mod.weight.copy_(w)
            mod.bias.copy_(c)
    return layer


def test_multi_head_encoder_layer_step_matches_torch_layer():
    """One training step (mse loss, gradients of the input and every parameter) of a 4-head encoder
    layer against ``torch.nn.TransformerEncoderLayer`` holding the same weights."""
    b, s, d, ff, heads = 2, 8, 16, 32, 4
    shapes = [(d, d), (d,)] * 4 + [(d,)] * 4 + [(ff, d), (ff,), (d, ff), (d,)]
    params = _params(shapes, 4)
    for i in (8, 10):
        params[i] = params[i] + 1.0
    rng = np.random.default_rng(5)
    x, target = rng.normal(size=(b, s, d)).astype(np.float32), rng.normal(size=(b, s, d)).astype(np.float32)
    step = pyasc.value_and_grad(lambda x, t, *p: pyasc.mse_loss(multi_head_block(x, *p, heads=heads), t),
                                argnums=(0, *range(2, 18)))
    loss, grads = step(x, target, *params)
    layer = _torch_layer(params, d, ff, heads)
    tx = torch.tensor(x, requires_grad=True)
    tloss = F.mse_loss(layer(tx), torch.tensor(target))
    tloss.backward()
    assert abs(loss.item() - tloss.item()) < 1e-5 * max(1.0, abs(tloss.item()))
    sa = layer.self_attn
    dq, dk, dv = sa.in_proj_weight.grad.split(d)
    eq, ek, ev = sa.in_proj_bias.grad.split(d)
    refs = [tx.grad, dq, eq, dk, ek, dv, ev, sa.out_proj.weight.grad, sa.out_proj.bias.grad,
            layer.norm1.weight.grad, layer.norm1.bias.grad, layer.norm2.weight.grad, layer.norm2.bias.grad,
            layer.linear1.weight.grad, layer.linear1.bias.grad, layer.linear2.weight.grad, layer.linear2.bias.grad]
    for i, (g, ref) in enumerate(zip(grads, refs)):
        ref = ref.numpy()
        scale = max(1.0, float(np.abs(ref).max()))
        np.testing.assert_allclose(g.numpy(), ref, rtol=2e-4, atol=2e-4 * scale, err_msg=f"gradient {i}")


def test_losses_match_torch():
    rng = np.random.default_rng(4)
    logits, labels = rng.normal(size=(6, 4)).astype(np.float32), rng.integers(0, 4, 6).astype(np.int32)
    probs = rng.dirichlet(np.ones(4), 6).astype(np.float32)
    t_logits = torch.tensor(logits)
    for got, ref in [
        (pyasc.cross_entropy(logits, labels), F.cross_entropy(t_logits, torch.tensor(labels).long())),
        (pyasc.cross_entropy(logits, probs), F.cross_entropy(t_logits, torch.tensor(probs))),
        (pyasc.cross_entropy(logits, labels, reduction="sum", label_smoothing=0.1),
         F.cross_entropy(t_logits, torch.tensor(labels).long(), reduction="sum", label_smoothing=0.1)),
        (pyasc.mse_loss(logits, probs), F.mse_loss(t_logits, torch.tensor(probs))),
    ]:
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


def _optimizer_run(make, make_torch, steps=3):
    params = _params([(6, 4), (6,)], 5)
    x = np.random.default_rng(6).normal(size=(8, 4)).astype(np.float32)
    ps = [pyasc.tensor(p, requires_grad=True) for p in params]
    tp = [torch.tensor(p, requires_grad=True) for p in params]
    opt, topt = make(ps), make_torch(tp)
    for _ in range(steps):
        opt.zero_grad()
        topt.zero_grad()
        (pyasc.linear(pyasc.tensor(x), *ps).tanh() ** 2.0).mean().backward()
        (torch.tanh(F.linear(torch.tensor(x), *tp)) ** 2).mean().backward()
        opt.step()
        topt.step()
    for p, t in zip(ps, tp):
        np.testing.assert_allclose(p.numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_sgd_momentum_matches_torch():
    _optimizer_run(lambda p: pyasc.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
                   lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01))


def test_adam_matches_torch():
    _optimizer_run(lambda p: pyasc.optim.Adam(p, lr=0.01, weight_decay=0.01),
                   lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.01))
