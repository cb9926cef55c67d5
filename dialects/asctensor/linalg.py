"""The ``asctensor`` dialect: matmul and convolution (the cube path).

``matmul`` is ``result = op(a) @ op(b) (+ bias)`` with ``op`` an optional transpose of the last
two dims; operands are 2-D or 3-D (batched; a 2-D operand is shared by every batch). Floating
inputs (f16, bf16, f32) accumulate in f32 and give f16, bf16 or f32; i8 inputs accumulate and
give i32. ``bias`` is a 1-D tensor of the N dim in the result's or the accumulator's element type.

``conv2d`` is PyTorch's NCHW convolution with ``stride``, ``padding``, ``dilation`` (each
``[h, w]``) and ``groups``; ``asctensor-decompose`` rewrites it to ``im2col`` + ``matmul``.
``im2col`` gathers the patches of the input into the right operands of that (batched) matmul:
``col[n, (g, kh, kw, c), (oh, ow)] = x_pad[n, g * C/groups + c, oh*sh + kh*dh, ow*sw + kw*dw]``, so for
each group the channels of one kernel position are consecutive rows (the weight is read as
``[OC, KH, KW, C/groups]``). The padding reads ``pad_value`` (default 0; a max pool's windows read
``-inf``).

``max_pool2d`` is the maximum of each window of a floating NCHW input (a kernel of its own, ``tile-pool``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, DenseArrayBase, FloatAttr, IntegerAttr, TensorType, UnitAttr, i64
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition

MATMUL_INPUT_TYPES = ("f16", "bf16", "f32", "i8")
FLOAT_OUTPUTS = ("f16", "bf16", "f32")


def accumulator_type(input_type: str) -> str:
    """The cube's accumulator element type for an input element type."""
    return "i32" if input_type == "i8" else "f32"


def matmul_shapes(a: tuple, b: tuple, ta: bool, tb: bool) -> tuple[tuple, int, int, int] | str:
    """(batch shape, M, K, N) of a matmul, or a message saying why the shapes do not fit."""
    if len(a) not in (2, 3) or len(b) not in (2, 3):
        return f"operands must be 2-D or 3-D, got {list(a)} and {list(b)}"
    m, ka = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if tb else (b[-2], b[-1])
    if ka != kb:
        return f"inner dimensions do not match: {list(a)} x {list(b)} (K = {ka} vs {kb})"
    ba, bb = a[:-2], b[:-2]
    if ba and bb and ba != bb:
        return f"batch dimensions do not match: {list(a)} x {list(b)}"
    return (ba or bb), m, ka, n


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """``result = op(lhs) @ op(rhs) (+ bias)``, accumulated in f32 (i32 for i8 inputs)."""

    name = "asctensor.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$lhs `,` $rhs (`bias` $bias^)? (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? "
                       "attr-dict `:` type($lhs) `,` type($rhs) (`,` type($bias)^)? `->` type($result)")

    def __init__(self, lhs, rhs, result_type: TensorType, bias=None, transpose_a: bool = False,
                 transpose_b: bool = False):
        super().__init__(operands=[lhs, rhs, [bias] if bias is not None else []], result_types=[result_type],
                         properties={"transpose_a": UnitAttr() if transpose_a else None,
                                     "transpose_b": UnitAttr() if transpose_b else None})

    @property
    def ta(self) -> bool:
        return self.transpose_a is not None

    @property
    def tb(self) -> bool:
        return self.transpose_b is not None

    def dims(self) -> tuple[tuple, int, int, int]:
        """(batch shape, M, K, N)."""
        return matmul_shapes(self.lhs.type.get_shape(), self.rhs.type.get_shape(), self.ta, self.tb)

    def verify_(self) -> None:
        a, b, r = self.lhs.type, self.rhs.type, self.result.type
        et = str(a.element_type)
        if et not in MATMUL_INPUT_TYPES:
            raise VerifyException(f"asctensor.matmul does not support input element type {et} "
                                  f"(supported: {', '.join(MATMUL_INPUT_TYPES)})")
        if b.element_type != a.element_type:
            raise VerifyException(f"asctensor.matmul operands have different element types ({a} and {b})")
        dims = self.dims()
        if isinstance(dims, str):
            raise VerifyException(f"asctensor.matmul: {dims}")
        batch, m, _, n = dims
        if tuple(r.get_shape()) != (*batch, m, n):
            raise VerifyException(f"asctensor.matmul: result shape {list(r.get_shape())} should be "
                                  f"{[*batch, m, n]}")
        rt = str(r.element_type)
        allowed = ("i32",) if et == "i8" else FLOAT_OUTPUTS
        if rt not in allowed:
            raise VerifyException(f"asctensor.matmul of {et} gives {' or '.join(allowed)}, not {rt}")
        if self.bias is not None:
            bt = self.bias.type
            if tuple(bt.get_shape()) != (n,):
                raise VerifyException(f"asctensor.matmul: bias shape {list(bt.get_shape())} should be [{n}]")
            if str(bt.element_type) not in (rt, accumulator_type(et)):
                raise VerifyException(f"asctensor.matmul: bias element type {bt.element_type} should be {rt} "
                                      f"or {accumulator_type(et)}")


