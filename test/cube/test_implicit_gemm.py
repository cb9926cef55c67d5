"""conv2d as an implicit GEMM (``lowering/analysis/conv.py``, ``lowering/conv_gemm.py``): the input rows of each
output block copied into L1, the patches formed by Load3Dv2 in L0B (B of the weights' product, which is NCHW) or, for
a convolution whose output reaches another one, in L0A (A of the product by the weights, which is NHWC); no column
matrix in GM. Results against PyTorch's conv2d in float64, which convolutions take that path, and the simulated time
against the im2col path it replaces."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
import torch

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc
from pyasc.dialects.target import DEFAULT_TARGET, get_target
from pyasc.lowering.analysis.conv import implicit_geometry

from .gxx import assert_compiles

RNG = np.random.default_rng(5)


def _torch_conv(x, w, b, stride, padding, dilation):
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    return torch.nn.functional.conv2d(t(x), t(w), None if b is None else t(b), stride, padding, dilation).numpy()


def _compile(xs, ws, stride, padding, dilation, dtype, bias=False, relu=False, conv="implicit_gemm"):
    x = RNG.standard_normal(xs).astype(np.float32).astype(dtype)
    w = RNG.standard_normal(ws).astype(np.float32).astype(dtype)
    b = RNG.standard_normal(ws[0]).astype(np.float32).astype(dtype) if bias else None

    conv_algorithm = conv

    def conv(x, w, *b):
        y = pyasc.conv2d(x, w, b[0] if b else None, stride=stride, padding=padding, dilation=dilation)
        return pyasc.relu(y) if relu else y

    args = [pyasc.tensor(a) for a in (x, w, b) if a is not None]
    fn = pyasc.jit(conv, options={"conv": conv_algorithm})
    return fn, args, (x, w, b)


def _kernels(fn, args) -> list[str]:
    mod = fn.lower(*args).module("asctile")
    return [op.sym_name.data for op in mod.ops if "asctile.kernel" in op.attributes]


@pytest.mark.parametrize("xs,ws,stride,padding,dilation", [
    ((2, 16, 9, 9), (8, 16, 3, 3), 1, 1, 1),
    ((2, 64, 15, 13), (24, 64, 3, 3), 2, 1, 1),      # one L1 stage of 64 channels
    ((1, 512, 16, 16), (256, 512, 3, 3), 1, 1, 1),   # L1 stages of 128 channels (float32: 64), K in 4 (8) stages
    ((2, 3, 30, 28), (16, 3, 7, 7), 2, 3, 1),        # the ResNet stem, small: 3 channels padded to 16
    ((1, 24, 20, 17), (16, 24, 3, 3), 1, 2, 2),      # dilation, an odd output width (row_align 16)
    ((3, 32, 7, 7), (40, 32, 3, 1), (1, 2), (1, 0), 1),
    ((1, 16, 40, 40), (32, 16, 5, 5), 1, 2, 1),      # many output blocks, windows with and without padding
    ((1, 28, 20, 17), (16, 28, 3, 3), 1, 2, 2),      # float32: 28 channels in 4 blocks of C0 = 8 (32 channels)
])
@pytest.mark.parametrize("dtype", [np.float16, "bfloat16", np.float32])
def test_implicit_gemm_matches_torch(xs, ws, stride, padding, dilation, dtype):
    """Every dtype the implicit GEMM takes (float32 with C0 = 8, its channels in whole 16-channel groups)."""
    import ml_dtypes

    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    fn, args, (x, w, _) = _compile(xs, ws, stride, padding, dilation, dt)
    kernels = _kernels(fn, args)
    assert not any("im2col" in k for k in kernels)
    compiled = fn.lower(*args).compile()
    assert "AscendC::LoadData3DParamsV2<" in compiled.ascendc_source()
    out, report = compiled.simulate(*args)
    assert not report.findings
    ref = _torch_conv(x, w, None, stride, padding, dilation)
    k = ws[1] * ws[2] * ws[3]
    eps = {"bfloat16": 2 ** -8, np.float16: 2 ** -11, np.float32: 2 ** -22}[dtype]
    tol = (2 * eps + k * 2 ** -24) * np.abs(ref).max()
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0, atol=tol)


@pytest.mark.parametrize("channels", [3, 8, 24])
def test_float32_blocks_no_channel_reaches_are_zeroed_in_l1(channels):
    """A float32 input whose last 16-channel group has no channel in its second block of 8: the kernel zeroes that
    block of the L1 window (InitConstValue) before Load3Dv2 reads it; no read of unwritten memory, PyTorch's
    result."""
    fn, args, (x, w, _) = _compile((1, channels, 12, 12), (8, channels, 3, 3), 1, 1, 1, np.float32)
    assert not any("im2col" in k for k in _kernels(fn, args))
    compiled = fn.lower(*args).compile()
    assert "AscendC::InitConstValue(" in compiled.ascendc_source()
    out, report = compiled.simulate(*args)
    assert not report.findings
    ref = _torch_conv(x, w, None, 1, 1, 1)
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=channels * 9 * 2 ** -22 * np.abs(ref).max())


def test_bias_and_relu_follow_the_nchw_product():
    fn, args, (x, w, b) = _compile((2, 32, 12, 12), (48, 32, 3, 3), 1, 1, 1, np.float16, bias=True, relu=True)
    out = fn(*args).numpy().astype(np.float64)
    ref = np.maximum(_torch_conv(x, w, b, 1, 1, 1), 0)
    np.testing.assert_allclose(out, ref, rtol=0, atol=(2 ** -10 + 288 * 2 ** -24) * np.abs(ref).max())


def test_an_epilogue_joins_the_implicit_gemm_in_one_mix_kernel():
    """conv, per-channel affine, ReLU feeding a second convolution: the product is NHWC, so the affine (per column)
    and the ReLU run on the AI Core's vector cores in the convolution's MIX kernel, and the second convolution reads
    it as it is (no elementwise kernel and no transpose between the two); the result is PyTorch's."""
    x = RNG.standard_normal((2, 32, 10, 10)).astype(np.float16)
    w1, w2 = (RNG.standard_normal((32, 32, 3, 3)).astype(np.float16) * np.float16(0.2) for _ in range(2))
    scale, shift = (RNG.standard_normal((1, 32, 1, 1)).astype(np.float16) for _ in range(2))

    def block(x, w1, scale, shift, w2):
        return pyasc.conv2d(pyasc.relu(pyasc.conv2d(x, w1, padding=1) * scale + shift), w2, padding=1)

    args = [pyasc.tensor(a) for a in (x, w1, scale, shift, w2)]
    out, report = pyasc.jit(block, options={"conv": "implicit_gemm"}).lower(*args).compile().simulate(*args)
    names = [launch.kernel for launch in report.launches]
    mm = [i for i, n in enumerate(names) if "_mm" in n]
    assert len(mm) == 2 and mm[1] - mm[0] == 2, names  # between them: w2's layout kernel only
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    y = torch.relu(torch.nn.functional.conv2d(t(x), t(w1), padding=1) * t(scale) + t(shift))
    ref = torch.nn.functional.conv2d(y, t(w2), padding=1).numpy()
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=4 * (2 ** -10 + 288 * 2 ** -24) * np.abs(ref).max())


