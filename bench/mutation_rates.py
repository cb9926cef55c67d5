"""Mutation rates of the hazard and contract checks: for every explicit-flag program of the mutation
test and every mutation class, how many mutants the simulator reports (caught/total).

    python bench/mutation_rates.py [--programs a,b] [--classes "shrunken buffers,..."] [--buffers 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "runtime"))

from mutation import CLASS_KINDS, MUTATION_CLASSES, apply, detected  # noqa: E402
from mutation_programs import PROGRAMS, compile_flags  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--classes", default=",".join(MUTATION_CLASSES))
    ap.add_argument("--buffers", type=int, default=2)
    args = ap.parse_args()
    classes = args.classes.split(",")
    totals = {k: [0, 0] for k in classes}
    for name in args.programs.split(","):
        c, xs = compile_flags(name, args.buffers)
        arrays = xs + [np.zeros(s.shape, s.dtype.np_dtype) for s in c.outputs]
        ok, why = detected(c.module, c.name, arrays)
        if ok:
            print(f"{name}: the unmutated kernel is reported: {why}", flush=True)
        for kind in classes:
            t0 = time.perf_counter()
            also = CLASS_KINDS.get(kind, ())
            if also and detected(c.module, c.name, arrays, also)[0]:
                print(f"{name:18} {kind:22} skipped: the unmutated kernel already reads never-written memory",
                      flush=True)
                continue
            ms = MUTATION_CLASSES[kind](c.module)
            missed = [m.what for m in ms if not detected(apply(c.module, m), c.name, arrays, also)[0]]
            caught = len(ms) - len(missed)
            totals[kind][0] += caught
            totals[kind][1] += len(ms)
            print(f"{name:18} {kind:22} {caught}/{len(ms)}  ({time.perf_counter() - t0:.0f} s)", flush=True)
            for w in missed[:5]:
                print(f"    missed: {w}", flush=True)
    print("total", flush=True)
    for kind, (caught, n) in totals.items():
        print(f"  {kind:22} {caught}/{n}", flush=True)


if __name__ == "__main__":
    main()
