"""Matmul epilogues as one MIX kernel: the AIC computes each block and hands it over through GM, the two
AIVs of its AI Core run the epilogue. Numerics against NumPy, one launch, the cross-core flags checked
by the simulator, and the emitted kernel."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc  # noqa: E402
from pyasc.ops_linalg import reference_matmul  # noqa: E402

RNG = np.random.default_rng(11)
SHAPES = [(130, 70, 96), (256, 128, 64)]  # M, N, K


def _rand(shape, dtype):
    return pyasc.tensor(RNG.standard_normal(shape).astype(np.float32)).to(dtype)


def _gelu(y):
    from math import erf, sqrt

    return y * 0.5 * (1 + np.vectorize(erf)(y / sqrt(2)))


EPILOGUES = {
    "bias_gelu": (lambda y, b, r: pyasc.gelu(y + b), lambda y, b, r: _gelu(y + b)),
    "sigmoid": (lambda y, b, r: pyasc.sigmoid(y), lambda y, b, r: 1 / (1 + np.exp(-y))),
    "leaky_relu": (lambda y, b, r: pyasc.maximum(y, y * 0.01), lambda y, b, r: np.maximum(y, y * 0.01)),
    "bias_residual": (lambda y, b, r: y + b + r, lambda y, b, r: y + b + r),
}


def _program(kind):
    fn = EPILOGUES[kind][0]

    @pyasc.jit
    def f(x, w, b, r):
        return fn(x @ w, b, r)

    return f


@pytest.mark.parametrize("dtype", [pyasc.float16, pyasc.float32])
@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("kind", sorted(EPILOGUES))
def test_epilogue_is_one_mix_kernel(kind, m, n, k, dtype):
    x, w = _rand((m, k), dtype), _rand((k, n), dtype)
    b, r = _rand((n,), dtype), _rand((m, n), dtype)
    f = _program(kind)
    compiled = f.lower(x, w, b, r).compile()
    # float32 too: B (K x N) reaches L0B through LoadDataWithTranspose, no transpose kernel first
    assert len(compiled.kernels) == 1, compiled.kernels
    assert "ascendc.kernel_type = \"mix_aic_1_2\"" in compiled.as_text()
    out, report = compiled.simulate(x, w, b, r)
    assert len(report.launches) == len(compiled.kernels) and not report.findings, report.findings
    # the reference rounds the product to the matmul's dtype (the workspace), as the program does
    y = reference_matmul(x.numpy(), w.numpy()).astype(x.numpy().dtype).astype(np.float64)
    ref = EPILOGUES[kind][1](y, b.numpy().astype(np.float64), r.numpy().astype(np.float64))
    eps = 2 ** -10 if dtype is pyasc.float16 else 2 ** -20
    scale = np.abs(ref).max()
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=0, atol=(4 * eps + k * 2 ** -22) * scale * 4)


def test_relu_alone_stays_in_fixpipe():
    x, w = _rand((50, 32), pyasc.float16), _rand((32, 40), pyasc.float16)

    @pyasc.jit
    def f(x, w):
        return pyasc.relu(x @ w)

    text = f.lower(x, w).compile().as_text()
    assert "core_section" not in text and "relu" in text


def test_cube_and_vector_overlap():
    """The MIX kernel is faster than the cube kernel and a separate epilogue kernel one after the other."""
    x, w = _rand((512, 256), pyasc.float16), _rand((256, 512), pyasc.float16)
    b, r = _rand((512,), pyasc.float16), _rand((512, 512), pyasc.float16)
    f = _program("bias_residual")
    _, mix = f.lower(x, w, b, r).compile().simulate(x, w, b, r)

    @pyasc.jit
    def mm(x, w):
        return x @ w

    @pyasc.jit
    def epilogue(y, b, r):
        return y + b + r

    y, cube = mm.lower(x, w).compile().simulate(x, w)
    _, vec = epilogue.lower(pyasc.tensor(y), b, r).compile().simulate(pyasc.tensor(y), b, r)
    (launch,) = mix.launches
    assert len(launch.core_cycles) == 3 * launch.block_dim  # an AIC and two AIVs per AI Core
    assert launch.cycles < cube.launches[0].cycles + vec.launches[0].cycles
    assert mix.seconds < cube.seconds + vec.seconds


def _mix_module():
    x, w = _rand((130, 96), pyasc.float16), _rand((96, 70), pyasc.float16)
    b, r = _rand((70,), pyasc.float16), _rand((130, 70), pyasc.float16)
    f = _program("bias_residual")
    module = f.lower(x, w, b, r).module("ascendc")
    arrays = [t.numpy() for t in (x, w, b, r)] + [np.zeros((130, 70), np.float16)]
    return module, arrays


def _section_ops(module, core: str, op_type):
    from pyasc.dialects import ascendc

    sec = next(s for s in module.walk() if isinstance(s, ascendc.CoreSectionOp) and s.core.data.value == core)
    return [op for op in sec.walk() if isinstance(op, op_type)]


@pytest.mark.contract_findings
def test_missing_cross_core_wait_is_reported():
    """Without the AIV's CrossCoreWaitFlag the AIV reads the workspace without waiting for the AIC: the AIC's sets
    stay unpaired, and the AIV's read comes before any wait (``crosscore-gm-handoff``)."""
    from pyasc.dialects import ascendc
    from pyasc.runtime.simulator import Simulator

    module, arrays = _mix_module()
    (wait,) = _section_ops(module, "aiv", ascendc.CrossCoreWaitFlagOp)
    wait.detach()
    wait.erase()
    report = Simulator(module, hazards="ignore").run("f", arrays)
    msgs = [f.message for f in report.findings if f.kind == "unpaired-flag"]
    assert msgs and "cross_core_set_flag" in msgs[0] and "race" in msgs[0] and "workspace" in msgs[0], report.findings
    rules = [str(f) for f in report.findings if f.kind == "contract"]
    assert rules and "[crosscore-gm-handoff]" in rules[0] and "workspace" in rules[0], report.findings


