"""``pyasc.nn.functional``: the functional forms of ``torch.nn.functional``.

Every name here is an op of the op table (``pyasc.ops.OPS``) under PyTorch's functional signature;
only ``dropout`` (training by default, as ``F.dropout``) and ``softmax``/``log_softmax`` (``dim``
keyword) are defined here.
"""

from __future__ import annotations

from ..args import tensor_operand
from ..autograd.losses import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: F401
                               cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss, huber_loss, kl_div,
                               l1_loss, margin_ranking_loss, mse_loss, multilabel_soft_margin_loss, nll_loss,
                               pairwise_distance, poisson_nll_loss, smooth_l1_loss, soft_margin_loss,
                               triplet_margin_loss)
from ..ops import OPS

relu = OPS["relu"]
gelu = OPS["gelu"]
silu = OPS["silu"]
sigmoid = OPS["sigmoid"]
tanh = OPS["tanh"]
leaky_relu = OPS["leaky_relu"]
softplus = OPS["softplus"]
hardswish = OPS["hardswish"]
mish = OPS["mish"]
layer_norm = OPS["layer_norm"]
rms_norm = OPS["rms_norm"]
batch_norm = OPS["batch_norm"]
linear = OPS["linear"]
conv2d = OPS["conv2d"]
max_pool2d = OPS["max_pool2d"]
avg_pool2d = OPS["avg_pool2d"]
adaptive_avg_pool2d = OPS["adaptive_avg_pool2d"]
logsumexp = OPS["logsumexp"]
pad = OPS["pad"]
elu, celu, selu, hardtanh, relu6 = (OPS[n] for n in ("elu", "celu", "selu", "hardtanh", "relu6"))
hardsigmoid, softsign = OPS["hardsigmoid"], OPS["softsign"]
normalize, cosine_similarity = OPS["normalize"], OPS["cosine_similarity"]
max_pool1d, avg_pool1d = OPS["max_pool1d"], OPS["avg_pool1d"]
one_hot, embedding = OPS["one_hot"], OPS["embedding"]
logsigmoid, glu, softmin = OPS["logsigmoid"], OPS["glu"], OPS["softmin"]
group_norm, instance_norm = OPS["group_norm"], OPS["instance_norm"]
pixel_shuffle, pixel_unshuffle = OPS["pixel_shuffle"], OPS["pixel_unshuffle"]
interpolate, unfold = OPS["interpolate"], OPS["unfold"]
scaled_dot_product_attention, conv1d = OPS["scaled_dot_product_attention"], OPS["conv1d"]
adaptive_max_pool2d = OPS["adaptive_max_pool2d"]
conv_transpose1d, conv_transpose2d = OPS["conv_transpose1d"], OPS["conv_transpose2d"]
softshrink, hardshrink, tanhshrink = OPS["softshrink"], OPS["hardshrink"], OPS["tanhshrink"]
threshold, prelu = OPS["threshold"], OPS["prelu"]
adaptive_avg_pool1d, adaptive_max_pool1d = OPS["adaptive_avg_pool1d"], OPS["adaptive_max_pool1d"]
fold, lp_pool1d, lp_pool2d = OPS["fold"], OPS["lp_pool1d"], OPS["lp_pool2d"]
local_response_norm, bilinear = OPS["local_response_norm"], OPS["bilinear"]
upsample = interpolate  # PyTorch's older name

_CAST = OPS["cast"]


def _dim_and_dtype(x, dim, dtype):
    x = tensor_operand("softmax", x)
    if dim is None:     # PyTorch's implicit choice
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return (x if dtype is None else _CAST(x, dtype=dtype)), dim


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - PyTorch's names
    """softmax of input along dim (cast to dtype first when given)."""
    x, dim = _dim_and_dtype(input, dim, dtype)
    return OPS["softmax"](x, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    """log of the softmax of input along dim."""
    x, dim = _dim_and_dtype(input, dim, dtype)
    return OPS["log_softmax"](x, dim)


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Dropout with PyTorch's functional default (training=True): elements zeroed with probability p,
    the others scaled by 1 / (1 - p); the identity when training is False."""
    return OPS["dropout"](input, p, training=training)


cross_entropy = OPS["cross_entropy"]

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "avg_pool1d",
           "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu",
           "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "cosine_embedding_loss", "cosine_similarity",
           "cross_entropy", "dropout", "elu", "embedding", "fold", "gaussian_nll_loss", "gelu", "glu", "group_norm",
           "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "hinge_embedding_loss", "huber_loss",
           "instance_norm", "interpolate", "kl_div", "l1_loss", "layer_norm", "leaky_relu", "linear",
           "local_response_norm", "log_softmax", "logsigmoid", "logsumexp", "lp_pool1d", "lp_pool2d",
           "margin_ranking_loss", "max_pool1d", "max_pool2d", "mish", "mse_loss", "multilabel_soft_margin_loss",
           "nll_loss", "normalize", "one_hot", "pad", "pairwise_distance", "pixel_shuffle", "pixel_unshuffle",
           "poisson_nll_loss", "prelu", "relu", "relu6", "rms_norm", "scaled_dot_product_attention", "selu",
           "sigmoid", "silu", "smooth_l1_loss", "soft_margin_loss", "softmax", "softmin", "softplus", "softshrink",
           "softsign", "tanh", "tanhshrink", "threshold", "triplet_margin_loss", "unfold", "upsample"]
