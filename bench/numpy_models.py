"""NumPy forward passes of the models of ``test/torch_diff/test_models.py``, the baseline of the
goal "model tests reach <= 10x NumPy".

Each builder takes the ``torch`` reference module, extracts its weights once as float32 arrays, and
returns a function of NumPy arrays giving the same outputs as the module in eval mode. The forward
always computes in float32 (inputs are cast to float32), also for the float16 rows of the bench:
NumPy's own float16 arithmetic is emulated, slow, and would flatter the simulator.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.special import erf


def _f32(t) -> np.ndarray:
    return t.detach().cpu().float().numpy().copy()


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """Layer norm over the last axis."""
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = np.mean(centered * centered, axis=-1, keepdims=True)
    return centered / np.sqrt(var + eps) * weight + bias


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, ``x * Phi(x)`` through erf."""
    return np.float32(0.5) * x * (np.float32(1.0) + erf(x * np.float32(1.0 / math.sqrt(2.0))))


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, shifted by the row maximum."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def cross_entropy(logits: np.ndarray, target: np.ndarray) -> np.float32:
    """Mean over the batch of ``-log_softmax(logits)[i, target[i]]``."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return -log_probs[np.arange(len(target)), target].mean()


def conv2d(x: np.ndarray, weight: np.ndarray, stride: int, padding: int) -> np.ndarray:
    """2-D convolution without bias, NCHW input and OIHW weight."""
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    kh, kw = weight.shape[2:]
    windows = sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]
    out = np.tensordot(windows, weight, axes=([1, 4, 5], [1, 2, 3]))  # N, Ho, Wo, O
    return out.transpose(0, 3, 1, 2)


def _batch_norm_affine(bn) -> tuple[np.ndarray, np.ndarray]:
    """Eval-mode batch norm as a per-channel ``(scale, shift)``, shaped to broadcast over NCHW."""
    scale = _f32(bn.weight) / np.sqrt(_f32(bn.running_var) + np.float32(bn.eps))
    shift = _f32(bn.bias) - _f32(bn.running_mean) * scale
    return scale[:, None, None], shift[:, None, None]


def encoder(ref):
    """Pre-norm ``nn.TransformerEncoderLayer`` (GELU, batch first) with a causal mask."""
    heads = ref.self_attn.num_heads
    w_qkv, b_qkv = _f32(ref.self_attn.in_proj_weight).T.copy(), _f32(ref.self_attn.in_proj_bias)
    w_o, b_o = _f32(ref.self_attn.out_proj.weight).T.copy(), _f32(ref.self_attn.out_proj.bias)
    w1, b1 = _f32(ref.linear1.weight).T.copy(), _f32(ref.linear1.bias)
    w2, b2 = _f32(ref.linear2.weight).T.copy(), _f32(ref.linear2.bias)
    norm1 = (_f32(ref.norm1.weight), _f32(ref.norm1.bias), ref.norm1.eps)
    norm2 = (_f32(ref.norm2.weight), _f32(ref.norm2.bias), ref.norm2.eps)

    def forward(x: np.ndarray) -> np.ndarray:
        x = x.astype(np.float32, copy=False)
        batch, seq, embed = x.shape
        head_dim = embed // heads
        causal = np.triu(np.full((seq, seq), -np.inf, dtype=np.float32), k=1)
        h = layer_norm(x, *norm1)
        qkv = (h @ w_qkv + b_qkv).reshape(batch, seq, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = q @ k.swapaxes(-1, -2) * np.float32(1.0 / math.sqrt(head_dim)) + causal
        attn = softmax(scores) @ v
        x = x + attn.transpose(0, 2, 1, 3).reshape(batch, seq, embed) @ w_o + b_o
        h = layer_norm(x, *norm2)
        return x + gelu(h @ w1 + b1) @ w2 + b2

    return forward


def basic_block(ref):
    """torchvision's ResNet ``BasicBlock`` in eval mode, with its optional 1x1 downsampling branch."""
    stride = ref.conv1.stride[0]
    w1, w2 = _f32(ref.conv1.weight), _f32(ref.conv2.weight)
    bn1, bn2 = _batch_norm_affine(ref.bn1), _batch_norm_affine(ref.bn2)
    down = None
    if ref.downsample is not None:
        down = (_f32(ref.downsample[0].weight), _batch_norm_affine(ref.downsample[1]))

    def forward(x: np.ndarray) -> np.ndarray:
        x = x.astype(np.float32, copy=False)
        out = np.maximum(conv2d(x, w1, stride, 1) * bn1[0] + bn1[1], 0)
        out = conv2d(out, w2, 1, 1) * bn2[0] + bn2[1]
        identity = x
        if down is not None:
            w, (scale, shift) = down
            identity = conv2d(x, w, stride, 0) * scale + shift
        return np.maximum(out + identity, 0)

    return forward


def mlp(ref):
    """Linear-ReLU-Linear-GELU-Linear returning ``(logits, cross-entropy loss)``."""
    (w1, b1), (w2, b2), (w3, b3) = [(_f32(m.weight).T.copy(), _f32(m.bias)) for m in ref
                                    if hasattr(m, "weight")]

    def forward(x: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.float32]:
        x = x.astype(np.float32, copy=False)
        h = np.maximum(x @ w1 + b1, 0)
        h = gelu(h @ w2 + b2)
        logits = h @ w3 + b3
        return logits, cross_entropy(logits, target)

    return forward


NUMPY_MODELS = {"encoder": encoder, "resnet_basic": basic_block, "resnet_down": basic_block, "mlp": mlp}