@pytest.mark.contract_findings
def test_cross_core_wait_after_the_reads_is_reported():
    """The AIV's wait moved after its loop: the flags still pair up (no unpaired set, no deadlock), but the AIV
    reads the workspace before waiting for the AIC; on the chip it reads blocks the AIC has not written."""
    from xdsl.rewriter import InsertPoint, Rewriter

    from pyasc.dialects import ascendc
    from pyasc.runtime.simulator import Simulator
    from xdsl.dialects import scf

    module, arrays = _mix_module()
    (wait,) = _section_ops(module, "aiv", ascendc.CrossCoreWaitFlagOp)
    loop = wait.parent_op()
    while not isinstance(loop, scf.ForOp) or isinstance(loop.parent_op(), scf.ForOp):
        loop = loop.parent_op()
    wait.detach()
    Rewriter.insert_op(wait, InsertPoint.after(loop))
    report = Simulator(module, hazards="ignore").run("f", arrays)
    assert not [f for f in report.findings if f.kind == "unpaired-flag"]
    rules = [str(f) for f in report.findings if f.kind == "contract"]
    assert rules and "[crosscore-gm-handoff]" in rules[0] and "before any CrossCoreWaitFlag" in rules[0], rules


@pytest.mark.contract_findings
def test_workspace_write_without_a_set_after_it_is_reported():
    """The AIC's store of a block to the workspace moved after the loop that signals it: the AIVs may read the
    block before the store is done."""
    from xdsl.dialects import scf
    from xdsl.rewriter import InsertPoint, Rewriter

    from pyasc.dialects import ascendc
    from pyasc.runtime.simulator import Simulator

    module, arrays = _mix_module()
    fix = _section_ops(module, "aic", ascendc.FixpipeOp)[0]
    block = fix.parent_block()
    ops = list(block.ops)
    last_set = max(i for i, op in enumerate(ops) if isinstance(op, ascendc.CrossCoreSetFlagOp)
                   or isinstance(op, scf.ForOp) and any(isinstance(o, ascendc.CrossCoreSetFlagOp) for o in op.walk()))
    assert ops.index(fix) < last_set
    fix.detach()
    Rewriter.insert_op(fix, InsertPoint.after(ops[last_set]))
    report = Simulator(module, hazards="ignore").run("f", arrays)
    rules = [str(f) for f in report.findings if f.kind == "contract"]
    assert any("[crosscore-gm-handoff]" in m and "fixpipe writes" in m and "no CrossCoreSetFlag" in m for m in rules), \
        rules


@pytest.mark.contract_findings
def test_cross_core_wait_that_never_fires_is_a_deadlock():
    from pyasc.dialects import ascendc
    from pyasc.runtime.errors import SimulationError
    from pyasc.runtime.simulator import Simulator

    module, arrays = _mix_module()
    ready = [op for op in _section_ops(module, "aic", ascendc.CrossCoreSetFlagOp)]
    for op in ready:
        op.detach()
        op.erase()
    with pytest.raises(SimulationError, match=r"deadlock: `ascendc.cross_core_wait_flag.*cross-core flag 0, which is never set"):
        Simulator(module).run("f", arrays)


