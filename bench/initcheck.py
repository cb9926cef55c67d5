"""Cost of the simulator's initcheck: cold runs (the per-core schedule cache cleared, so every distinct
trace is scheduled, race-checked and initchecked again) of a simulator with ``initcheck=True`` and of one
without; best of 5 each.

    python bench/initcheck.py
"""

from __future__ import annotations

import numpy as np
from timing import best_wall

import pyasc
from pyasc.runtime import Simulator

CASES = {
    "add 2^20 f16": (lambda x, y: x + y, [(1 << 20,), (1 << 20,)], np.float16),
    "softmax 1024x1000 f32": (lambda x: pyasc.softmax(x, -1), [(1024, 1000)], np.float32),
    "matmul 256^3 f16": (lambda a, b: a @ b, [(256, 256), (256, 256)], np.float16),
}


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'case':24} {'with ms':>9} {'without ms':>11} {'ratio':>6}")
    for name, (fn, shapes, dt) in CASES.items():
        xs = [rng.standard_normal(s).astype(dt) for s in shapes]
        c = pyasc.jit(fn).lower(*xs).compile()
        args = [*xs, *[np.empty(s.shape, s.dtype.np_dtype) for s in c.outputs]]
        times = {}
        for label, on in (("with", True), ("without", False)):
            sim = Simulator(c.module, hazards="ignore", initcheck=on)

            def cold():
                sim._timing_cache.clear()
                sim.run(c.name, args)

            cold()
            times[label] = best_wall(cold, 5)
        print(f"{name:24} {times['with'] * 1e3:9.1f} {times['without'] * 1e3:11.1f} "
              f"{times['with'] / times['without']:6.3f}", flush=True)


if __name__ == "__main__":
    main()
