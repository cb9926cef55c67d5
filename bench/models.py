"""Model benchmarks: ResNet-18, MobileNetV2, ResNet-50 and a 2-layer transformer encoder (d_model 256,
4 heads, 16 tokens), built in torch with random weights, exported to ONNX, imported by pyasc.

Prints, from one run, per model:

* import + compile time at batch 1, cold (an empty disk cache) and served from the disk cache
  (a new ``OMModel``, as a new process would see it);
* the kernel count of the compiled program;
* simulated latency at batch 1 and 8 and the throughput in images (sequences) per second;
* simulated efficiency = roofline time / simulated time at batch 8, the roofline being the longer
  of the cube MACs (convolutions and matrix products) at the target's peak and the bytes of the
  inputs, weights and outputs at the HBM bandwidth;
* the simulator's wall time of the first batch-1 inference (kernels translated, schedules computed)
  and of a later one (best of 2), the later one over onnxruntime's CPU wall time (best of 5),
  measured in the same run;
* the batch-8 output's largest error against onnxruntime's, relative to its largest logit.

    python bench/models.py [--hw 224] [--dtype float16] [--models resnet18,transformer]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

sys.path.insert(0, os.path.dirname(__file__))
from timing import best_wall  # noqa: E402

import pyasc  # noqa: E402
from pyasc import cache  # noqa: E402
from pyasc.dialects import asctensor  # noqa: E402
from pyasc.dialects.target import DEFAULT_TARGET, get_target  # noqa: E402

ALL = ["resnet18", "mobilenetv2", "resnet50", "transformer"]


def _architectures():
    path = Path(__file__).resolve().parent.parent / "test" / "model" / "architectures.py"
    spec = importlib.util.spec_from_file_location("architectures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cube_macs(traced) -> int:
    """MACs of the convolutions and matrix products of a traced program."""
    macs = 0
    for op in traced.walk():
        if isinstance(op, asctensor.Conv2dOp):
            out = op.results[0].type.get_shape()
            _, cg, kh, kw = op.weight.type.get_shape()
            macs += int(np.prod(out)) * cg * kh * kw
        elif isinstance(op, asctensor.MatmulOp):
            out = op.results[0].type.get_shape()
            a = op.operands[0].type.get_shape()
            k = a[-2] if op.transpose_a else a[-1]
            macs += int(np.prod(out)) * k
    return macs


def roofline_seconds(macs: int, moved_bytes: int, dtype: str) -> float:
    spec = get_target(DEFAULT_TARGET)
    key = "f16" if dtype == "float16" else "f32"
    return max(macs / (spec.cube_cores * spec.cube_macs_per_cycle[key] * spec.clock_hz),
               moved_bytes / spec.hbm_bytes_per_s)


def bench(name: str, arch, hw: int, dtype: str, cache_root: Path) -> dict:
    model, shape, in_dtype = arch.build(name)
    if len(shape) == 3:
        shape = (3, hw, hw)
    g = torch.Generator().manual_seed(0)
    make = (lambda n: torch.randint(0, 1000, (n, *shape), generator=g)) if in_dtype == torch.int64 else \
        (lambda n: torch.randn(n, *shape, generator=g))
    data = arch.export(model, make(1))
    path = cache_root / f"{name}.onnx"
    path.write_bytes(data)
    x1, x8 = make(1).numpy(), make(8).numpy()

    os.environ["PYASC_CACHE_DIR"] = str(cache_root / f"cache-{name}")
    start = time.perf_counter()
    m = pyasc.OMModel(str(path), dtype=dtype)
    c1 = m.compile(x1)
    cold = time.perf_counter() - start
    hits = cache.stats()["hits"]
    start = time.perf_counter()
    pyasc.OMModel(str(path), dtype=dtype).compile(x1)
    cached = time.perf_counter() - start
    if cache.stats()["hits"] != hits + 1:
        raise RuntimeError(f"{name}: the second compilation was not served from the disk cache")

    arrays1 = m.prepare_inputs(x1)
    start = time.perf_counter()
    _, r1 = c1.simulate(*arrays1)
    first_wall = time.perf_counter() - start
    sim_wall = best_wall(lambda: c1.simulate(*arrays1), 2)     # an inference once the kernels are loaded
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    ort_wall = best_wall(lambda: sess.run(None, {"x": x1}), 5)

    m.set_dynamic_batch([1, 8])
    c8 = m.compile(x8)
    arrays8 = m.prepare_inputs(x8)
    out8, r8 = c8.simulate(*arrays8)
    ref8 = sess.run(None, {"x": x8})[0]
    err8 = float(np.abs(np.asarray(out8, np.float32) - ref8).max() / np.abs(ref8).max())
    lowered = m.lower(x8)
    moved = sum(a.nbytes for a in arrays8) + sum(a.nbytes for a in c8.constants) + \
        sum(int(np.prod(s.shape)) * s.dtype.itemsize for s in c8.outputs)
    roof = roofline_seconds(cube_macs(lowered.traced), moved, dtype)
    return {"model": name, "cold_s": cold, "cached_s": cached, "kernels": len(c1.kernels),
            "lat1_ms": r1.seconds * 1e3, "lat8_ms": r8.seconds * 1e3, "ips1": 1 / r1.seconds, "ips8": 8 / r8.seconds,
            "efficiency": roof / r8.seconds, "first_wall_s": first_wall, "sim_wall_s": sim_wall, "ort_wall_ms": ort_wall * 1e3,
            "sim_over_ort": sim_wall / ort_wall, "err8": err8}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hw", type=int, default=224, help="image height and width (default 224)")
    p.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    p.add_argument("--models", default=",".join(ALL), help=f"comma-separated subset of {','.join(ALL)}")
    args = p.parse_args(argv)
    arch = _architectures()
    print(f"target {DEFAULT_TARGET}; {args.dtype}; images {args.hw}x{args.hw}; transformer: 16 tokens")
    print(f"{'model':<12} {'cold s':>7} {'cached s':>8} {'kernels':>7} {'b1 ms':>8} {'b8 ms':>8} {'img/s b1':>9} "
          f"{'img/s b8':>9} {'eff b8':>7} {'1st sim s':>9} {'sim wall s':>10} {'ort ms':>7} {'sim/ort':>8} "
          f"{'err b8':>8}")
    with tempfile.TemporaryDirectory(prefix="pyasc-bench-models-") as root:
        for name in args.models.split(","):
            r = bench(name, arch, args.hw, args.dtype, Path(root))
            print(f"{r['model']:<12} {r['cold_s']:7.1f} {r['cached_s']:8.2f} {r['kernels']:7d} {r['lat1_ms']:8.3f} "
                  f"{r['lat8_ms']:8.3f} {r['ips1']:9.0f} {r['ips8']:9.0f} {r['efficiency']:7.1%} "
                  f"{r['first_wall_s']:9.1f} {r['sim_wall_s']:10.2f} {r['ort_wall_ms']:7.2f} {r['sim_over_ort']:8.0f}x "
                  f"{r['err8']:8.1e}", flush=True)


if __name__ == "__main__":
    main()
