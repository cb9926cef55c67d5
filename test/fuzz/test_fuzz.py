"""pyasc-opt on mutated lit inputs: never a traceback, never a timeout (see ``fuzz.py``).

The default run is the fast, seeded mode: 300 mutants, each with one of its pipelines (the file's
RUN pipeline, ``-p compile``, ``-p to-ascendc`` in turn). ``--fuzz-long`` runs 3,000 mutants with
every pipeline. Every lit input as it is goes through ``-p compile`` and ``-p to-ascendc`` too: a
diagnostic (an input at another level, a program the compiler refuses) is fine there, an internal
error is not.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fuzz import fuzz, run_jobs, unmutated_jobs  # noqa: E402
from mutate import MUTATIONS  # noqa: E402

FAST_MUTANTS = 300
LONG_MUTANTS = 3000


def test_the_mutations_cover_the_listed_kinds():
    names = {m.__name__ for m in MUTATIONS}
    assert {"delete_line", "duplicate_line", "swap_tokens", "change_type", "change_shape", "change_int_attr",
            "float_attr", "drop_operand", "truncate", "unterminated_string", "invalid_utf8"} <= names


def test_pyasc_opt_on_mutants_gives_no_traceback_and_no_timeout(request):
    long = request.config.getoption("--fuzz-long")
    n = LONG_MUTANTS if long else FAST_MUTANTS
    r = fuzz(n, seed=1 if long else 0, workers=2, timeout=30.0, every_pipeline=long)
    print(f"{n} mutants, {sum(r.counts.values())} runs: " + ", ".join(f"{k} {v}" for k, v in sorted(r.counts.items())))
    bad = [f for f in r.failures if f[0] in ("traceback", "timeout")]
    report = "\n".join(f"--- {o}: {label} {' '.join(args)}\n{text[-800:]}" for o, label, args, text in bad[:10])
    assert r.counts["traceback"] == 0 and r.counts["timeout"] == 0, report
    assert sum(r.counts.values()) >= n
    assert r.counts["ok"] > 0 and r.counts["diagnostic"] > 0  # the mutants reach both outcomes


def test_pyasc_opt_on_every_unmutated_lit_input_gives_no_traceback_and_no_internal_error():
    r = run_jobs(unmutated_jobs(), workers=2, timeout=60.0)
    print(f"{sum(r.counts.values())} runs: " + ", ".join(f"{k} {v}" for k, v in sorted(r.counts.items())))
    report = "\n".join(f"--- {o}: {label} {' '.join(args)}\n{text[-800:]}" for o, label, args, text in r.failures[:10])
    assert not r.failures, report
    assert sum(r.counts.values()) >= 200 and r.counts["ok"] > 0
