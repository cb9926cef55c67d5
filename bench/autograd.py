"""Autograd benchmark: simulated time of forward + backward against forward alone.

For an MLP and a transformer encoder block (float16 activations and parameters; the loss is
``sum(output * cotangent)`` so the backward starts from a given gradient), each program is traced
and compiled once with ``pyasc.jit``: the forward alone, and the forward with the vector-Jacobian
products of every parameter and the input (``pyasc.vjp`` inside the traced function; the
``asctensor-autodiff`` pass builds the backward and the pipeline fuses it with the forward). Prints the simulated seconds and kernel launches of both
and their ratio; a ratio of about 2-3 is what a good compiler gets (the backward of a product is
two products).

The ResNet basic block is conv3x3 + batch norm (training statistics) + relu, conv3x3 + batch
norm, the residual and relu.

    python bench/autograd.py
"""

from __future__ import annotations

import numpy as np

import pyasc

DTYPE = pyasc.float16


def _tensor(rng, shape, scale=1.0):
    return pyasc.tensor((rng.normal(size=shape) * scale).astype(np.float32), dtype=DTYPE)


def mlp(x, w1, b1, w2, b2, w3, b3):
    return pyasc.linear(pyasc.relu(pyasc.linear(pyasc.gelu(pyasc.linear(x, w1, b1)), w2, b2)), w3, b3)


def mlp_inputs(rng, batch=256, sizes=(512, 1024, 1024, 256)):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params += [_tensor(rng, (fan_out, fan_in), fan_in ** -0.5), _tensor(rng, (fan_out,), 0.1)]
    return _tensor(rng, (batch, sizes[0])), params, (batch, sizes[-1])


def encoder_block(x, wq, bq, wk, bk, wv, bv, wo, bo, g1, c1, g2, c2, w1, d1, w2, d2):
    d = x.shape[-1]
    h = pyasc.layer_norm(x, (d,), g1, c1)
    q, k, v = pyasc.linear(h, wq, bq), pyasc.linear(h, wk, bk), pyasc.linear(h, wv, bv)
    att = pyasc.softmax(pyasc.bmm(q, k.transpose(1, 2)) * (1.0 / np.sqrt(d)), -1)
    x = x + pyasc.linear(pyasc.bmm(att, v), wo, bo)
    return x + pyasc.linear(pyasc.gelu(pyasc.linear(pyasc.layer_norm(x, (d,), g2, c2), w1, d1)), w2, d2)


def encoder_inputs(rng, batch=4, seq=128, d=256, ff=1024):
    shapes = [(d, d), (d,)] * 4 + [(d,)] * 4 + [(ff, d), (ff,), (d, ff), (d,)]
    params = [_tensor(rng, s, s[-1] ** -0.5 if len(s) == 2 else 0.1) for s in shapes]
    for i in (8, 10):
        params[i] = pyasc.tensor(np.ones(d, np.float32), dtype=DTYPE)
    return _tensor(rng, (batch, seq, d)), params, (batch, seq, d)


def _batch_norm(x, g, b, eps=1e-5):
    """Batch norm with the batch's statistics (training mode), written with differentiable ops."""
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dim=(0, 2, 3), keepdim=True)
    return centred * (var + eps).rsqrt() * g.reshape(1, -1, 1, 1) + b.reshape(1, -1, 1, 1)


def resnet_block(x, w1, g1, b1, w2, g2, b2):
    h = pyasc.relu(_batch_norm(pyasc.conv2d(x, w1, padding=1), g1, b1))
    return pyasc.relu(_batch_norm(pyasc.conv2d(h, w2, padding=1), g2, b2) + x)


def resnet_inputs(rng, batch=8, channels=64, size=16):
    fan_in = channels * 9
    w = [_tensor(rng, (channels, channels, 3, 3), fan_in ** -0.5) for _ in range(2)]
    ones = pyasc.tensor(np.ones(channels, np.float32), dtype=DTYPE)
    zeros = pyasc.tensor(np.zeros(channels, np.float32), dtype=DTYPE)
    return _tensor(rng, (batch, channels, size, size)), [w[0], ones, zeros, w[1], ones, zeros], \
        (batch, channels, size, size)


def measure(model, x, params, out_shape, rng):
    ct = _tensor(rng, out_shape)

    def forward(x, *p):
        return model(x, *p)

    def forward_backward(x, ct, *p):
        out, back = pyasc.vjp(model, x, *p)
        return (out, *back(ct))

    rows = []
    for name, fn, args in (("forward", forward, (x, *params)), ("forward+backward", forward_backward, (x, ct, *params))):
        compiled = pyasc.jit(fn).compile(*args)
        _, report = compiled.simulate(*args)
        rows.append((name, report.seconds, len(report.launches), len(compiled.kernels)))
    return rows


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'model':<22}{'program':<20}{'simulated us':>14}{'launches':>10}{'kernels':>9}{'ratio':>8}")
    for label, make, model in (("MLP 512-1024-1024-256", mlp_inputs, mlp),
                               ("encoder block d=256", encoder_inputs, encoder_block),
                               ("ResNet block 64x16x16", resnet_inputs, resnet_block)):
        x, params, out_shape = make(rng)
        rows = measure(model, x, params, out_shape, rng)
        base = rows[0][1]
        for name, seconds, launches, kernels in rows:
            print(f"{label:<22}{name:<20}{seconds * 1e6:>14.1f}{launches:>10}{kernels:>9}{seconds / base:>8.2f}")


if __name__ == "__main__":
    main()
