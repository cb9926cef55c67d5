"""Property test: random chains of elementwise ops over broadcasting operands, against PyTorch.

Hypothesis draws the shapes and the program (deterministically: ``derandomize=True``) and
shrinks a failure to a small program. The vocabulary is ops the catalogue covers one by one, so
a failure here is one of composition: fusion, broadcasting or dtype flow across ops.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyasc

from .harness import Case, check, to_pyasc, to_torch
from .known_failures import mark

# name -> (arity, fn(m, *values)); every op is defined for any real input
VOCAB = {
    "add": (2, lambda m, a, b: a + b),
    "sub": (2, lambda m, a, b: a - b),
    "mul": (2, lambda m, a, b: a * b),
    "maximum": (2, lambda m, a, b: m.maximum(a, b)),
    "minimum": (2, lambda m, a, b: m.minimum(a, b)),
    "where_gt": (2, lambda m, a, b: m.where(a > b, a, b * 0.5)),
    "tanh": (1, lambda m, a: m.tanh(a)),
    "sigmoid": (1, lambda m, a: m.sigmoid(a)),
    "relu": (1, lambda m, a: m.relu(a)),
    "neg": (1, lambda m, a: -a),
    "abs": (1, lambda m, a: m.abs(a)),
    "scale": (1, lambda m, a: a * 0.75 + 0.5),
    "clamp": (1, lambda m, a: m.clamp(a, -1.0, 1.0)),
}
DIMS = (1, 2, 3, 5, 7, 9, 13)


@st.composite
def programs(draw):
    """Input shapes that broadcast to a common shape and a list of (op, operand indices)."""
    full = tuple(draw(st.lists(st.sampled_from(DIMS), min_size=1, max_size=3)))
    shapes = [full]
    for _ in range(draw(st.integers(1, 2))):
        lead = draw(st.integers(0, len(full) - 1))
        shapes.append(tuple(1 if draw(st.booleans()) else d for d in full[lead:]))
    n = len(shapes)
    steps = []
    for _ in range(draw(st.integers(2, 5))):
        name = draw(st.sampled_from(sorted(VOCAB)))
        arity = VOCAB[name][0]
        steps.append((name, [draw(st.integers(0, n - 1)) for _ in range(arity)]))
        n += 1
    return shapes, steps


def run_program(m, steps, *inputs):
    values = list(inputs)
    for name, args in steps:
        values.append(VOCAB[name][1](m, *[values[i] for i in args]))
    return values[-1]


def _cases(long: bool):
    dtypes = ("float32", "float16", "bfloat16") if long else ("float32",)
    return [Case("chain", d, mode, "bcast", 0) for d in dtypes for mode in ("eager", "jit")]


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_chain":
        long = metafunc.config.getoption("--diff-long", default=False)
        observe = metafunc.config.getoption("--diff-observe", default=False)
        metafunc.parametrize("case", [pytest.param(c, id=c.id, marks=() if observe else mark(c))
                                      for c in _cases(long)])
        metafunc.parametrize("examples", [60 if long else 6])


def test_chain(case: Case, examples: int):
    @settings(derandomize=True, max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def prop(program):
        shapes, steps = program
        rng = np.random.default_rng(0)
        tin = [to_torch(rng.standard_normal(s) * 2.0, case.dtype) for s in shapes]
        pin = [to_pyasc(t) for t in tin]
        check(case.mode, lambda *xs: run_program(pyasc, steps, *xs),
              lambda *xs: run_program(torch, steps, *xs), tin, pin, acc=len(steps))

    prop()
