"""Wall time of simulating x + y on 2^24 float16 (48 cores, 15360-element tiles, flags style) against
NumPy's own ``x + y`` on the same arrays. Run: ``python test/runtime/bench_add.py`` (not a test)."""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from sim_irgen import add_flags_ir  # noqa: E402

from pyasc.runtime import Simulator, parse_module  # noqa: E402


def best(fn, reps: int) -> float:
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main(n: int = 1 << 24, cores: int = 48, tile: int = 15360, reps: int = 5) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    z = np.zeros(n, np.float16)
    t0 = time.perf_counter()
    sim = Simulator(parse_module(add_flags_ir(n, cores, tile, "f16")))
    t_build = time.perf_counter() - t0
    report = sim.run("add", [x, y, z])
    assert np.array_equal(z, x + y)
    t_np = best(lambda: x + y, reps)
    t_sim = best(lambda: sim.run("add", [x, y, z]), reps)
    sim2 = Simulator(sim.module, race_check=False)
    t_sim_nr = best(lambda: sim2.run("add", [x, y, z]), reps)
    ops = sum(len(t.records) for t in report.launches[0].timings)
    print(f"x+y, {n} f16, {cores} cores, tile {tile}: {ops} traced kernel ops")
    print(f"numpy x+y            : {t_np * 1e3:8.2f} ms")
    print(f"simulator run        : {t_sim * 1e3:8.2f} ms  (ratio {t_sim / t_np:.2f}x)")
    print(f"simulator, no races  : {t_sim_nr * 1e3:8.2f} ms  (ratio {t_sim_nr / t_np:.2f}x)")
    print(f"translation (once)   : {t_build * 1e3:8.2f} ms")
    print(report)


if __name__ == "__main__":
    main()
