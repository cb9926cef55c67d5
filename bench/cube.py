"""Cube benchmarks: efficiency against the roofline and simulator cost against NumPy.

For fp16 matmuls 4096^3, 2048^3, 1024^3 and 512^3, 4096^3 + bias + gelu (one MIX kernel: the vector cores run the
epilogue of each block while the cube computes the next), the conv2d (8,3,224,224) x (64,3,7,7)
stride 2 padding 3 (ResNet's stem) and the conv2d (8,256,56,56) x (256,256,3,3) stride 1 padding 1 (both also in
float32), each as compiled by default (``conv=auto``: an implicit GEMM for all, the stems' with their kernel
stride's phases read as channels, the 3x3's NCHW input laid out by the vector cores of its MIX kernel while the cube
computes) and through im2col (``conv=im2col``), on the default target (``DEFAULT_TARGET``),
prints from one run (the convolutions' error against PyTorch's float32 one too; the stems also with their
weights a constant of the program, as in a model, whose layout then costs no launch):

* efficiency = roofline time / simulated time, where the roofline time is the longer of the cube
  FLOPs at the target's peak (cube cores x MACs per cycle x clock) and the bytes the program must
  move to and from GM at the HBM bandwidth; the simulated time includes the cycle model's fixed
  costs (per copy, per Mmad, per Fixpipe) and the launch overhead (``launch_overhead_us`` per launch,
  so a product whose roofline is ``r`` us reaches at most ``r / (r + 3)``: 0.67 for 1024^3);
* kernel efficiency = roofline time / the launches' kernel time (the same, launch overhead excluded);
* simulator wall time / NumPy wall time of the same product (NumPy: float32 matmul of the
  upcast operands, which is how NumPy gets a BLAS product of float16 data; float32 operands as they are).

Then, for matmuls 256^3, 512^3, 1024^3, the GEMV 1x4096 @ 4096x4096 (``a @ b`` under ``pyasc.jit``) and
``relu(a @ b + c)`` at 512^3 (one cube kernel: the bias through BiasTable, the ReLU in Fixpipe), in float16 and
float32: the warm simulator wall time (best of ``WALL_REPEATS``, the
program compiled and run once before; and, once ``STEADY_AFTER`` more calls ran, the steady state, each core's
data path by then a straight-line function) over NumPy's (its default BLAS threads, float16 upcast to
float32), and the float32 / float16 simulator wall ratio. ``python bench/cube.py wall`` prints only
this table.

Both sides run with single-threaded BLAS where the simulator's small tile products do
(see runtime/blas.py); the NumPy figure is the best of a few repetitions.

    python bench/cube.py
"""

from __future__ import annotations

import sys
import time

import numpy as np

from timing import best_wall, kernel_seconds

import pyasc
from pyasc.dialects.target import DEFAULT_TARGET, get_target
from pyasc.runtime.blas import single_thread

TARGET = DEFAULT_TARGET


def roofline_seconds(macs: float, in_dtype: str, moved_bytes: int) -> tuple[float, str]:
    spec = get_target(TARGET)
    cube = macs / (spec.cube_cores * spec.cube_macs_per_cycle[in_dtype] * spec.clock_hz)
    hbm = moved_bytes / spec.hbm_bytes_per_s
    return (cube, "cube") if cube >= hbm else (hbm, "hbm")


def bench_matmul(n: int) -> dict:
    rng = np.random.default_rng(0)
    a = pyasc.tensor(rng.standard_normal((n, n), dtype=np.float32).astype(np.float16))
    b = pyasc.tensor(rng.standard_normal((n, n), dtype=np.float32).astype(np.float16))

    @pyasc.jit
    def mm(a, b):
        return a @ b

    compiled = mm.lower(a, b).compile()
    start = time.perf_counter()
    out, report = compiled.simulate(a, b)
    sim_wall = time.perf_counter() - start
    an, bn = a.numpy(), b.numpy()
    with single_thread():
        np_wall = best_wall(lambda: an.astype(np.float32) @ bn.astype(np.float32), 3)
    ref = an.astype(np.float32) @ bn.astype(np.float32)
    err = float(np.abs(out.astype(np.float32) - ref).max() / np.abs(ref).max())
    roof, bound = roofline_seconds(float(n) ** 3, "f16", 3 * n * n * 2)
    return {"workload": f"matmul {n}^3 fp16", "simulated_us": report.seconds * 1e6, "roofline_us": roof * 1e6,
            "bound": bound, "efficiency": roof / report.seconds, "kernel_efficiency": roof / kernel_seconds(report),
            "sim_wall_s": sim_wall, "numpy_wall_s": np_wall, "wall_ratio": sim_wall / np_wall, "rel_err": err}


