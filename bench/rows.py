"""Row-wise benchmarks: softmax 4096x1024 float32, layer_norm 8192x4096 float16, softmax 1 x 2^20, ResNet's
3x3 max pool (stride 2, padding 1) of (8, 64, 112, 112) float16, and two of MobileNetV2's 3x3 depthwise
convolutions (padding 1, bias, ReLU6) in float16: stride 1 on (8, 144, 56, 56) and stride 2 on (8, 96, 112, 112);
two transposes: 4096x4096 float32 and NCHW -> NHWC of (8, 256, 56, 56) float16.

Prints, from one run on the default target (``DEFAULT_TARGET``):

* efficiency = roofline time / simulated time, the roofline being the bytes the program must
  move (inputs read once, outputs written once) over the HBM bandwidth (the vector work of
  these programs is below that bound on 48 cores); and the kernel efficiency, the same without the
  launch overhead (``launch_overhead_us`` per launch);
* simulator wall time / NumPy wall time for the same computation (best of a few repetitions): of the first
  calls (``sim/np``) and of the steady state once ``STEADY_AFTER`` more calls ran (``steady/np``: by then
  each core's data path is a straight-line function);
* the largest relative error of the float16 layer_norm against a float64 NumPy reference.

The row "softmax 1x2^20 f32, 1 launch" is the kernel-DSL kernel of ``examples/kernels/long_row_softmax.py``
(32 cores meeting at SyncAll, the row held in UB) on the same row, for comparison with the compiled program.

    python bench/rows.py
"""

from __future__ import annotations

import os
import sys

import numpy as np
from timing import best_wall, kernel_seconds, roofline_and_wall

import pyasc
from pyasc.dialects.target import DEFAULT_TARGET, get_target

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples", "kernels"))
from long_row_softmax import run as one_launch_softmax  # noqa: E402

TARGET = DEFAULT_TARGET
REPEATS = 3
STEADY_AFTER = 20  # calls before the steady state is timed (tapes become straight-line after 16)


def np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def np_layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = x.astype(np.float32)
    mu = a.mean(axis=-1, keepdims=True)
    var = ((a - mu) ** 2).mean(axis=-1, keepdims=True)
    return ((a - mu) / np.sqrt(var + 1e-5) * w + b).astype(x.dtype)


