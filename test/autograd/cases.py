"""The gradient cases checked against ``torch.autograd``: every differentiable op of the tensor API
over shapes with broadcasting and reductions. A case is a function of a namespace ``m`` (``pyasc``
or the torch adapter below) and its inputs, so the pyasc and torch programs are the same text."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn.functional as F

TORCH = SimpleNamespace(**{n: getattr(torch, n) for n in dir(torch) if not n.startswith("_")})
for _n in ("gelu", "relu", "layer_norm", "linear", "softmax", "log_softmax", "leaky_relu", "mse_loss", "cross_entropy",
           "rms_norm"):
    setattr(TORCH, _n, getattr(F, _n))
TORCH.norm = lambda a, p=2, dim=None, keepdim=False: torch.linalg.vector_norm(a, p, dim, keepdim)
TORCH.amax = torch.amax
TORCH.amin = torch.amin


@dataclass(frozen=True)
class GradCase:
    op: str                      # the op the case is about
    fn: object                   # (m, *inputs) -> tensor
    inputs: tuple                # (shape, kind): kind "n" normal, "p" positive, "b" bool (not differentiated)
    cls: str = "same"            # shape class: same, broadcast, reduce, batched ...

    @property
    def id(self) -> str:
        return f"{self.op}-{self.cls}-" + "x".join("_".join(map(str, s)) or "s" for s, _ in self.inputs)

    def arrays(self, rng) -> list[np.ndarray]:
        out = []
        for shape, kind in self.inputs:
            if kind == "b":
                out.append(rng.random(shape) > 0.5)
            elif kind == "p":
                out.append(rng.uniform(0.5, 2.0, shape))
            elif kind == "u":    # well separated values (no ties for max/min, away from kinks)
                out.append(rng.permutation(np.prod(shape, dtype=int)).reshape(shape) / np.prod(shape) * 4 - 2 + 0.01)
            else:
                out.append(rng.normal(0.0, 1.0, shape))
        return out


N, P, B, U = "n", "p", "b", "u"


def _unary(op, fn, kind=N, shapes=((4, 8), (2, 3, 16))):
    return [GradCase(op, fn, ((s, kind),), "same") for s in shapes]


def _binary(op, fn, kind=N):
    return [GradCase(op, fn, (((4, 8), kind), ((4, 8), kind)), "same"),
            GradCase(op, fn, (((4, 8), kind), ((8,), kind)), "broadcast"),
            GradCase(op, fn, (((3, 1, 8), kind), ((4, 1), kind)), "broadcast")]


CASES: list[GradCase] = [
    *_binary("add", lambda m, a, b: m.add(a, b)),
    *_binary("sub", lambda m, a, b: m.sub(a, b)),
    *_binary("mul", lambda m, a, b: m.mul(a, b)),
    *_binary("div", lambda m, a, b: m.div(a, b), P),
    *_binary("maximum", lambda m, a, b: m.maximum(a, b), U),
    *_binary("minimum", lambda m, a, b: m.minimum(a, b), U),
    *_binary("pow", lambda m, a, b: m.pow(a, b), P),
    GradCase("pow", lambda m, a: m.pow(a, 3.0), (((4, 8), P),), "scalar"),
    GradCase("mul", lambda m, a: a * 2.5 - 1.0, (((4, 8), N),), "scalar"),
    GradCase("div", lambda m, a: 1.5 / a, (((4, 8), P),), "scalar"),
    *_unary("neg", lambda m, a: m.neg(a)),
    *_unary("exp", lambda m, a: m.exp(a)),
    *_unary("log", lambda m, a: m.log(a), P),
    *_unary("sqrt", lambda m, a: m.sqrt(a), P),
    *_unary("rsqrt", lambda m, a: m.rsqrt(a), P),
    *_unary("abs", lambda m, a: m.abs(a), U),
    *_unary("sin", lambda m, a: m.sin(a)),
    *_unary("cos", lambda m, a: m.cos(a)),
    *_unary("tan", lambda m, a: m.tan(a * 0.3), U),  # away from the poles
    *_unary("tanh", lambda m, a: m.tanh(a)),
    *_unary("erf", lambda m, a: m.erf(a)),
    *_unary("erfc", lambda m, a: m.erfc(a)),
    *_unary("atan", lambda m, a: m.atan(a * 3.0)),
    *_unary("arctan", lambda m, a: m.arctan(a)),
    *_unary("asin", lambda m, a: m.asin(a * 0.45), U),      # U is in (-2, 2)
    *_unary("arcsin", lambda m, a: m.arcsin(a * 0.45), U),
    *_unary("acos", lambda m, a: m.acos(a * 0.45), U),
    *_unary("arccos", lambda m, a: m.arccos(a * 0.45), U),
    *_binary("atan2", lambda m, a, b: m.atan2(a, b)),
    *_binary("arctan2", lambda m, a, b: m.arctan2(a, b)),
    *_unary("relu", lambda m, a: m.relu(a), U),
    *_unary("sigmoid", lambda m, a: m.sigmoid(a)),
    *_unary("gelu", lambda m, a: m.gelu(a)),
    GradCase("gelu", lambda m, a: m.gelu(a, approximate="tanh"), (((4, 8), N),), "tanh"),
    GradCase("clamp", lambda m, a: m.clamp(a, -0.5, 0.7), (((4, 8), U),), "composite"),
    GradCase("leaky_relu", lambda m, a: m.leaky_relu(a, 0.1), (((4, 8), U),), "composite"),
    GradCase("where", lambda m, c, a, b: m.where(c, a, b), (((4, 8), B), ((4, 8), N), ((8,), N)), "broadcast"),
    GradCase("cast", lambda m, a: (a.float() * 2.0).sum(1), (((4, 8), N),), "same"),
    GradCase("sum", lambda m, a: m.sum(a, 1), (((4, 8), N),), "reduce"),
    GradCase("sum", lambda m, a: m.sum(a, (0, 2), keepdim=True), (((3, 4, 8), N),), "reduce"),
    GradCase("sum", lambda m, a: m.sum(a), (((4, 8), N),), "reduce_all"),
    GradCase("mean", lambda m, a: m.mean(a, -1), (((4, 8), N),), "reduce"),
    GradCase("mean", lambda m, a: m.mean(a, 0, keepdim=True), (((2, 4, 8), N),), "reduce"),
    GradCase("amax", lambda m, a: m.amax(a, 1), (((4, 8), U),), "reduce"),
    GradCase("amax", lambda m, a: m.amax(a), (((4, 8), U),), "reduce_all"),
    GradCase("amin", lambda m, a: m.amin(a, 0), (((4, 8), U),), "reduce"),
    GradCase("max", lambda m, a: m.max(a), (((4, 8), U),), "reduce_all"),
    GradCase("softmax", lambda m, a: m.softmax(a, -1), (((4, 8), N),), "rowwise"),
    GradCase("softmax", lambda m, a: m.softmax(a, 0), (((4, 8), N),), "rowwise"),
    GradCase("log_softmax", lambda m, a: m.log_softmax(a, -1), (((4, 16), N),), "rowwise"),
    GradCase("layer_norm", lambda m, a, w, b: m.layer_norm(a, (16,), w, b), (((4, 16), N), ((16,), N), ((16,), N)),
             "rowwise"),
    GradCase("layer_norm", lambda m, a: m.layer_norm(a, (16,)), (((2, 3, 16), N),), "rowwise"),
    GradCase("matmul", lambda m, a, b: m.matmul(a, b), (((2, 1, 3, 4), N), ((3, 4, 5), N)), "broadcast4d"),
    GradCase("matmul", lambda m, a, b: m.matmul(a, b), (((1, 3, 2, 4), N), ((2, 1, 4, 2), N)), "broadcast4d_both"),
    GradCase("matmul", lambda m, a, b: m.matmul(a, b), (((4, 8), N), ((8, 16), N)), "2d"),
    GradCase("matmul", lambda m, a, b: m.matmul(a, b), (((2, 4, 8), N), ((8, 16), N)), "batched"),
    GradCase("bmm", lambda m, a, b: m.bmm(a, b), (((2, 4, 8), N), ((2, 8, 16), N)), "batched"),
    GradCase("linear", lambda m, x, w, b: m.linear(x, w, b), (((4, 8), N), ((16, 8), N), ((16,), N)), "2d"),
    GradCase("linear", lambda m, x, w, b: m.linear(x, w, b), (((2, 4, 8), N), ((16, 8), N), ((16,), N)), "batched"),
    GradCase("reshape", lambda m, a: a.reshape(8, 4) * a.reshape(8, 4), (((4, 8), N),), "view"),
    GradCase("transpose", lambda m, a, b: a.transpose(0, 1) * b, (((4, 8), N), ((8, 4), N)), "view"),
    GradCase("permute", lambda m, a: a.permute(2, 0, 1).exp(), (((2, 4, 8), N),), "view"),
    GradCase("unsqueeze", lambda m, a, b: a.unsqueeze(1) * b, (((4, 8), N), ((4, 3, 8), N)), "view"),
    GradCase("flatten", lambda m, a: a.flatten(1).tanh(), (((2, 4, 8), N),), "view"),
    GradCase("cat", lambda m, a, b: m.cat([a, b], 1).exp(), (((4, 8), N), ((4, 16), N)), "view"),
    GradCase("stack", lambda m, a, b: m.stack([a, b], 0).exp(), (((4, 8), N), ((4, 8), N)), "view"),
    GradCase("split", lambda m, a: (lambda p: p[0] * p[1])(m.split(a, 8, 1)), (((4, 16), N),), "view"),
    GradCase("prod", lambda m, a: m.prod(a, 1), (((4, 6), P),), "reduce"),
    GradCase("prod", lambda m, a: m.prod(m.relu(a) * 0 + m.where(a > 0, a, 0.0), 1), (((5, 3), N),), "zeros"),
    GradCase("clone", lambda m, a: a.clone() * a, (((4, 6), N),)),
    GradCase("log1p", lambda m, a: m.log1p(a * 0.5), (((4, 6), P),)),
    GradCase("log1p", lambda m, a: m.log1p(a * 1e-9), (((4, 6), N),), "tiny"),
    GradCase("expm1", lambda m, a: m.expm1(a), (((4, 6), N),)),
    GradCase("expm1", lambda m, a: m.expm1(a * 1e-9), (((4, 6), N),), "tiny"),
    GradCase("softplus", lambda m, a: m.nn.functional.softplus(a * 40.0), (((4, 6), N),), "far"),
    GradCase("softplus", lambda m, a: m.nn.functional.softplus(a, beta=2.0, threshold=5.0), (((4, 6), N),)),
    GradCase("mish", lambda m, a: m.nn.functional.mish(a * 40.0), (((4, 6), N),), "far"),
    GradCase("mish", lambda m, a: m.nn.functional.mish(a), (((4, 6), N),)),
    GradCase("rms_norm", lambda m, a, w: m.rms_norm(a, (16,), w), (((4, 16), N), ((16,), N)), "rowwise"),
    GradCase("addmm", lambda m, c, a, b: m.addmm(c, a, b), (((16,), N), ((4, 8), N), ((8, 16), N)), "2d"),
    GradCase("view", lambda m, a: a.view(2, 16).exp(), (((4, 8), N),), "view"),
    GradCase("squeeze", lambda m, a: a.squeeze(1).exp(), (((4, 1, 8), N),), "view"),
    GradCase("chunk", lambda m, a: (lambda p: p[0] * p[1].exp())(a.chunk(2, 0)), (((4, 8), N),), "view"),
    GradCase("norm", lambda m, a: m.norm(a, 2, 1), (((4, 8), N),), "composite"),
    GradCase("mse_loss", lambda m, a, b: m.mse_loss(a, b), (((4, 8), N), ((4, 8), N)), "loss"),
    GradCase("conv2d", lambda m, x, w, b: m.conv2d(x, w, b, padding=1), (((2, 3, 6, 6), N), ((4, 3, 3, 3), N),
                                                                         ((4,), N)), "conv"),
    GradCase("conv2d", lambda m, x, w: m.conv2d(x, w, padding=2, dilation=2), (((1, 2, 7, 7), N), ((3, 2, 3, 3), N)),
             "conv"),
    GradCase("conv2d", lambda m, x, w: m.conv2d(x, w), (((2, 4, 5, 5), N), ((2, 4, 1, 1), N)), "conv"),
    GradCase("conv2d", lambda m, x, w, b: m.conv2d(x, w, b, stride=2, padding=1),
             (((2, 3, 7, 7), N), ((4, 3, 3, 3), N), ((4,), N)), "strided"),
    GradCase("conv2d", lambda m, x, w: m.conv2d(x, w, stride=(2, 3)), (((1, 2, 8, 9), N), ((3, 2, 2, 3), N)),
             "strided"),
    GradCase("conv2d", lambda m, x, w: m.conv2d(x, w, padding=1, groups=2), (((2, 4, 6, 6), N), ((6, 2, 3, 3), N)),
             "grouped"),
    GradCase("conv2d", lambda m, x, w: m.conv2d(x, w, padding=1, groups=3), (((1, 3, 6, 6), N), ((3, 1, 3, 3), N)),
             "depthwise"),
    GradCase("conv2d", lambda m, x, w: m.conv2d(x, w, stride=3, padding=1, dilation=2, groups=2),
             (((1, 2, 9, 9), N), ((4, 1, 3, 3), N)), "strided_grouped"),
    GradCase("conv2d", lambda m, x, w: m.conv2d(x, w, padding=2), (((1, 2, 6, 6), N), ((2, 2, 2, 2), N)), "padded"),
    GradCase("getitem", lambda m, a: a[1:3].exp(), (((4, 6, 5), N),), "view"),
    GradCase("getitem", lambda m, a: a[:, 2] * a[:, 4], (((4, 6, 5), N),), "view"),
    GradCase("getitem", lambda m, a: a[1, 0:6:2, None], (((4, 6, 5), N),), "view"),
    GradCase("getitem", lambda m, a: a[..., 1:6:3, ::2], (((4, 6, 5), N),), "view"),
    GradCase("topk", lambda m, a: m.topk(a, 3, -1)[0], (((4, 12), U),), "select"),
    GradCase("topk", lambda m, a: m.topk(a, 2, 0, largest=False)[0], (((5, 6), U),), "select"),
    GradCase("expand", lambda m, a: a.expand(3, 4, 5) * a, (((4, 1), N),), "broadcast"),
    GradCase("expand", lambda m, a: a[:, None].expand(4, 3, 6), (((4, 6), N),), "broadcast"),
    GradCase("scatter", lambda m, a, b: m.scatter(a, 1, m.tensor([[0, 0, 4], [2, 1, 2], [3, 3, 3]]), b),
             (((3, 5), N), ((3, 3), N)), "duplicates"),
    GradCase("scatter", lambda m, a: m.scatter(a, 0, m.tensor([[1, 0], [0, 2]]), 2.5), (((3, 2), N),), "value"),
    GradCase("cumsum", lambda m, a: m.cumsum(a, -1), (((4, 12), N),), "scan"),
    GradCase("cumsum", lambda m, a: m.cumsum(a, 0), (((6, 5), N),), "scan"),
]
