"""Differential test of every catalogue row against PyTorch CPU: values, dtype and shape, for each
dtype torch accepts, each shape class, eagerly and inside ``pyasc.jit``.

Default mode: a few shapes per op. ``--diff-long``: 1-2 shapes of every class, every dtype and mode.
Known failures are expected (strict xfail) through ``known_failures.py``.
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest
import torch

import pyasc

from .catalogue import all_rows
from .harness import FLOATS, Case, check, form, make_inputs
from .known_failures import mark

ROWS = all_rows()

LONG = (("odd", 2), ("prime", 2), ("one", 2), ("empty", 1), ("large", 1), ("nan", 2))


def plan(row, dtype: str, mode: str, long: bool) -> tuple:
    """``((shape class, how many shapes), ...)`` for one row, dtype and mode. Long: one or two
    shapes of every class. Default, rotating over the rows: float32 gets one of odd / size-1 / NaN
    eagerly and one of odd / size-1 in jit, and the empty class in one of the two modes (``light``
    rows: one shape per mode); one of float16 / bfloat16 and every other dtype get one prime shape
    in one mode. The NaN class is for rows with ``nan=True`` only."""
    nan_ok = row.nan and dtype in FLOATS
    if long:
        return tuple((c, n) for c, n in LONG if c != "nan" or nan_ok)
    r = zlib.crc32(row.name.encode())
    halves = [d for d in ("float16", "bfloat16") if d in row.dtypes]
    if dtype in halves and dtype != halves[r % len(halves)]:
        return ()
    if dtype != "float32":
        pick = row.modes[zlib.crc32(f"{row.name}|{dtype}".encode()) % len(row.modes)]
        return (("prime", 1),) if mode == pick else ()
    if row.light:
        return ((("odd", "one")[(r + (mode == "jit")) % 2], 1),)
    empty = (("empty", 1),) if row.modes[r % len(row.modes)] == mode else ()
    if mode == "jit":
        return empty + ((("odd", "one")[(r + 1) % 2], 1),)
    eager = ("odd", "one", "nan") if nan_ok else ("odd", "one")
    return empty + ((eager[r % len(eager)], 1),)


def _rng(*parts) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("|".join(map(str, parts)).encode()))


def draw_case(row, dtype: str, cls: str, i: int):
    specs, kw = row.gen(_rng(row.name, dtype, cls, i), "prime" if cls == "nan" else cls)
    if row.dtype_kw:
        kw = {**kw, "dtype": dtype}
    return specs, kw


def torch_accepts(row, dtype: str) -> bool:
    """Whether torch computes the op on ``dtype`` inputs (probed on a small prime shape)."""
    specs, kw = draw_case(row, dtype, "prime", 0)
    tin, _ = make_inputs(_rng("probe", row.name, dtype), specs, dtype, row.domain)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            row.torch_fn()(torch, *tin, **kw)
    except (RuntimeError, TypeError, ValueError, NotImplementedError):
        return False
    return True


def build_cases(long: bool) -> list[Case]:
    cases, seen = [], set()
    for row in ROWS.values():
        for dtype in row.dtypes:
            if not torch_accepts(row, dtype):
                continue
            for mode in row.modes:
                for cls, n in plan(row, dtype, mode, long):
                    for i in range(n):
                        specs, kw = draw_case(row, dtype, cls, i)
                        case = Case(row.name, dtype, mode, cls, i, specs, kw, form(specs) if row.bcast else "")
                        if case.id not in seen:
                            seen.add(case.id)
                            cases.append(case)
    return cases


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames and metafunc.function.__name__ == "test_op":
        long = metafunc.config.getoption("--diff-long", default=False)
        observe = metafunc.config.getoption("--diff-observe", default=False)
        cases = build_cases(long)
        metafunc.parametrize("case", [pytest.param(c, id=c.id, marks=() if observe else mark(c))
                                      for c in cases])


def test_op(case: Case):
    row = ROWS[case.op]
    domain = "special" if case.cls == "nan" else row.domain
    tin, pin = make_inputs(np.random.default_rng(case.seed()), case.specs, case.dtype, domain)
    kw = case.kw

    def torch_fn(*xs):
        return row.torch_fn()(torch, *xs, **kw)

    def pyasc_fn(*xs):
        return row.pyasc(pyasc, *xs, **kw)

    fn, args = capturing(row, case.mode, pyasc_fn, pin)
    acc = row.acc(case.specs, kw) if row.acc else 1
    check(case.mode, fn, torch_fn, tin, args, acc=acc, check_values=row.values, device=row.device)


def capturing(row, mode: str, pyasc_fn, pin: list):
    """``(fn, args)``: in jit, the row's ``const`` inputs are constants the function captures and the
    others its arguments; eagerly, ``pyasc_fn`` on every input."""
    if not (row.const and mode == "jit"):
        return pyasc_fn, pin
    captured = {i: pin[i] for i in row.const}

    def fn(*xs):
        it = iter(xs)
        return pyasc_fn(*[captured[i] if i in captured else next(it) for i in range(len(pin))])
    return fn, [p for i, p in enumerate(pin) if i not in captured]
