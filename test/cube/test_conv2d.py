"""conv2d through im2col (a gather kernel on the vector cores) and a batched matmul on the cube, or, for 2-byte
elements and one group, an implicit GEMM (``test_implicit_gemm.py``):
numerics against NumPy (fp32 accumulation tolerance), padding, strides, dilation, groups, bias,
inside ``pyasc.jit`` and eagerly, and the kernels the program is made of."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc
from pyasc.lowering.depthwise_decompose import PHASED_MIN_COLS, SHIFTED_MIN_COLS
from pyasc.ops_linalg import reference_conv2d

from .gxx import assert_compiles

RNG = np.random.default_rng(11)


def _rand(shape, dtype=np.float16):
    return pyasc.tensor(RNG.standard_normal(shape).astype(np.float32).astype(dtype))


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _check(out, x, w, b, stride, padding, dilation, groups):
    ref = reference_conv2d(x.numpy(), w.numpy(), None if b is None else b.numpy(), _pair(stride), _pair(padding),
                           _pair(dilation), groups)
    out = out.numpy()
    assert out.shape == ref.shape
    k = w.shape[1] * w.shape[2] * w.shape[3]
    eps = {np.dtype(np.float16): 2 ** -10, np.dtype(np.float32): 2 ** -23}[out.dtype]
    tol = (eps + k * 2 ** -24 * 4) * (np.abs(ref).max() + 1e-30) * 2
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=0, atol=tol)


@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups", [
    ((2, 3, 9, 9), (4, 3, 3, 3), 1, 0, 1, 1),
    ((2, 3, 9, 9), (4, 3, 3, 3), 1, 1, 1, 1),
    ((2, 3, 20, 18), (8, 3, 7, 7), 2, 3, 1, 1),  # the ResNet stem, small
    ((1, 3, 11, 10), (5, 3, 3, 2), (2, 1), (1, 0), 1, 1),
    ((2, 4, 9, 9), (6, 2, 3, 3), 1, 1, 1, 2),
    ((1, 8, 9, 9), (8, 2, 3, 3), 1, 2, 1, 4),
    ((1, 3, 12, 12), (4, 3, 3, 3), 1, 2, 2, 1),
    ((2, 4, 13, 13), (4, 1, 3, 3), 2, 2, 2, 4),  # depthwise, strided and dilated
])
def test_conv2d_fp16(xs, ws, stride, padding, dilation, groups):
    x, w = _rand(xs), _rand(ws)
    _check(pyasc.conv2d(x, w, None, stride, padding, dilation, groups), x, w, None, stride, padding, dilation,
           groups)


def test_resnet_stem_conv2d_full_size():
    """The issue's case: (8, 3, 224, 224) x (64, 3, 7, 7), stride 2, padding 3, fp16, compiled and
    simulated with no hazard findings; the strided im2col gathers every second input column."""
    x, w = _rand((8, 3, 224, 224)), _rand((64, 3, 7, 7))
    compiled = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3)).lower(x, w).compile()
    assert "Gather" in compiled.ascendc_source()
    out, report = compiled.simulate(x, w)
    assert report.findings == []
    _check(pyasc.tensor(out), x, w, None, 2, 3, 1, 1)


def test_depthwise_conv2d_f32_wide_rows_fits_ub():
    """A float32 depthwise 3x3 conv over 112-column rows (MobileNetV2's second layer, fewer rows):
    the im2col tile estimate ignored the planner's rounding of each buffer and overflowed UB."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2, 40, 112)).astype(np.float32)
    w = rng.standard_normal((2, 1, 3, 3)).astype(np.float32)
    out = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, None, stride=1, padding=1, groups=2))(
        pyasc.from_numpy(x), pyasc.from_numpy(w))
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, 1, 1, 1, 2).numpy()
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, "bfloat16"])
@pytest.mark.parametrize("xs,k,stride,padding,dilation", [
    ((2, 24, 14, 14), (3, 3), 1, 1, 1),
    ((1, 32, 15, 15), (3, 3), 2, 1, 1),   # 15 input rows are not twice 8 output rows: one channel per work item
    ((2, 8, 12, 10), (5, 3), (2, 1), (2, 1), 1),
    ((1, 16, 13, 13), (3, 3), 1, 2, 2),
    ((1, 8, 20, 50), (3, 3), 1, 2, 2),    # 50 output columns: the windows are slices of the padded input
    ((2, 4, 9, 64), (5, 3), 1, (2, 1), 1),
    ((1, 8, 16, 50), (3, 3), 2, 1, 1),    # 25 output columns of stride 2: slices of the input's four phases
    ((2, 6, 12, 56), (5, 5), 2, 2, 1),
    ((1, 4, 11, 52), (3, 3), 2, 1, 1),    # an odd padded height: no phases
])
def test_depthwise_conv2d_on_the_vector_unit_like_torch(dtype, xs, k, stride, padding, dilation):
    """groups = channels: im2col and one elementwise kernel of products summed in float32 with the bias
    and ReLU (no matmul kernel), against PyTorch's conv2d in float64 at the dtype's rounding."""
    torch = pytest.importorskip("torch")
    c = xs[1]
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (xs, (c, 1, *k), (c,))]
    if dtype == "bfloat16":
        arrays = [torch.from_numpy(a).bfloat16().float().numpy() for a in arrays]
        inputs = [pyasc.tensor(a).to(pyasc.bfloat16) for a in arrays]
    else:
        arrays = [a.astype(dtype).astype(np.float32) for a in arrays]
        inputs = [pyasc.tensor(a.astype(dtype)) for a in arrays]

    def f(x, w, b):
        return pyasc.relu(pyasc.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=c))

    kernels = [op.sym_name.data for op in pyasc.jit(f).lower(*inputs).module("asctile").ops
               if "asctile.kernel" in op.attributes]
    assert not [name for name in kernels if "_mm" in name]
    out = pyasc.jit(f)(*inputs).to(pyasc.float32).numpy().astype(np.float64)
    x, w, b = (torch.from_numpy(a).double() for a in arrays)
    ref = torch.relu(torch.nn.functional.conv2d(x, w, b, stride, padding, dilation, c)).numpy()
    text = pyasc.jit(f).lower(*inputs).as_text("asctensor")
    assert ("im2col %x kernel [1, 1]" in text) == (stride == 1 and ref.shape[-1] >= SHIFTED_MIN_COLS)
    padded = [size + 2 * p for size, p in zip(xs[2:], (padding, padding) if isinstance(padding, int) else padding)]
    phased = stride == 2 and dilation == 1 and padded[0] % 2 == padded[1] % 2 == 0 and ref.shape[-1] >= PHASED_MIN_COLS
    assert ("im2col %x kernel [2, 2] stride [2, 2]" in text) == phased
    eps = {np.float16: 2 ** -11, np.float32: 2 ** -24, "bfloat16": 2 ** -8}[dtype]
    np.testing.assert_allclose(out, ref, rtol=2 * eps, atol=2 * eps + k[0] * k[1] * 2 ** -22 * np.abs(ref).max())


