"""The phase layout of a convolution rewritten space to depth (``conv_fold.py``), laid out by the vector cores of
its MIX kernel (``tile-conv-prologue``).

Space to depth reads the input ``x`` (``N x C x H x W``) as the ``SH * SW * C`` channels of the phases of its
``SH x SW`` windows: the program ``im2col`` (kernel = stride = ``(SH, SW)``, padding ``(PH, PW)``), a reshape to
``N x CH x OHf x OWf``, a slice from the origin to ``N x CH x OH' x OW'`` and a transpose to NHWC, so that pixel
``(q, qw)`` holds ``x[n, c, q * SH + rh - PH, qw * SW + rw - PW]`` in channel ``(rh * SW + rw) * C + c`` (zero outside
``x``). When the padding and the image are whole windows (``PH``, ``H`` multiples of ``SH``; ``PW``, ``W`` of
``SW``) the padding is whole rows and whole pixels of the result: rows ``[top, top + H / SH)`` and pixels ``[left,
left + W / SW)`` of each row hold the image, the others zeros.

The vector cores then build a row ``q`` of the interior from the ``SH`` input rows ``q * SH - PH + rh`` of each channel:
one load brings ``R`` rows of the result (``R * SH`` input rows of every channel, rows ``H * W`` apart), a
``pick_columns`` of ``SW`` phases splits each row into its ``SW`` column phases, and a ``phase_transpose`` lays the
phases out as channels (``PhaseLayout.tile_bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation

from pyasc.dialects import asctensor
from pyasc.dialects.ascendc.movement import GATHER_MASK_DTYPES, MAX_REPEATS, TRANS_5HD_DTYPES
from pyasc.dialects.gather_table import pick_pattern
from pyasc.dialects.types import element_bytes

from ..tiling import MAX_TILE_ROWS as MAX_BLOCKS  # DataCopyPad's blockCount: the pixels of one store


@dataclass(frozen=True)
class PhaseLayout:
    """The space-to-depth layout of ``x`` (``n x c x h x w``, ``es``-byte elements) at stride ``(sh, sw)`` with
    padding ``(ph, pw)``, into an NHWC image of ``oh x ow`` pixels of ``sh * sw * c`` channels."""

    n: int
    c: int
    h: int
    w: int
    sh: int
    sw: int
    ph: int
    pw: int
    oh: int
    ow: int
    es: int

    @property
    def top(self) -> int:
        """The zero rows above the image."""
        return self.ph // self.sh

    @property
    def rows(self) -> int:
        """The rows of the result that hold the image."""
        return self.h // self.sh

    @property
    def left(self) -> int:
        return self.pw // self.sw

    @property
    def picked(self) -> int:
        """The pixels of a row that hold the image."""
        return self.w // self.sw

    @property
    def channels(self) -> int:
        return self.sh * self.sw * self.c

    @property
    def padded_channels(self) -> int:
        """The channels of a tile's pixel: whole 16-channel groups (``TransDataTo5HD``)."""
        return -(-self.channels // 16) * 16

    def tile_bytes(self, rows: int) -> int:
        """UB of the tiles of ``rows`` result rows: the loaded rows and their phases (double-buffered), the laid-out
        pixels (double-buffered) and a tile of zero pixels."""
        span = self.c * rows * self.sh * self.w
        pixels = rows * self.ow * self.padded_channels
        return (2 * (2 * span + pixels) + pixels) * self.es


def phase_layout(ops: list[Operation]) -> PhaseLayout | None:
    """The layout the prologue ``ops`` (``im2col``, ``reshape``, optionally ``slice``, ``transpose`` to NHWC, each
    reading the one before) compute, when the vector cores can build it (see the module docstring), else None."""
    if len(ops) not in (3, 4) or not isinstance(ops[0], asctensor.Im2colOp):
        return None
    col, reshape, *cut, t = ops
    source = cut[0] if cut else reshape
    if not (isinstance(reshape, asctensor.ReshapeOp) and reshape.input.type == col.result.type
            and isinstance(t, asctensor.TransposeOp) and t.input.type == source.results[0].type
            and t.perm == (0, 2, 3, 1)):
        return None
    if cut and not (isinstance(source, asctensor.SliceOp) and source.input.type == reshape.result.type
                    and not any(source.offsets.get_values())):
        return None
    return phases_of(col, reshape.result.type.get_shape(), source.results[0].type.get_shape()[2:])


def phases_of(col: asctensor.Im2colOp, reshaped, kept) -> PhaseLayout | None:
    """The layout of the ``im2col`` ``col`` reshaped to ``reshaped`` (``N x CH x OHf x OWf``), its first ``kept``
    ``(OH', OW')`` rows and columns made NHWC, when the vector cores can build it, else None."""
    (kh, kw), (sh, sw), (ph, pw), dil, groups = col.params()
    n, c, h, w = col.input.type.get_shape()
    et = col.input.type.element_type
    es = element_bytes(et)
    if (kh, kw) != (sh, sw) or dil != (1, 1) or groups != 1 or col.padding_value() != 0.0:
        return None
    _, ch, ohf, owf = reshaped
    oh, ow = kept
    layout = PhaseLayout(n, c, h, w, sh, sw, ph, pw, oh, ow, es)
    per = 32 // es
    if (str(et) not in TRANS_5HD_DTYPES or str(et) not in GATHER_MASK_DTYPES or ch != layout.channels
            or ph % sh or pw % sw or h % sh or w % sw or (sh * w * es) % 32 or layout.picked % per
            or layout.picked // per > MAX_REPEATS or layout.top + layout.rows > oh
            or layout.left + layout.picked > ow or oh > ohf or ow > owf or ow > MAX_BLOCKS
            or any(pick_pattern(p, sw, es) is None for p in range(sw))):
        return None
    return layout


def phase_rows(spec, layout: PhaseLayout, in_rows: int) -> int | None:
    """The result rows of one vector core's tile: half of the ``in_rows`` rows of an L1 window (each AIV of an AI
    Core builds half of the rows a block needs), or None when those tiles do not fit UB or one store."""
    rows = -(-in_rows // 2)
    if layout.tile_bytes(rows) > spec.ub_usable_bytes or rows * layout.ow > MAX_BLOCKS:
        return None
    return rows
