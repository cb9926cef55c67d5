"""Every catalogue row under autocast: ``torch.autocast("cpu", dtype)`` and ``pyasc.amp.autocast(dtype)``
give the same result dtype, shape and values (at the result dtype's tolerance), on float32 inputs.

Default mode: each row once, in one autocast dtype and one mode chosen by its name. ``--diff-long``:
every row in float16 and bfloat16, eagerly and in jit. Known failures go through ``known_failures.py``
under the op name ``autocast.<row>``.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import torch

import pyasc

from .catalogue import all_rows
from .harness import Case, check, make_inputs
from .known_failures import mark
from .test_ops import capturing, draw_case, torch_accepts

ROWS = all_rows()
AUTOCAST_DTYPES = ("float16", "bfloat16")


def _autocast_rows():
    """Rows taking float32 tensors whose own name does not already put them under autocast."""
    return [r for r in ROWS.values() if "float32" in r.dtypes and not r.name.startswith("autocast_")]


def build_cases(long: bool) -> list[tuple[Case, str]]:
    cases = []
    for row in _autocast_rows():
        if not torch_accepts(row, "float32"):
            continue
        r = zlib.crc32(row.name.encode())
        for ac in AUTOCAST_DTYPES:
            for mode in row.modes:
                if not long and (ac != AUTOCAST_DTYPES[r % 2] or mode != row.modes[(r >> 1) % len(row.modes)]):
                    continue
                specs, kw = draw_case(row, "float32", "odd", 0)
                case = Case(f"autocast.{row.name}", ac, mode, "odd", 0, specs, kw)
                cases.append((case, row.name))
    return cases


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_autocast_op":
        long = metafunc.config.getoption("--diff-long", default=False)
        observe = metafunc.config.getoption("--diff-observe", default=False)
        metafunc.parametrize("case,row_name", [pytest.param(c, n, id=c.id, marks=() if observe else mark(c))
                                               for c, n in build_cases(long)])


def test_autocast_op(case: Case, row_name: str):
    row = ROWS[row_name]
    tin, pin = make_inputs(np.random.default_rng(case.seed()), case.specs, "float32", row.domain)
    kw, ac = case.kw, case.dtype

    def torch_fn(*xs):
        with torch.autocast("cpu", dtype=getattr(torch, ac)):
            return row.torch_fn()(torch, *xs, **kw)

    def pyasc_fn(*xs):
        with pyasc.amp.autocast(getattr(pyasc, ac)):
            return row.pyasc(pyasc, *xs, **kw)

    fn, args = capturing(row, case.mode, pyasc_fn, pin)
    acc = row.acc(case.specs, kw) if row.acc else 1
    check(case.mode, fn, torch_fn, tin, args, acc=acc, check_values=row.values, device=row.device)
