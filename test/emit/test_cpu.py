"""Emitted projects end to end: written, syntax-checked with g++ against the stubs, built for the
CPU (pyasc's implementation of the Ascend C subset) and run, compared with the simulator.

Programs of exactly rounded ops (add, sub, mul, div, max, min, sqrt, abs, relu, casts) must match
the simulator bit for bit; exp/ln (correctly rounded on the CPU, within 2 ulp in the simulator), sin/cos/tan and
gelu's composite are compared within the golden tolerance.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyasc
from project_check import project_check
from pyasc.lowering.emit.cpu import CpuRunError, cpu_run
from pyasc.lowering.emit.host import TOLERANCE

GXX = shutil.which("g++")
pytestmark = pytest.mark.skipif(GXX is None, reason="g++ is not installed: CPU runs skipped")

HERE = Path(__file__).resolve().parent


def exact_prog(x, y):
    return pyasc.relu(x * y + 1.5) - x / (y * y + 1.0)


def minmax_prog(x, y):
    return pyasc.maximum(x, y) * pyasc.minimum(x, y) + pyasc.sqrt(pyasc.abs(x))


def transcendental_prog(x, y):
    return pyasc.exp(x) + pyasc.log(pyasc.abs(y) + 1.0)


def trig_prog(x, y):
    return pyasc.sin(x) + pyasc.cos(y) * pyasc.tan(x * 0.5)


def gelu_prog(x, y):
    return pyasc.gelu(x * y + 1.5)


def two_outputs(x, y):
    return x + y, x * y


PROGRAMS = {
    "exact": (exact_prog, True),
    "minmax": (minmax_prog, True),
    "transcendental": (transcendental_prog, False),
    "gelu": (gelu_prog, False),
    "trig": (trig_prog, False),
}


def _have(name):
    return hasattr(pyasc, name)




@pytest.mark.parametrize("style", ["queue", "flags"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("prog", list(PROGRAMS))
def test_elementwise_project_cpu_run(prog, dtype, style, tmp_path):
    fn, exact_f32 = PROGRAMS[prog]
    rng = np.random.default_rng(1)
    d = pyasc.get_dtype(dtype)
    x = pyasc.tensor(rng.standard_normal((37, 129)), dtype=d)
    y = pyasc.tensor(rng.standard_normal((37, 129)), dtype=d)
    compiled = pyasc.jit(fn, options={"sync_style": style}).compile(x, y)
    project_check(compiled, [x, y], tmp_path, exact=exact_f32 and dtype == "float32")


@pytest.mark.parametrize("style", ["queue", "flags"])
def test_two_outputs_and_small_tiles(style, tmp_path):
    rng = np.random.default_rng(2)
    x = pyasc.tensor(rng.standard_normal(5000), dtype=pyasc.float32)
    y = pyasc.tensor(rng.standard_normal(5000), dtype=pyasc.float32)
    compiled = pyasc.jit(two_outputs, options={"sync_style": style, "tile_size": 256, "cores": 3}).compile(x, y)
    summary = project_check(compiled, [x, y], tmp_path, exact=True)
    assert summary.count("bit-exact") == 2


def test_cpu_run_api_returns_outputs(add_flags):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(4096).astype(np.float32), rng.standard_normal(4096).astype(np.float32)
    res = cpu_run(add_flags, [x, y])
    assert list(res.outputs) == ["z"]
    assert np.array_equal(res.outputs["z"], x + y)
    assert res.passed is None  # no goldens given
    res = cpu_run(add_flags, {"x": x, "y": y}, goldens={"z": x + y})
    assert res.passed is True and res.compared


def test_cpu_run_fp16_queue_fixture(add_queue):
    x = np.linspace(-3, 3, 1000).astype(np.float16)
    y = np.linspace(2, -1, 1000).astype(np.float16)
    res = cpu_run(add_queue, [x, y])
    expect = (np.maximum(x + y, np.float16(0)) * np.float16(1.5)).astype(np.float16)
    assert np.array_equal(res.outputs["z"], expect)


def test_cpu_mode_reports_misuse(add_flags, parse_mlir):
    """A kernel that waits on a flag nobody set fails with a message naming the call."""
    text = (HERE.parent / "fixtures" / "add_flags.mlir").read_text()
    text = text.replace("    ascendc.set_flag V_MTE2, %c0\n", "", 1)
    with pytest.raises(CpuRunError, match="WaitFlag: event .* was never set"):
        cpu_run(parse_mlir(text), [np.zeros(4096, np.float32)] * 2)


def test_half_conversions_round_to_nearest_even(tmp_path):
    """half and bfloat16_t of the CPU mode agree with NumPy / ml_dtypes on every float16 value and
    on random float32 values (including ties, subnormals, overflow, NaN)."""
    import ml_dtypes

    from pyasc.lowering.emit.project import CPU_DIR
    from pyasc.lowering.emit.syntax import INCLUDE_DIR

    src = tmp_path / "conv.cpp"
    src.write_text(r"""
