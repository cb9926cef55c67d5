"""A convolution over few input channels with its kernel columns folded into its channels.

The cube multiplies whole ``C0``-channel blocks (32 B of elements) at every kernel position, so an implicit GEMM
over ``C`` channels pads them to ``ceil(C / C0) * C0``: a 7x7 convolution of a 3-channel image computes 16 / 3
times its products. Read through the patches of its kernel rows instead,

    x'[n, kw * C + c, h, ow] = x_pad[n, c, h, ow * SW + kw * DW - PW]        (``im2col``, kernel (1, KW))
    w'[oc, kw * C + c, kh, 0] = w[oc, c, kh, kw]

the same convolution is a (KH, 1) one of ``KW * C`` channels with stride (SH, 1), padding (PH, 0) and dilation
(DH, 1): every product of the original is one of it, in the same sum, and no other (its added channels are
padding, zero in ``x'`` and in ``w'``). For the ResNet stem the cube's work drops from 16 x 49 to 32 x 7 per
output (float16; float32's 8-channel blocks: from 8 x 49 to 24 x 7), for one gather of ``KW / SW`` times the
input and its transpose to NHWC. ``fold_kernel_columns`` does it whenever the folded form runs as an implicit GEMM
(``conv=implicit_gemm``: only for a convolution that cannot run as one as written). The float32 stem at batch 8,
which would otherwise go through its column matrix (49 times the input), goes from 106 to 85 us (without its
weights' layout, which a model does once). The float16 stem, an implicit GEMM over 16
padded channels either way, goes from 53.8 to 47.7 us: its cube time drops from 42 to 16 us, and the gather and
the transpose, one launch since ``ascendc-merge-launches``, cost less than that (57.1 against 59.4 us with
``launches=separate``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block

from pyasc.dialects import asctensor
from pyasc.dialects.types import element_bytes

from .conv_gemm import implicit_geometry_of, insert

FOLD_MAX_SHARE = 0.5  # the most padded products the folded form may keep, per padded product of the original


def _padded(channels: int, c0: int) -> int:
    return -(-channels // c0) * c0


def worth_folding(conv: asctensor.Conv2dOp) -> bool:
    """A convolution of one group and a kernel wider than 1 whose channels, padded per kernel column, make the cube
    compute more than ``1 / FOLD_MAX_SHARE`` times the padded products of its columns folded into its channels."""
    _, _, _, groups = conv.params()
    c = conv.input.type.get_shape()[1]
    kw = conv.weight.type.get_shape()[3]
    c0 = 32 // element_bytes(conv.input.type.element_type)
    return groups == 1 and kw > 1 and _padded(kw * c, c0) <= FOLD_MAX_SHARE * _padded(c, c0) * kw


def fold_kernel_columns(block: Block, spec, algorithm: str) -> None:
    """Rewrite each convolution of ``block`` that is ``worth_folding`` and whose folded form runs as an implicit GEMM
    (with ``algorithm``) into that form (see the module docstring); with ``algorithm="implicit_gemm"`` (the
    convolution as an implicit GEMM as written) only one that cannot run as an implicit GEMM itself."""
    if algorithm == "im2col":
        return
    for conv in [o for o in block.ops if isinstance(o, asctensor.Conv2dOp)]:
        if worth_folding(conv) and (algorithm != "implicit_gemm"
                                    or implicit_geometry_of(conv, spec, _choice(algorithm)) is None):
            fold(conv, spec, algorithm)


def _choice(algorithm: str) -> str:
    return "implicit_gemm" if algorithm == "implicit_gemm" else "auto"


def fold(conv: asctensor.Conv2dOp, spec, algorithm: str) -> bool:
    """``conv`` replaced by its folded form when that runs as an implicit GEMM with ``algorithm``; whether it was."""
    (sh, sw), (ph, pw), (dh, dw), _ = conv.params()
    n, c, h, _ = conv.input.type.get_shape()
    oc, _, kh, kw = conv.weight.type.get_shape()
    ow = conv.result.type.get_shape()[3]
    et = conv.input.type.element_type
    col = asctensor.Im2colOp(conv.input, TensorType(et, [n, kw * c, h * ow]), (1, kw), (1, sw), (0, pw), (1, dw), 1)
    xf = asctensor.ReshapeOp(col.result, [n, kw * c, h, ow])
    wt = asctensor.TransposeOp(conv.weight, [0, 3, 1, 2])
    wf = asctensor.ReshapeOp(wt.result, [oc, kw * c, kh, 1])
    folded = asctensor.Conv2dOp(xf.result, wf.result, conv.result.type, conv.bias, (sh, 1), (ph, 0), (dh, 1), 1)
    if implicit_geometry_of(folded, spec, _choice(algorithm)) is None:
        folded.erase()
        for op in (wf, wt, xf, col):
            op.erase()
        return False
    for op in (col, xf, wt, wf, folded):
        insert(op, conv)
    conv.result.replace_all_uses_with(folded.result)
    conv.detach()
    conv.erase()
    return True
