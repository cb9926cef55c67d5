"""Mutation test of the hazard checker: in every explicit-flag kernel the compiler produces for a
representative set of programs, deleting any one synchronisation edge (a set_flag and the wait_flag
that consumes it, including priming/draining pairs) or any one pipe_barrier is reported as a race or a
deadlock: 100% of deletions, which also shows that insert-sync emits nothing redundant.

The default run simulates a seeded sample of a few mutants per class and program; ``--mutation-long``
simulates every mutant (``bench/mutation_rates.py`` measures the rates)."""

import functools
import random

import numpy as np
import pytest

import pyasc
from mutation import CLASS_KINDS, MUTATION_CLASSES, apply, detected, mutations
from mutation_programs import PROGRAMS, compile_flags

_totals = {"deletions": 0, "detected": 0}
SAMPLE = 2  # mutants per class and program in the default run


@pytest.fixture
def sample(request):
    """Every mutant with ``--mutation-long``; else ``SAMPLE`` of them, chosen by a seed fixed per test."""
    if request.config.getoption("--mutation-long"):
        return lambda ms: ms
    rng = random.Random(request.node.nodeid)
    return lambda ms: ms if len(ms) <= SAMPLE else rng.sample(ms, SAMPLE)


def _outputs(c):
    return [np.zeros(s.shape, s.dtype.np_dtype) for s in c.outputs]


@pytest.mark.contract_findings
@pytest.mark.parametrize("buffers", [1, 2])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_sync_deletion_is_detected(name, buffers, sample):
    c, xs = compile_flags(name, buffers)
    arrays = xs + _outputs(c)
    ok, why = detected(c.module, c.name, arrays)
    assert not ok, f"the unmutated kernel is reported: {why}"
    ms = mutations(c.module)
    assert any(len(m.ops) == 2 for m in ms) and all(len(m.ops) == 2 or "barrier" in m.what for m in ms)
    missed = []
    for m in sample(ms):
        hit, why = detected(apply(c.module, m), c.name, arrays)
        _totals["deletions"] += 1
        _totals["detected"] += hit
        if not hit:
            missed.append(m.what)
    assert not missed, f"deletions not reported (redundant synchronisation): {missed}"


_class_totals: dict[str, list[int]] = {}


@functools.cache
def _unmutated_reported(name: str, also: tuple[str, ...]) -> bool:
    c, xs = compile_flags(name, 2)
    return detected(c.module, c.name, xs + _outputs(c), also)[0]


@pytest.mark.contract_findings
@pytest.mark.parametrize("kind", sorted(MUTATION_CLASSES))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_mutation_of_a_class_is_detected(name, kind, sample):
    """Overlapping live buffers, halved tile buffers, waits moved after their consumer and sets before
    their producer, changed event ids, deleted copies-in and Duplicates, L0C's unit flags changed so that it is
    never handed over, never given back or handed over too early: each mutant is reported (a race, a flag error,
    a deadlock, a contract finding or, for a deleted write, an initcheck finding)."""
    c, xs = compile_flags(name, 2)
    arrays = xs + _outputs(c)
    also = CLASS_KINDS.get(kind, ())
    if also and _unmutated_reported(name, also):
        pytest.skip("the unmutated kernel already reads never-written memory")
    missed = []
    ms = MUTATION_CLASSES[kind](c.module)
    for m in sample(ms):
        hit, _ = detected(apply(c.module, m), c.name, arrays, also)
        counts = _class_totals.setdefault(kind, [0, 0])
        counts[0] += 1
        counts[1] += hit
        if not hit:
            missed.append(m.what)
    assert not missed, f"{kind}: {len(missed)} of {len(ms)} mutants not reported: {missed[:5]}"


def test_mutation_totals(request):
    """Runs last in this module: the deletions counted above (for the record)."""
    if _totals["deletions"] == 0:
        pytest.skip("run with the parametrised tests")
    assert _totals["deletions"] >= (150 if request.config.getoption("--mutation-long") else 40)
    assert _totals["detected"] == _totals["deletions"]


def test_one_buffer_needs_no_barrier_between_tiles():
    """With one buffer the flag round trips (V_MTE2, MTE3_V) already order tile i+1 after tile i."""
    fn = pyasc.jit(lambda x, y: (x + y, x * y),
                   options={"sync_style": "flags", "buffers": 1, "cores": 1, "tile_size": 1024})
    x = np.ones(4096, np.float32)
    src = fn.lower(x, x).compile().ascendc_source()
    assert "PipeBarrier<PIPE_MTE2>" not in src and "SetFlag<AscendC::HardEvent::V_MTE2>" in src