def test_flag_counters_stay_within_the_hardware_limit():
    """The AIC runs at most ``credits`` tiles ahead: no counter holds more than 15 sets (many blocks per core)."""
    x, w = _rand((1024, 64), pyasc.float16), _rand((64, 1024), pyasc.float16)
    b, r = _rand((1024,), pyasc.float16), _rand((1024, 1024), pyasc.float16)
    f = _program("bias_residual")
    compiled = f.lower(x, w, b, r, ).compile()
    out, report = compiled.simulate(x, w, b, r)
    assert not report.findings
    text = compiled.as_text()
    assert text.count("cross_core_wait_flag") >= 2


def test_pipe_utilisation_counts_the_cores_that_have_the_pipe():
    """A MIX launch simulates an AIC and two AIVs per block: the cube pipes are shared by the AICs
    only, the vector pipes by the AIVs only, so no utilisation exceeds 1."""
    rng = np.random.default_rng(8)
    a = pyasc.tensor(rng.standard_normal((512, 256)).astype(np.float16))
    b = pyasc.tensor(rng.standard_normal((256, 512)).astype(np.float16))
    bias = pyasc.tensor(rng.standard_normal(512).astype(np.float16))
    compiled = pyasc.jit(lambda a, b, bias: pyasc.gelu(a @ b + bias)).lower(a, b, bias).compile()
    out, report = compiled.simulate(a, b, bias)
    launch = report.launches[0]
    assert len(launch.core_busy) == 3 * launch.block_dim
    assert launch.core_kinds == ["aic", "aiv", "aiv"] * launch.block_dim
    util = launch.pipe_utilisation
    assert all(0.0 < u <= 1.0 for u in util.values()), util
    m_busy = sum(b.get("M", 0.0) for b in launch.core_busy)
    assert util["M"] == pytest.approx(m_busy / (launch.cycles * launch.block_dim))
    v_busy = sum(b.get("V", 0.0) for b in launch.core_busy)
    assert util["V"] == pytest.approx(v_busy / (launch.cycles * 2 * launch.block_dim))


def test_leaky_relu_api_after_a_matmul_is_one_mix_kernel():
    rng = np.random.default_rng(9)
    a = pyasc.tensor(rng.standard_normal((130, 96)).astype(np.float16))
    b = pyasc.tensor(rng.standard_normal((96, 70)).astype(np.float16))
    compiled = pyasc.jit(lambda a, b: pyasc.leaky_relu(a @ b, 0.2)).lower(a, b).compile()
    assert len(compiled.kernels) == 1
    out, report = compiled.simulate(a, b)
    assert report.findings == []
    ref = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    ref = np.where(ref >= 0, ref, 0.2 * ref)
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-2)


def test_vector_cores_read_the_cube_output_back_from_l2():
    """The cube hands each block over through GM, via L2: the vector cores' copies of the workspace add no HBM
    traffic and run at L2's rate, while their copies of the residual (never written in the launch) come from
    HBM. The launch's HBM bytes count the workspace once, as the cube writes it."""
    from pyasc.dialects import ascendc
    from pyasc.dialects.target import module_target
    from pyasc.runtime.codegen import gm_argument

    x, w = _rand((256, 96), pyasc.float16), _rand((96, 128), pyasc.float16)
    b, r = _rand((128,), pyasc.float16), _rand((256, 128), pyasc.float16)
    compiled = _program("bias_residual").lower(x, w, b, r).compile()
    _, report = compiled.simulate(x, w, b, r)
    (launch,) = report.launches
    spec = module_target(compiled.module)
    reads: dict[str, list] = {}
    for timing in launch.timings:
        for rec in timing.records:
            op = timing.infos[rec[0]].op
            if isinstance(op, ascendc.DataCopyOp | ascendc.DataCopyPadOp) and \
                    isinstance(op.src.type, ascendc.GlobalTensorType):
                reads.setdefault(gm_argument(op.src).name_hint, []).append(rec)
    workspace = reads.pop("workspace")
    assert workspace and all(rec[3] == 0 for rec in workspace)
    assert all(rec[3] > 0 for rec in reads["r"])
    # per byte, a copy from L2 is faster than one of as many bytes from HBM
    per_byte = {name: min(rec[2] for rec in recs) for name, recs in (("workspace", workspace), ("r", reads["r"]))}
    assert per_byte["workspace"] < per_byte["r"]
    assert spec.mte2_l2_bytes_per_cycle > spec.mte2_bytes_per_cycle
    assert launch.gm_bytes >= x.nbytes + w.nbytes + r.nbytes + 256 * 128 * 2 * 2  # out and the workspace, once
