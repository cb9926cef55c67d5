"""What autotuning gains over the compiler's analytic choice of compile options.

For each workload, every configuration of its space is compiled and simulated (on a local process
pool); the table gives the analytic configuration's simulated time, the best one found, their ratio
and the HBM-roofline efficiency of both, from one run.

    python bench/autotune.py [--workers 2] [--plot DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import pyasc  # noqa: E402
from pyasc.dialects.target import get_target  # noqa: E402

SPACE = {"tile_size": [2048, 4096, 8192, 16384], "buffers": [1, 2, 3], "cores": [8, 16, 24]}


def add_f16(x, y):
    return x + y


def gelu_chain(x, y):
    return pyasc.gelu(x * y + 1.5) * 0.5


def softmax_rows(x):
    return pyasc.softmax(x, -1)


def layer_norm_rows(x):
    return pyasc.layer_norm(x, (x.shape[-1],))


def sum_rows(x):
    return pyasc.sum(x, -1)


WORKLOADS = [
    ("add 2^20 f16", add_f16, [((1 << 20,), np.float16)] * 2),
    ("gelu chain 2^20 f32", gelu_chain, [((1 << 20,), np.float32)] * 2),
    ("softmax 1024x1024 f32", softmax_rows, [((1024, 1024), np.float32)]),
    ("layer_norm 2048x1024 f16", layer_norm_rows, [((2048, 1024), np.float16)]),
    ("sum rows 4096x256 f32", sum_rows, [((4096, 256), np.float32)]),
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--plot", default=None, help="write one PNG per workload into this folder")
    args = p.parse_args()
    os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-autotune-"))
    hbm = get_target(pyasc.get_target()).hbm_bytes_per_s
    rng = np.random.default_rng(0)
    print(f"target {pyasc.get_target()}; space {SPACE}")
    print(f"{'workload':<26} {'tried':>5} {'analytic us':>11} {'best us':>9} {'gain':>6} {'eff analytic':>12} "
          f"{'eff best':>8}  best options")
    for name, fn, specs in WORKLOADS:
        arrays = [rng.standard_normal(shape).astype(dt) for shape, dt in specs]
        result = pyasc.autotune(fn, *arrays, space=SPACE, workers=args.workers)
        outs = pyasc.jit(fn).compile(*[pyasc.tensor(a) for a in arrays]).outputs
        nbytes = sum(a.nbytes for a in arrays) + sum(int(np.prod(o.shape)) * o.dtype.np_dtype.itemsize for o in outs)
        roof = nbytes / hbm
        a, b = result.analytic.seconds, result.best.seconds
        print(f"{name:<26} {len(result.trials):>5} {a * 1e6:>11.2f} {b * 1e6:>9.2f} {a / b:>5.2f}x "
              f"{roof / a:>12.3f} {roof / b:>8.3f}  {result.best.options}")
        if args.plot:
            Path(args.plot).mkdir(parents=True, exist_ok=True)
            result.plot(Path(args.plot) / f"{fn.__name__}.png")


if __name__ == "__main__":
    main()
