"""The pyasc-opt fuzz harness: mutate every lit input, run the driver, count the outcomes.

Each mutant runs with its file's own RUN pipeline, with ``-p compile`` and with ``-p to-ascendc``.
Bad input must give a diagnostic: a traceback or a timeout is a failure.

    python test/fuzz/fuzz.py --mutants 3000 --seed 1     # the long mode, for measurements
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from mutate import mutate  # noqa: E402
from runner import Results, Worker, run_pipelines  # noqa: E402

LIT_ROOT = Path(__file__).resolve().parents[1] / "lit"
EXTRA_PIPELINES = (["-p", "compile"], ["-p", "to-ascendc"])


def lit_inputs() -> list[Path]:
    return sorted(p for p in LIT_ROOT.rglob("*.mlir") if run_pipelines(p))


def jobs(n: int, seed: int, every_pipeline: bool = True) -> list[tuple[str, list[str], bytes]]:
    """``n`` mutants, each with its runs: (label, args, input bytes). Each mutant runs with its file's
    RUN pipeline and the extra pipelines, or (``every_pipeline=False``, the fast mode) with one of
    them in turn."""
    rng = random.Random(seed)
    files = lit_inputs()
    out = []
    for i in range(n):
        f = files[i % len(files)]
        name, data = mutate(f.read_text(), rng)
        label = f"{f.relative_to(LIT_ROOT)}#{i}:{name}"
        own = run_pipelines(f)[0]
        runs = [own] + [["%s", *p] for p in EXTRA_PIPELINES]
        for args in runs if every_pipeline else [runs[i // len(files) % len(runs)]]:
            out.append((label, args, data))
    return out


def unmutated_jobs() -> list[tuple[str, list[str], bytes]]:
    """Every lit input as it is, with ``-p compile`` and ``-p to-ascendc``."""
    return [(str(f.relative_to(LIT_ROOT)), ["%s", *p], f.read_bytes()) for f in lit_inputs() for p in EXTRA_PIPELINES]


def fuzz(n: int, seed: int = 0, workers: int = 2, timeout: float = 20.0, every_pipeline: bool = True) -> Results:
    """Run ``n`` mutants on ``workers`` worker processes; the counts of every outcome."""
    return run_jobs(jobs(n, seed, every_pipeline), workers, timeout)


def run_jobs(todo: list[tuple[str, list[str], bytes]], workers: int = 2, timeout: float = 20.0) -> Results:
    """Run the jobs ``(label, args, input bytes)`` on ``workers`` worker processes."""
    results = Results()
    lock = threading.Lock()

    def serve(part):
        w = Worker(timeout)
        try:
            for label, args, data in part:
                outcome, text = w.run(args, data)
                with lock:
                    results.add(outcome, label, args, text)
        finally:
            w.stop()

    threads = [threading.Thread(target=serve, args=(todo[k::workers],)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--one-pipeline", action="store_true", help="one pipeline per mutant (the fast mode)")
    a = ap.parse_args()
    r = fuzz(a.mutants, a.seed, a.workers, a.timeout, not a.one_pipeline)
    print(f"{a.mutants} mutants, {sum(r.counts.values())} runs: " +
          ", ".join(f"{k} {v}" for k, v in sorted(r.counts.items())))
    for outcome, label, args, text in r.failures[:40]:
        print(f"--- {outcome}: {label} {' '.join(args)}\n{text}")


if __name__ == "__main__":
    main()