def test_stages_are_equal_and_wider_than_48_channels():
    """A 3x3, 256-channel convolution at batch 8: each L1 stage holds 64 channels (Load3Dv2's channelSize ranges
    over [0, 65535] on A2/A3, Load3D.md): the patches' tile is K = 64 * 9 = 576 wide, four stages of the same K."""
    x = pyasc.tensor(np.zeros((8, 256, 56, 56), np.float16))
    w = pyasc.tensor(np.zeros((256, 256, 3, 3), np.float16))
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, padding=1), options={"conv": "implicit_gemm"})
    tiles = [op.result.type.get_shape() for op in fn.lower(x, w).module("asctile").walk()
             if op.name == "asctile.load_window"]
    assert len(tiles) == 1 and tiles[0][1] == 576 and 2304 % tiles[0][1] == 0, tiles


@pytest.mark.parametrize("xs,ws,stride,padding,dilation,why", [
    ((1, 16, 3, 3), (8, 16, 3, 3), 1, 3, 1, "an output row sees only padding"),
    ((1, 16, 9, 9), (8, 4, 3, 3), 1, 1, 1, "groups"),
    ((1, 16, 9, 9), (8, 16, 1, 1), 1, 0, 1, "a pointwise convolution reads the input as its patches"),
])
def test_other_convolutions_keep_their_path(xs, ws, stride, padding, dilation, why):
    groups = xs[1] // ws[1]
    assert implicit_geometry(xs, ws, (stride,) * 2, (padding,) * 2, (dilation,) * 2, groups, 2,
                             get_target(DEFAULT_TARGET).l1_bytes) is None, why
    x = RNG.standard_normal(xs).astype(np.float16)
    w = RNG.standard_normal(ws).astype(np.float16)
    out = pyasc.conv2d(pyasc.tensor(x), pyasc.tensor(w), None, stride, padding, 1, groups).numpy()
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    ref = torch.nn.functional.conv2d(t(x), t(w), None, stride, padding, dilation, groups).numpy()
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=0,
                               atol=(2 ** -10 + 144 * 2 ** -24) * max(np.abs(ref).max(), 1e-3))


