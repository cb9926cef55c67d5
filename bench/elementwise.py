"""Elementwise benchmarks: efficiency against the HBM roofline and simulator cost against NumPy.

For vector add of 2^24 float16 and the quickstart expression gelu(x * y + 1.5) on
(4096, 1024) float16, on the default target (``DEFAULT_TARGET``), prints from one run:

* efficiency = roofline time / simulated kernel time, where the roofline time is the bytes the
  program must move to and from GM divided by the target's HBM bandwidth (the simulated time
  includes the cycle model's fixed per-instruction and per-copy costs and the launch overhead);
* simulator wall time / NumPy wall time for the same computation (best of a few repetitions);
* the cold ``jit`` compile time of the quickstart (trace + every pass to ``ascendc``, in a fresh
  process, excluding the Python imports).

    python bench/elementwise.py
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from timing import roofline_and_wall

import pyasc
from pyasc.dialects.target import DEFAULT_TARGET

TARGET = DEFAULT_TARGET
REPEATS = 3


def numpy_gelu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    try:
        from scipy.special import erf
    except ImportError:  # pragma: no cover - scipy is in the dev extra
        erf = np.vectorize(__import__("math").erf, otypes=[np.float32])
    v = (x * y + np.float16(1.5)).astype(np.float32)
    return (0.5 * v * (1.0 + erf(v * np.float32(0.7071067811865476)))).astype(np.float16)


def measure(name: str, fn, numpy_fn, inputs) -> dict:
    row, _ = roofline_and_wall(fn.lower(*inputs).compile(), inputs, numpy_fn, TARGET, REPEATS)
    return {"workload": name, **row}


COLD_COMPILE = """
import time, pyasc
x = pyasc.randn(4096, 1024, dtype=pyasc.float16)
y = pyasc.randn(4096, 1024, dtype=pyasc.float16)
f = pyasc.jit(lambda x, y: pyasc.gelu(x * y + 1.5))
t = time.perf_counter()
f.lower(x, y).compile()
print((time.perf_counter() - t) * 1e3)
"""


def cold_compile_ms() -> float:
    out = subprocess.run([sys.executable, "-c", COLD_COMPILE], check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    pyasc.manual_seed(0)
    n = 1 << 24
    a = pyasc.randn(n, dtype=pyasc.float16)
    b = pyasc.randn(n, dtype=pyasc.float16)
    x = pyasc.randn(4096, 1024, dtype=pyasc.float16)
    y = pyasc.randn(4096, 1024, dtype=pyasc.float16)
    rows = [
        measure("vector add 2^24 f16", pyasc.jit(lambda a, b: a + b), lambda a, b: a + b, (a, b)),
        measure("gelu(x*y+1.5) 4096x1024 f16", pyasc.jit(lambda x, y: pyasc.gelu(x * y + 1.5)),
                numpy_gelu, (x, y)),
    ]
    print(f"target {TARGET}; efficiency = roofline / simulated; wall ratios best of {REPEATS}")
    print(f"{'workload':32} {'sim us':>9} {'roof us':>9} {'effic.':>7} {'sim/np':>7} {'sim ms':>8} {'np ms':>8}")
    for r in rows:
        print(f"{r['workload']:32} {r['simulated_us']:9.2f} {r['roofline_us']:9.2f} {r['efficiency']:7.3f} "
              f"{r['sim_over_numpy']:7.2f} {r['sim_ms']:8.1f} {r['np_ms']:8.1f}")
    print(f"cold jit compile of the quickstart: {cold_compile_ms():.0f} ms")


if __name__ == "__main__":
    main()
