"""Options and counts of the differential suite against PyTorch CPU.

``--diff-long`` (declared in ``test/conftest.py``) runs many more shapes per op (for measurements); ``--diff-observe`` ignores the
known-failures table. Every case's outcome is counted; the terminal summary shows the counts and
``torch_diff_counts.json`` in pytest's temporary folder holds them with each case's result.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter

import pytest

# a private compilation cache: never the user's ~/.cache/pyasc, and a cold start every run
os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-torch-diff-cache-"))

from .harness import Case, DiffFailure  # noqa: E402

_RESULTS: list[dict] = []
_START = [time.time(), time.process_time()]


def pytest_sessionstart(session):
    _START[:] = [time.time(), time.process_time()]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    params = getattr(getattr(item, "callspec", None), "params", {})
    case = params.get("case")
    if not isinstance(case, Case):
        return
    if rep.when != "call" and not (rep.when == "setup" and not rep.passed):
        return
    exc = call.excinfo.value if call.excinfo is not None else None
    if hasattr(rep, "wasxfail"):
        status = "xfailed" if rep.skipped else "xpassed"
    elif rep.failed and "XPASS(strict)" in str(rep.longrepr):
        status = "xpassed"
    else:
        status = rep.outcome
    category = exc.category if isinstance(exc, DiffFailure) else (type(exc).__name__ if exc else None)
    _RESULTS.append({"op": case.op, "dtype": case.dtype, "mode": case.mode, "cls": case.key_cls,
                     "shapes": case.shapes_text, "args": case.args_text, "id": case.id, "status": status,
                     "category": category, "message": str(exc).splitlines()[0][:300] if exc else None,
                     "seconds": round(rep.duration, 3)})


def unused_entries(results: list[dict]) -> list[tuple]:
    """Known-failure entries that matched no case (stale after a fix, or not sampled in this mode)."""
    from .known_failures import KNOWN, matches

    return [e for e in KNOWN if not any(matches(e, r["op"], r["dtype"], r["mode"], r["cls"],
                                                 f"{r['shapes']} {r['args']}") for r in results)]


def summarize(results: list[dict]) -> dict:
    status = Counter(r["status"] for r in results)
    xfail = Counter(r["category"] for r in results if r["status"] == "xfailed")
    failed = Counter(r["category"] for r in results if r["status"] == "failed")
    by_mode = {m: dict(Counter(r["status"] for r in results if r["mode"] == m))
               for m in sorted({r["mode"] for r in results})}
    ops = {r["op"].split("[")[0] for r in results}
    return {
        "tried": len(results),
        "ops": len({r["op"] for r in results}), "op_families": len(ops),
        "dtypes": sorted({r["dtype"] for r in results}),
        "shapes": len({(r["op"], r["shapes"], r["args"]) for r in results}),
        "modes": sorted({r["mode"] for r in results}),
        "passed": status.get("passed", 0), "xfailed": status.get("xfailed", 0),
        "failed": status.get("failed", 0), "xpassed": status.get("xpassed", 0),
        "skipped": status.get("skipped", 0),
        "xfailed_by_category": dict(xfail.most_common()), "failed_by_category": dict(failed.most_common()),
        "by_mode": by_mode,
        "ops_all_passing": sorted({r["op"] for r in results} - {r["op"] for r in results
                                                                if r["status"] != "passed"}),
        "seconds": round(time.time() - _START[0], 1),
        "cpu_seconds": round(time.process_time() - _START[1], 1),
    }


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _RESULTS:
        return
    s = summarize(_RESULTS)
    tr = terminalreporter
    tr.section("differential suite against PyTorch CPU")
    mode = "long" if config.getoption("--diff-long", default=False) else "default"
    tr.write_line(f"mode {mode}: {s['tried']} cases tried = {s['ops']} ops x {len(s['dtypes'])} dtypes "
                  f"({', '.join(s['dtypes'])}) x {s['shapes']} shapes x {len(s['modes'])} modes "
                  f"({', '.join(s['modes'])})  in {s['seconds']} s ({s['cpu_seconds']} s of CPU)")
    tr.write_line(f"passed {s['passed']}, xfailed {s['xfailed']}, failed {s['failed']}, "
                  f"xpassed {s['xpassed']}, skipped {s['skipped']}")
    tr.write_line("xfailed by category: " + ", ".join(f"{k} {v}" for k, v in s["xfailed_by_category"].items()))
    if s["failed_by_category"]:
        tr.write_line("failed by category: " + ", ".join(f"{k} {v}" for k, v in s["failed_by_category"].items()))
    for m, counts in s["by_mode"].items():
        tr.write_line(f"  {m}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    unused = unused_entries(_RESULTS)
    if unused and mode == "long":
        tr.write_line(f"{len(unused)} known-failure entries matched no case of this run: "
                      + "; ".join("/".join(e[:4]) for e in unused[:8]) + (" ..." if len(unused) > 8 else ""))
    try:
        base = config._tmp_path_factory.getbasetemp()
    except AttributeError:
        base = tempfile.mkdtemp(prefix="torch-diff-")
    path = os.path.join(str(base), "torch_diff_counts.json")
    with open(path, "w") as f:
        json.dump({"summary": s, "cases": _RESULTS}, f, indent=1)
    tr.write_line(f"counts and per-case results: {path}")
