"""What the benches share: best-of-n wall time, and a compiled vector program measured against the
HBM roofline and against NumPy in one run."""

from __future__ import annotations

import time

from pyasc.dialects.target import get_target


def best_wall(fn, repeats: int = 3) -> float:
    """The shortest of ``repeats`` wall times of ``fn()``, in seconds (this machine is shared)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def kernel_seconds(report) -> float:
    """The launches' simulated time without their launch overhead."""
    return sum(launch.cycles / launch.clock_hz for launch in report.launches)


def roofline_and_wall(compiled, inputs, numpy_fn, target: str, repeats: int = 3,
                      steady_after: int = 0) -> tuple[dict, object]:
    """Simulate ``compiled`` on ``inputs`` (pyasc tensors): its simulated and roofline times (inputs read
    once, outputs written once at the target's HBM bandwidth), their ratio (efficiency; kernel efficiency
    without the launch overhead), and its simulator wall time over ``numpy_fn``'s on the same arrays (the first
    calls after the first; with ``steady_after``, also once that many more calls ran); also the outputs."""
    outs, report = compiled.simulate(*inputs)
    arrays = [t.numpy() for t in inputs]
    sim_wall = best_wall(lambda: compiled.simulate(*inputs), repeats)
    np_wall = best_wall(lambda: numpy_fn(*arrays), repeats)
    steady = {}
    if steady_after:  # the steady state of repeated calls: each core's data path by then a straight-line function
        for _ in range(steady_after):
            compiled.simulate(*inputs)
        steady_wall = best_wall(lambda: compiled.simulate(*inputs), repeats)
        steady = {"steady_ms": steady_wall * 1e3, "steady_over_numpy": steady_wall / np_wall}
    out_bytes = sum(o.nbytes for o in (outs if isinstance(outs, tuple) else (outs,)))
    roofline = (sum(a.nbytes for a in arrays) + out_bytes) / get_target(target).hbm_bytes_per_s
    return {"kernels": len(compiled.kernels), "simulated_us": report.seconds * 1e6, "roofline_us": roofline * 1e6,
            "efficiency": roofline / report.seconds, "kernel_efficiency": roofline / kernel_seconds(report),
            "sim_over_numpy": sim_wall / np_wall,
            "sim_ms": sim_wall * 1e3, "np_ms": np_wall * 1e3, **steady}, outs