@pytest.mark.parametrize("xs,ws,stride,padding,implicit_faster,dtype", [
    ((2, 64, 56, 56), (64, 64, 3, 3), 1, 1, True, np.float16),  # the column matrix (9 x the input) costs more than
    ((2, 128, 28, 28), (128, 128, 3, 3), 1, 1, True, np.float16),  # the input's transpose
    ((2, 64, 28, 28), (64, 64, 1, 1), 2, 0, False, np.float16),  # a strided 1x1: the column is a quarter of the input
    ((2, 64, 56, 56), (64, 64, 3, 3), 1, 1, True, np.float32),
])
def test_auto_takes_the_faster_path(xs, ws, stride, padding, implicit_faster, dtype):
    """conv=auto against both paths forced: the same result (PyTorch's), and the simulated time of the faster."""
    seconds = {}
    eps = 2 ** -10 if dtype == np.float16 else 2 ** -22
    taps = ws[2] * ws[3]
    for algorithm in ("implicit_gemm", "im2col", "auto"):
        fn, args, (x, w, _) = _compile(xs, ws, stride, padding, 1, dtype, conv=algorithm)
        out, report = fn.lower(*args).compile().simulate(*args)
        ref = _torch_conv(x, w, None, stride, padding, 1)
        np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                                   atol=(eps + ws[1] * taps * 2 ** -24) * np.abs(ref).max())
        seconds[algorithm] = report.seconds
    assert (seconds["implicit_gemm"] < seconds["im2col"]) == implicit_faster
    assert seconds["auto"] <= 1.01 * min(seconds["implicit_gemm"], seconds["im2col"])


def test_emitted_project_source_compiles():
    """The Ascend C of an implicit GEMM with two L1 stages and padded channels (ND2NZ of the window's rows,
    LoadData with LoadData3DParamsV2) compiles against the API's declarations."""
    fn, args, _ = _compile((1, 40, 12, 12), (16, 40, 3, 3), 1, 1, 1, np.float16)
    src = fn.lower(*args).compile().ascendc_source()
    for api in ("AscendC::LoadData3DParamsV2<half>(padList", "AscendC::Nd2NzParams", "AscendC::MmadParams"):
        assert api in src
    assert_compiles(src)