def bench_matmul_bias_gelu(n: int) -> dict:
    rng = np.random.default_rng(0)
    a = pyasc.tensor(rng.standard_normal((n, n), dtype=np.float32).astype(np.float16))
    b = pyasc.tensor(rng.standard_normal((n, n), dtype=np.float32).astype(np.float16))
    bias = pyasc.tensor(rng.standard_normal((n,), dtype=np.float32).astype(np.float16))

    @pyasc.jit
    def mm_gelu(a, b, bias):
        return pyasc.gelu(a @ b + bias)

    compiled = mm_gelu.lower(a, b, bias).compile()
    assert len(compiled.kernels) == 1, compiled.kernels  # one MIX kernel
    start = time.perf_counter()
    out, report = compiled.simulate(a, b, bias)
    sim_wall = time.perf_counter() - start
    an, bn = a.numpy(), b.numpy()
    with single_thread():
        np_wall = best_wall(lambda: an.astype(np.float32) @ bn.astype(np.float32), 1)
    y = (an.astype(np.float32) @ bn.astype(np.float32)).astype(np.float16).astype(np.float64) + bias.numpy()
    ref = pyasc.reference("gelu", y)
    err = float(np.abs(out.astype(np.float64) - ref).max() / np.abs(ref).max())
    # the workspace (the product) is written by the AIC (one more n^2 transfer) and read back by the AIVs from L2
    roof, bound = roofline_seconds(float(n) ** 3, "f16", 4 * n * n * 2 + n * 2)
    return {"workload": f"matmul {n}^3 + bias + gelu fp16 (MIX)", "simulated_us": report.seconds * 1e6,
            "roofline_us": roof * 1e6, "bound": bound, "efficiency": roof / report.seconds,
            "kernel_efficiency": roof / kernel_seconds(report), "sim_wall_s": sim_wall,
            "numpy_wall_s": np_wall, "wall_ratio": sim_wall / np_wall, "rel_err": err}


def bench_conv(x_shape: tuple, w_shape: tuple, stride: int, padding: int, conv: str = "auto",
               dtype=np.float16, constant_weights: bool = False) -> dict:
    """One convolution; with ``constant_weights`` the weights are a constant of the program (as in a model: their
    layout is computed once, at compile time) rather than an argument."""
    shapes = "x".join("(" + ",".join(map(str, s)) + ")" for s in (x_shape, w_shape))
    name = (f"conv2d {shapes} s{stride} p{padding} {'fp16' if dtype == np.float16 else 'fp32'} {conv}"
            + (", weights constant" if constant_weights else ""))
    rng = np.random.default_rng(0)
    x = pyasc.tensor(rng.standard_normal(x_shape, dtype=np.float32).astype(dtype))
    w = pyasc.tensor(rng.standard_normal(w_shape, dtype=np.float32).astype(dtype))

    def fn(x, w):
        return pyasc.conv2d(x, w, stride=stride, padding=padding)

    args = (x,) if constant_weights else (x, w)
    try:
        program = (lambda x: fn(x, w)) if constant_weights else fn
        compiled = pyasc.jit(program, options={"conv": conv}).lower(*args).compile()
    except pyasc.PyascError as e:
        return {"workload": name, "error": str(e).splitlines()[0]}
    start = time.perf_counter()
    out, report = compiled.simulate(*args)
    sim_wall = time.perf_counter() - start
    from pyasc.ops_linalg import reference_conv2d

    xn, wn = x.numpy(), w.numpy()
    np_wall = best_wall(lambda: reference_conv2d(xn.astype(np.float32, copy=False), wn.astype(np.float32, copy=False),
                                                 None, (stride, stride), (padding, padding), (1, 1), 1), 1)
    import torch
    import torch.nn.functional as F

    ref = F.conv2d(torch.from_numpy(xn.astype(np.float32)), torch.from_numpy(wn.astype(np.float32)), stride=stride,
                   padding=padding).numpy()
    err = float(np.abs(out.astype(np.float32) - ref).max() / np.abs(ref).max())
    macs = int(np.prod(out.shape)) * int(np.prod(w_shape[1:]))
    roof, bound = roofline_seconds(macs, "f16" if dtype == np.float16 else "f32", x.nbytes + w.nbytes + out.nbytes)
    return {"workload": name, "simulated_us": report.seconds * 1e6,
            "roofline_us": roof * 1e6, "bound": bound, "efficiency": roof / report.seconds,
            "kernel_efficiency": roof / kernel_seconds(report), "sim_wall_s": sim_wall,
            "numpy_wall_s": np_wall, "wall_ratio": sim_wall / np_wall, "rel_err": err}


