"""Simulator speed: wall time of the simulator against NumPy doing the same math, on all cores of
the default target, and the cost of the hazard checker.

    python bench/simulator.py

Rows: vector add 2^24 float16, softmax 4096x1024 float16 (if ``pyasc.softmax`` exists), matmul
1024^3 float16 and float32 (if ``pyasc.matmul`` exists). The simulator time is a warm run (translation and
compilation done once before; the per-core schedules are cached across runs, as in real use; best of 5),
"cold" clears the schedule cache first. Targets: simulator <= 3x NumPy; checking <= 1.5x unchecked.
"""

from __future__ import annotations


import numpy as np
from timing import best_wall

import pyasc
from pyasc.dialects.target import DEFAULT_TARGET
from pyasc.runtime import Simulator


def case(name, fn, make_inputs, ref, options=None):
    if fn is None:
        return {"name": name, "available": False}
    xs = make_inputs()
    c = pyasc.jit(fn, options=options or {}).lower(*xs).compile()
    outs = [np.empty(s.shape, s.dtype.np_dtype) for s in c.outputs]
    args = [*xs, *outs]
    checked = Simulator(c.module, hazards="ignore")
    unchecked = Simulator(c.module, hazards="off")
    checked.run(c.name, args)  # warm-up: translation, first schedule
    unchecked.run(c.name, args)
    warm = best_wall(lambda: checked.run(c.name, args), 5)

    def cold(sim):
        def run():
            sim._timing_cache.clear()
            sim.run(c.name, args)
        return run

    cold_on = best_wall(cold(checked), 5)
    cold_off = best_wall(cold(unchecked), 5)
    t_np = best_wall(lambda: ref(*xs), 5)
    report = checked.run(c.name, args)
    fresh = Simulator(c.module, hazards="ignore")
    fresh.run(c.name, args)
    st = fresh.stats
    # the same data on one core: what simulating 48 cores costs over simulating one
    c1 = pyasc.jit(fn, options={**(options or {}), "cores": 1}).lower(*xs).compile()
    one = Simulator(c1.module, hazards="ignore")
    one.run(c1.name, args)
    t_one = best_wall(lambda: one.run(c1.name, args), 5)
    return {"name": name, "available": True, "sim": warm, "numpy": t_np, "cold_on": cold_on, "cold_off": cold_off,
            "cores": report.launches[0].block_dim, "one_core": t_one, "us": report.seconds * 1e6,
            "findings": len(report.findings), "schedules": st["schedules"], "sched_s": st["schedule_seconds"]}


def main():
    rng = np.random.default_rng(0)
    n = 1 << 24
    rows = [case("vector add 2^24 f16", lambda x, y: x + y,
                 lambda: [rng.standard_normal(n).astype(np.float16) for _ in range(2)], np.add)]

    def softmax_ref(x):
        x32 = x.astype(np.float32)
        e = np.exp(x32 - x32.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype)

    sm = getattr(pyasc, "softmax", None)
    rows.append(case("softmax 4096x1024 f16", (lambda x: sm(x, -1)) if sm else None,
                     lambda: [rng.standard_normal((4096, 1024)).astype(np.float16)], softmax_ref))
    mm = getattr(pyasc, "matmul", None)
    rows.append(case("matmul 1024^3 f16", (lambda a, b: mm(a, b)) if mm else None,
                     lambda: [rng.standard_normal((1024, 1024)).astype(np.float16) for _ in range(2)],
                     lambda a, b: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)))
    rows.append(case("matmul 1024^3 f32", (lambda a, b: mm(a, b)) if mm else None,
                     lambda: [rng.standard_normal((1024, 1024)).astype(np.float32) for _ in range(2)],
                     lambda a, b: a @ b))

    print(f"pyasc simulator benchmark, {DEFAULT_TARGET}, all cores")
    print(f"{'case':<24} {'cores':>5} {'sim ms':>8} {'numpy ms':>9} {'sim/np':>7} {'1-core ms':>9} "
          f"{'cold chk ms':>11} {'cold nochk':>10} {'chk/nochk':>9} {'simulated us':>12}")
    for r in rows:
        if not r["available"]:
            print(f"{r['name']:<24} not available")
            continue
        print(f"{r['name']:<24} {r['cores']:>5} {r['sim'] * 1e3:>8.1f} {r['numpy'] * 1e3:>9.1f} "
              f"{r['sim'] / r['numpy']:>7.2f} {r['one_core'] * 1e3:>9.1f} {r['cold_on'] * 1e3:>11.1f} "
              f"{r['cold_off'] * 1e3:>10.1f} {r['cold_on'] / r['cold_off']:>9.2f} {r['us']:>12.1f}")
    for r in rows:
        if r["available"]:
            print(f"{r['name']}: {r['cores']} cores simulated with {r['schedules']} distinct schedule(s) "
                  f"({r['sched_s'] * 1e3:.1f} ms scheduling + hazard analysis); 48 cores / 1 core wall: "
                  f"{r['sim'] / r['one_core']:.2f}")
    print("targets: sim/np <= 3, chk/nochk <= 1.5")


if __name__ == "__main__":
    main()
