"""Three models written as a PyTorch user writes them, compared with ``torch.nn`` modules holding
the same weights: a transformer encoder block, ResNet basic blocks and an MLP with cross-entropy.
Eager and ``pyasc.jit``, float32 and float16.

Each model is written once against a functional namespace ``F``: ``pyasc.nn.functional`` (the
PyTorch spelling, ``import torch.nn.functional as F``) or the ``pyasc`` module itself (pyasc's
top-level spelling of the same functions). Known failures come from ``known_failures.py``.

Tolerance: the dtype's tolerance for the longest sum in the model, but never tighter than twice
the distance of torch's own result in that dtype from torch's float64 result.
"""

from __future__ import annotations

import math

import pytest
import torch

import pyasc

from .harness import DTYPES, Case, WrongValue, classify, compare, tolerance
from .known_failures import mark

torch.manual_seed(0)


def _p(t, dtype):
    return pyasc.tensor(t.detach().float()).to(getattr(pyasc, dtype))


# ----------------------------------------------------------------------------- the pyasc models


class EncoderBlock:
    """Pre-norm transformer encoder layer with a causal mask (``nn.TransformerEncoderLayer``
    with ``norm_first=True``, ``activation="gelu"``)."""

    def __init__(self, ref: torch.nn.TransformerEncoderLayer, F, dtype: str, mask_style: str):
        self.F, self.heads, self.mask_style = F, ref.self_attn.num_heads, mask_style
        sd = {k: _p(v, dtype) for k, v in ref.state_dict().items()}
        self.w_qkv, self.b_qkv = sd["self_attn.in_proj_weight"], sd["self_attn.in_proj_bias"]
        self.w_o, self.b_o = sd["self_attn.out_proj.weight"], sd["self_attn.out_proj.bias"]
        self.w1, self.b1, self.w2, self.b2 = sd["linear1.weight"], sd["linear1.bias"], sd["linear2.weight"], \
            sd["linear2.bias"]
        self.n1 = (sd["norm1.weight"], sd["norm1.bias"])
        self.n2 = (sd["norm2.weight"], sd["norm2.bias"])

    def __call__(self, x):
        F = self.F
        B, S, E = x.shape
        H = self.heads
        D = E // H
        h = F.layer_norm(x, (E,), *self.n1)
        q, k, v = F.linear(h, self.w_qkv, self.b_qkv).chunk(3, dim=-1)
        q = q.reshape(B, S, H, D).transpose(1, 2)
        k = k.reshape(B, S, H, D).transpose(1, 2)
        v = v.reshape(B, S, H, D).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D)
        causal = pyasc.arange(S)[None, :] > pyasc.arange(S)[:, None]
        if self.mask_style == "masked_fill":
            scores = scores.masked_fill(causal, float("-inf"))
        else:
            scores = pyasc.where(causal, float("-inf"), scores)
        attn = F.softmax(scores, dim=-1)
        o = (attn @ v).transpose(1, 2).reshape(B, S, E)
        x = x + F.linear(o, self.w_o, self.b_o)
        h = F.layer_norm(x, (E,), *self.n2)
        return x + F.linear(F.gelu(F.linear(h, self.w1, self.b1)), self.w2, self.b2)


