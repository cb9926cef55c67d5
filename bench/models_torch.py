"""The four models of the differential suite (``test/torch_diff/test_models.py``: a transformer
encoder block, ResNet basic and downsampling blocks, an MLP with cross-entropy), compiled by
``pyasc.jit`` in float32 and float16: the number of kernels of each program and its simulated
time, next to the wall times (median of several calls) of PyTorch CPU for the same ``torch.nn``
module and of NumPy for the same forward pass (``bench/numpy_models.py``, computed in float32 for
both rows: NumPy's float16 arithmetic is emulated and slow), and the simulator's wall time of a warm
call (the program simulated before with other data, often enough for its replays to run recorded
tapes compiled to straight-line code and to settle: ``runtime/tape``; median) over PyTorch's and over
NumPy's, the latter against the goal "model tests reach <= 10x NumPy".

    python bench/models_torch.py [--calls N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

import pyasc
from pyasc.runtime import tape

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test"))
from numpy_models import NUMPY_MODELS  # noqa: E402 - next to this file, on the path as the script's folder
from torch_diff.test_models import MODELS  # noqa: E402 - the models live with their tests


def median_ms(run, calls: int) -> float:
    """The median wall time of ``run()`` in ms over ``calls`` calls, after one call."""
    run()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return float(np.median(times) * 1e3)


def bench(name: str, dtype: str, calls: int) -> str:
    torch.manual_seed(0)
    ref, run_torch, inputs, build, _ = MODELS[name](dtype, "pyasc")
    run_numpy = NUMPY_MODELS[name](ref)
    tdtype = getattr(torch, dtype)
    tin = [t.to(tdtype) if t.is_floating_point() else t for t in inputs]
    ref = ref.to(tdtype)
    with torch.no_grad():
        cpu = median_ms(lambda: run_torch(ref, tin), calls)
    npin = [t.float().numpy() if t.is_floating_point() else t.numpy() for t in tin]
    numpy_ms = median_ms(lambda: run_numpy(*npin), calls)
    args = [pyasc.tensor(t if t.is_floating_point() else t.to(torch.int32)) for t in tin]
    try:
        compiled = pyasc.jit(build(pyasc)).compile(*args)
        _, report = compiled.simulate(*args)
    except (pyasc.PyascError, AttributeError) as e:  # an op the model needs is missing or refused
        return (f"{name:13s} {dtype:8s} {'-':>8s} {'-':>14s} {cpu:12.3f} {numpy_ms:9.3f}   "
                f"not compiled: {str(e).splitlines()[0][:70]}")
    again = [pyasc.tensor(t * 0.5 if t.is_floating_point() else t.to(torch.int32)) for t in tin]
    # replays until its tapes are recorded and compiled, and as many again: the first calls of straight-line code
    # still settle (about 450 us down to 250 us per MLP call over its first 20 calls)
    for _ in range(2 * (tape.RECORD_AFTER + tape.STRAIGHT_AFTER + 2)):
        compiled.simulate(*again)
    sim = median_ms(lambda: compiled.simulate(*again), max(10, calls // 4))
    return (f"{name:13s} {dtype:8s} {len(compiled.kernels):8d} {report.seconds * 1e6:14.2f} {cpu:12.3f} "
            f"{numpy_ms:9.3f} {sim:10.2f} {sim / cpu:9.1f} {sim / numpy_ms:9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="PyTorch and NumPy calls timed per model")
    args = parser.parse_args()
    print(f"{'model':13s} {'dtype':8s} {'kernels':>8s} {'simulated us':>14s} {'torch CPU ms':>12s} "
          f"{'numpy ms':>9s} {'sim ms':>10s} {'sim/torch':>9s} {'sim/numpy':>9s}")
    for name in MODELS:
        for dtype in ("float32", "float16"):
            print(bench(name, dtype, args.calls), flush=True)


if __name__ == "__main__":
    main()
