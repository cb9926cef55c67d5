"""Dispatch overhead on tiny tensors: a cached ``pyasc.jit`` call and an eager op, next to NumPy.

For ``a + b`` on two float32 tensors of 4 elements, prints the median over many calls of:

* the cached ``jit`` call (signature key, cache lookup, launch and simulation of the program);
* the eager op (a repeated call of an op on tensors of the same signature runs its compiled program
  directly; the first one goes through the op table checks, promotion and broadcasting and the eager
  cache, ``infer`` below);
* NumPy's ``a + b`` and PyTorch CPU eager ``a + b`` on the same data (when torch is installed), and
  the ratios the performance goals are stated in: jit / torch eager (goal <= 10x) and eager / torch
  eager (goal <= 20x); these four are timed in alternating rounds and each ratio is the median of the
  rounds' ratios;

and, to show where the time goes, the parts: the front end's signature key and input check, the
runtime's launch path (streams, memory accounting) and the simulator's ``run`` of the compiled
module alone. Targets: cached jit call <= 100 us, eager op <= 200 us.

    python bench/dispatch.py [--calls N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pyasc
from pyasc.dispatch import infer

JIT_TARGET_US = 100.0
EAGER_TARGET_US = 200.0


def median_us(fn, calls: int) -> float:
    for _ in range(min(200, calls)):      # warm up
        fn()
    times = np.empty(calls)
    clock = time.perf_counter
    for i in range(calls):
        t = clock()
        fn()
        times[i] = clock() - t
    return float(np.median(times) * 1e6)


def interleaved_us(fns: dict, calls: int, rounds: int = 7) -> tuple[dict, dict]:
    """The contestants of ``fns`` timed in turn, ``rounds`` times ``calls // rounds`` calls each, so that each round
    measures all of them on the machine as it is then: (name -> median over rounds of the round's median time,
    name -> median over rounds of that round's time / the first contestant's)."""
    per = max(1, calls // rounds)
    times: dict = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(median_us(fn, per))
    first = next(iter(fns))
    ratios = {k: float(np.median([t / f for t, f in zip(v, times[first])])) for k, v in times.items()}
    return {k: float(np.median(v)) for k, v in times.items()}, ratios


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000, help="calls per measurement")
    args = parser.parse_args(argv)
    n = args.calls

    a_np = np.arange(4, dtype=np.float32)
    b_np = np.ones(4, dtype=np.float32)
    a, b = pyasc.tensor(a_np), pyasc.tensor(b_np)

    @pyasc.jit
    def add(x, y):
        return x + y

    add(a, b)                       # compile once
    a + b
    compiled = add.compile(a, b)
    sim = compiled._sim()
    arrays = [a_np, b_np, np.empty(4, np.float32)]

    try:
        import torch
    except ImportError:
        torch = None
    # the calls compared in the goals, timed in alternating rounds (the machine's speed drifts between them)
    contestants = {"numpy": lambda: a_np + b_np}
    if torch is not None:
        a_t, b_t = torch.from_numpy(a_np), torch.from_numpy(b_np)
        contestants = {"torch": lambda: a_t + b_t, **contestants}
    contestants.update(jit=lambda: add(a, b), eager=lambda: a + b)
    medians, ratios = interleaved_us(contestants, n)
    t_np, t_jit, t_eager = medians["numpy"], medians["jit"], medians["eager"]
    t_key = median_us(lambda: add._split((a, b), {}), n)
    t_check = median_us(lambda: compiled.check_inputs("bench", (a, b)), n)
    t_infer = median_us(lambda: infer("add", (a, b), {}), n)
    t_simulate = median_us(lambda: compiled.simulate(a, b), n)
    t_call = median_us(lambda: compiled(a, b), n)
    t_run = median_us(lambda: sim.run(compiled.name, arrays), n)

    print(f"dispatch overhead on float32[4] a + b, median of {n} calls (us)")
    print(f"  numpy a + b                         {t_np:8.2f}")
    print(f"  cached pyasc.jit call               {t_jit:8.2f}   target <= {JIT_TARGET_US:.0f}  "
          f"{'ok' if t_jit <= JIT_TARGET_US else 'MISSED'}   ({t_jit / t_np:,.0f}x numpy)")
    print(f"  eager op                            {t_eager:8.2f}   target <= {EAGER_TARGET_US:.0f}  "
          f"{'ok' if t_eager <= EAGER_TARGET_US else 'MISSED'}   ({t_eager / t_np:,.0f}x numpy)")
    if torch is not None:
        jit_ratio, eager_ratio = ratios["jit"], ratios["eager"]
        print(f"  torch CPU eager a + b               {medians['torch']:8.2f}")
        print(f"  jit call / torch eager              {jit_ratio:8.1f}x  goal <= 10x  "
              f"{'ok' if jit_ratio <= 10 else 'MISSED'}   (median of the rounds' ratios)")
        print(f"  eager op / torch eager              {eager_ratio:8.1f}x  goal <= 20x  "
              f"{'ok' if eager_ratio <= 20 else 'MISSED'}")
    print("where the time goes (us)")
    print(f"  front end: jit signature key        {t_key:8.2f}   (a call whose signature is not cached yet)")
    print(f"  front end: input check              {t_check:8.2f}")
    print(f"  front end: eager op checks (infer)  {t_infer:8.2f}   (the first call of a signature; later calls "
          f"run its program directly)")
    print(f"  runtime launch path (streams, mem)  {max(0.0, t_call - t_simulate):8.2f}")
    print(f"  Compiled.simulate wrapper           {max(0.0, t_simulate - t_run):8.2f}")
    print(f"  simulator run of the module         {t_run:8.2f}   "
          f"({t_run / t_jit:.0%} of the jit call)")


if __name__ == "__main__":
    main()
