"""Emitted movement kernels (Gather-based transpose, concat copies) built for the CPU and run,
bit-exact against the simulator."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import pyasc
from project_check import project_check

GXX = shutil.which("g++")

pytestmark = pytest.mark.skipif(GXX is None, reason="g++ is not installed: CPU runs skipped")




@pytest.mark.parametrize("style", ["queue", "flags"])
def test_transpose_and_cat_project_cpu_run(style, tmp_path):
    rng = np.random.default_rng(3)
    x = pyasc.tensor(rng.standard_normal((37, 45)), dtype=pyasc.float32)
    y = pyasc.tensor(rng.standard_normal((10, 37)), dtype=pyasc.float32)
    compiled = pyasc.jit(lambda x, y: pyasc.cat([x.T * 2, y], 0), options={"sync_style": style}).compile(x, y)
    summary = project_check(compiled, [x, y], tmp_path, exact=True)
    assert "bit-exact" in summary


def test_strided_slice_project_cpu_run(tmp_path):
    x = pyasc.tensor(np.arange(29 * 45, dtype=np.float16).reshape(29, 45) / 64, dtype=pyasc.float16)
    compiled = pyasc.jit(lambda x: x[1::3, ::2] + 1).compile(x)
    project_check(compiled, [x], tmp_path, exact=True)


@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
def test_topk_project_cpu_run(dtype, tmp_path):
    rng = np.random.default_rng(5)
    x = pyasc.tensor(rng.integers(-8, 8, size=(13, 37)) / 2, dtype=dtype)
    compiled = pyasc.jit(lambda x: pyasc.topk(x, 4, largest=False)).compile(x)
    project_check(compiled, [x], tmp_path, exact=True)


def test_negative_step_project_cpu_run(tmp_path):
    x = pyasc.tensor(np.arange(29 * 45, dtype=np.float32).reshape(29, 45), dtype=pyasc.float32)
    compiled = pyasc.jit(lambda x: x[::-2, 40:3:-3] + 1).compile(x)
    project_check(compiled, [x], tmp_path, exact=True)