def _random_convs(count: int, seed: int) -> list[tuple]:
    """Convolutions whose input rows are (and are not) the stride times their output rows, with padding
    wider than the kernel's reach, dilation and groups: (x shape, w shape, stride, padding, dilation, groups)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        groups = int(rng.choice([1, 1, 2, 3]))
        c, oc = groups * int(rng.integers(1, 5)), groups * int(rng.integers(1, 4))
        kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        padding = (int(rng.integers(0, 4)), int(rng.integers(0, 4)))
        oh = int(rng.integers(1, 9))
        h = stride[0] * oh if rng.random() < 0.5 else int(rng.integers(1, 20))  # evenly spaced rows, or not
        w = int(rng.integers(1, 20))
        if h + 2 * padding[0] < dilation[0] * (kh - 1) + 1 or w + 2 * padding[1] < dilation[1] * (kw - 1) + 1:
            continue
        out.append(((int(rng.integers(1, 3)), c, h, w), (oc, c // groups, kh, kw), stride, padding, dilation, groups))
    return out


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_random_conv2d_like_torch":  # --random-long: 300 cases instead of 24
        count = 300 if metafunc.config.getoption("--random-long") else 24
        metafunc.parametrize("xs,ws,stride,padding,dilation,groups", _random_convs(count, 2026))


def test_random_conv2d_like_torch(xs, ws, stride, padding, dilation, groups):
    """Random geometry in float32 against PyTorch in float64: the patches' chunks of channels or rows, the
    zeros of the padding on every side and the rows between channels' rectangles."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    out = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, None, stride, padding, dilation, groups))(
        pyasc.tensor(x), pyasc.tensor(w)).numpy()
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).double(), torch.from_numpy(w).double(), None, stride,
                                     padding, dilation, groups).numpy()
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(ref).max()))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("groups", [1, 2])
def test_pointwise_conv2d_reads_its_input_as_the_patches(dtype, groups):
    """A 1x1 kernel at stride 1 without padding: no im2col kernel, the matmul reads the input; against
    PyTorch's conv2d in float64."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 32, 9, 7)).astype(dtype)
    w = rng.standard_normal((48, 32 // groups, 1, 1)).astype(dtype)
    f = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=1, padding=0, groups=groups))
    xt, wt = pyasc.tensor(x), pyasc.tensor(w)
    kernels = [op.sym_name.data for op in f.lower(xt, wt).module("asctile").ops if "asctile.kernel" in op.attributes]
    assert not [name for name in kernels if "im2col" in name]
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).double(), torch.from_numpy(w).double(), None, 1, 0, 1,
                                     groups).numpy()
    eps = 2 ** -11 if dtype == np.float16 else 2 ** -24
    np.testing.assert_allclose(f(xt, wt).numpy().astype(np.float64), ref, rtol=2 * eps,
                               atol=2 * eps + 32 * 2 ** -22 * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_conv2d_bias_jit(dtype):
    x, w, b = _rand((2, 4, 8, 8), dtype), _rand((6, 2, 3, 3), dtype), _rand((6,), dtype)

    @pyasc.jit
    def f(x, w, b):
        return pyasc.relu(pyasc.conv2d(x, w, b, stride=1, padding=1, groups=2))

    out = f(x, w, b)
    ref = np.maximum(reference_conv2d(x.numpy(), w.numpy(), b.numpy(), (1, 1), (1, 1), (1, 1), 2), 0)
    k = 2 * 9
    eps = 2 ** -10 if dtype == np.float16 else 2 ** -23
    np.testing.assert_allclose(out.numpy().astype(np.float64), ref, rtol=0,
                               atol=(eps + k * 2 ** -22) * np.abs(ref).max() * 2)


def test_conv2d_kernels_and_emitted_source():
    x, w = _rand((1, 3, 10, 10)), _rand((4, 3, 3, 3))

    @pyasc.jit
    def f(x, w):
        return pyasc.conv2d(x, w, stride=2, padding=1)

    mod = f.lower(x, w).module("asctile")
    kernels = [op for op in mod.ops if "asctile.kernel" in op.attributes]
    # the gather on the vector cores, the transpose of the weight to the patches' (kh, kw, c) order
    # (a constant weight folds away) and the matmul on the cube, which reads the float32 patches as a K x N B
    # (LoadDataWithTranspose)
    assert len(kernels) == 3
    src = f.lower(x, w).compile().ascendc_source()
    for api in ("DataCopyPad", "Duplicate", "AscendC::MmadParams", "AscendC::FixpipeParamsV220"):
        assert api in src
    assert_compiles(src)


def test_conv2d_bad_input_names_op_shapes_and_line():
    x, w = _rand((1, 6, 8, 8)), _rand((4, 4, 3, 3))
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.conv2d: channels 6 \(input\) and 4 \(output\) must both "
                                               r"divide by groups = 4 .*\(1, 6, 8, 8\).*test_conv2d\.py:\d+"):
        pyasc.conv2d(x, w, groups=4)
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.conv2d: weight \[4, 5, 3, 3\] has 5 input channels per group, "
                                               r"input \[1, 6, 8, 8\].*test_conv2d\.py:\d+"):
        pyasc.jit(lambda x, w: pyasc.conv2d(x, w))(x, _rand((4, 5, 3, 3)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_conv2d_of_a_uniform_constant_weight_like_torch(dtype):
    """A constant weight whose elements are all equal (a 1x1x1x1 one) is a splat after decomposition; the cube still
    reads it from GM. Against PyTorch, with padding that leaves output pixels only padding sees."""
    import torch
    import torch.nn.functional as F

    x = RNG.standard_normal((1, 1, 3, 3)).astype(dtype)
    w, b = np.full((1, 1, 1, 1), 1.5, dtype), np.array([0.25], dtype)
    wt, bt = pyasc.tensor(w), pyasc.tensor(b)
    out = pyasc.jit(lambda x: pyasc.conv2d(x, wt, bt, stride=2, padding=1))(pyasc.tensor(x)).numpy()
    ref = F.conv2d(*(torch.from_numpy(a.astype(np.float32)) for a in (x, w, b)), stride=2, padding=1).numpy()
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-3)
