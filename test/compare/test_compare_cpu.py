"""The emitted Ascend C of comparisons and ``where`` builds against the stubs and runs on the CPU,
bit for bit equal to the simulator (bool outputs are one byte per element)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import pyasc
from pyasc.lowering.emit import check_project
from pyasc.lowering.emit.cpu import cpu_run_project

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed: CPU runs skipped")


def prog(x, y):
    return pyasc.where(x > y, x * 2.0, y - 1.0), (x <= 0.25) | pyasc.isnan(y)


@pytest.mark.parametrize("style", ["queue", "flags"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_compare_select_project_cpu_run(dtype, style, tmp_path):
    rng = np.random.default_rng(5)
    d = pyasc.get_dtype(dtype)
    x = pyasc.tensor(rng.standard_normal((19, 70)), dtype=d)
    y = pyasc.tensor(rng.standard_normal((19, 70)), dtype=d)
    compiled = pyasc.jit(prog, options={"sync_style": style}).compile(x, y)
    out = tmp_path / "proj"
    compiled.write_project(out, inputs=[x, y])
    for name, (ok, diag) in check_project(out).items():
        assert ok, f"{name}: {diag}"
    ok, summary = cpu_run_project(out, compiled, [x, y])
    assert ok, summary
    assert "MISMATCH" not in summary, summary
