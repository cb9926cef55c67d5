"""Random permutations (2 to 4 dims, sizes 1 to 300) of float16, float32, int16 and int32 tensors against NumPy:
the transposes whose tile columns are whole runs go through ``TransDataTo5HD``, the rest through ``Gather`` or
copies. Each case runs through the simulator with every check on. ``--random-long`` runs 300 cases instead of
12."""

from __future__ import annotations

import numpy as np
import pytest

import pyasc

DTYPES = ("float16", "float32", "int16", "int32")


def _cases(count: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        ndim = int(rng.integers(2, 5))
        shape = tuple(int(rng.integers(1, 300 if ndim == 2 else 40)) for _ in range(ndim))
        perm = tuple(int(p) for p in rng.permutation(ndim))
        if perm == tuple(range(ndim)) or np.prod(shape) > 1 << 18:
            continue
        out.append((shape, perm, DTYPES[int(rng.integers(len(DTYPES)))], len(out)))
    return out


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_random_permutation_matches_numpy":
        count = 300 if metafunc.config.getoption("--random-long") else 12
        metafunc.parametrize("shape,perm,dtype,seed", _cases(count, 77))


def test_random_permutation_matches_numpy(shape, perm, dtype, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 1000).astype(dtype)
    got, report = pyasc.jit(lambda x: x.permute(*perm).contiguous()).lower(pyasc.tensor(a)).compile().simulate(
        pyasc.tensor(a))
    np.testing.assert_array_equal(np.asarray(got), a.transpose(perm))
    assert report.findings == []


def test_a_wide_float16_transpose_runs_on_trans_data_to_5hd():
    a = np.arange(96 * 200, dtype=np.float16).reshape(96, 200)
    compiled = pyasc.jit(lambda x: x.T.contiguous()).lower(pyasc.tensor(a)).compile()
    assert "AscendC::TransDataTo5HD<half>" in compiled.ascendc_source()
    got, _ = compiled.simulate(pyasc.tensor(a))
    np.testing.assert_array_equal(np.asarray(got), a.T)
