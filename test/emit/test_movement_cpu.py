"""Emitted movement kernels (Gather-based transpose, concat copies) built for the CPU and run,
bit-exact against the simulator."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import pyasc
from project_check import project_check

GXX = shutil.which("g++")

pytestmark = pytest.mark.skipif(GXX is None, reason="g++ is not installed: CPU runs skipped")




@pytest.mark.parametrize("style", ["queue", "flags"])
def test_transpose_and_cat_project_cpu_run(style, tmp_path):
    rng = np.random.default_rng(3)
    x = pyasc.tensor(rng.standard_normal((37, 45)), dtype=pyasc.float32)
    y = pyasc.tensor(rng.standard_normal((10, 37)), dtype=pyasc.float32)
    compiled = pyasc.jit(lambda x, y: pyasc.cat([x.T * 2, y], 0), options={"sync_style": style}).compile(x, y)
    summary = project_check(compiled, [x, y], tmp_path, exact=True)
    assert "bit-exact" in summary


def test_batch_of_small_transposes_project_cpu_run(tmp_path):
    """3x3 weights made [OC][C1][KH][KW][C0] (tiles of whole blocks, a table of runs): the CPU build agrees with
    the simulator bit for bit, and both with NumPy's transpose."""
    w = np.arange(32 * 16 * 9, dtype=np.float16).reshape(32, 1, 16, 3, 3) / 64
    x = pyasc.tensor(w, dtype=pyasc.float16)
    compiled = pyasc.jit(lambda x: x.permute(0, 1, 3, 4, 2)).compile(x)
    project_check(compiled, [x], tmp_path, exact=True)
    np.testing.assert_array_equal(compiled(x).numpy(), w.transpose(0, 1, 3, 4, 2))


def test_strided_slice_project_cpu_run(tmp_path):
    x = pyasc.tensor(np.arange(29 * 45, dtype=np.float16).reshape(29, 45) / 64, dtype=pyasc.float16)
    compiled = pyasc.jit(lambda x: x[1::3, ::2] + 1).compile(x)
    project_check(compiled, [x], tmp_path, exact=True)


@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
def test_topk_project_cpu_run(dtype, tmp_path):
    rng = np.random.default_rng(5)
    x = pyasc.tensor(rng.integers(-8, 8, size=(13, 37)) / 2, dtype=dtype)
    compiled = pyasc.jit(lambda x: pyasc.topk(x, 4, largest=False)).compile(x)
    project_check(compiled, [x], tmp_path, exact=True)


def test_negative_step_project_cpu_run(tmp_path):
    x = pyasc.tensor(np.arange(29 * 45, dtype=np.float32).reshape(29, 45), dtype=pyasc.float32)
    compiled = pyasc.jit(lambda x: x[::-2, 40:3:-3] + 1).compile(x)
    project_check(compiled, [x], tmp_path, exact=True)


@pytest.mark.parametrize("style", ["queue", "flags"])
def test_conv2d_im2col_passthrough_project_cpu_run(style, tmp_path):
    """A stride-1 convolution's im2col stores each loaded tile from the buffer it was loaded into: in the
    queue style a ``TQueBind<VECIN, VECOUT>`` (as its documentation suggests when no vector work is
    needed). The CPU build agrees with the simulator, and both with torch's convolution in float64."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    xs, ws = rng.standard_normal((2, 5, 9, 8)), rng.standard_normal((4, 5, 3, 3))
    x, w = pyasc.tensor(xs, dtype=pyasc.float32), pyasc.tensor(ws, dtype=pyasc.float32)
    compiled = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, padding=1), options={"sync_style": style}).compile(x, w)
    src = compiled.ascendc_source()
    bind = "AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT, 1>"
    assert (bind in src) == (style == "queue")
    project_check(compiled, [x, w], tmp_path, exact=False)
    out, _ = compiled.simulate(x, w)
    ref = torch.nn.functional.conv2d(torch.from_numpy(x.numpy()).double(), torch.from_numpy(w.numpy()).double(),
                                     padding=1).numpy()
    np.testing.assert_allclose(np.asarray(out, dtype=np.float64), ref, rtol=0, atol=45 * 2 ** -22 * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
def test_max_pool2d_project_cpu_run(dtype, tmp_path):
    """A max pool in one ``pool`` kernel (its rows loaded clamped, then one gather per kernel column: a table that
    repeats the first column inside the input for the window over the left padding, GatherMask picks for the
    others): the CPU build agrees with the simulator bit for bit, and both with torch's max_pool2d."""
    torch = pytest.importorskip("torch")
    xs = np.random.default_rng(8).standard_normal((2, 3, 11, 12)).astype(np.float32)
    xs[0, 0, 0, :3] = -np.inf  # a corner window whose only values are -inf
    x = pyasc.tensor(xs, dtype=dtype)
    compiled = pyasc.jit(lambda x: pyasc.nn.functional.max_pool2d(x, 3, 2, 1)).compile(x)
    assert len(compiled.kernels) == 1
    src = compiled.ascendc_source()
    # kernel column 0 gathers from input column 1 on (its column 0 repeats it); columns 1 and 2 read inside the
    # input for every output column: GatherMask picks of the even columns (pattern 1) and the odd ones (2)
    bases = [line.split(",")[-2].strip() for line in src.splitlines() if "AscendC::Gather(" in line]
    es = x.dtype.itemsize
    assert bases == [str(es)]
    assert "static_cast<uint8_t>(1), true" in src and "static_cast<uint8_t>(2), true" in src
    assert "AscendC::CreateVecIndex(" in src and "AscendC::Maxs(" in src
    project_check(compiled, [x], tmp_path, exact=True)
    ref = torch.nn.functional.max_pool2d(torch.from_numpy(x.numpy().astype(np.float32)), 3, 2, 1).numpy()
    np.testing.assert_array_equal(compiled(x).numpy().astype(np.float32), ref)


@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
def test_max_pool2d_windows_project_cpu_run(dtype, tmp_path):
    """A max pool whose gathers would leave a window (2x2, stride 2, padding 1): its windows gathered with -inf in
    the padding (one im2col kernel, then the maxima); the CPU build agrees with the simulator bit for bit, and
    both with torch's max_pool2d."""
    torch = pytest.importorskip("torch")
    xs = np.random.default_rng(9).standard_normal((2, 3, 11, 12)).astype(np.float32)
    xs[0, 0, 0, :2] = -np.inf
    x = pyasc.tensor(xs, dtype=dtype)
    compiled = pyasc.jit(lambda x: pyasc.nn.functional.max_pool2d(x, 2, 2, 1)).compile(x)
    # the im2col kernel and the maxima's launched as one, meeting at SyncAll
    assert len(compiled.kernels) == 1 and compiled.ascendc_source().count("AscendC::SyncAll();") == 1
    project_check(compiled, [x], tmp_path, exact=True)
    ref = torch.nn.functional.max_pool2d(torch.from_numpy(x.numpy().astype(np.float32)), 2, 2, 1).numpy()
    np.testing.assert_array_equal(compiled(x).numpy().astype(np.float32), ref)
