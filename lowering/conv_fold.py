"""A convolution over few input channels with its stride or its kernel columns folded into its channels.

The cube multiplies whole ``C0``-channel blocks (32 B of elements) at every kernel position, so an implicit GEMM
over ``C`` channels pads them to ``ceil(C / C0) * C0``: a 7x7 convolution of a 3-channel image computes 16 / 3
times its products. Two rewrites give such a convolution more channels and fewer kernel positions.

**Space to depth** (a strided convolution, ``space_to_depth``). With stride ``(SH, SW)`` the input's pixels fall into
``SH * SW`` phases. Read as the patches of ``SH x SW`` windows at stride ``(SH, SW)``,

    x'[n, (rh, rw, c), qh, qw] = x[n, c, qh * SH + rh - PH - FH, qw * SW + rw - PW - FW]      (``im2col``)
    w'[oc, (rh, rw, c), dh, dw] = w[oc, c, dh * SH + rh - FH, dw * SW + rw - FW]              (``im2col`` of w)

(zero outside ``x`` and ``w``) the same convolution is a ``(DH, DW)`` one of ``SH * SW * C`` channels with stride 1 and
no padding: each kernel position ``kh = dh * SH + rh - FH`` of the original is one ``(dh, rh)`` of it. ``FH`` (less
than ``SH``) shifts the kernel so that the ``DH`` windows of the weights padded by ``FH`` cover it. The input ``x'`` holds
as many elements as the padded image (the original reads each ``KH * KW / (SH * SW)`` times), and for the
ResNet stem in float16 the cube's work drops from 16 x 49 to 16 x 16 per output. It applies where every kernel
extent is at least twice its stride and the cube then computes at most ``S2D_MAX_SHARE`` of its padded products.
Measured at batch 8 (simulated us; as written / kernel columns folded / space to depth):

    7x7/2, 3 channels (ResNet stem)   f16 52.7 / 44.1 / 30.2   f32 106.3 / 79.9 / 62.8
    7x7/2, 4 channels                 f16 54.4 / 52.8 / 31.3   f32 134.4 / 134.4 / 65.6
    5x5/2, 8 channels, 112^2          f16 19.0 / 19.0 / 18.2   (f32: not taken, 30.6 / 30.6 / 29.5)
    3x3/2, 3 channels (not taken)     f16 22.3 / 22.3 / 23.4   f32 32.1 / 32.1 / 31.7
    3x3/2, 16 channels (not taken)    f16 14.6 / 14.6 / 24.4

**Kernel columns into channels** (``fold``, for a convolution space to depth does not take). Read through the
patches of its kernel rows,

    x'[n, kw * C + c, h, ow] = x_pad[n, c, h, ow * SW + kw * DW - PW]        (``im2col``, kernel (1, KW))
    w'[oc, kw * C + c, kh, 0] = w[oc, c, kh, kw]

the same convolution is a (KH, 1) one of ``KW * C`` channels with stride (SH, 1), padding (PH, 0) and dilation
(DH, 1): every product of the original is one of it, in the same sum, and no other (its added channels are
padding, zero in ``x'`` and in ``w'``).

``fold_few_channels`` applies them whenever the rewritten convolution runs as an implicit GEMM (with
``conv=implicit_gemm``: only to a convolution that cannot run as one as written).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block

from pyasc.dialects import asctensor
from pyasc.dialects.types import element_bytes

from .conv_gemm import implicit_geometry_of, insert

FOLD_MAX_SHARE = 0.5  # the most padded products the folded form may keep, per padded product of the original
S2D_MAX_SHARE = 0.75  # the same for space to depth


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


def fold_few_channels(block: Block, spec, algorithm: str) -> None:
    """Rewrite each convolution of ``block`` that is ``worth_space_to_depth`` or else ``worth_folding``, and whose
    rewritten form runs as an implicit GEMM (with ``algorithm``), into that form (see the module docstring); with
    ``algorithm="implicit_gemm"`` (the convolution as an implicit GEMM as written) only one that cannot run as an
    implicit GEMM itself."""
    if algorithm == "im2col":
        return
    for conv in [o for o in block.ops if isinstance(o, asctensor.Conv2dOp)]:
        if algorithm == "implicit_gemm" and implicit_geometry_of(conv, spec, _choice(algorithm)) is not None:
            continue
        if worth_space_to_depth(conv) and space_to_depth(conv, spec, algorithm):
            continue
        if worth_folding(conv):
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


def depth_axes(conv: asctensor.Conv2dOp) -> tuple | None:
    """Per spatial axis (stride ``s``, kernel shift ``f``, kernel extent ``d`` and input extent ``q`` of the space to
    depth form, see the module docstring), or None for a convolution of several groups or a dilation."""
    stride, padding, dilation, groups = conv.params()
    if groups != 1 or dilation != (1, 1):
        return None
    x, k, out = conv.input.type.get_shape()[2:], conv.weight.type.get_shape()[2:], conv.result.type.get_shape()[2:]
    axes = []
    for s, p, size, kk, o in zip(stride, padding, x, k, out):
        # the weights' windows at padding f: d of them, the last ending at s * d - f (f = s - 1 always covers kk)
        f = next(f for f in range(s) if s * ((kk + 2 * f - s) // s + 1) - f >= kk)
        d = (kk + 2 * f - s) // s + 1
        q = (size + 2 * (p + f) - s) // s + 1
        if q < o + d - 1:
            return None
        axes.append((s, f, d, q))
    return tuple(axes)


def worth_space_to_depth(conv: asctensor.Conv2dOp) -> bool:
    """A convolution of one group and no dilation, each of whose kernel extents is at least twice its stride (more
    than 1 on some axis), whose space to depth form computes at most ``S2D_MAX_SHARE`` of its padded products."""
    axes = depth_axes(conv)
    if axes is None:
        return False
    (sh, _, dh, _), (sw, _, dw, _) = axes
    kh, kw = conv.weight.type.get_shape()[2:]
    if sh * sw < 2 or kh < 2 * sh or kw < 2 * sw:
        return False
    c = conv.input.type.get_shape()[1]
    c0 = 32 // element_bytes(conv.input.type.element_type)
    return _padded(sh * sw * c, c0) * dh * dw <= S2D_MAX_SHARE * _padded(c, c0) * kh * kw


def space_to_depth(conv: asctensor.Conv2dOp, spec, algorithm: str) -> bool:
    """``conv`` replaced by its space to depth form when that runs as an implicit GEMM with ``algorithm``; whether it
    was."""
    (sh, fh, dh, qh), (sw, fw, dw, qw) = depth_axes(conv)
    (ph, pw) = conv.params()[1]
    n, c, _, _ = conv.input.type.get_shape()
    oc = conv.weight.type.get_shape()[0]
    oh, ow = conv.result.type.get_shape()[2:]
    et = conv.input.type.element_type
    cs = sh * sw * c
    col = asctensor.Im2colOp(conv.input, TensorType(et, [n, cs, qh * qw]), (sh, sw), (sh, sw), (ph + fh, pw + fw),
                             (1, 1), 1)
    xs = asctensor.ReshapeOp(col.result, [n, cs, qh, qw])
    ops = [col, xs]
    if (qh, qw) != (oh + dh - 1, ow + dw - 1):  # rows and columns no output reads
        ops.append(asctensor.SliceOp(xs.result, [0, 0, 0, 0], [n, cs, oh + dh - 1, ow + dw - 1]))
    wcol = asctensor.Im2colOp(conv.weight, TensorType(et, [oc, cs, dh * dw]), (sh, sw), (sh, sw), (fh, fw), (1, 1), 1)
    ws = asctensor.ReshapeOp(wcol.result, [oc, cs, dh, dw])
    new = asctensor.Conv2dOp(ops[-1].results[0], ws.result, conv.result.type, conv.bias, (1, 1), (0, 0), (1, 1), 1)
    ops += [wcol, ws, new]
    if implicit_geometry_of(new, spec, _choice(algorithm)) is None:
        for op in reversed(ops):
            op.erase()
        return False
    for op in ops:
        insert(op, conv)
    conv.result.replace_all_uses_with(new.result)
    conv.detach()
    conv.erase()
    return True
