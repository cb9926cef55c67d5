"""Initcheck of the cube's memories: the hand-written Mmad-chain kernel reads only what it wrote; without
the ND2NZ of B its LoadData reads never-written L1, without the LoadData of A's second K chunk an Mmad
reads never-written L0A, and an Mmad that accumulates into a never-written L0C block reads it. Each is a
``local-initcheck`` finding naming the op and the rule's doc page."""

from __future__ import annotations

import numpy as np
import pytest

from pyasc.dialects.ascendc.contract import RULES
from pyasc.runtime import Simulator
from pyasc.runtime.simulator import parse_module
from .test_mmad_chains import K, M, N, OUTS, PROGRAM, _mmad

pytestmark = pytest.mark.contract_findings


def _initcheck(program: str) -> list:
    rng = np.random.default_rng(3)
    a = rng.standard_normal(M * K).astype(np.float16)
    b = rng.standard_normal(K * N).astype(np.float16)
    report = Simulator(parse_module(program), hazards="off", initcheck=True).run("host", [a, b, np.zeros(OUTS * M * N, np.float32)])
    return [f for f in report.findings if f.rule == "local-initcheck"]


def _without(line_start: str) -> str:
    """PROGRAM without the op whose line starts with ``line_start`` (and its continuation line)."""
    lines = PROGRAM.splitlines()
    i = next(i for i, s in enumerate(lines) if s.strip().startswith(line_start))
    n = 2 if lines[i + 1].strip().startswith(":") else 1
    return "\n".join(lines[:i] + lines[i + n:])


def test_the_chain_kernel_reads_only_what_it_wrote():
    assert _initcheck(PROGRAM) == []


def test_load_data_from_never_written_l1():
    found = _initcheck(_without("ascendc.data_copy_nd2nz %b1"))
    assert len(found) == 4  # the four LoadData of B's fractals
    for f in found:
        assert f.kind == "contract" and f.op.startswith("ascendc.load_data %bs")
        assert f.message.startswith("LoadData reads L1 bytes") and RULES["local-initcheck"].doc in f.message


def test_mmad_of_never_written_l0a():
    program = "\n".join(s for s in PROGRAM.splitlines() if not s.strip().startswith("ascendc.load_data %as1"))
    found = _initcheck(program)
    assert len(found) == 4 and all(f.op.startswith("ascendc.mmad") for f in found)  # the Mmads of chunk 1
    assert all(f.message.startswith("Mmad reads L0A bytes [2048, 4096), of which [2048, 4096)") for f in found)


def test_mmad_accumulating_into_never_written_l0c():
    program = PROGRAM.replace(_mmad(1, 0, True), _mmad(1, 0, False), 1)
    (f,) = _initcheck(program)
    assert "ascendc.mmad" in f.op and f.message.startswith("Mmad reads L0C bytes [4096, 8192), of which [4096, 8192)")