def np_max_pool(x: np.ndarray) -> np.ndarray:
    """3x3 windows, stride 2, padding 1 (the padding never wins)."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    oh, ow = (x.shape[2] - 1) // 2 + 1, (x.shape[3] - 1) // 2 + 1
    out = xp[:, :, 0:2 * oh:2, 0:2 * ow:2]
    for i in range(3):
        for j in range(3):
            out = np.maximum(out, xp[:, :, i:i + 2 * oh:2, j:j + 2 * ow:2])
    return out


def np_depthwise(stride: int):
    """A 3x3 depthwise convolution with padding 1, bias and ReLU6, summed in float32 (as the kernel does)."""
    def run(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0), (1, 1), (1, 1)))
        oh, ow = (x.shape[2] - 1) // stride + 1, (x.shape[3] - 1) // stride + 1
        wf = w.astype(np.float32)
        out = np.broadcast_to(b.astype(np.float32)[None, :, None, None], (x.shape[0], x.shape[1], oh, ow)).copy()
        for i in range(3):
            for j in range(3):
                out += xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride] * wf[None, :, 0, i, j, None, None]
        return np.clip(out, 0, 6).astype(x.dtype)
    return run


def measure_one_launch_softmax(x: np.ndarray, blocks: int = 32, pieces: int = 4) -> dict:
    """The kernel-DSL softmax of one row in one launch (``examples/kernels/long_row_softmax.py``, SyncAll): the
    same figures as ``measure`` (its data path is traced on every call, so its steady state is its first calls)."""
    y, report = one_launch_softmax(x, blocks, pieces)
    if np.abs(y - np_softmax(x.astype(np.float64))).max() > 1e-6 * float(y.max()):
        raise SystemExit("the one-launch softmax differs from NumPy")
    sim = best_wall(lambda: one_launch_softmax(x, blocks, pieces), REPEATS)
    np_s = best_wall(lambda: np_softmax(x), REPEATS)
    roofline = 2 * x.nbytes / get_target(TARGET).hbm_bytes_per_s
    return {"workload": "softmax 1x2^20 f32, 1 launch", "kernels": len(report.launches),
            "simulated_us": report.seconds * 1e6, "roofline_us": roofline * 1e6, "efficiency": roofline / report.seconds,
            "kernel_efficiency": roofline / kernel_seconds(report), "sim_over_numpy": sim / np_s, "sim_ms": sim * 1e3,
            "np_ms": np_s * 1e3, "steady_over_numpy": sim / np_s, "steady_ms": sim * 1e3}


def measure(name: str, fn, numpy_fn, inputs) -> tuple[dict, np.ndarray]:
    row, out = roofline_and_wall(pyasc.jit(fn).lower(*inputs).compile(), inputs, numpy_fn, TARGET, REPEATS,
                                 STEADY_AFTER)
    return {"workload": name, **row}, out


def main() -> None:
    pyasc.manual_seed(0)
    x = pyasc.randn(4096, 1024, dtype=pyasc.float32)
    h = pyasc.randn(8192, 4096, dtype=pyasc.float16)
    w = pyasc.randn(4096, dtype=pyasc.float16)
    b = pyasc.randn(4096, dtype=pyasc.float16)
    long_row = pyasc.randn(1, 1 << 20, dtype=pyasc.float32)
    image = pyasc.randn(8, 64, 112, 112, dtype=pyasc.float16)

    rows = []
    r, _ = measure("softmax 4096x1024 f32", lambda x: pyasc.softmax(x, -1), np_softmax, (x,))
    rows.append(r)
    r, ln = measure("layer_norm 8192x4096 f16", lambda x, w, b: pyasc.layer_norm(x, (4096,), w, b),
                    np_layer_norm, (h, w, b))
    rows.append(r)
    r, _ = measure("softmax 1x2^20 f32", lambda x: pyasc.softmax(x, -1), np_softmax, (long_row,))
    rows.append(r)
    rows.append(measure_one_launch_softmax(long_row.numpy().reshape(-1)))
    r, pooled = measure("max_pool 3x3/2 8x64x112^2 f16", lambda x: pyasc.nn.functional.max_pool2d(x, 3, 2, 1),
                        np_max_pool, (image,))
    rows.append(r)
    if not np.array_equal(np.asarray(pooled), np_max_pool(image.numpy())):
        raise SystemExit("max_pool2d differs from NumPy")
    for stride, shape in ((1, (8, 144, 56, 56)), (2, (8, 96, 112, 112))):
        dw = [pyasc.randn(*shape, dtype=pyasc.float16), pyasc.randn(shape[1], 1, 3, 3, dtype=pyasc.float16),
              pyasc.randn(shape[1], dtype=pyasc.float16)]

        def depthwise(x, w, b, stride=stride):
            return pyasc.clamp(pyasc.nn.functional.conv2d(x, w, b, stride=stride, padding=1, groups=x.shape[1]),
                               0.0, 6.0)

        r, out = measure(f"depthwise 3x3/{stride} {'x'.join(map(str, shape[:2]))}x{shape[2]}^2 f16", depthwise,
                         np_depthwise(stride), tuple(dw))
        rows.append(r)
        ref = np_depthwise(stride)(*(t.numpy() for t in dw)).astype(np.float32)
        if np.abs(np.asarray(out, dtype=np.float32) - ref).max() > 2 ** -8 * max(1.0, np.abs(ref).max()):
            raise SystemExit(f"the stride-{stride} depthwise convolution differs from NumPy")

    square = pyasc.randn(4096, 4096, dtype=pyasc.float32)
    fmap = pyasc.randn(8, 256, 56, 56, dtype=pyasc.float16)
    for name, fn, np_fn, arg in (("transpose 4096^2 f32", lambda x: x.T.contiguous(), lambda a: a.T.copy(), square),
                                 ("NCHW->NHWC 8x256x56^2 f16", lambda x: x.permute(0, 2, 3, 1).contiguous(),
                                  lambda a: a.transpose(0, 2, 3, 1).copy(), fmap)):
        r, out = measure(name, fn, np_fn, (arg,))
        rows.append(r)
        if not np.array_equal(np.asarray(out), np_fn(arg.numpy())):
            raise SystemExit(f"{name} differs from NumPy")

    a = h.numpy().astype(np.float64)
    mu = a.mean(axis=-1, keepdims=True)
    ref = (a - mu) / np.sqrt(((a - mu) ** 2).mean(axis=-1, keepdims=True) + 1e-5)
    ref = ref * w.numpy().astype(np.float64) + b.numpy().astype(np.float64)
    rel = np.abs(ln.astype(np.float64) - ref) / np.maximum(np.abs(ref), 1.0)

    print(f"target {TARGET}; efficiency = roofline / simulated (kernel: without the launch overhead); "
          f"wall ratios best of {REPEATS}")
    print(f"{'workload':30} {'kernels':>7} {'sim us':>9} {'roof us':>9} {'effic.':>7} {'kernel':>7} {'sim/np':>7} "
          f"{'sim ms':>8} {'np ms':>8} {'steady/np':>9} {'steady ms':>9}")
    for r in rows:
        print(f"{r['workload']:30} {r['kernels']:7d} {r['simulated_us']:9.2f} {r['roofline_us']:9.2f} "
              f"{r['efficiency']:7.3f} {r['kernel_efficiency']:7.3f} {r['sim_over_numpy']:7.2f} {r['sim_ms']:8.1f} "
              f"{r['np_ms']:8.1f} {r['steady_over_numpy']:9.2f} {r['steady_ms']:9.1f}")
    print(f"layer_norm f16 max relative error vs float64 NumPy (|ref| floored at 1): {rel.max():.2e}")


if __name__ == "__main__":
    main()
