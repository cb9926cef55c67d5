"""Start-up and compile time, each measured in fresh processes (median of ``--runs``):

* ``python -c "import pyasc"`` (the package is lazy: target <= 0.05 s);
* ``pyasc-opt`` on a small lit file, parsed, verified and printed (target <= 0.6 s);
* the cold compile of one fused kernel, ``jit(lambda x, y: relu(x * y + 1.0)).lower(x, y).compile()``
  on float32[1<<16] inputs, timed after the imports in a fresh process with an empty disk cache
  (target <= 150 ms; it loads the compiler's dialects and passes), and the garbage collector's
  share of it;
* for a few programs, the first call of a ``jit`` function against its cold compile plus one warm
  call (target: first <= 2 x (compile + warm)).

    python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPT_FILE = ROOT / "test" / "lit" / "dialects" / "ascendc" / "compare.mlir"
TARGETS = {"import": 0.05, "opt": 0.6, "compile": 0.150, "ratio": 2.0}

# name -> (the jitted function's source, the inputs' shapes)
PROGRAMS = {
    "fused": ("lambda x, y: pyasc.relu(x * y + 1.0)", [(1 << 16,), (1 << 16,)]),
    "add": ("lambda x, y: x + y", [(1 << 16,), (1 << 16,)]),
    "softmax": ("lambda x: pyasc.softmax(x, -1)", [(64, 1024)]),
    "matmul": ("lambda a, b: a @ b", [(256, 256), (256, 256)]),
    "layer_norm": ("lambda x, w, b: pyasc.layer_norm(x, (1024,), w, b)", [(64, 1024), (1024,), (1024,)]),
}

# run in a fresh process: prints {"compile": s, "gc": s} (lower + compile, the collector's time in it)
# or {"first": s, "warm": s}
CHILD = """
import gc, json, sys, time
gc_time = {"start": 0.0, "total": 0.0}
def on_gc(phase, info):
    if phase == "start":
        gc_time["start"] = time.perf_counter()
    else:
        gc_time["total"] += time.perf_counter() - gc_time["start"]
gc.callbacks.append(on_gc)
import numpy as np
import pyasc
fn = eval(sys.argv[1], {"pyasc": pyasc})
rng = np.random.default_rng(0)
xs = [pyasc.tensor(rng.standard_normal(s).astype(np.float32)) for s in json.loads(sys.argv[2])]
f = pyasc.jit(fn)
clock = time.perf_counter
if sys.argv[3] == "compile":
    g = gc_time["total"]
    t = clock(); f.lower(*xs).compile(); t = clock() - t
    print(json.dumps({"compile": t, "gc": gc_time["total"] - g}))
else:
    t = clock(); f(*xs); first = clock() - t
    warm = []
    for _ in range(5):
        t = clock(); f(*xs); warm.append(clock() - t)
    print(json.dumps({"first": first, "warm": sorted(warm)[2]}))
"""


def wall(cmd: list[str], env: dict) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def child(name: str, mode: str, env: dict) -> dict:
    src, shapes = PROGRAMS[name]
    env = dict(env, PYASC_CACHE_DIR=tempfile.mkdtemp(dir=env["PYASC_CACHE_DIR"]))   # empty: a cold call
    out = subprocess.run([sys.executable, "-c", CHILD, src, json.dumps(shapes), mode], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def median(fn, runs: int) -> float:
    fn()                               # the first run fills the byte-code caches
    return statistics.median(fn() for _ in range(runs))


def line(what: str, value: float, target: float, unit: str = "s") -> None:
    ok = "ok" if value <= target else "OVER"
    print(f"{what:<44} {value:8.3f} {unit}   target <= {target:g} {unit}  {ok}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per measurement")
    parser.add_argument("--programs", default="add,softmax,matmul,layer_norm",
                        help="programs of the first-call measurement")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pyasc-startup-") as cache:
        env = dict(os.environ, PYASC_CACHE_DIR=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)         # as users run: byte code cached
        opt = str(Path(sys.executable).with_name("pyasc-opt"))
        line("python -c 'import pyasc'", median(lambda: wall([sys.executable, "-c", "import pyasc"], env),
                                                 args.runs), TARGETS["import"])
        line(f"pyasc-opt {OPT_FILE.relative_to(ROOT)}", median(lambda: wall([opt, str(OPT_FILE)], env), args.runs),
             TARGETS["opt"])
        runs = [child("fused", "compile", env) for _ in range(args.runs + 1)][1:]
        compile_s = statistics.median(r["compile"] for r in runs)
        line("cold compile relu(x*y+1), f32[65536]", compile_s * 1e3, TARGETS["compile"] * 1e3, "ms")
        # the process's first full collection falls in the compile or before it, by allocation counts
        print(f"{'  of which garbage collection (median)':<44} {statistics.median(r['gc'] for r in runs) * 1e3:8.3f} ms")
        print(f"\n{'program':<12} {'compile':>9} {'warm':>9} {'first':>9} {'first/(compile+warm)':>22}")
        for name in args.programs.split(","):
            comp = median(lambda: child(name, "compile", env)["compile"], args.runs)
            calls = [child(name, "call", env) for _ in range(args.runs)]
            first = statistics.median(c["first"] for c in calls)
            warm = statistics.median(c["warm"] for c in calls)
            ratio = first / (comp + warm)
            print(f"{name:<12} {comp * 1e3:7.1f}ms {warm * 1e3:7.1f}ms {first * 1e3:7.1f}ms {ratio:16.2f}  "
                  f"{'ok' if ratio <= TARGETS['ratio'] else 'OVER'}")


if __name__ == "__main__":
    main()
