"""L0C handed between the cube and FixPipe by unit flags (``UnitFlag.md``).

Compiled products are checked against PyTorch (float64) at the dtype's tolerance, with no finding. A kernel in the
kernel DSL written as the document's example (Mmads with unitFlag 2, the last one 3, the Fixpipe 3, no M/FIX flag)
is checked against NumPy; the same kernel with a unit flag left out or wrong is reported, as the document says the
chip would misbehave: a race, a deadlock (an op waiting for a flag no op changes) or flags left set.
"""

import numpy as np
import pytest
import torch

import pyasc
import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from pyasc.kernel.errors import KernelError
from pyasc.lowering.emit.project import write_project
from pyasc.lowering.emit.syntax import check_project
from pyasc.runtime.errors import SimulationError
from pyasc.runtime.simulator import Simulator

TOL = {np.float16: 2e-3, np.float32: 1e-5}


def _inputs(shapes, dt, seed=0):
    rng = np.random.default_rng(seed)
    return [pyasc.tensor(rng.standard_normal(s, dtype=np.float32).astype(dt)) for s in shapes]


# (M, K, N): one or several blocks per core, one or several K steps per block, one L0C slot (a 128 x 176 block's
# accumulator is 88 KB) or two, tails in every dimension
SHAPES = [(1024, 1024, 1024), (300, 700, 500), (64, 2000, 48), (40, 16, 70), (2048, 96, 512)]


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_products_match_torch(m, k, n, dt):
    a, b = _inputs([(m, k), (k, n)], dt)
    compiled = pyasc.jit(lambda a, b: a @ b).lower(a, b).compile()
    out, report = compiled.simulate(a, b)
    assert report.ok and report.findings == []
    ref = torch.from_numpy(a.numpy().astype(np.float64)) @ torch.from_numpy(b.numpy().astype(np.float64))
    ref = ref.numpy()
    err = np.abs(out.astype(np.float64) - ref).max() / np.abs(ref).max()
    assert err < TOL[dt]
    src = compiled.ascendc_source()
    assert "M_FIX" not in src and "FIX_M" not in src
    assert "0, 1, 0, 0, 3});" in src  # the Fixpipe's unitFlag
    assert "AscendC::SetMMRowMajor();" in src  # results N first, as the Fixpipe reads them


def test_fixpipe_reads_each_block_while_its_last_mmad_writes_it():
    """UnitFlag.md: the Fixpipe reads each 512 B of L0C as soon as the last Mmad has written it, so it starts
    before that Mmad ends; the next block's first Mmad writes L0C only after the Fixpipe has read it."""
    a, b = _inputs([(1024, 1024), (1024, 1024)], np.float16)
    _, report = pyasc.jit(lambda a, b: a @ b).lower(a, b).compile().simulate(a, b)
    timeline = report.launches[0].timeline(0)
    mmads, fixes = timeline["M"], timeline["FIX"]
    mmads = [(s, e) for s, e, name in mmads if name == "Mmad"]
    fixes = [(s, e) for s, e, name in fixes if name == "Fixpipe"]
    assert len(fixes) == 2
    for fs, fe in fixes:
        last = max((s, e) for s, e in mmads if s < fs)
        assert last[0] < fs < last[1] <= fe
        after = [s for s, _ in mmads if s > fs]
        assert all(s >= fs for s in after)


M, K, N, STEPS = 32, 128, 48, 2