def _window_properties(kernel, stride, padding, dilation) -> dict:
    """The window properties of a patches op (``kernel``, ``stride``, ``padding``, ``dilation``: pairs)."""
    return {name: DenseArrayBase.from_list(i64, list(v)) for name, v in
            (("kernel", kernel), ("stride", stride), ("padding", padding), ("dilation", dilation))}


def _pair(attr: DenseArrayBase) -> tuple[int, ...]:
    return tuple(attr.get_values())


def conv2d_output_shape(x: tuple, w: tuple, stride, padding, dilation, groups: int) -> tuple | str:
    """The NCHW output shape of a convolution, or a message saying why the shapes do not fit."""
    if len(x) != 4 or len(w) != 4:
        return f"input and weight must be 4-D (NCHW, OIHW), got {list(x)} and {list(w)}"
    n, c, h, wd = x
    oc, cg, kh, kw = w
    if groups < 1 or c % groups or oc % groups:
        return f"channels {c} (input) and {oc} (output) must both divide by groups = {groups}"
    if cg != c // groups:
        return f"weight {list(w)} has {cg} input channels per group, input {list(x)} with groups = {groups} has {c // groups}"
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    if oh < 1 or ow < 1:
        return f"the kernel {kh}x{kw} does not fit the padded input {h}x{wd}"
    return (n, oc, oh, ow)


def _check_pairs(op: str, stride, padding, dilation) -> None:
    for name, v, lo in (("stride", stride, 1), ("padding", padding, 0), ("dilation", dilation, 1)):
        if len(v) != 2 or any(x < lo for x in v):
            raise VerifyException(f"{op}: {name} must be two integers >= {lo}, got {list(v)}")


def _check_patches(op: str, x, r, kernel, stride, padding, dilation, layout: str) -> None:
    """The window parameters of a patches op and its 4-D input (``layout``) of the result's element type."""
    _check_pairs(op, stride, padding, dilation)
    if len(kernel) != 2 or min(kernel) < 1:
        raise VerifyException(f"{op}: kernel must be two positive integers, got {list(kernel)}")
    if len(x.get_shape()) != 4 or x.element_type != r.element_type:
        raise VerifyException(f"{op}: needs a 4-D {layout} input of the result's element type, got {x}")


@irdl_op_definition
class Conv2dOp(IRDLOperation):
    """NCHW 2-D convolution (PyTorch's ``conv2d``), accumulated in f32 (i32 for i8 inputs)."""

    name = "asctensor.conv2d"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    stride = prop_def(DenseArrayBase.constr(i64))
    padding = prop_def(DenseArrayBase.constr(i64))
    dilation = prop_def(DenseArrayBase.constr(i64))
    groups = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$input `,` $weight (`bias` $bias^)? `stride` $stride `padding` $padding `dilation` "
                       "$dilation `groups` $groups attr-dict `:` type($input) `,` type($weight) "
                       "(`,` type($bias)^)? `->` type($result)")

    def __init__(self, input, weight, result_type: TensorType, bias=None, stride=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups: int = 1):
        super().__init__(operands=[input, weight, [bias] if bias is not None else []], result_types=[result_type],
                         properties={"stride": DenseArrayBase.from_list(i64, list(stride)),
                                     "padding": DenseArrayBase.from_list(i64, list(padding)),
                                     "dilation": DenseArrayBase.from_list(i64, list(dilation)),
                                     "groups": IntegerAttr(groups, 64)})

    def params(self) -> tuple[tuple, tuple, tuple, int]:
        return _pair(self.stride), _pair(self.padding), _pair(self.dilation), self.groups.value.data

    def verify_(self) -> None:
        x, w, r = self.input.type, self.weight.type, self.result.type
        et = str(x.element_type)
        if et not in MATMUL_INPUT_TYPES or w.element_type != x.element_type:
            raise VerifyException(f"asctensor.conv2d needs input and weight of one element type in "
                                  f"{', '.join(MATMUL_INPUT_TYPES)}, got {x} and {w}")
        stride, padding, dilation, groups = self.params()
        _check_pairs(self.name, stride, padding, dilation)
        shape = conv2d_output_shape(x.get_shape(), w.get_shape(), stride, padding, dilation, groups)
        if isinstance(shape, str):
            raise VerifyException(f"asctensor.conv2d: {shape}")
        if tuple(r.get_shape()) != shape:
            raise VerifyException(f"asctensor.conv2d: result shape {list(r.get_shape())} should be {list(shape)}")
        rt = str(r.element_type)
        allowed = ("i32",) if et == "i8" else FLOAT_OUTPUTS
        if rt not in allowed:
            raise VerifyException(f"asctensor.conv2d of {et} gives {' or '.join(allowed)}, not {rt}")
        if self.bias is not None:
            bt = self.bias.type
            if tuple(bt.get_shape()) != (w.get_shape()[0],) or str(bt.element_type) not in (rt, accumulator_type(et)):
                raise VerifyException(f"asctensor.conv2d: bias {bt} should be [{w.get_shape()[0]}] of {rt} "
                                      f"or {accumulator_type(et)}")