def test_emitted_float32_source_with_a_zeroed_block_compiles():
    """The Ascend C of a float32 implicit GEMM of 24 channels (LoadData3DParamsV2<float>, and the InitConstValue
    of the block of 8 no channel reaches under its ``if``) compiles against the API's declarations."""
    fn, args, _ = _compile((1, 24, 12, 12), (16, 24, 3, 3), 1, 1, 1, np.float32)
    src = fn.lower(*args).compile().ascendc_source()
    for api in ("AscendC::LoadData3DParamsV2<float>(padList", "AscendC::InitConstValue(", "AscendC::Nd2NzParams"):
        assert api in src
    assert_compiles(src)


def test_a_residual_block_transposes_only_the_convolution_inputs():
    """conv, bias, ReLU, conv, residual add, ReLU as implicit GEMMs: the block input is transposed into NHWC once;
    the first product is NHWC and read as it is by the second convolution, whose product (the block's output) is
    NCHW with the residual read in place; the result is PyTorch's."""
    x = RNG.standard_normal((2, 32, 14, 14)).astype(np.float16)
    w1, w2 = (RNG.standard_normal((32, 32, 3, 3)).astype(np.float16) * np.float16(0.2) for _ in range(2))
    b1 = RNG.standard_normal(32).astype(np.float16)

    def block(x, w1, b1, w2):
        y = pyasc.relu(pyasc.conv2d(x, w1, b1, padding=1))
        return pyasc.relu(pyasc.conv2d(y, w2, padding=1) + x)

    args = [pyasc.tensor(a) for a in (x, w1, b1, w2)]
    fn = pyasc.jit(block, options={"conv": "implicit_gemm"})
    mod = fn.lower(*args).module("asctensor")
    activation_transposes = [op.perm for op in mod.walk() if op.name == "asctensor.transpose"
                             and len(op.perm) == 4]
    assert activation_transposes == [(0, 2, 3, 1)]
    out = fn(*args).numpy().astype(np.float64)
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    y = torch.relu(torch.nn.functional.conv2d(t(x), t(w1), t(b1), padding=1))
    ref = torch.relu(torch.nn.functional.conv2d(y, t(w2), padding=1) + t(x)).numpy()
    np.testing.assert_allclose(out, ref, rtol=0, atol=4 * (2 ** -10 + 288 * 2 ** -24) * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_auto_on_a_stem_takes_the_faster_path(dtype):
    """A 3-channel 7x7 stride-2 convolution: its channels padded to 16 make the implicit GEMM's products five times
    the im2col path's, which float32's slower cube pays for; conv=auto takes the faster path in both dtypes, with
    PyTorch's result. In float32 auto has a third path, space to depth with the phases laid out by the vector cores
    of the convolution's kernel (a phase row of 56 pixels is whole 32 B blocks of float32, not of float16), which
    its estimate prefers here: within 1% of the faster of the other two."""
    seconds = {}
    for algorithm in ("implicit_gemm", "im2col", "auto"):
        fn, args, (x, w, _) = _compile((2, 3, 112, 112), (64, 3, 7, 7), 2, 3, 1, dtype, conv=algorithm)
        out, report = fn.lower(*args).compile().simulate(*args)
        ref = _torch_conv(x, w, None, 2, 3, 1)
        eps = 2 ** -10 if dtype == np.float16 else 2 ** -22
        np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0, atol=(eps + 147 * 2 ** -24) * np.abs(ref).max())
        seconds[algorithm] = report.seconds
    assert seconds["auto"] <= 1.01 * min(seconds["implicit_gemm"], seconds["im2col"])


CHAIN_CASES = [  # (input, first weight, stride, padding, dilation): a second 3x3 convolution of padding 1 follows
    ((2, 16, 9, 9), (32, 16, 3, 3), 1, 1, 1),
    ((2, 64, 15, 13), (24, 64, 3, 3), 2, 1, 1),
    ((2, 3, 30, 28), (16, 3, 7, 7), 2, 3, 1),        # the ResNet stem, small
    ((1, 24, 20, 17), (20, 24, 3, 3), 1, 2, 2),      # dilation, odd widths, 20 channels out (padded to 32)
    ((1, 16, 40, 40), (32, 16, 5, 5), 1, 2, 1),      # many blocks of positions
    ((3, 32, 8, 8), (256, 32, 1, 1), 2, 0, 1),       # a strided 1x1 convolution, 256 channels out
]