class TorchBasicBlock(torch.nn.Module):
    """torchvision's ResNet BasicBlock (with a 1x1 downsampling branch when the shape changes)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(cout)
        self.conv2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 1, stride, bias=False),
                                                  torch.nn.BatchNorm2d(cout))
        for bn in [self.bn1, self.bn2] + ([self.downsample[1]] if self.downsample else []):
            bn.running_mean.normal_(0, 0.2)
            bn.running_var.uniform_(0.5, 1.5)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.normal_(0, 0.2)

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return torch.relu(out + identity)


class BasicBlock:
    """The same block on pyasc."""

    def __init__(self, ref: TorchBasicBlock, F, dtype: str):
        self.F = F
        self.stride = ref.conv1.stride[0]
        self.w1, self.w2 = _p(ref.conv1.weight, dtype), _p(ref.conv2.weight, dtype)
        self.bn1, self.bn2 = self._bn(ref.bn1, dtype), self._bn(ref.bn2, dtype)
        self.down = None
        if ref.downsample is not None:
            self.down = (_p(ref.downsample[0].weight, dtype), self._bn(ref.downsample[1], dtype))

    @staticmethod
    def _bn(bn, dtype):
        return [_p(t, dtype) for t in (bn.running_mean, bn.running_var, bn.weight, bn.bias)]

    def __call__(self, x):
        F = self.F
        out = F.relu(F.batch_norm(F.conv2d(x, self.w1, stride=self.stride, padding=1), *self.bn1, training=False))
        out = F.batch_norm(F.conv2d(out, self.w2, padding=1), *self.bn2, training=False)
        identity = x
        if self.down is not None:
            w, bn = self.down
            identity = F.batch_norm(F.conv2d(x, w, stride=self.stride), *bn, training=False)
        return F.relu(out + identity)


class MLP:
    """Linear-ReLU-Linear-GELU-Linear classifier returning ``(logits, cross-entropy loss)``."""

    def __init__(self, ref: torch.nn.Sequential, F, dtype: str):
        self.F = F
        self.layers = [(_p(m.weight, dtype), _p(m.bias, dtype)) for m in ref if isinstance(m, torch.nn.Linear)]

    def __call__(self, x, target):
        F = self.F
        (w1, b1), (w2, b2), (w3, b3) = self.layers
        h = F.relu(F.linear(x, w1, b1))
        h = F.gelu(F.linear(h, w2, b2))
        logits = F.linear(h, w3, b3)
        return logits, F.cross_entropy(logits, target)


# ----------------------------------------------------------------------------- references and cases


def _encoder(dtype, api):
    ref = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True).eval()
    x = torch.randn(2, 7, 32)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(7)

    def run_torch(module, xs):
        return module(xs[0], src_mask=mask.to(xs[0].dtype), is_causal=True)

    style = "masked_fill" if api == "F" else "where"
    return ref, run_torch, [x], lambda F: EncoderBlock(ref, F, dtype, style), 64


def _resnet(cin, cout, stride):
    def make(dtype, api):
        ref = TorchBasicBlock(cin, cout, stride).eval()
        x = torch.randn(2, cin, 9, 9)
        return ref, lambda module, xs: module(xs[0]), [x], lambda F: BasicBlock(ref, F, dtype), 9 * cout
    return make


def _mlp(dtype, api):
    ref = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.GELU(),
                              torch.nn.Linear(32, 10)).eval()
    x, target = torch.randn(13, 20), torch.randint(0, 10, (13,))

    def run_torch(module, xs):
        logits = module(xs[0])
        return logits, torch.nn.functional.cross_entropy(logits, xs[1])

    return ref, run_torch, [x, target], lambda F: MLP(ref, F, dtype), 32


MODELS = {"encoder": _encoder, "resnet_basic": _resnet(8, 8, 1), "resnet_down": _resnet(8, 16, 2), "mlp": _mlp}


def _cases():
    out = []
    for name in MODELS:
        for api in ("F", "pyasc"):
            for dtype in ("float32", "float16"):
                for mode in ("eager", "jit"):
                    case = Case(f"model.{name}:{api}", dtype, mode, "model", 0)
                    out.append(pytest.param(case, id=case.id, marks=mark(case)))
    return out


def _namespace(api):
    """``pyasc.nn.functional`` (looked up when the model runs) or ``pyasc``."""
    return pyasc.nn.functional if api == "F" else pyasc


@pytest.mark.parametrize("case", _cases())
def test_model(case: Case):
    name, api = case.op.removeprefix("model.").split(":")
    torch.manual_seed(0)
    ref, run_torch, inputs, build, acc = MODELS[name](case.dtype, api)
    tdtype = DTYPES[case.dtype][1]
    with torch.no_grad():
        expected = run_torch(ref.to(tdtype), [t.to(tdtype) if t.is_floating_point() else t for t in inputs])
        exact = run_torch(ref.double(), [t.to(tdtype).double() if t.is_floating_point() else t for t in inputs])
    expected = expected if isinstance(expected, tuple) else (expected,)
    exact = exact if isinstance(exact, tuple) else (exact,)
    rtol, atol = tolerance(case.dtype, acc)
    floor = max(float((e.double() - x).abs().max()) for e, x in zip(expected, exact))
    atol = max(atol, 2 * floor)
    args = [pyasc.tensor(t.to(tdtype) if t.is_floating_point() else t.to(torch.int32)) for t in inputs]
    try:
        model = build(_namespace(api))
        fn = model if case.mode == "eager" else pyasc.jit(model)
        out = fn(*args)
    except Exception as e:  # noqa: BLE001 - classified into the suite's failure categories
        raise classify(e) from None
    out = tuple(out) if isinstance(out, tuple | list) else (out,)
    compare(out, expected, check_values=False)
    for o, e in zip(out, expected):
        compare_at(o, e, rtol, atol)


def compare_at(out, ref, rtol, atol):
    """``compare`` at an explicit tolerance (shape and dtype first)."""
    compare(out, ref, check_values=False)
    got = torch.from_numpy(out.numpy().astype("float64"))
    try:
        torch.testing.assert_close(got, ref.double(), rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as e:
        raise WrongValue(" ".join(str(e).split())[:400]) from None