# ResNet's stem and a 3x3 convolution of its third stage, at batch 8; each through conv=auto (an implicit GEMM
# here: the patches formed in L0B by Load3Dv2, the product NCHW; the stems' over the 2x2 phases of their stride as
# 12 channels, lowering/conv_fold.py) and through the im2col path (the column matrix through GM); both in
# float32 too (C0 = 8)
CONVS = [((8, 3, 224, 224), (64, 3, 7, 7), 2, 3, np.float16), ((8, 3, 224, 224), (64, 3, 7, 7), 2, 3, np.float32),
         ((8, 256, 56, 56), (256, 256, 3, 3), 1, 1, np.float16), ((8, 256, 56, 56), (256, 256, 3, 3), 1, 1, np.float32)]

WALL_SHAPES = [("matmul 256^3", (256, 256), (256, 256)), ("matmul 512^3", (512, 512), (512, 512)),
               ("matmul 1024^3", (1024, 1024), (1024, 1024)), ("gemv 1x4096 @ 4096^2", (1, 4096), (4096, 4096)),
               ("relu(mm 512^3 + bias)", (512, 512), (512, 512), True)]
WALL_REPEATS = 5
STEADY_AFTER = 20  # calls before the steady state is timed (tapes become straight-line after 16)


def bench_wall(a_shape: tuple, b_shape: tuple, dtype, bias: bool = False) -> dict:
    """Warm simulator wall time of ``a @ b`` (``relu(a @ b + c)`` with ``bias``: one cube kernel, the bias through
    BiasTable) and NumPy's, and the error against NumPy's float32 result."""
    rng = np.random.default_rng(0)
    a = pyasc.tensor(rng.standard_normal(a_shape, dtype=np.float32).astype(dtype))
    b = pyasc.tensor(rng.standard_normal(b_shape, dtype=np.float32).astype(dtype))
    c = pyasc.tensor(rng.standard_normal(b_shape[1:], dtype=np.float32).astype(dtype))
    args = (a, b, c) if bias else (a, b)
    fn = (lambda a, b, c: pyasc.relu(a @ b + c)) if bias else (lambda a, b: a @ b)
    compiled = pyasc.jit(fn).lower(*args).compile()
    out, report = compiled.simulate(*args)
    sim_wall = best_wall(lambda: compiled.simulate(*args), WALL_REPEATS)
    for _ in range(STEADY_AFTER):
        compiled.simulate(*args)
    steady_wall = best_wall(lambda: compiled.simulate(*args), WALL_REPEATS)
    an, bn, cn = a.numpy(), b.numpy(), c.numpy()

    def numpy_fn():
        r = an.astype(np.float32, copy=False) @ bn.astype(np.float32, copy=False)  # no copy of float32 data
        return np.maximum(r + cn.astype(np.float32, copy=False), 0, out=r) if bias else r

    np_wall = best_wall(numpy_fn, WALL_REPEATS)
    ref = numpy_fn()
    err = float(np.abs(out.astype(np.float32) - ref).max() / np.abs(ref).max())
    m, k = a_shape
    n = b_shape[1]
    in_t = "f16" if dtype == np.float16 else "f32"
    roof, _ = roofline_seconds(float(m) * n * k, in_t, sum(x.nbytes for x in args) + out.nbytes)
    return {"sim_wall_s": sim_wall, "steady_wall_s": steady_wall, "numpy_wall_s": np_wall, "rel_err": err,
            "kernels": len(report.launches),
            "simulated_us": report.seconds * 1e6, "efficiency": roof / report.seconds}