#include <cstdio>
#include <cstring>
#include <vector>
#include "kernel_operator.h"
int main(int argc, char** argv) {
    FILE* f = std::fopen(argv[1], "rb");
    std::vector<float> in(1 << 20);
    size_t n = std::fread(in.data(), 4, in.size(), f);
    std::fclose(f);
    std::vector<uint16_t> h(n), b(n);
    std::vector<float> back(n);
    for (size_t i = 0; i < n; ++i) {
        half x(in[i]);
        bfloat16_t y(in[i]);
        h[i] = x.bits;
        b[i] = y.bits;
        back[i] = static_cast<float>(x);
    }
    f = std::fopen(argv[2], "wb");
    std::fwrite(h.data(), 2, n, f);
    std::fwrite(b.data(), 2, n, f);
    std::fwrite(back.data(), 4, n, f);
    std::fclose(f);
}
""")
    exe = tmp_path / "conv"
    build = subprocess.run([GXX, "-std=c++17", "-DPYASC_CPU", f"-I{INCLUDE_DIR}", f"-I{CPU_DIR}", str(src),
                            str(CPU_DIR / "pyasc_cpu.cpp"), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    rng = np.random.default_rng(0)
    all_half = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    ties = (np.arange(1 << 16, dtype=np.uint32) << 13 | 0x1000).view(np.float32)  # exactly between halves
    vals = np.concatenate([all_half, ties, rng.standard_normal(100000).astype(np.float32) * 1e3,
                           rng.standard_normal(10000).astype(np.float32) * 1e-6,
                           np.array([65504, 65519.99, 65520, 1e9, -1e9, np.inf, -np.inf, 2.0 ** -25,
                                     2.0 ** -25 * 1.0001, 5.96e-8, 0.0, -0.0], np.float32)])
    (tmp_path / "in.bin").write_bytes(vals.tobytes())
    run = subprocess.run([str(exe), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")], capture_output=True)
    assert run.returncode == 0
    raw = (tmp_path / "out.bin").read_bytes()
    n = vals.size
    h = np.frombuffer(raw[: 2 * n], np.uint16)
    b = np.frombuffer(raw[2 * n: 4 * n], np.uint16)
    back = np.frombuffer(raw[4 * n:], np.float32)
    ok = ~np.isnan(vals)
    assert np.array_equal(h[ok], vals[ok].astype(np.float16).view(np.uint16))
    assert np.array_equal(b[ok], vals[ok].astype(ml_dtypes.bfloat16).view(np.uint16))
    assert np.array_equal(back[ok], vals[ok].astype(np.float16).astype(np.float32))
    assert np.all(np.isnan(back[~ok]))


CUBE_REDUCE_TEST = r"""
#include <cmath>
#include <cstdio>
#include <cstring>
#include "kernel_operator.h"
#include "pyasc_cpu_launch.h"
using namespace AscendC;
// C[M,N] = A[M,K] x B[K,N]: GM (ND) -> L1 (NZ) -> L0A/L0B -> Mmad -> Fixpipe (ND); plus reductions
constexpr int M = 32, K = 32, N = 48;
extern "C" __global__ __aicore__ void kern(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR r) {
    GlobalTensor<half> aG, bG; GlobalTensor<float> cG, rG;
    aG.SetGlobalBuffer((__gm__ half*)a, M * K); bG.SetGlobalBuffer((__gm__ half*)b, K * N);
    cG.SetGlobalBuffer((__gm__ float*)c, M * N); rG.SetGlobalBuffer((__gm__ float*)r, 64);
    LocalTensor<half> a1(TPosition::A1, 0, M * K), b1(TPosition::B1, 8192, K * N);
    LocalTensor<half> a2(TPosition::A2, 0, M * K), b2(TPosition::B2, 0, K * N);
    LocalTensor<float> c1(TPosition::CO1, 0, M * N);
    DataCopy(a1, aG, Nd2NzParams{1, M, K, 0, K, M, 1, 0});
    DataCopy(b1, bG, Nd2NzParams{1, K, N, 0, N, K, 1, 0});
    SetFlag<HardEvent::MTE2_MTE1>(0); WaitFlag<HardEvent::MTE2_MTE1>(0);
    for (int i = 0; i < M / 16; ++i) {  // A: NZ -> ZZ, one 16-row stripe per call
        LoadData(a2[i * 16 * K], a1, LoadData2DParams{static_cast<uint16_t>(i), K / 16, M / 16, 0, 0, false, 0});
    }
    for (int i = 0; i < K / 16; ++i) {  // B: NZ -> ZN, transposed fractals
        LoadData(b2[i * 16 * N], b1, LoadData2DParams{static_cast<uint16_t>(i), N / 16, K / 16, 0, 0, true, 0});
    }
    Mmad(c1, a2, b2, MmadParams{M, N, K, 0, false, true});
    Fixpipe(cG, c1, FixpipeParamsV220{N, M, M, N, false});
    LocalTensor<float> v(TPosition::VECCALC, 0, 256), w(TPosition::VECCALC, 1024, 256), o(TPosition::VECCALC, 2048, 256);
    DataCopy(v, cG, 256);
    ReduceSum(o, v, w, 200); DataCopy(w, o, 8); rG.SetValue(0, w.GetValue(0));
    ReduceMax(o, v, w, 200, true); rG.SetValue(1, o.GetValue(0)); float fi = o.GetValue(1); uint32_t bi; std::memcpy(&bi, &fi, 4); rG.SetValue(2, static_cast<float>(bi));
    WholeReduceSum(o, v, 64, 3, 1, 1, 8); rG.SetValue(3, o.GetValue(0)); rG.SetValue(4, o.GetValue(2));
    Brcb(o, v, 1, BrcbRepeatParams{1, 8}); rG.SetValue(5, o.GetValue(8 * 3 + 5));
}
int main() {
    half a[M * K], b[K * N]; float c[M * N], r[64] = {};
    for (int i = 0; i < M * K; ++i) a[i] = half(static_cast<float>((i * 7) % 11 - 5) / 4.0f);
    for (int i = 0; i < K * N; ++i) b[i] = half(static_cast<float>((i * 5) % 13 - 6) / 8.0f);
    pyasc_cpu::Launch("kern", 1, [&]() { kern((GM_ADDR)a, (GM_ADDR)b, (GM_ADDR)c, (GM_ADDR)r); });
    int bad = 0;
    for (int m = 0; m < M; ++m) for (int n = 0; n < N; ++n) {
        float s = 0; for (int k = 0; k < K; ++k) s += float(a[m * K + k]) * float(b[k * N + n]);
        if (std::fabs(s - c[m * N + n]) > 1e-4f) ++bad;
    }
    double sum = 0; float mx = c[0]; int mi = 0;
    for (int i = 0; i < 200; ++i) { sum += c[i]; if (c[i] > mx) { mx = c[i]; mi = i; } }
    double s0 = 0, s2 = 0; for (int i = 0; i < 64; ++i) { s0 += c[i]; s2 += c[128 + i]; }
    bool ok = bad == 0 && std::fabs(r[0] - sum) < 1e-3 && r[1] == mx && r[2] == mi && std::fabs(r[3] - s0) < 1e-3
              && std::fabs(r[4] - s2) < 1e-3 && r[5] == c[3];
    std::printf("%d %g %g %g %g %g %g -> %s\n", bad, r[0], sum, r[1], r[2], r[3], r[5], ok ? "OK" : "BAD");
    return ok ? 0 : 1;
}
"""


def test_cpu_cube_path_and_reductions(tmp_path):
    """The cube path (Nd2Nz copy, LoadData, Mmad, Fixpipe) and the reductions of the CPU mode
    compute a matmul and reduce its rows as documented (independent of the compiler's lowering)."""
    from pyasc.lowering.emit.project import CPU_DIR
    from pyasc.lowering.emit.syntax import INCLUDE_DIR, syntax_check

    src = tmp_path / "cube.cpp"
    src.write_text(CUBE_REDUCE_TEST)
    ok, diag = syntax_check(src, INCLUDE_DIR, extra_includes=[CPU_DIR])  # valid against the declarations alone
    assert ok, diag
    exe = tmp_path / "cube"
    build = subprocess.run([GXX, "-std=c++17", "-DPYASC_CPU", f"-I{INCLUDE_DIR}", f"-I{CPU_DIR}", str(src),
                            str(CPU_DIR / "pyasc_cpu.cpp"), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(not _have("softmax"), reason="pyasc.softmax does not exist yet")
@pytest.mark.parametrize("style", ["queue", "flags"])
def test_softmax_project_cpu_run(style, tmp_path):
    rng = np.random.default_rng(3)
    x = pyasc.tensor(rng.standard_normal((16, 200)), dtype=pyasc.float32)
    compiled = pyasc.jit(lambda t: pyasc.softmax(t, -1), options={"sync_style": style}).compile(x)
    project_check(compiled, [x], tmp_path, exact=False)


@pytest.mark.skipif(not _have("softmax"), reason="pyasc.softmax does not exist yet")
@pytest.mark.parametrize("style", ["queue", "flags"])
@pytest.mark.parametrize("op, rows", [("softmax", 1), ("log_softmax", 2)])
def test_long_row_softmax_project_cpu_run(op, rows, style, tmp_path):
    """Rows longer than UB with a tail beside the pieces: the second kernel's row prologue (loads of the
    pieces' statistics, reductions, GetValue of per-row values; before the loop for one row, per tile
    for several) builds and runs like the simulator."""
    rng = np.random.default_rng(6)
    x = pyasc.tensor(rng.standard_normal((rows, 40001)), dtype=pyasc.float32)
    compiled = pyasc.jit(lambda t: getattr(pyasc, op)(t, -1), options={"sync_style": style}).compile(x)
    # with a TPipe the two kernels are launched as one, their parts meeting at SyncAll (ascendc-merge-launches)
    assert len(compiled.kernels) == (1 if style == "queue" else 2)
    assert compiled.ascendc_source().count("AscendC::SyncAll();") == (1 if style == "queue" else 0)
    project_check(compiled, [x], tmp_path, exact=False)


@pytest.mark.parametrize("style", ["queue", "flags"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_scalar_input_project_cpu_run(style, dtype, tmp_path):
    """A whole-tensor reduction used as a scalar by the next kernel (read once with GetValue, the scalar
    of Adds and Muls): bit-exact with the simulator, as both compute x + (-m) and x * m."""
    rng = np.random.default_rng(5)
    x = pyasc.tensor(rng.standard_normal((37, 129)), dtype=pyasc.get_dtype(dtype))
    compiled = pyasc.jit(lambda t: (t - t.max()) * t.min(), options={"sync_style": style}).compile(x)
    text = compiled.as_text()
    assert "ascendc.adds" in text and "ascendc.muls" in text and "ascendc.get_value" in text
    summary = project_check(compiled, [x], tmp_path, exact=True)
    assert "bit-exact" in summary


@pytest.mark.skipif(not _have("matmul"), reason="pyasc.matmul does not exist yet")
def test_matmul_project_cpu_run(tmp_path):
    rng = np.random.default_rng(4)
    a = pyasc.tensor(rng.standard_normal((64, 64)), dtype=pyasc.float16)
    b = pyasc.tensor(rng.standard_normal((64, 64)), dtype=pyasc.float16)
    compiled = pyasc.jit(lambda x, y: pyasc.matmul(x, y)).compile(a, b)
    project_check(compiled, [a, b], tmp_path, exact=False)


def test_implicit_gemm_conv_project_cpu_run(tmp_path):
    """A convolution as an implicit GEMM (the input rows copied by ND2NZ, the patches formed in L0B by Load3Dv2; 52
    channels in four 16-channel groups, the last partly zeros) built with g++ and run on the CPU: against the
    simulator's outputs, and every program's output against PyTorch's conv2d in float64."""
    import torch

    rng = np.random.default_rng(6)
    xn = rng.standard_normal((1, 52, 9, 11)).astype(np.float16)
    wn = (rng.standard_normal((24, 52, 3, 3)) * 0.2).astype(np.float16)
    x, w = pyasc.tensor(xn), pyasc.tensor(wn)
    compiled = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=1),
                         options={"conv": "implicit_gemm"}).compile(x, w)
    assert "LoadData3DParamsV2" in compiled.ascendc_source()
    project_check(compiled, [x, w], tmp_path, exact=False)
    res = cpu_run(compiled.module, [xn, wn, *compiled.constants], host=compiled.name)  # a float16 stem: its table
    (cpu,) = res.outputs.values()
    ref = torch.nn.functional.conv2d(torch.from_numpy(xn.astype(np.float64)), torch.from_numpy(wn.astype(np.float64)),
                                     stride=2, padding=1).numpy()
    np.testing.assert_allclose(cpu.astype(np.float64).reshape(ref.shape), ref, rtol=0,
                               atol=(2 ** -10 + 468 * 2 ** -24) * np.abs(ref).max())


MIX_PROLOGUE_CASES = {  # x, w, stride, padding, what the source must hold
    # the AIVs lay the NCHW input out as NHWC (TransDataTo5HD)
    "nchw": ((2, 32, 12, 10), (24, 32, 3, 3), 1, 1, ("TransDataTo5HD", "LoadData3DParamsV2")),
    # 3 channels rewritten space to depth: the AIVs build the phase image (GatherMask of the column phases,
    # TransDataTo5HD of the phases into pixels)
    "phases": ((2, 3, 32, 64), (16, 3, 7, 7), 2, 3, ("GatherMask", "TransDataTo5HD")),
}


@pytest.mark.parametrize("case", sorted(MIX_PROLOGUE_CASES))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_conv_prologue_mix_project_cpu_run(case, dtype, tmp_path):
    """A convolution whose AIVs lay its input out while the AIC computes (``tile-conv-prologue``; its three cores run
    on threads, the AIC waiting for what the AIVs stage) built with g++ and run on the CPU: against the simulator's
    outputs, and the CPU's output against PyTorch's conv2d in float64."""
    import torch

    xs, ws, stride, padding, calls = MIX_PROLOGUE_CASES[case]
    rng = np.random.default_rng(7)
    xn = rng.standard_normal(xs).astype(dtype)
    wn = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(dtype)
    x, w = pyasc.tensor(xn), pyasc.tensor(wn)
    compiled = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding)).compile(x, w)
    source = compiled.ascendc_source()
    assert "KERNEL_TYPE_MIX_AIC_1_2" in source and all(c in source for c in calls)
    project_check(compiled, [x, w], tmp_path, exact=False)
    res = cpu_run(compiled.module, [xn, wn, *compiled.constants], host=compiled.name)  # a float16 stem: its table
    (cpu,) = res.outputs.values()
    ref = torch.nn.functional.conv2d(torch.from_numpy(xn.astype(np.float64)), torch.from_numpy(wn.astype(np.float64)),
                                     stride=stride, padding=padding).numpy()
    eps = 2 ** -10 if dtype == "float16" else 2 ** -23
    np.testing.assert_allclose(cpu.astype(np.float64).reshape(ref.shape), ref, rtol=0,
                               atol=(eps + int(np.prod(ws[1:])) * 2 ** -24) * np.abs(ref).max())


def test_stem_weights_laid_out_by_its_mix_kernel_cpu_run(tmp_path):
    """A float16 stem whose weights are an argument: its AIVs load the weight rows with DataCopyPad's zero right
    padding, transpose them, Gatherb the rows of positions and transpose back (``asctensor-fuse-conv-weights``);
    built with g++ and run on the CPU against the simulator's outputs, and against PyTorch's conv2d."""
    import torch

    rng = np.random.default_rng(8)
    xn = rng.standard_normal((2, 3, 32, 64)).astype(np.float16)
    wn = (rng.standard_normal((32, 3, 7, 7)) / np.sqrt(147)).astype(np.float16)
    x, w = pyasc.tensor(xn), pyasc.tensor(wn)
    compiled = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3)).compile(x, w)
    source = compiled.ascendc_source()
    assert "AscendC::Gatherb<uint16_t>" in source and "DataCopyPadExtParams<half>{true, 0, 13, 0}" in source
    project_check(compiled, [x, w], tmp_path, exact=False)
    res = cpu_run(compiled.module, [xn, wn, *compiled.constants], host=compiled.name)
    (cpu,) = res.outputs.values()
    ref = torch.nn.functional.conv2d(torch.from_numpy(xn.astype(np.float64)), torch.from_numpy(wn.astype(np.float64)),
                                     stride=2, padding=3).numpy()
    np.testing.assert_allclose(cpu.astype(np.float64).reshape(ref.shape), ref, rtol=0,
                               atol=(2 ** -10 + 147 * 2 ** -24) * np.abs(ref).max())


