"""Write a compiled program's project, syntax-check it, run it on the CPU and compare with the simulator."""

from __future__ import annotations

import subprocess

from pyasc.lowering.emit import check_project
from pyasc.lowering.emit.cpu import cpu_run_project


def project_check(compiled, inputs, tmp_path, exact: bool) -> str:
    """The CPU run's summary; fails on a syntax error, a mismatch (any difference when ``exact``) or
    when the program's own comparison with the simulator's goldens does not pass."""
    out = tmp_path / "proj"
    compiled.write_project(out, inputs=inputs)
    for name, (ok, diag) in check_project(out).items():
        assert ok, f"{name}: {diag}"
    ok, summary = cpu_run_project(out, compiled, inputs)
    assert ok, summary
    if exact:
        assert "MISMATCH" not in summary and "within tolerance" not in summary, summary
    run = subprocess.run([str(out / "build" / "main_cpu")], cwd=out, capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    return summary