def print_wall_table() -> None:
    print(f"simulator wall / NumPy wall, warm (calls 2-{WALL_REPEATS + 1}) and steady (after {STEADY_AFTER} more), "
          f"best of {WALL_REPEATS} (target: <= 3x; f32 <= 1.5x f16)")
    print(f"  {'workload':<22} {'f16 sim ms':>10} {'np ms':>7} {'ratio':>6} {'steady':>6} {'f32 sim ms':>10} "
          f"{'np ms':>7} {'ratio':>6} {'steady':>6} {'f32/f16':>7} {'f32 rel err':>11}")
    for name, sa, sb, *bias in WALL_SHAPES:
        h, f = bench_wall(sa, sb, np.float16, *bias), bench_wall(sa, sb, np.float32, *bias)
        print(f"  {name:<22} {h['sim_wall_s'] * 1e3:10.1f} {h['numpy_wall_s'] * 1e3:7.2f} "
              f"{h['sim_wall_s'] / h['numpy_wall_s']:6.1f} {h['steady_wall_s'] / h['numpy_wall_s']:6.1f} "
              f"{f['sim_wall_s'] * 1e3:10.1f} {f['numpy_wall_s'] * 1e3:7.2f} "
              f"{f['sim_wall_s'] / f['numpy_wall_s']:6.1f} {f['steady_wall_s'] / f['numpy_wall_s']:6.1f} "
              f"{f['sim_wall_s'] / h['sim_wall_s']:7.2f} {f['rel_err']:11.1e}")
        print(f"  {'':<22} simulated: f16 {h['simulated_us']:.1f} us (efficiency {h['efficiency']:.3f}, "
              f"{h['kernels']} launches), f32 {f['simulated_us']:.1f} us (efficiency {f['efficiency']:.3f}, "
              f"{f['kernels']} launches)")


def main() -> None:
    if sys.argv[1:] == ["wall"]:
        print_wall_table()
        return
    rows = [bench_matmul(4096), bench_matmul(2048), bench_matmul(1024), bench_matmul(512),
            bench_matmul_bias_gelu(4096)]
    for x_shape, w_shape, stride, padding, dtype in CONVS:
        rows += [bench_conv(x_shape, w_shape, stride, padding, conv, dtype) for conv in ("auto", "im2col")]
        if w_shape[1] < 16:  # a stem: its weights' layout is a launch of its own unless they are constant
            rows.append(bench_conv(x_shape, w_shape, stride, padding, "auto", dtype, constant_weights=True))
    print(f"cube benchmarks on {TARGET}")
    for r in rows:
        if "error" in r:
            print(f"  {r['workload']:<66} not compiled: {r['error']}")
            continue
        err = f"  rel err {r['rel_err']:.1e}" if "rel_err" in r else ""
        print(f"  {r['workload']:<66} simulated {r['simulated_us']:10.1f} us  roofline {r['roofline_us']:9.1f} us "
              f"({r['bound']})  efficiency {r['efficiency']:.3f} (kernel {r['kernel_efficiency']:.3f})  sim wall "
              f"{r['sim_wall_s']:.2f} s / numpy {r['numpy_wall_s']:.3f} s = {r['wall_ratio']:.1f}x{err}")
    print_wall_table()


if __name__ == "__main__":
    main()
