"""Quickstart: compile ``gelu(x * y + 1.5)`` on (4096, 1024) float16 for an Ascend 910B2,
simulate it, check it against NumPy and write the Ascend C project.

    python examples/quickstart.py [output-folder]
"""

import math
import sys
import time

import numpy as np

import pyasc


@pyasc.jit
def fused(x, y):
    return pyasc.gelu(x * y + 1.5)


def reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float16 multiply-add as the program does it, then the exact gelu in float64."""
    v = (x * y + np.float16(1.5)).astype(np.float16)
    values, inverse = np.unique(v, return_inverse=True)  # float16 has few distinct values
    erf = np.array([math.erf(float(u) / math.sqrt(2.0)) for u in values])
    gelu = 0.5 * values.astype(np.float64) * (1.0 + erf)
    return gelu[inverse].reshape(v.shape)


def main(out_dir: str = "out/quickstart") -> int:
    pyasc.manual_seed(0)
    x = pyasc.randn(4096, 1024, dtype=pyasc.float16)
    y = pyasc.randn(4096, 1024, dtype=pyasc.float16)

    start = time.perf_counter()
    compiled = fused.lower(x, y).compile()
    compile_ms = (time.perf_counter() - start) * 1e3
    print(f"compiled {compiled.kernels} in {compile_ms:.0f} ms")

    out, report = compiled.simulate(x, y)
    expected = reference(x.numpy(), y.numpy())
    err = np.abs(out.astype(np.float64) - expected)
    ok = bool(np.all(err <= 1e-3 + 2e-3 * np.abs(expected)))
    print(report)
    print(f"simulated kernel time: {report.seconds * 1e6:.2f} us on {report.target}")
    print(f"max abs error vs NumPy: {err.max():.2e} -> {'PASS' if ok else 'FAIL'}")

    files = compiled.write_project(out_dir, force=True, inputs=(x, y))
    print(f"wrote the Ascend C project ({len(files)} files) to {out_dir}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