@pytest.mark.parametrize("case", range(len(CHAIN_CASES)))
@pytest.mark.parametrize("dtype", [np.float16, "bfloat16", np.float32])
def test_a_convolution_feeding_another_has_an_nhwc_product(case, dtype):
    """conv, bias, ReLU, conv: the first product is NHWC (its patches in L0A, Load3Dv2), its bias and ReLU in its
    MIX kernel, read by the second convolution without a transpose; the result is PyTorch's in float64."""
    import ml_dtypes

    xs, ws, stride, padding, dilation = CHAIN_CASES[case]
    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    x = RNG.standard_normal(xs).astype(np.float32).astype(dt)
    w1 = (RNG.standard_normal(ws) * 0.3).astype(np.float32).astype(dt)
    b1 = RNG.standard_normal(ws[0]).astype(np.float32).astype(dt)
    w2 = (RNG.standard_normal((8, ws[0], 3, 3)) * 0.3).astype(np.float32).astype(dt)

    def chain(x, w1, b1, w2):
        y = pyasc.relu(pyasc.conv2d(x, w1, b1, stride=stride, padding=padding, dilation=dilation))
        return pyasc.conv2d(y, w2, padding=1)

    args = [pyasc.tensor(a) for a in (x, w1, b1, w2)]
    fn = pyasc.jit(chain, options={"conv": "implicit_gemm"})
    lowered = fn.lower(*args)
    mod = lowered.module("asctensor")
    kinds = [f.attributes["asctensor.kernel"].data for f in mod.ops if "asctensor.kernel" in f.attributes]
    assert "mix" in kinds
    assert [op.perm for op in mod.walk() if op.name == "asctensor.transpose" and len(op.perm) == 4] == [(0, 2, 3, 1)]
    compiled = lowered.compile()
    out, report = compiled.simulate(*args)
    assert not report.findings
    t = lambda a: torch.from_numpy(np.asarray(a, np.float64))  # noqa: E731
    y = torch.relu(torch.nn.functional.conv2d(t(x), t(w1), t(b1), stride, padding, dilation))
    y = torch.from_numpy(np.asarray(y.numpy().astype(np.float32).astype(dt), np.float64))  # y is stored in dt
    ref = torch.nn.functional.conv2d(y, t(w2), padding=1).numpy()
    eps = {"bfloat16": 2 ** -8, np.float16: 2 ** -11, np.float32: 2 ** -22}[dtype]
    k = ws[1] * ws[2] * ws[3] + ws[0] * 9
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=(8 * eps + k * 2 ** -24) * np.abs(ref).max())


def test_emitted_nhwc_product_source_compiles():
    """The Ascend C of an NHWC product (Load3Dv2 into L0A, the bias and ReLU of its MIX epilogue) compiles against
    the API's declarations."""
    x = pyasc.tensor(np.zeros((1, 40, 12, 12), np.float16))
    w1 = pyasc.tensor(np.zeros((32, 40, 3, 3), np.float16))
    b1 = pyasc.tensor(np.zeros(32, np.float16))
    w2 = pyasc.tensor(np.zeros((16, 32, 3, 3), np.float16))
    fn = pyasc.jit(lambda x, w1, b1, w2: pyasc.conv2d(pyasc.relu(pyasc.conv2d(x, w1, b1, padding=1)), w2, padding=1),
                   options={"conv": "implicit_gemm"})
    src = fn.lower(x, w1, b1, w2).compile().ascendc_source()
    assert "AscendC::TPosition::A2" in src and "AscendC::LoadData3DParamsV2<half>(padList" in src
    assert_compiles(src)


