"""The implicit GEMM of a convolution: geometry, eligibility and the L1 window of an output block.

A convolution whose input is NHWC runs as the matmul ``weights (OC x K) @ patches^T (K x P)`` per image, whose
product is the image's output in NCHW (``P = OH * OW`` output positions, ``K = C1 * KH * KW * C0``, ``C0 = 32 B
/ element``: 16 for float16/bfloat16, 8 for float32; ``C1`` blocks of C0 hold the channels padded to a multiple
of 16), where the patches are never written anywhere: for each output block the kernel copies the input rows its
positions read into L1 as ``[C1][rows * W][C0]`` (``DataCopy`` ND2NZ of the NHWC rows; channels past C are
zeros: the ND2NZ pads a pixel's row to 32 B, and a float32 block of 8 that no channel reaches is zeroed by
``InitConstValue``) and ``LoadData`` with ``LoadData3DParamsV2`` (Load3Dv2) forms the patches in L0B (as B:
``Load3D.md``'s L1 -> L0B path transposes the img2col matrix). K runs in the order of ``Load3D.md``'s img2col:
``k = ((c1 * KH + kh) * KW + kw) * C0 + c0``.

Windows (``window_rows``): the positions ``[m0, m0 + vm)`` (a block's N range) are output rows ``oh_a .. oh_b``;
``oh_a`` is taken down to a row whose first position is a multiple of 16 (Load3Dv2's ``mStartPt = m0 - oh_a *
OW`` then is), and the window holds the input rows ``oh_a * SH - PH .. oh_b * SH - PH + DH * (KH - 1)`` that lie
inside the image, the others being Load3Dv2's top and bottom padding. A convolution qualifies
(``implicit_geometry``) when every output row reads at least one input row (so a window is never all padding),
its parameters are within Load3Dv2's ranges and a window of one 16-row block fits L1; it takes that path when it
is estimated faster than im2col (``implicit_is_faster``).
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, replace
from math import gcd

from .matmul import CubePlan, CubeTilingError, divided_step

C0 = 16  # channels per NC1HWC0 block of a 2-byte type (32 B); 8 of a 4-byte one
MAX_CHANNELS_PER_LOAD = 1 << 15  # Load3D.md: channelSize in [0, 65535] (Load3Dv2, A2/A3), multiples of C0 here
ND2NZ_MAX_ROWS = 16384  # Nd2NzParams.nValue


@dataclass(frozen=True)
class ConvGeometry:
    """An NHWC image (``h x w x c``) under a ``kh x kw`` kernel with stride, symmetric padding and dilation;
    ``c0`` channels per NC1HWC0 block (``c0_of`` its element size)."""

    h: int
    w: int
    c: int
    kh: int
    kw: int
    sh: int
    sw: int
    ph: int
    pw: int
    dh: int
    dw: int
    c0: int = C0

    @classmethod
    def of(cls, values, c0: int = C0) -> "ConvGeometry":
        """From ``[H, W, C, KH, KW, SH, SW, PH, PW, DH, DW]`` (an op's ``geometry``)."""
        return cls(*(int(v) for v in values), c0)

    def as_list(self) -> list[int]:
        return list(astuple(self))[:-1]

    @property
    def oh(self) -> int:
        return (self.h + 2 * self.ph - self.dh * (self.kh - 1) - 1) // self.sh + 1

    @property
    def ow(self) -> int:
        return (self.w + 2 * self.pw - self.dw * (self.kw - 1) - 1) // self.sw + 1

    @property
    def c1(self) -> int:
        """Channel blocks: the channels padded to a multiple of 16 (a K step of the cube is 16 columns), in
        blocks of ``c0``."""
        return -(-self.c // 16) * (16 // self.c0)

    @property
    def k_per_c1(self) -> int:
        """K columns of one channel block: all its kernel taps."""
        return self.kh * self.kw * self.c0

    @property
    def k_total(self) -> int:
        return self.c1 * self.k_per_c1

    @property
    def row_align(self) -> int:
        """Output rows are taken in steps of this many so that a row's first position is a multiple of 16."""
        return 16 // gcd(self.ow, 16)

    def out_rows(self, base_m: int) -> int:
        """The most output rows the window of ``base_m`` consecutive positions covers."""
        return min(self.oh, self.row_align - 1 + (base_m - 1) // self.ow + 2)

    def in_rows(self, base_m: int) -> int:
        """The most input rows in the window of ``base_m`` consecutive positions."""
        return min(self.h, (self.out_rows(base_m) - 1) * self.sh + self.dh * (self.kh - 1) + 1)

    def window_elements(self, base_m: int, c1s: int) -> int:
        """Elements of an L1 window of ``c1s`` channel blocks for ``base_m`` positions."""
        return c1s * self.in_rows(base_m) * self.w * self.c0


def window_of(e, g: ConvGeometry, m0, rows) -> tuple:
    """(first input row, l1H, top padding, bottom padding, mStartPt) of the window of positions ``[m0, m0 +
    rows)``, emitted by the ``OpEmitter`` ``e`` (see the module docstring): output rows from ``oh_a`` (a row whose
    first position is a multiple of 16) to the last position's; the input rows they read, clipped to the image
    (the rest is padding)."""
    oh_a = e.muli(e.divui(e.divui(m0, g.ow), g.row_align), g.row_align)
    oh_b = e.divui(e.subi(e.addi(m0, rows), 1), g.ow)
    top = e.muli(oh_a, g.sh)  # the window's first input row, plus PH
    first = e.maxui(top, g.ph)
    bottom = e.addi(e.muli(oh_b, g.sh), g.dh * (g.kh - 1))  # its last input row, plus PH
    last = e.minui(bottom, g.h - 1 + g.ph)
    l1h = e.addi(e.subi(last, first), 1)
    return e.subi(first, g.ph), l1h, e.subi(first, top), e.subi(bottom, last), e.subi(m0, e.muli(oh_a, g.ow))


def c0_of(element_bytes: int) -> int:
    """Channels per NC1HWC0 block of elements of ``element_bytes`` bytes: 32 B of them."""
    return 32 // element_bytes


TRANSPOSE_COST = 1.75  # a transpose's time over its HBM-bound time (vector-bound on the 910B's 48 AIVs)


def implicit_is_faster(spec, x_shape, w_shape, out_shape, element_bytes: int, laid_by_aivs: bool = False) -> bool:
    """Whether the implicit GEMM's input transpose (to NHWC), its cube products over the padded channels (C up to a
    multiple of 16) and, when C is not whole 16-channel groups, the two launches that write the weights' zero
    channels take less time than the im2col path's column matrix, written to GM and read back by the matmul (both
    paths also launch a layout kernel of the weights and the matmul). On the ResNet stem (3 channels in 16) the
    implicit GEMM wins at batch 8 in float16 (72 us against 100 us) and loses at batch 2, and in float32, whose
    cube is four times slower. With ``laid_by_aivs`` the input is laid out by the vector cores of the convolution's
    own kernel while its cube computes (a phase image, ``analysis/phases.py``): no transpose passes through HBM, and
    the weights' layout takes the launch the input's would have taken."""
    n, c, h, w = x_shape
    oc, _, kh, kw = w_shape
    pixels = out_shape[2] * out_shape[3]
    column = n * c * kh * kw * pixels * element_bytes
    moved = n * c * h * w * element_bytes
    macs_per_s = spec.cube_cores * spec.cube_macs_per_cycle["f32" if element_bytes == 4 else "f16"] * spec.clock_hz
    padding = n * pixels * oc * kh * kw * (-(-c // 16) * 16 - c) / macs_per_s
    launches = 2 * spec.launch_overhead_us * 1e-6 if c % 16 and not laid_by_aivs else 0.0
    transpose = 0.0 if laid_by_aivs else 2 * moved * TRANSPOSE_COST / spec.hbm_bytes_per_s
    return transpose + padding + launches < 2 * column / spec.hbm_bytes_per_s


def implicit_geometry(x_shape, w_shape, stride, padding, dilation, groups: int, element_bytes: int,
                      l1_bytes: int) -> ConvGeometry | None:
    """The geometry of an NCHW convolution that can run as an implicit GEMM, or None (see the module docstring)."""
    n, c, h, w = x_shape
    oc, cg, kh, kw = w_shape
    if groups != 1 or element_bytes not in (2, 4) or (kh, kw, *stride, *padding) == (1, 1, 1, 1, 0, 0):
        return None
    g = ConvGeometry(h, w, c, kh, kw, *stride, *padding, *dilation, c0_of(element_bytes))
    if max(g.sh, g.sw) > 63 or max(g.ph, g.pw) > 255 or max(kh, kw, g.dh, g.dw) > 255 or g.oh < 1 or g.ow < 1:
        return None
    for oh in range(g.oh):
        lo = oh * g.sh - g.ph
        if lo + g.dh * (kh - 1) < 0 or lo >= h:
            return None
    if g.in_rows(16) * w > ND2NZ_MAX_ROWS or 2 * g.window_elements(16, 1) * element_bytes > l1_bytes // 2:
        return None
    return g


LONGER_STEPS = 1.25  # the gain in the cube's multiplying share that trades positions per block for longer K steps


def _stage_blocks(geo: ConvGeometry, step: int) -> list[int]:
    """The channel blocks per L1 stage to try, most first: stages of one size (a short last stage would be consumed
    before the next block's first one arrives)."""
    return [c1s for c1s in range(min(geo.c1, MAX_CHANNELS_PER_LOAD // geo.c0), 0, -step) if geo.c1 % c1s == 0]


def _mmad_share(spec, base_p: int, base_c: int, k_l1: int, es: int, c0: int) -> float:
    """The share of an ``Mmad``'s cycles that multiply, for a block of ``base_p`` positions by ``base_c`` channels
    whose K step is the longest that fits L0 and divides the stage's ``k_l1`` (as ``bufferize-cube`` takes it): a
    stage of 49 16-channel columns (the ResNet stem) splits into steps of 16 unless the block is small enough for
    steps of 112."""
    k = divided_step(spec, base_p, base_c, es, c0, k_l1)
    macs = spec.cube_macs_per_cycle["f32" if es == 4 else "f16"]
    work = (-(-base_p // 16) * 16) * (-(-base_c // 16) * 16) * k / macs
    return work / (work + spec.mmad_fixed_cycles)


def implicit_plan(name: str, spec, plan: CubePlan, geo: ConvGeometry, patches_as_a: bool = False) -> CubePlan:
    """``plan`` (``plan_matmul`` of the weights times the patches^T: M output channels by N positions; with
    ``patches_as_a``, of the patches times the weights^T: M positions by N channels) with L1 stages of whole
    channel blocks: the most blocks per stage (whole 16-channel groups, at most ``MAX_CHANNELS_PER_LOAD`` channels,
    dividing the channel blocks) whose window and weight panel fit L1 twice; the output block's positions shrink
    when not even one group fits, and then its channels (halved: a float32 stage of a wide image's rows leaves
    little room for the weights)."""
    es = 32 // geo.c0
    step = 16 // geo.c0  # whole 16-channel groups: a stage's K is a multiple of the 16-column K step
    channels, positions = (plan.base_n, plan.base_m) if patches_as_a else (plan.base_m, plan.base_n)
    channel_sizes = [channels] + [m for m in (channels // 2 ** i // 16 * 16 for i in range(1, 5)) if m >= 16]
    for base_c in dict.fromkeys(channel_sizes):
        fits = [(base_p, c1s) for base_p in range(positions, 15, -16) if geo.in_rows(base_p) * geo.w <= ND2NZ_MAX_ROWS
                for c1s in _stage_blocks(geo, step)
                if 2 * (geo.window_elements(base_p, c1s) + c1s * geo.k_per_c1 * base_c) * es <= spec.l1_bytes]
        if not fits:
            continue
        # the most positions, or down to half of them when that makes the cube's steps much longer
        share = {f: _mmad_share(spec, f[0], base_c, f[1] * geo.k_per_c1, es, geo.c0) for f in fits
                 if 2 * f[0] >= fits[0][0]}
        best = max(share, key=share.get)
        base_p, c1s = best if share[best] >= LONGER_STEPS * share[fits[0]] else fits[0]
        k_l1 = c1s * geo.k_per_c1
        base_m, base_n = (base_p, base_c) if patches_as_a else (base_c, base_p)
        blocks_m, blocks_n = -(-plan.M // base_m), -(-plan.N // base_n)
        k_l0 = max(16, min(plan.k_l0, k_l1) // 16 * 16)
        while k_l1 % k_l0:
            k_l0 -= 16
        blocks = plan.batch * blocks_m * blocks_n
        return replace(plan, base_m=base_m, blocks_m=blocks_m, base_n=base_n, blocks_n=blocks_n,
                       k_l1=k_l1, k_l0=k_l0, block_dim=max(1, min(plan.block_dim, blocks)))
    raise CubeTilingError(f"kernel @{name}: no output block of a {geo.h}x{geo.w} image's convolution has its input "
                          f"rows and weights fit L1 ({spec.l1_bytes} B)")


@dataclass(frozen=True)
class PrologueTile:
    """The vector cores' share of a ``conv_prologue`` kernel (``tile-conv-prologue``): for each block and L1 stage
    of the AIC, each AIV transposes ``stage_channels`` channels of up to ``pixels`` new input pixels (its half of
    them) from NCHW to NHWC in one tile."""

    stage_channels: int
    pixels: int


def prologue_tile(spec, plan: CubePlan, geo: ConvGeometry, es: int, patches_as_a: bool) -> PrologueTile | None:
    """The tile of ``PrologueTile``, or None where ``TransDataTo5HD`` cannot lay the stage out in one: channels in
    whole 16-channel groups (no padding channel to fill), the stage's channels at most 255 blocks and 4095 DMA
    rows, and the input and output tiles fitting UB twice."""
    if geo.c % 16:
        return None
    channels = plan.k_l1 // geo.k_per_c1 * geo.c0
    positions = plan.base_m if patches_as_a else plan.base_n
    half = -(-geo.in_rows(positions) * geo.w // 2)
    pixels = -(-half // 16) * 16
    if channels * es // 32 > 255 or max(channels, pixels) > 4095 or 4 * channels * pixels * es > spec.ub_usable_bytes:
        return None
    return PrologueTile(channels, pixels)