def _unit_flag_kernel(last_mmad: int, fixpipe: int, order: str | None = "row", insert_sync: bool = False):
    kc = K // STEPS
    k1 = kc // 16

    @asc.jit(insert_sync=insert_sync)
    def kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress):
        if order == "row":
            asc.set_mm_row_major()
        elif order == "column":
            asc.set_mm_column_major()
        a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        b_gm.set_global_buffer(b)
        c_gm.set_global_buffer(c)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, M * K)
        b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, M * K * 2, K * N)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
        asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
        asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, N, 0, N, K, 1, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        for s in range(STEPS):
            a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, s * M * kc * 2, M * kc)
            b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, s * kc * N * 2, kc * N)
            for i in range(k1):
                asc.load_data(a2[i * 256:], a1, asc.LoadData2DParams((s * k1 + i) * (M // 16), M // 16, 1, 0, k1 - 1))
                asc.load_data(b2[i * (N // 16) * 256:], b1,
                              asc.LoadData2DParams(s * k1 + i, N // 16, K // 16, 0, 0, True))
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        for s in range(STEPS):
            a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, s * M * kc * 2, M * kc)
            b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, s * kc * N * 2, kc * N)
            flag = last_mmad if s == STEPS - 1 else 2
            asc.mmad(c1, a2, b2, asc.MmadParams(M, N, kc, flag, False, s == 0))
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, M, N, unit_flag=fixpipe))

    return kernel


def _ab():
    rng = np.random.default_rng(1)
    a = rng.integers(-4, 4, (M, K)).astype(np.float16)
    b = rng.integers(-4, 4, (K, N)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


def test_the_documented_unit_flag_pattern_runs_with_no_m_fix_flag():
    kernel = _unit_flag_kernel(3, 3)
    a, b, ref = _ab()
    c = np.zeros((M, N), np.float32)
    kernel[1, rt.current_stream()](a, b, c)
    np.testing.assert_array_equal(c, ref)
    assert kernel.last_report.findings == []
    src = kernel.last_compiled.kernel_source()
    assert "AscendC::MmadParams{32, 48, 64, 2, false, true}" in src
    assert "AscendC::MmadParams{32, 48, 64, 3, false, false}" in src
    assert "0, 1, 0, 0, 3});" in src
    assert "AscendC::SetMMRowMajor();" in src


def test_insert_sync_adds_no_m_fix_flag_to_the_unit_flag_pattern():
    """``insert_sync=True`` adds what a kernel's own synchronisation leaves missing: with the unit flags handing L0C
    over, nothing between M and FIX (and the product stays exact)."""
    kernel = _unit_flag_kernel(3, 3, insert_sync=True)
    a, b, ref = _ab()
    c = np.zeros((M, N), np.float32)
    kernel[1, rt.current_stream()](a, b, c)
    np.testing.assert_array_equal(c, ref)
    src = kernel.last_compiled.kernel_source()
    assert "M_FIX" not in src and "FIX_M" not in src and kernel.last_report.findings == []


@pytest.mark.parametrize("order,overlaps", [("row", True), ("column", False), (None, False)])
def test_the_fixpipe_overlaps_the_last_mmad_only_when_the_cube_produces_n_first(order, overlaps):
    """UnitFlag.md: a Fixpipe that converts NZ to ND reads L0C N first, so it overlaps the Mmad block by block only
    after SetMMRowMajor; after SetMMColumnMajor, or with neither (the document gives no default), the blocks it needs
    first come last, and it starts when the Mmad ends. The product is the same."""
    kernel = _unit_flag_kernel(3, 3, order)
    a, b, ref = _ab()
    c = np.zeros((M, N), np.float32)
    kernel[1, rt.current_stream()](a, b, c)
    np.testing.assert_array_equal(c, ref)
    assert kernel.last_report.findings == []
    timeline = kernel.last_report.launches[0].timeline(0)
    start, end = [(s, e) for s, e, name in timeline["M"] if name == "Mmad"][-1]
    fix = next(s for s, _, name in timeline["FIX"] if name == "Fixpipe")
    assert (start < fix < end) if overlaps else fix >= end


def test_the_unit_flag_kernel_checks_and_runs_on_the_cpu(tmp_path):
    """The emitted project passes the syntax check against the Ascend C signatures, and the CPU build (which runs
    each core's program in order, so the unit flags order nothing there) gives the same product."""
    kernel = _unit_flag_kernel(3, 3)
    a, b, ref = _ab()
    comp = kernel.compile(1, a, b, np.zeros((M, N), np.float32))
    write_project(comp.module, tmp_path / "uf", host=comp.host)
    results = check_project(tmp_path / "uf")
    if any(r.skipped for r in results.values()):
        pytest.skip("no g++")
    assert all(r.ok for r in results.values()), results
    config.set_platform(config.Backend.CPU)
    try:
        c = np.zeros((M, N), np.float32)
        kernel[1, rt.current_stream()](a, b, c)
    finally:
        config.set_platform(config.Backend.Model)
    np.testing.assert_array_equal(c, ref)


@pytest.mark.contract_findings
@pytest.mark.parametrize("last_mmad,fixpipe,expect", [
    (3, 0, "race"),          # the Fixpipe does not wait for the flags: nothing orders it after the Mmads
    (2, 3, "deadlock"),      # no Mmad sets the flags the Fixpipe waits for
    (0, 3, "deadlock"),
    (3, 2, "unpaired-flag"),  # the Fixpipe reads but leaves the flags set: they stay set when the kernel ends
])
def test_a_wrong_unit_flag_is_reported(last_mmad, fixpipe, expect):
    kernel = _unit_flag_kernel(last_mmad, fixpipe)
    a, b, _ = _ab()
    launch = kernel[1, rt.current_stream()]
    if expect == "deadlock":
        with pytest.raises(SimulationError, match=r"deadlock: `ascendc.fixpipe .*: its L0C blocks \[0, 6144\) wait for "
                                                  r"their unit flags to be set by an Mmad with unitFlag 3") as e:
            launch(a, b, np.zeros((M, N), np.float32), hazards="ignore")
        assert "test_unit_flags.py" in (e.value.loc or "")
        return
    launch(a, b, np.zeros((M, N), np.float32), hazards="ignore")
    findings = kernel.last_report.findings
    assert any(f.kind == expect and "L0C" in f.message for f in findings), findings


def test_a_reserved_unit_flag_is_refused():
    kernel = _unit_flag_kernel(1, 3)
    a, b, _ = _ab()
    with pytest.raises(KernelError, match="unit_flag must be 0, 2 or 3"):
        kernel[1, rt.current_stream()](a, b, np.zeros((M, N), np.float32))


def test_a_second_mmad_on_set_flags_waits_forever():
    """Two blocks' worth of Mmads with unitFlag 3 on the same L0C and no Fixpipe between: the second waits for
    a read-out that never comes (a deadlock), named with the op and the flags it waits for."""
    a, b = _inputs([(256, 64), (64, 128)], np.float16)
    compiled = pyasc.jit(lambda a, b: a @ b).lower(a, b).compile()
    module = compiled.module.clone()
    fixpipes = [op for op in module.walk() if op.name == "ascendc.fixpipe"]
    for op in fixpipes:
        op.detach()
        op.erase()
    sim = Simulator(module, hazards="ignore")
    args = [a.numpy(), b.numpy(), np.zeros((256, 128), np.float16)]
    report = sim.run(compiled.name, args, raise_errors=False)
    if report.error is None:  # one block per core: the flags are left set instead
        assert any(f.kind == "unpaired-flag" and "unit flags of L0C [0, " in f.message for f in report.findings)
    else:
        assert "unit flags" in report.error.message