def test_a_downsampling_block_between_convolutions_stays_nhwc():
    """A ResNet downsampling block between two convolutions: its 1x1 stride-2 shortcut, fed by an NHWC product, runs
    as an implicit GEMM too (its input transpose cancels, which conv=auto's estimate counts against it), the
    shortcut reads the block input's one NHWC copy, and no activation is transposed but the program's input; the
    result is PyTorch's."""
    x = RNG.standard_normal((2, 32, 16, 16)).astype(np.float16)
    w0 = (RNG.standard_normal((32, 32, 3, 3)) * 0.2).astype(np.float16)
    w1 = (RNG.standard_normal((64, 32, 3, 3)) * 0.2).astype(np.float16)
    w2 = (RNG.standard_normal((64, 64, 3, 3)) * 0.2).astype(np.float16)
    ws = (RNG.standard_normal((64, 32, 1, 1)) * 0.2).astype(np.float16)
    w3 = (RNG.standard_normal((8, 64, 3, 3)) * 0.2).astype(np.float16)

    def net(m, x, w0, w1, w2, ws, w3):
        conv, relu = (pyasc.conv2d, pyasc.relu) if m is pyasc else (torch.nn.functional.conv2d, torch.relu)
        h = relu(conv(x, w0, padding=1))
        y = relu(conv(h, w1, stride=2, padding=1))
        y = relu(conv(y, w2, padding=1) + conv(h, ws, stride=2))
        return conv(y, w3, padding=1)

    arrays = (x, w0, w1, w2, ws, w3)
    args = [pyasc.tensor(a) for a in arrays]
    fn = pyasc.jit(lambda *a: net(pyasc, *a))
    mod = fn.lower(*args).module("asctensor")
    assert [op.perm for op in mod.walk() if op.name == "asctensor.transpose" and len(op.perm) == 4] == [(0, 2, 3, 1)]
    assert not [f for f in mod.ops if "asctensor.kernel" in f.attributes and "im2col" in f.sym_name.data]
    out = fn(*args).numpy().astype(np.float64)
    ref = net(torch, *[torch.from_numpy(a.astype(np.float64)) for a in arrays]).numpy()
    # four layers, each stored in float16 (2^-11 relative) and fed to the next
    np.testing.assert_allclose(out, ref, rtol=0, atol=8 * 2 ** -11 * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16", np.float32])
def test_a_bottleneck_block_stays_nhwc(dtype):
    """A ResNet bottleneck (1x1, 3x3, 1x1 with a residual) after a 3x3 convolution and before a pointwise one: the
    pointwise convolutions fed by NHWC products read them as they are (as A, the batch folded into M, where their
    own product is NHWC; as B^T under the weights where it is NCHW, the last one), so only the program's input is
    transposed; the result is PyTorch's in float64."""
    import ml_dtypes

    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    shapes = [(64, 32, 3, 3), (16, 64, 1, 1), (16, 16, 3, 3), (64, 16, 1, 1), (24, 64, 1, 1)]
    x = RNG.standard_normal((2, 32, 10, 10)).astype(np.float32).astype(dt)
    ws = [(RNG.standard_normal(s) * 0.3).astype(np.float32).astype(dt) for s in shapes]
    bias = RNG.standard_normal(16).astype(np.float32).astype(dt)

    def net(m, x, w0, w1, w2, w3, w4, b):
        conv, relu = (pyasc.conv2d, pyasc.relu) if m is pyasc else (torch.nn.functional.conv2d, torch.relu)
        h = relu(conv(x, w0, padding=1))
        y = relu(conv(h, w1, b))
        y = relu(conv(y, w2, padding=1))
        y = relu(conv(y, w3) + h)
        return conv(y, w4)

    arrays = (x, *ws, bias)
    args = [pyasc.tensor(a) for a in arrays]
    fn = pyasc.jit(lambda *a: net(pyasc, *a))
    mod = fn.lower(*args).module("asctensor")
    assert [op.perm for op in mod.walk() if op.name == "asctensor.transpose" and len(op.perm) == 4] == [(0, 2, 3, 1)]
    out = np.asarray(fn(*args).numpy(), np.float64)
    ref = net(torch, *[torch.from_numpy(np.asarray(a, np.float64)) for a in arrays]).numpy()
    eps = {"bfloat16": 2 ** -8, np.float16: 2 ** -11, np.float32: 2 ** -22}[dtype]
    np.testing.assert_allclose(out, ref, rtol=0, atol=16 * eps * np.abs(ref).max())


def test_pointwise_convolutions_around_a_depthwise_one_stay_nchw():
    """An inverted residual (pointwise, depthwise 3x3, pointwise with a residual) and a pointwise convolution after
    it: no input comes from an NHWC product, so the pointwise convolutions read NCHW as they are and nothing is
    transposed; the result is PyTorch's."""
    x = RNG.standard_normal((2, 16, 12, 12)).astype(np.float32)
    w1 = (RNG.standard_normal((48, 16, 1, 1)) * 0.3).astype(np.float32)
    wd = (RNG.standard_normal((48, 1, 3, 3)) * 0.3).astype(np.float32)
    w2 = (RNG.standard_normal((16, 48, 1, 1)) * 0.3).astype(np.float32)
    w3 = (RNG.standard_normal((24, 16, 1, 1)) * 0.3).astype(np.float32)

    def net(m, x, w1, wd, w2, w3):
        conv, relu = (pyasc.conv2d, pyasc.relu) if m is pyasc else (torch.nn.functional.conv2d, torch.relu)
        y = relu(conv(relu(conv(x, w1)), wd, padding=1, groups=48))
        return conv(conv(y, w2) + x, w3)

    arrays = (x, w1, wd, w2, w3)
    args = [pyasc.tensor(a) for a in arrays]
    fn = pyasc.jit(lambda *a: net(pyasc, *a))
    mod = fn.lower(*args).module("asctensor")
    assert not [op for op in mod.walk() if op.name == "asctensor.transpose" and len(op.perm) == 4]
    out = fn(*args).numpy().astype(np.float64)
    ref = net(torch, *[torch.from_numpy(a.astype(np.float64)) for a in arrays]).numpy()
    np.testing.assert_allclose(out, ref, rtol=0, atol=64 * 2 ** -22 * np.abs(ref).max())


@pytest.mark.parametrize("channels", [3, 16])
def test_every_level_of_a_chain_verifies(channels):
    """conv, ReLU (a MIX epilogue), conv: the host reshapes the first product between the kernels, which at the
    asctile and ascbuf levels reaches the second kernel through a memref.reinterpret_cast to the shape it takes, so
    every level's IR verifies; the result is PyTorch's."""
    x = RNG.standard_normal((3, channels, 15, 6)).astype(np.float16)
    w1 = (RNG.standard_normal((40, channels, 5, 5)) * 0.2).astype(np.float16)
    w2 = (RNG.standard_normal((16, 40, 3, 3)) * 0.2).astype(np.float16)
    fn = pyasc.jit(lambda x, w1, w2: pyasc.conv2d(pyasc.relu(pyasc.conv2d(x, w1, padding=2)), w2, padding=1))
    args = [pyasc.tensor(a) for a in (x, w1, w2)]
    lowered = fn.lower(*args)
    for level in ("asctensor", "asctile", "ascbuf", "ascendc"):
        assert lowered.as_text(level)
    out = fn(*args).numpy().astype(np.float64)
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    y = torch.relu(torch.nn.functional.conv2d(t(x), t(w1), padding=2))
    y = torch.from_numpy(y.numpy().astype(np.float16).astype(np.float64))
    ref = torch.nn.functional.conv2d(y, t(w2), padding=1).numpy()
    np.testing.assert_allclose(out, ref, rtol=0, atol=(2 ** -10 + 360 * 2 ** -24) * np.abs(ref).max())
