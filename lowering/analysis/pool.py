"""The gather form of a max pool's columns (``tile-pool``): which input column each output column reads for
each kernel column, and whether that form computes the pool.

For kernel column ``j`` the output columns ``ow`` whose tap ``ow * sw - pw + j`` lies inside the input form one
range ``[lo, hi)``; a gather table with ``first = -lo`` and ``hi - lo`` columns (``gather_offsets``) makes the
output columns before it repeat the tap of ``lo`` and those after it the tap of ``hi - 1``. A maximum does not
change when one of its terms is repeated, so the form computes the pool when every repeated column lies
inside its own output column's window (and inside the input).
"""

from __future__ import annotations


def pool_columns(w: int, ow: int, kw: int, sw: int, pw: int) -> list[tuple[int, int, int]] | None:
    """Per kernel column: (``first``, valid columns, first input column) of its gather table; None when some
    output column would repeat a column outside its window."""
    taps = []
    for j in range(kw):
        lo = -(-max(0, pw - j) // sw)
        hi = min(ow, (w - 1 + pw - j) // sw + 1) if w - 1 + pw - j >= 0 else 0
        if hi <= lo:
            return None
        for o in range(ow):
            col = min(max(o, lo), hi - 1) * sw - pw + j
            if not (o * sw - pw <= col <= o * sw - pw + kw - 1 and 0 <= col < w):
                return None
        taps.append((-lo, hi - lo, lo * sw - pw + j))
    return taps


def nhwc_taps(w: int, ow: int, kw: int, sw: int, pw: int) -> list[tuple[int, bool, bool]]:
    """Per kernel column ``j`` of a channels-last pool: (pixel shift ``j - pw``, whether output pixel 0 reads left
    of the input, whether the last reads right of it); such taps are clamped into the input, which keeps them
    inside their windows (a window always holds part of the input)."""
    return [(j - pw, j - pw < 0, (ow - 1) * sw + j - pw > w - 1) for j in range(kw)]


def nhwc_pool_bytes(shape: tuple, out_shape: tuple, kernel: tuple, padding: tuple, stride: tuple,
                    element_bytes: int, buffers: int = 2) -> int:
    """The UB bytes of ``tile-pool``'s channels-last form of an (N, H, W, C) pool: the kernel rows of a work item
    (``buffers`` each), their maximum, a tap per kernel column, their maximum and the result (``buffers``), the
    offset table of the unclamped taps, the bounds table a clamp is built with, and two per clamped tap
    (``nhwc_taps``: the shifted offsets and the clamped ones)."""
    _, _, w, c = shape
    _, _, ow, _ = out_shape
    kh, kw = kernel
    row, out, table = w * c * element_bytes, ow * c * element_bytes, ow * c * 4
    clamped = sum(low or high for _, low, high in nhwc_taps(w, ow, kw, stride[1], padding[1]))
    return (kh * buffers + 1) * row + (kw + buffers + 1) * out + (2 + 2 * clamped) * table


def nhwc_pool_fits(op, spec) -> bool:
    """Whether ``tile-pool`` can run the NCHW max pool ``op`` channels-last: 32 B runs of channels (the gather's
    blocks) and a work item's rows in UB."""
    n, c, h, w = op.input.type.get_shape()
    out = op.result.type.get_shape()
    es = 2 if str(op.input.type.element_type) == "f16" else 4
    kernel, stride, padding = op.params()
    return (c * es) % 32 == 0 and nhwc_pool_bytes((n, h, w, c), (out[0], out[2], out[3], out[1]), kernel, padding,
                                                  stride, es, buffers=1) <= spec.ub_usable_bytes