@irdl_op_definition
class Im2colOp(IRDLOperation):
    """The patches of an NCHW input as the right operands of a convolution's matmul, one per group:
    ``result[n, (g, kh, kw, c), (oh, ow)]`` (``pad_value``, default zero, where the window reads padding)."""

    name = "asctensor.im2col"
    input = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase.constr(i64))
    stride = prop_def(DenseArrayBase.constr(i64))
    padding = prop_def(DenseArrayBase.constr(i64))
    dilation = prop_def(DenseArrayBase.constr(i64))
    groups = prop_def(IntegerAttr[I64])
    pad_value = opt_prop_def(FloatAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$input `kernel` $kernel `stride` $stride `padding` $padding `dilation` $dilation "
                       "`groups` $groups (`pad_value` $pad_value^)? attr-dict `:` type($input) `->` type($result)")

    def __init__(self, input, result_type: TensorType, kernel, stride, padding, dilation, groups: int = 1,
                 pad_value: float | None = None):
        props = {**_window_properties(kernel, stride, padding, dilation), "groups": IntegerAttr(groups, 64)}
        if pad_value is not None:
            props["pad_value"] = FloatAttr(pad_value, result_type.element_type)
        super().__init__(operands=[input], result_types=[result_type], properties=props)

    def padding_value(self) -> float:
        """What the windows read outside the input."""
        return 0.0 if self.pad_value is None else self.pad_value.value.data

    def params(self):
        return (_pair(self.kernel), _pair(self.stride), _pair(self.padding), _pair(self.dilation),
                self.groups.value.data)

    def verify_(self) -> None:
        x, r = self.input.type, self.result.type
        kernel, stride, padding, dilation, groups = self.params()
        _check_patches(self.name, x, r, kernel, stride, padding, dilation, "NCHW")
        n, c, _, _ = x.get_shape()
        if groups < 1 or c % groups:
            raise VerifyException(f"{self.name}: {groups} groups do not divide the {c} channels")
        shape = conv2d_output_shape((n, c, *x.get_shape()[2:]), (groups, c // groups, *kernel), stride, padding,
                                    dilation, groups)
        if isinstance(shape, str):
            raise VerifyException(f"{self.name}: {shape}")
        want = (n, c * kernel[0] * kernel[1], shape[2] * shape[3])
        if tuple(r.get_shape()) != want:
            raise VerifyException(f"{self.name}: result shape {list(r.get_shape())} should be {list(want)}")
        if self.pad_value is not None and self.pad_value.type != r.element_type:
            raise VerifyException(f"{self.name}: pad_value of {self.pad_value.type} for patches of {r.element_type}")


@irdl_op_definition
class Im2colNhwcOp(IRDLOperation):
    """The patches of an NHWC input in Load3Dv2's img2col order, the left operands of a convolution's
    matmul (``lowering/analysis/conv.py``): ``result[n, oh * OW + ow, ((c1 * KH + kh) * KW + kw) * C0 + c0]
    = x_pad[n, oh*sh + kh*dh, ow*sw + kw*dw, c1 * C0 + c0]`` (``C0`` = 32 B of elements: 16 for 2-byte ones,
    8 for float32; C padded to a multiple of 16), zero where the window reads padding or a channel past C. It has no kernel of its own: it is read by the cube kernel of its matmul."""

    name = "asctensor.im2col_nhwc"
    input = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase.constr(i64))
    stride = prop_def(DenseArrayBase.constr(i64))
    padding = prop_def(DenseArrayBase.constr(i64))
    dilation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$input `kernel` $kernel `stride` $stride `padding` $padding `dilation` $dilation "
                       "attr-dict `:` type($input) `->` type($result)")

    def __init__(self, input, result_type: TensorType, kernel, stride, padding, dilation):
        super().__init__(operands=[input], result_types=[result_type],
                         properties=_window_properties(kernel, stride, padding, dilation))

    def params(self):
        return _pair(self.kernel), _pair(self.stride), _pair(self.padding), _pair(self.dilation)

    def geometry(self) -> list[int]:
        """``[H, W, C, KH, KW, SH, SW, PH, PW, DH, DW]``."""
        _, h, w, c = self.input.type.get_shape()
        kernel, stride, padding, dilation = self.params()
        return [h, w, c, *kernel, *stride, *padding, *dilation]

    def verify_(self) -> None:
        x, r = self.input.type, self.result.type
        kernel, stride, padding, dilation = self.params()
        _check_patches(self.name, x, r, kernel, stride, padding, dilation, "NHWC")
        n, h, w, c = x.get_shape()
        shape = conv2d_output_shape((n, c, h, w), (1, c, *kernel), stride, padding, dilation, 1)
        if isinstance(shape, str):
            raise VerifyException(f"{self.name}: {shape}")
        want = (n, shape[2] * shape[3], -(-c // 16) * 16 * kernel[0] * kernel[1])  # channels in 16-channel groups
        if tuple(r.get_shape()) != want:
            raise VerifyException(f"{self.name}: result shape {list(r.get_shape())} should be {list(want)}")


@irdl_op_definition
class MaxPool2dOp(IRDLOperation):
    """The maximum of each ``kernel`` window of a floating NCHW input (PyTorch's ``max_pool2d`` without dilation,
    indices or ``ceil_mode``): ``result[n, c, oh, ow] = max x[n, c, oh*sh - ph + i, ow*sw - pw + j]`` over the
    window positions inside the input (the padding never wins; a NaN does). The padding is at most half the
    kernel, so every window holds part of the input. With ``channels_last`` the input and the result are NHWC
    (``result[n, oh, ow, c]``), the same maxima."""

    name = "asctensor.max_pool2d"
    input = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase.constr(i64))
    stride = prop_def(DenseArrayBase.constr(i64))
    padding = prop_def(DenseArrayBase.constr(i64))
    channels_last = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$input `kernel` $kernel `stride` $stride `padding` $padding (`channels_last` $channels_last^)? "
                       "attr-dict `:` type($input) `->` type($result)")

    def __init__(self, input, kernel, stride, padding, channels_last: bool = False):
        shape = input.type.get_shape()
        n, c, h, w = (shape[0], shape[3], shape[1], shape[2]) if channels_last else shape
        oh, ow = [(size + 2 * p - k) // s + 1 for size, k, s, p in zip((h, w), kernel, stride, padding)]
        props = _window_properties(kernel, stride, padding, (1, 1))
        del props["dilation"]
        if channels_last:
            props["channels_last"] = UnitAttr()
        out = [n, oh, ow, c] if channels_last else [n, c, oh, ow]
        super().__init__(operands=[input], result_types=[TensorType(input.type.element_type, out)], properties=props)

    def params(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        return _pair(self.kernel), _pair(self.stride), _pair(self.padding)

    def nchw(self, shape) -> tuple[int, int, int, int]:
        """``shape`` (the input's or the result's) as (N, C, H, W) whatever the layout."""
        return (shape[0], shape[3], shape[1], shape[2]) if self.channels_last is not None else tuple(shape)

    def verify_(self) -> None:
        x, r = self.input.type, self.result.type
        kernel, stride, padding = self.params()
        _check_patches(self.name, x, r, kernel, stride, padding, (1, 1),
                       "NHWC" if self.channels_last is not None else "NCHW")
        if str(x.element_type) not in ("f16", "f32"):
            raise VerifyException(f"{self.name}: pools f16 or f32, got {x.element_type}")
        if any(p > k // 2 for p, k in zip(padding, kernel)):
            raise VerifyException(f"{self.name}: padding {list(padding)} exceeds half the kernel {list(kernel)}")
        n, c, h, w = self.nchw(x.get_shape())
        out = [(size + 2 * p - k) // s + 1 for size, k, s, p in zip((h, w), kernel, stride, padding)]
        want = [n, *out, c] if self.channels_last is not None else [n, c, *out]
        if min(out) < 1 or list(r.get_shape()) != want:
            raise VerifyException(f"{self.name}: result shape {list(r.get_shape())} should be {want}")


OPS = [MatmulOp, Conv2dOp, Im2colOp, Im2colNhwcOp, MaxPool2dOp]
ATTRIBUTES: list = []
