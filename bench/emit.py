"""Emission time of a fused kernel project (kernel + host + tiling + CMake + data files).

Prints the time to write the project of an already compiled (ascendc-level) fused elementwise
program, with and without the simulator's golden data, as a ratio of the 1 s budget, plus the
time of a CPU build and run of the project when g++ is available. Run: python bench/emit.py
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from timing import best_wall

import pyasc
from pyasc.lowering.emit import kernel_source, write_project
from pyasc.lowering.emit.host import host_source


def fused(x, y, z):
    t = pyasc.relu(x * y + 1.5) - z / (y * y + 1.0)
    return pyasc.gelu(t) * pyasc.exp(-pyasc.abs(x)) + pyasc.sqrt(pyasc.abs(z))


def main() -> None:
    rng = np.random.default_rng(0)
    xs = [pyasc.tensor(rng.standard_normal((1024, 1024)), dtype=pyasc.float16) for _ in range(3)]
    for style in ("queue", "flags"):
        c = pyasc.jit(fused, options={"sync_style": style}).compile(*xs)
        tmp = Path(tempfile.mkdtemp(prefix="pyasc-bench-emit-"))
        try:
            k = best_wall(lambda: kernel_source(c.module), 5)
            h = best_wall(lambda: host_source(c.module, c.name), 5)
            p = best_wall(lambda: write_project(c.module, tmp / "p", force=True, host=c.name), 5)
            d = best_wall(lambda: c.write_project(tmp / "d", force=True, inputs=xs), 3)
            print(f"[{style}] kernel text {k * 1e3:.1f} ms, host text {h * 1e3:.1f} ms, "
                  f"project {p * 1e3:.1f} ms ({p:.3f} of the 1 s budget), "
                  f"project with simulated data {d * 1e3:.0f} ms ({d:.2f} of the budget)")
            if shutil.which("g++"):
                from pyasc.lowering.emit.cpu import build_project, run_project
                from pyasc.lowering.emit.host import host_plan

                t0 = time.perf_counter()
                exe = build_project(tmp / "d")
                t1 = time.perf_counter()
                res = run_project(tmp / "d", exe, host_plan(c.module, c.name))
                t2 = time.perf_counter()
                print(f"[{style}] CPU build {t1 - t0:.2f} s, CPU run {t2 - t1:.3f} s: "
                      f"{res.stdout.strip().splitlines()[-1]}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
