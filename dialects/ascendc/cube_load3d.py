"""The ``ascendc`` dialect, cube part: ``LoadData`` with ``LoadData3DParamsV2`` (Load3Dv2), the cube's
image-to-column load from a feature map in L1 (A1/B1) into L0A (A2) or L0B (B2), on MTE1.

The feature map is NC1HWC0 with ``C0 = 32 B / sizeof(T)`` (16 for half/bfloat16, 8 for float): in L1 it
is ``[C1][l1H][l1W][C0]`` from ``src``, ``C1 = channelSize / C0``. The img2col matrix has one row per
sliding-window position and one column per (channel, filter tap):

* ``Wo = (l1W + padLeft + padRight - dilationFilterW * (filterW - 1) - 1) / strideW + 1`` (``Ho`` alike,
  ``padList = [left, right, top, bottom]``); row ``m = oh * Wo + ow`` (windows in W-then-H order);
* column ``k = ((c1 * filterH + kh) * filterW + kw) * C0 + c0`` (CANN's FRACTAL_Z weight order, so that
  the weights of a convolution are B in that order);
* element ``(m, k) = src[c1][oh * strideH + kh * dilationFilterH - padTop][ow * strideW + kw *
  dilationFilterW - padLeft][c0]``, or ``padValue`` where that lies outside the ``l1H x l1W`` map.

The call writes rows ``mStartPt ..`` and columns ``kStartPt ..`` of that matrix X to ``dst``, whole 512 B
fractals of 16 rows by C0 columns, ``ceil16(mExtension)`` rows by ``ceil(kExtension / C0)`` fractals (rows past
``Ho * Wo`` of the last stripe hold the windows the formula gives there):

* into L0A as ZZ, the A operand of ``Mmad`` (fractals row stripe by row stripe);
* into L0B transposed, as ``Load3D.md`` says the L1 -> L0B path always is (``enTranspose`` has no effect
  there): ``X^T`` as the B operand in ZN, a fractal of B^T's 16 rows (X's) by C0 columns at K block
  ``kb`` and row block ``rb`` at ``(kb * ceil16(mExtension) / 16 + rb) * 512`` bytes. A convolution's
  patches then are B, with the weights as A and the product channels by positions (NCHW). It is a NOP when ``l1H``, ``l1W``, ``channelSize``, ``kExtension``, ``mExtension``, ``filterW`` or
``filterH`` is 0. ``SetLoadDataRepeat`` keeps its default (one repeat).

Not modelled, refused: the channelSize values that are not multiples of C0
(4, 8, N*16+4, N*16+8 for half/bfloat16; 4, N*8+4 for float), element types other than half, bfloat16
and float, strideW/strideH 0, and enTranspose, enSmallK, filterSizeW/H, fMatrixCtrl (the op has no such
fields: it prints them false).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IndexType
from xdsl.irdl import operand_def, opt_prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..target import Pipe
from ..traits import BufferEffects, OnPipe
from ..types import kernel_ctype
from .attributes import POSITION_MEMORY, LocalTensorType, TPosition
from .base import AscendCOperation, CallPrinter, const_int
from .contract import violation
from .cube import position_of

# operand -> (LoadData3DParamsV2 field, lowest, highest, C++ type), in the struct's order (Load3D.md, table 4)
FIELDS: dict[str, tuple[str, int, int, str]] = {
    "pad_left": ("padList[0]", 0, 255, "uint8_t"),
    "pad_right": ("padList[1]", 0, 255, "uint8_t"),
    "pad_top": ("padList[2]", 0, 255, "uint8_t"),
    "pad_bottom": ("padList[3]", 0, 255, "uint8_t"),
    "l1_h": ("l1H", 0, 32767, "uint16_t"),
    "l1_w": ("l1W", 0, 32767, "uint16_t"),
    "channel_size": ("channelSize", 0, 65535, "uint16_t"),
    "k_extension": ("kExtension", 0, 65535, "uint16_t"),
    "m_extension": ("mExtension", 0, 65535, "uint16_t"),
    "k_start_pt": ("kStartPt", 0, 65535, "uint16_t"),
    "m_start_pt": ("mStartPt", 0, 65535, "uint16_t"),
    "stride_w": ("strideW", 0, 63, "uint8_t"),
    "stride_h": ("strideH", 0, 63, "uint8_t"),
    "filter_w": ("filterW", 0, 255, "uint8_t"),
    "filter_h": ("filterH", 0, 255, "uint8_t"),
    "dilation_filter_w": ("dilationFilterW", 0, 255, "uint8_t"),
    "dilation_filter_h": ("dilationFilterH", 0, 255, "uint8_t"),
}

# the fields whose 0 makes the call a NOP (filterW/H: with filterSizeW/H false, as here)
NOP_FIELDS = ("l1_h", "l1_w", "channel_size", "k_extension", "m_extension", "filter_w", "filter_h")

LOAD3D_TYPES = ("f16", "bf16", "f32")  # modelled; the doc also lists int4b_t, (u)int8 and (u)int32 for A2
LOAD3D_DOC_TYPES = ("i8", "ui8", "i32", "ui32", "si32")
LOAD3D_NOT_INTO_L0B = ("i8", "ui8")  # Load3D.md, A2/A3: the B1/B2 positions take no b4/b8 type


class NotModelled(Exception):
    """A documented use of Load3Dv2 that pyasc does not model."""


def output_size(size: int, pad_lo: int, pad_hi: int, filt: int, dil: int, stride: int) -> int:
    """Windows along one axis: ``(size + pads - dil * (filt - 1) - 1) / stride + 1`` (at most 0: none)."""
    span = size + pad_lo + pad_hi - dil * (filt - 1) - 1
    return span // stride + 1 if span >= 0 else 0


def _channel_values(es: int) -> str:
    return "4, 8, N*16, N*16+4, N*16+8" if es == 2 else "4, N*8, N*8+4"


def load3d_problems(v: dict[str, int | None], es: int) -> list[tuple[str, str]]:
    """(rule id, detail) of every documented rule the fields ``v`` (operand name -> value, None when not
    known) break for elements of ``es`` bytes; raises ``NotModelled`` for a documented use not modelled.
    Nothing is checked past a range error, nor past a field that makes the call a NOP."""
    out = []
    for name, (api, lo, hi, _) in FIELDS.items():
        x = v.get(name)
        if x is not None and not lo <= x <= hi:
            out.append(("load3dv2-field-range", f"{api} = {x} is outside [{lo}, {hi}]"))
    if out or any(v.get(n) == 0 for n in NOP_FIELDS):
        return out
    c0 = 32 // es
    cs, ks = v.get("channel_size"), v.get("k_start_pt")
    if cs is not None and cs % c0:
        documented = cs in (4, 8) if es == 2 else cs == 4
        documented = documented or (cs > 16 and cs % 16 in (4, 8) if es == 2 else cs % 8 == 4)
        if documented:
            raise NotModelled(f"channelSize {cs} (documented for {es}-byte types) is not modelled: only "
                              f"multiples of C0 = {c0} are")
        out.append(("load3dv2-channel-size-a2", f"channelSize {cs} is not one of {_channel_values(es)}"))
    if ks is not None and ks % c0:
        out.append(("load3dv2-kstart-c0", f"kStartPt {ks} is not a multiple of {c0}"))
    for s in ("stride_w", "stride_h"):
        if v.get(s) == 0:
            raise NotModelled(f"{FIELDS[s][0]} 0 is not modelled (the windows do not advance)")
    if out or any(v.get(n) is None for n in FIELDS):
        return out
    wo = output_size(v["l1_w"], v["pad_left"], v["pad_right"], v["filter_w"], v["dilation_filter_w"], v["stride_w"])
    ho = output_size(v["l1_h"], v["pad_top"], v["pad_bottom"], v["filter_h"], v["dilation_filter_h"], v["stride_h"])
    if wo * ho == 0:
        return [("load3dv2-inside-img2col", f"the dilated filter does not fit the padded {v['l1_h']} x "
                 f"{v['l1_w']} feature map: Ho = {ho}, Wo = {wo}")]
    k_total = v["filter_h"] * v["filter_w"] * cs
    m_total = -(-ho * wo // 16) * 16
    ke, me, ms = v["k_extension"], v["m_extension"], v["m_start_pt"]
    if ks + ke > k_total:
        out.append(("load3dv2-inside-img2col", f"columns [{ks}, {ks + ke}) pass the img2col matrix's "
                    f"filterH * filterW * channelSize = {k_total}"))
    if ms + me > m_total:
        out.append(("load3dv2-inside-img2col", f"rows [{ms}, {ms + me}) pass the img2col matrix's "
                    f"ceil16(Ho * Wo) = {m_total} (Ho = {ho}, Wo = {wo})"))
    if ke % c0 and ks + ke <= k_total - c0:
        out.append(("load3dv2-extension-multiple", f"kExtension {ke} is not a multiple of {c0} and does not "
                    f"reach the last fractal column (k_total = {k_total})"))
    if es < 4 and me % 16 and ms + me <= m_total - 16:
        out.append(("load3dv2-extension-multiple", f"mExtension {me} is not a multiple of 16 and does not "
                    f"reach the last fractal row (ceil16(Ho * Wo) = {m_total})"))
    return out


@irdl_op_definition
class LoadData3DV2Op(AscendCOperation):
    """``LoadData(dst, src, LoadData3DParamsV2<T>{padList, l1H, l1W, channelSize, kExtension, mExtension,
    kStartPt, mStartPt, strideW, strideH, filterW, filterH, dilationFilterW, dilationFilterH, false, false,
    padValue})``: img2col of an NC1HWC0 feature map in L1 into L0A (A2) as ZZ or into L0B (B2) transposed,
    as ZN, on MTE1 (see the module docstring for the matrix, its K order and what is refused).
    ``pad_value``: absent means 0."""

    name = "ascendc.load_data_3dv2"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "LoadData"
    traits = traits_def(OnPipe(Pipe.MTE1), BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    pad_left = operand_def(IndexType)
    pad_right = operand_def(IndexType)
    pad_top = operand_def(IndexType)
    pad_bottom = operand_def(IndexType)
    l1_h = operand_def(IndexType)
    l1_w = operand_def(IndexType)
    channel_size = operand_def(IndexType)
    k_extension = operand_def(IndexType)
    m_extension = operand_def(IndexType)
    k_start_pt = operand_def(IndexType)
    m_start_pt = operand_def(IndexType)
    stride_w = operand_def(IndexType)
    stride_h = operand_def(IndexType)
    filter_w = operand_def(IndexType)
    filter_h = operand_def(IndexType)
    dilation_filter_w = operand_def(IndexType)
    dilation_filter_h = operand_def(IndexType)
    pad_value = opt_prop_def(FloatAttr)
    assembly_format = ("$dst `,` $src `,` `{` `[` $pad_left `,` $pad_right `,` $pad_top `,` $pad_bottom `]` `,` "
                       "$l1_h `,` $l1_w `,` $channel_size `,` $k_extension `,` $m_extension `,` $k_start_pt `,` "
                       "$m_start_pt `,` $stride_w `,` $stride_h `,` $filter_w `,` $filter_h `,` $dilation_filter_w "
                       "`,` $dilation_filter_h `}` (`pad` $pad_value^)? attr-dict `:` type($dst) `,` type($src)")

    def __init__(self, dst, src, fields: dict, pad_value: float = 0.0):
        """``fields``: operand name (``FIELDS``) -> index SSA value."""
        missing = [n for n in FIELDS if n not in fields]
        if missing:
            raise ValueError(f"ascendc.load_data_3dv2 needs the fields {', '.join(missing)}")
        et = dst.type.element_type
        pad = FloatAttr(float(pad_value), et) if pad_value else None
        super().__init__(operands=[dst, src, *(fields[n] for n in FIELDS)], properties={"pad_value": pad})

    def field_values(self) -> dict[str, int | None]:
        """Operand name -> its constant, or None."""
        return {n: const_int(getattr(self, n)) for n in FIELDS}

    def pad(self) -> float:
        return 0.0 if self.pad_value is None else float(self.pad_value.value.data)

    def print_ascendc(self, p: CallPrinter) -> list[str]:
        t = kernel_ctype(self.dst.type.element_type)
        names = list(FIELDS)
        pads = ", ".join(p.expr_as(getattr(self, n), "uint8_t") for n in names[:4])
        rest = [p.expr_as(getattr(self, n), FIELDS[n][3]) for n in names[4:]]
        pad = self.pad()
        value = "0" if pad == 0 else f"static_cast<{t}>({pad!r}f)"
        args = ", ".join(["padList", *rest, "false", "false", value])
        return ["{",
                f"    const uint8_t padList[4] = {{{pads}}};",
                f"    AscendC::LoadData({p.expr(self.dst)}, {p.expr(self.src)}, "
                f"AscendC::LoadData3DParamsV2<{t}>({args}));",
                "}"]

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et != str(self.src.type.element_type):
            raise VerifyException(f"{self.name} needs one element type, got {self.dst.type} and {self.src.type}")
        if et in LOAD3D_NOT_INTO_L0B and position_of(self.dst) == TPosition.B2:
            raise VerifyException(f"{self.name}: {et} is not a type Load3Dv2 moves into L0B (B2): Load3D.md lists "
                                  "half, bfloat16_t, int32_t, uint32_t and float there")
        if et not in LOAD3D_TYPES:
            why = "is not modelled" if et in LOAD3D_DOC_TYPES else "is not a type Load3Dv2 takes"
            raise VerifyException(f"{self.name}: {et} {why} (modelled: {', '.join(LOAD3D_TYPES)})")
        if self.pad_value is not None and str(self.pad_value.type) != et:
            raise VerifyException(f"{self.name}: the pad value's type {self.pad_value.type} differs from {et}")
        src_pos, dst_pos = position_of(self.src), position_of(self.dst)
        if dst_pos is not None and dst_pos not in (TPosition.A2, TPosition.B2):
            raise VerifyException(f"{self.name}: dst must be in A2 (L0A) or B2 (L0B), got {dst_pos.value} "
                                  f"({POSITION_MEMORY.get(dst_pos, 'UB')})")
        if src_pos is not None and src_pos not in (TPosition.A1, TPosition.B1):
            raise VerifyException(f"{self.name}: src must be in L1 (A1 or B1), got {src_pos.value} "
                                  f"({POSITION_MEMORY.get(src_pos, 'UB')})")
        es = 2 if et in ("f16", "bf16") else 4
        try:
            problems = load3d_problems(self.field_values(), es)
        except NotModelled as e:
            raise VerifyException(f"{self.name}: {e}") from None
        if problems:
            rule_id, detail = problems[0]
            raise violation(rule_id, f"{self.name}: {detail}")


OPS = [LoadData3DV2Op]
ATTRIBUTES: list = []