def test_cli_cpu_run(tmp_path, capsys):
    from pyasc.cli import main

    prog = tmp_path / "m.py"
    prog.write_text("import pyasc\n\ndef f(x, y):\n    return pyasc.relu(x * y + 1.5) - x\n")
    out = tmp_path / "out"
    assert main(["compile", f"{prog}:f", "--shape", "40x70", "--out", str(out), "--cpu-run"]) == 0
    text = capsys.readouterr().out
    assert "bit-exact" in text and "cpu-run: PASS" in text
    assert (out / "input" / "x.bin").is_file() and (out / "golden" / "out0.bin").is_file()
    # an existing folder needs --force
    assert main(["compile", f"{prog}:f", "--shape", "40x70", "--out", str(out)]) == 1
    assert "--force" in capsys.readouterr().err


def test_opt_project_target(tmp_path):
    """pyasc-opt traced.mlir -p compile -t ascendc-project{out=DIR}: the project with data."""
    prog = tmp_path / "m.py"
    prog.write_text("import pyasc\n\ndef f(x, y):\n    return x * y - y\n")
    traced = subprocess.run([sys.executable, "-m", "pyasc.cli", "dump", f"{prog}:f", "--shape", "64x64",
                             "--level", "traced"], capture_output=True, text=True)
    assert traced.returncode == 0, traced.stderr
    mlir = tmp_path / "f.mlir"
    mlir.write_text(traced.stdout)
    out = tmp_path / "proj"
    opt = [sys.executable, "-m", "pyasc.opt"]
    r = subprocess.run([*opt, str(mlir), "-p", "compile", "-t", f'ascendc-project{{out="{out}"}}'],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "wrote 15 files" in r.stdout
    for rel in ["kernel/f_k0.asc", "host/main.asc", "host/f_tiling.h", "CMakeLists.txt", "run.sh", "README.md",
                "include/kernel_operator.h", "cpu/pyasc_cpu.cpp", "input/x.bin", "golden/out0.bin"]:
        assert (out / rel).is_file(), rel
    run = subprocess.run(["bash", str(out / "run.sh"), "cpu"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    # the legacy ascendc_library flow builds and runs on the CPU too
    legacy = tmp_path / "legacy"
    r = subprocess.run([*opt, str(mlir), "-p", "compile", "-t",
                        f'ascendc-project{{out="{legacy}" build_flow=ascendc_library}}'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (legacy / "kernel" / "f_k0.cpp").is_file() and (legacy / "host" / "main.cpp").is_file()
    run = subprocess.run(["bash", str(legacy / "run.sh"), "cpu"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    # not overwritten without force
    r = subprocess.run([*opt, str(mlir), "-p", "compile", "-t", f'ascendc-project{{out="{out}"}}'],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "force" in r.stderr and "Traceback" not in r.stderr


def test_write_project_data_tolerance_in_host():
    assert set(TOLERANCE) >= {"f16", "bf16", "f32"}


def test_ascendc_op_without_a_call_is_named(parse_mlir, monkeypatch):
    """An ascendc op whose class gives no Ascend C form: the error names it; with its ``CALL`` back it prints."""
    from xdsl.dialects.builtin import ModuleOp

    from pyasc.lowering.emit import EmitError, kernel_source
    from pyasc.dialects import ascendc as A

    text = (HERE.parent / "fixtures" / "add_flags.mlir").read_text()
    module = parse_mlir(text)
    monkeypatch.setattr(A.AddOp, "CALL", "")
    with pytest.raises(EmitError, match=r"kernel @\w+: op 'ascendc.add'( \(at [^)]*\))? has no Ascend C form"):
        kernel_source(module)
    monkeypatch.undo()
    assert "AscendC::Add(" in kernel_source(module)
    assert isinstance(module, ModuleOp)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_linear_bias_table_project_cpu_run(dtype, tmp_path):
    """``relu(linear(x, w, b))`` as one cube kernel whose first Mmad of each block starts from the bias in BiasTable
    (``DataCopy`` C1 -> C2, float16 widened; ``Mmad`` with a bias) built with g++ and run on the CPU: against the
    simulator's outputs, and the CPU's output against PyTorch in float64. N = 70 leaves a tail block whose bias row
    is not whole 64 B units."""
    import torch

    rng = np.random.default_rng(8)
    xn = rng.standard_normal((50, 96)).astype(dtype)
    wn = (rng.standard_normal((70, 96)) * 0.1).astype(dtype)
    bn = rng.standard_normal(70).astype(dtype)
    compiled = pyasc.jit(lambda x, w, b: pyasc.relu(pyasc.linear(x, w, b))).compile(*(pyasc.tensor(a) for a in (xn, wn, bn)))
    source = compiled.ascendc_source()
    assert "TPosition::C2" in source and "KERNEL_TYPE_MIX" not in source
    project_check(compiled, [pyasc.tensor(a) for a in (xn, wn, bn)], tmp_path, exact=False)
    res = cpu_run(compiled.module, [xn, wn, bn], host=compiled.name)
    (cpu,) = res.outputs.values()
    ref = torch.relu(torch.nn.functional.linear(*(torch.from_numpy(a.astype(np.float64)) for a in (xn, wn, bn))))
    eps = 2 ** -10 if dtype == "float16" else 2 ** -23
    np.testing.assert_allclose(cpu.astype(np.float64).reshape(ref.shape), ref.numpy(), rtol=0,
                               atol=(eps + 96 * 2 ** -24) * (np.abs(ref.numpy()).max() + 1))


@pytest.mark.parametrize("style", ["queue", "flags"])
def test_matmul_epilogue_mix_project_cpu_run(style, tmp_path):
    """A matmul + bias + gelu + residual MIX kernel (KERNEL_TYPE_MIX_AIC_1_2, cross-core flags, the host's
    workspace) builds, runs on the CPU (per block the AIC and its two AIVs on three threads) and matches the
    simulator."""
    rng = np.random.default_rng(5)
    x = pyasc.tensor(rng.standard_normal((130, 96)), dtype=pyasc.float16)
    w = pyasc.tensor(rng.standard_normal((96, 70)), dtype=pyasc.float16)
    b = pyasc.tensor(rng.standard_normal((70,)), dtype=pyasc.float16)
    r = pyasc.tensor(rng.standard_normal((130, 70)), dtype=pyasc.float16)
    compiled = pyasc.jit(lambda x, w, b, r: pyasc.gelu(x @ w + b) + r, options={"sync_style": style}).compile(x, w, b, r)
    assert len(compiled.kernels) == 1
    project_check(compiled, [x, w, b, r], tmp_path, exact=False)
    src = [*(tmp_path / "proj" / "kernel").glob("*.asc"), tmp_path / "proj" / "host" / "main.asc"]
    text = "\n".join(p.read_text() for p in src)
    for needle in ("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)", "if ASCEND_IS_AIC", "if ASCEND_IS_AIV",
                   "CrossCoreSetFlag<2, PIPE_FIX>", "CrossCoreWaitFlag(", "GetSubBlockIdx()", "aclrtMalloc"):
        assert needle in text, needle


def test_cpu_mode_reports_a_cross_core_wait_no_core_satisfies():
    """The AIC's CrossCoreSetFlags of a MIX kernel removed: its AIVs wait for a flag no core of the AI Core will
    set; the CPU program stops with that message instead of hanging (on the device it waits forever)."""
    from pyasc.dialects import ascendc

    rng = np.random.default_rng(5)
    x = pyasc.tensor(rng.standard_normal((64, 32)), dtype=pyasc.float16)
    w = pyasc.tensor(rng.standard_normal((32, 48)), dtype=pyasc.float16)
    b = pyasc.tensor(rng.standard_normal((48,)), dtype=pyasc.float16)
    compiled = pyasc.jit(lambda x, w, b: pyasc.gelu(x @ w + b)).compile(x, w, b)
    aic = next(s for s in compiled.module.walk()
               if isinstance(s, ascendc.CoreSectionOp) and s.core.data == ascendc.CoreKind.AIC)
    sets = [op for op in aic.walk() if isinstance(op, ascendc.CrossCoreSetFlagOp)]
    assert sets
    for op in sets:
        op.detach()
        op.erase()
    # the AIVs wait for the results, the AIC for their credits: whichever blocks last reports it
    with pytest.raises(CpuRunError, match=r"CrossCoreWaitFlag\(\d\) on the (AIC|AIV [01]): no core of the AI Core "
                                          r"will set it"):
        cpu_run(compiled.module, [t.numpy() for t in (x, w, b)], host=compiled.name)


@pytest.mark.parametrize("style", ["queue", "flags"])
def test_int8_conversions_cpu_run_bit_exact(style, tmp_path):
    rng = np.random.default_rng(6)
    x = pyasc.tensor((rng.standard_normal((9, 70)) * 300).astype(np.float32))

    def qdq(x):
        q = x.to(pyasc.int8)
        return q, q.to(pyasc.float32) * 0.5

    compiled = pyasc.jit(qdq, options={"sync_style": style}).compile(x)
    summary = project_check(compiled, [x], tmp_path, exact=True)
    assert "i8" in summary and "bit-exact" in summary


@pytest.mark.parametrize("flow", ["asc", "ascendc_library"])
@pytest.mark.parametrize("style", ["queue", "flags"])
def test_both_build_flows_run_on_the_cpu_against_numpy(flow, style, tmp_path):
    """softmax (in flags style a TPipe kernel whose event ids come from AllocEventID) built in either CMake
    flow's layout, run on the CPU and compared with NumPy."""
    from pyasc.lowering.emit.cpu import build_project, run_project
    from pyasc.lowering.emit.host import host_plan

    x = np.random.default_rng(8).standard_normal((37, 300)).astype(np.float32)
    compiled = pyasc.jit(lambda t: pyasc.softmax(t, -1), options={"sync_style": style}).compile(pyasc.tensor(x))
    out = tmp_path / "proj"
    compiled.write_project(out, inputs=[pyasc.tensor(x)], flow=flow)
    src = (out / "host" / ("main.asc" if flow == "asc" else "main.cpp")).read_text()
    assert ("#include \"../kernel/" in src) == (flow == "asc")
    res = run_project(out, build_project(out), host_plan(compiled.module, compiled.name))
    assert res.passed, res.stdout + res.stderr
    want = np.exp(x - x.max(-1, keepdims=True))
    want /= want.sum(-1, keepdims=True)
    got = next(iter(res.outputs.values())).reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    kernel = next((out / "kernel").iterdir()).read_text()
    if style == "flags":  # a TPipe kernel: its event ids from the pipe, none written as a literal
        assert "AllocEventID<" in kernel and "ReleaseEventID<" in kernel
        assert not re.search(r"(Set|Wait)Flag<[^>]*>\(\d+\)", kernel), kernel


def _run_cpu_snippet(tmp_path, body: str) -> subprocess.CompletedProcess:
    """Build a main() of Ascend C calls (CPU mode) and run it."""
    from pyasc.lowering.emit.project import CPU_DIR
    from pyasc.lowering.emit.syntax import INCLUDE_DIR

    src = tmp_path / "snippet.cpp"
    src.write_text('#include "kernel_operator.h"\nint main() {\n' + body + "\n    return 0;\n}\n")
    exe = tmp_path / "snippet"
    build = subprocess.run([GXX, "-std=c++17", "-DPYASC_CPU", f"-I{INCLUDE_DIR}", f"-I{CPU_DIR}", str(src),
                            str(CPU_DIR / "pyasc_cpu.cpp"), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True)


def test_cpu_mode_queue_depth_and_event_id_pool(tmp_path):
    """The CPU mode keeps the TQue depth apart from the buffer count and the TPipe's 8 event ids per
    HardEvent, as the TQue, AllocEventID and ReleaseEventID pages say."""
    pipe = "    AscendC::TPipe pipe;\n"
    queue = (pipe + "    AscendC::TQue<AscendC::TPosition::VECIN, 1> q;\n    pipe.InitBuffer(q, 2, 256);\n"
             "    auto a = q.AllocTensor<float>();\n    auto b = q.AllocTensor<float>();\n    q.EnQue(a);\n")
    # two buffers, depth 1: EnQue, DeQue, EnQue is fine; two EnQue in a row are not
    ok = _run_cpu_snippet(tmp_path, queue + "    a = q.DeQue<float>();\n    q.EnQue(b);\n    b = q.DeQue<float>();")
    assert ok.returncode == 0, ok.stderr
    bad = _run_cpu_snippet(tmp_path, queue + "    q.EnQue(b);")
    assert bad.returncode != 0 and "depth is 1" in bad.stderr + bad.stdout
    # 8 ids of one event, released and taken again; a ninth without a release fails
    eight = "".join(f"    auto e{i} = pipe.AllocEventID<AscendC::HardEvent::MTE2_V>();\n" for i in range(8))
    ok = _run_cpu_snippet(tmp_path, pipe + eight + "    pipe.ReleaseEventID<AscendC::HardEvent::MTE2_V>(e3);\n"
                          "    auto again = pipe.AllocEventID<AscendC::HardEvent::MTE2_V>();\n"
                          "    if (again != e3) return 2;\n"
                          "    auto other = pipe.AllocEventID<AscendC::HardEvent::V_MTE2>();\n"
                          "    if (other != 0) return 3;")
    assert ok.returncode == 0, ok.stderr
    bad = _run_cpu_snippet(tmp_path, pipe + eight + "    pipe.AllocEventID<AscendC::HardEvent::MTE2_V>();")
    assert bad.returncode != 0 and "all 8 event ids" in bad.stderr + bad.stdout
    bad = _run_cpu_snippet(tmp_path, pipe + "    pipe.ReleaseEventID<AscendC::HardEvent::V_S>(0);")
    assert bad.returncode != 0 and "was not taken by AllocEventID" in bad.stderr + bad.stdout


@pytest.mark.parametrize("style", ["queue", "flags"])
def test_int32_bitwise_ops_cpu_run_bit_exact(style, tmp_path):
    """And/Or on the int16 views of int32 buffers, built and run on the CPU, bit-exact with the simulator
    (whose results test_pytorch_corner_cases compares with torch)."""
    rng = np.random.default_rng(7)
    x, y = (pyasc.tensor(rng.integers(-2 ** 31, 2 ** 31, (9, 70)).astype(np.int32)) for _ in range(2))
    compiled = pyasc.jit(lambda x, y: ((x & y) | ~x) ^ y, options={"sync_style": style}).compile(x, y)
    summary = project_check(compiled, [x, y], tmp_path, exact=True)
    assert "bit-exact" in summary
