"""Cube kernels in the official style: the basic API, the Matmul API (cube only and MIX with an
epilogue) and our tiler, checked against NumPy, the hazard checker, the emitted source and the CPU run."""

import numpy as np
import pytest
from xdsl.dialects import func

import pyasc.kernel as asc
import pyasc.kernel.lib.host as host
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from asc_cube_kernels import (
    make_tiling, matmul_cube_bias_kernel, matmul_cube_kernel, matmul_epilogue_kernel, mmad_kernel,
)
from pyasc.lowering.emit.project import write_project
from pyasc.lowering.emit.syntax import check_project


def _ab(m, k, n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 4, (m, k)).astype(np.float16)
    b = rng.integers(-4, 4, (k, n)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("out", [np.float32, np.float16])
def test_basic_api_matmul(out):
    m, k, n = 32, 64, 48
    a, b, ref = _ab(2 * m, k, n)
    c = np.zeros((2 * m, n), out)
    mmad_kernel[2, rt.current_stream()](a, b, c, m, k, n)
    np.testing.assert_array_equal(c, ref.astype(out))
    assert mmad_kernel.last_report.findings == []
    assert mmad_kernel.last_compiled.kernel_type == "aic_only"
    src = mmad_kernel.last_compiled.kernel_source()
    assert "AscendC::Mmad(" in src and "AscendC::LoadData(" in src and "AscendC::Fixpipe" in src


def test_tiler_fits_and_covers():
    spec_tiling = make_tiling(1000, 700, 300, 24)
    t = spec_tiling
    assert 1 <= t.used_core_num <= 24
    assert -(-t.m // t.single_core_m) * -(-t.n // t.single_core_n) == t.used_core_num
    assert t.base_m % 16 == 0 and t.base_n % 16 == 0 and t.base_k % 16 == 0
    assert t.base_m * t.base_k * 2 <= 64 * 1024 and t.base_k * t.base_n * 2 <= 64 * 1024
    assert t.base_m * t.base_n * 4 <= 128 * 1024
    fixed = make_tiling(1024, 640, 256, 2, fix=(256, 128, -1))
    assert (fixed.base_m, fixed.base_n) == (256, 128) and fixed.single_core_m % 256 == 0
    assert fixed.used_core_num == 2 and fixed.iterate_order == 0


@pytest.mark.parametrize("m,k,n,dim", [(96, 80, 200, 4), (128, 64, 1024, 8)])
def test_matmul_api_cube_only_with_tails(m, k, n, dim):
    a, b, ref = _ab(m, k, n, seed=1)
    tiling = make_tiling(m, n, k, dim)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(1024, np.uint8)
    matmul_cube_kernel[tiling.used_core_num, rt.current_stream()](a, b, c, tiling, ws)
    np.testing.assert_array_equal(c, ref)
    assert matmul_cube_kernel.last_report.findings == []
    assert matmul_cube_kernel.last_compiled.kernel_type == "aic_only"


@pytest.mark.parametrize("m,k,n,dim", [(96, 80, 200, 4), (128, 64, 1000, 8)])
def test_matmul_api_cube_only_with_a_bias_in_bias_table(m, k, n, dim, tmp_path):
    """``set_bias`` in an AIC-only kernel (the official cube-only tutorial with ``ENABLE_BIAS``): each block's first
    Mmad starts from the bias in BiasTable; against NumPy, no finding, the Ascend C syntax-checked and run on the
    CPU."""
    a, b, ref = _ab(m, k, n, seed=5)
    bias = np.random.default_rng(6).integers(-5, 5, (1, n)).astype(np.float32)
    tiling = make_tiling(m, n, k, dim, bias=True)
    assert tiling.is_bias
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(1024, np.uint8)
    matmul_cube_bias_kernel[tiling.used_core_num, rt.current_stream()](a, b, c, bias, tiling, ws)
    np.testing.assert_array_equal(c, ref + bias)
    assert matmul_cube_bias_kernel.last_report.findings == []
    comp = matmul_cube_bias_kernel.last_compiled
    src = comp.kernel_source()
    assert comp.kernel_type == "aic_only" and "TPosition::C2" in src and "mmBiasC2, AscendC::MmadParams{" in src
    write_project(comp.module, tmp_path / "bias", host=comp.host)
    results = check_project(tmp_path / "bias")
    if any(r.skipped for r in results.values()):
        pytest.skip("no g++")
    assert all(r.ok for r in results.values()), results
    config.set_platform(config.Backend.CPU)
    c = np.zeros((m, n), np.float32)
    matmul_cube_bias_kernel[tiling.used_core_num, rt.current_stream()](a, b, c, bias, tiling, ws)
    np.testing.assert_array_equal(c, ref + bias)


def test_matmul_api_bias_under_a_run_time_if_follows_its_condition():
    """The tutorial's ``if tiling.is_bias: mm.set_bias(...)``: the trace runs both paths of a run-time ``if``, so a
    setting made in one would hold on both; the condition is taken when the kernel is traced (the kernel is
    specialised to the tiling's is_bias), and a launch without the bias has none, before and after one with it."""
    m, k, n, dim = 96, 80, 200, 4
    a, b, ref = _ab(m, k, n, seed=7)
    bias = np.random.default_rng(8).integers(-5, 5, (1, n)).astype(np.float32)
    ws = np.zeros(1024, np.uint8)
    for with_bias in (False, True, False):
        tiling = make_tiling(m, n, k, dim, bias=with_bias)
        c = np.zeros((m, n), np.float32)
        matmul_cube_bias_kernel[tiling.used_core_num, rt.current_stream()](a, b, c, bias, tiling, ws)
        np.testing.assert_array_equal(c, ref + bias if with_bias else ref)
        assert matmul_cube_bias_kernel.last_report.findings == []
        assert ("TPosition::C2" in matmul_cube_bias_kernel.last_compiled.kernel_source()) == with_bias


@asc.jit(matmul_cube_only=True, always_compile=True)
def _tail_in_a_branch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                      workspace: asc.GlobalAddress):
    """set_tail under a run-time `if` (on the core's index, unknown when the kernel is traced) that the
    iterate_all after it is not under."""
    if asc.ascend_is_aic():
        a_global, b_global, c_global = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_global.set_global_buffer(a)
        b_global.set_global_buffer(b)
        c_global.set_global_buffer(c)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(a_global)
        mm.set_tensor_b(b_global)
        if asc.get_block_idx() == 0:
            mm.set_tail(16, 16, tiling.k_a)
        mm.iterate_all(c_global)
        mm.end()


def test_matmul_api_setting_in_a_branch_the_matmul_is_not_in_is_an_error():
    """A setting made under a run-time `if` whose condition is not known when the kernel is traced, with the matmul
    outside that `if`: the trace would run both paths and apply the setting on both, so it is an error naming the
    call and its line, not a wrong product."""
    m, k, n = 32, 32, 32
    a, b, _ = _ab(m, k, n)
    tiling = make_tiling(m, n, k, 1)
    with pytest.raises(asc.KernelError, match=r"set_tail was called under a run-time `if` that does not hold this "
                                              r"call") as e:
        _tail_in_a_branch[1, rt.current_stream()](a, b, np.zeros((m, n), np.float32), tiling,
                                                  np.zeros(1024, np.uint8))
    assert "test_kernel_cube.py" in str(e.value)


def _epilogue_inputs():
    m, k, n = 256, 128, 256
    a, b, mm = _ab(m, k, n, seed=2)
    bias = np.random.default_rng(7).integers(-20, 20, (1, n)).astype(np.float32)
    alpha, scale = 0.125, 0.5
    x = mm + bias
    return a, b, bias, (alpha, scale), np.where(x >= 0, x, x * np.float32(alpha)) * np.float32(scale), (m, n, k)


def test_matmul_api_mix_with_leaky_relu_epilogue():
    a, b, bias, factors, ref, (m, n, k) = _epilogue_inputs()
    tiling = make_tiling(m, n, k, 2, c_pos=host.TPosition.VECCALC, bias=True, fix=(128, 128, -1))
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(4 * 1024 * 1024, np.uint8)
    matmul_epilogue_kernel[tiling.used_core_num // 2, rt.current_stream()](a, b, c, bias, *factors, tiling, ws)
    np.testing.assert_allclose(c, ref, rtol=1e-6)
    rep = matmul_epilogue_kernel.last_report
    assert rep.findings == []
    comp = matmul_epilogue_kernel.last_compiled
    assert comp.kernel_type == "mix_aic_1_2"
    src = comp.kernel_source()
    assert "CrossCoreSetFlag" in src and "CrossCoreWaitFlag" in src and "KERNEL_TYPE_MIX_AIC_1_2" in src


def test_cube_sources_check_and_cpu_runs(tmp_path):
    # basic API
    m, k, n = 32, 64, 48
    a, b, ref = _ab(m, k, n, seed=3)
    comp = mmad_kernel.compile(1, a, b, np.zeros((m, n), np.float32), m, k, n)
    write_project(comp.module, tmp_path / "mmad", host=comp.host)
    results = check_project(tmp_path / "mmad")
    if any(r.skipped for r in results.values()):
        pytest.skip("no g++")
    assert all(r.ok for r in results.values()), results
    config.set_platform(config.Backend.CPU)
    c = np.zeros((m, n), np.float32)
    mmad_kernel[1, rt.current_stream()](a, b, c, m, k, n)
    np.testing.assert_array_equal(c, ref)
    # MIX with the epilogue
    a, b, bias, factors, ref, (m, n, k) = _epilogue_inputs()
    tiling = make_tiling(m, n, k, 2, c_pos=host.TPosition.VECCALC, bias=True, fix=(128, 128, -1))
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(4 * 1024 * 1024, np.uint8)
    matmul_epilogue_kernel[1, rt.current_stream()](a, b, c, bias, *factors, tiling, ws)
    np.testing.assert_allclose(c, ref, rtol=1e-6)
    comp = matmul_epilogue_kernel.last_compiled
    assert "AscendC::LeakyRelu(" in comp.kernel_source()
    write_project(comp.module, tmp_path / "mix", host=comp.host)
    assert all(r.ok for r in check_project(tmp_path / "mix").values())
    # cube only, with the Matmul API
    m, k, n = 96, 80, 200
    a, b, ref = _ab(m, k, n, seed=4)
    tiling = make_tiling(m, n, k, 4)
    c = np.zeros((m, n), np.float32)
    matmul_cube_kernel[tiling.used_core_num, rt.current_stream()](a, b, c, tiling, np.zeros(1024, np.uint8))
    np.testing.assert_array_equal(c, ref)
    comp = matmul_cube_kernel.last_compiled
    write_project(comp.module, tmp_path / "cube", host=comp.host)
    assert all(r.ok for r in check_project(tmp_path / "cube").values())


def test_dropping_a_cube_flag_is_reported():
    m, k, n = 32, 64, 48

    @asc.jit
    def no_mte1_m(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress):
        a_gm = asc.GlobalTensor()
        b_gm = asc.GlobalTensor()
        c_gm = asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        b_gm.set_global_buffer(b)
        c_gm.set_global_buffer(c)
        a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m * k)
        b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, m * k * 2, k * n)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * k)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k * n)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
        asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
        asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, k, 1, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        for i in range(k // 16):
            asc.load_data(a2[i * 256:], a1, asc.LoadData2DParams(i * (m // 16), m // 16, 1, 0, k // 16 - 1))
            asc.load_data(b2[i * (n // 16) * 256:], b1, asc.LoadData2DParams(i, n // 16, k // 16, 0, 0, True))
        asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k))
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n, m, m, n))

    a, b, _ = _ab(m, k, n)
    no_mte1_m[1, rt.current_stream()](a, b, np.zeros((m, n), np.float32), hazards="ignore")
    errors = no_mte1_m.last_report.errors
    assert errors and any("test_kernel_cube.py" in (f.loc or "") for f in errors)


def test_matmul_mix_iterate_all_older_register_form():
    from asc_cube_kernels import matmul_mix_gm_kernel

    m, k, n = 200, 96, 300
    a, b, ref = _ab(m, k, n, seed=9)
    tiling = make_tiling(m, n, k, 6)
    c = np.zeros((m, n), np.float32)
    cores = -(-tiling.used_core_num // 2)
    matmul_mix_gm_kernel[cores, rt.current_stream()](a, b, c, tiling, np.zeros(1024, np.uint8))
    np.testing.assert_array_equal(c, ref)
    assert matmul_mix_gm_kernel.last_report.findings == []


def test_official_module_layout():
    import pyasc.kernel.adv
    import pyasc.kernel.lib.host
    import pyasc.kernel.lib.runtime
    import pyasc.kernel.runtime.config

    assert asc.runtime.config is pyasc.kernel.runtime.config and asc.lib.host is pyasc.kernel.lib.host
    assert asc.lib.runtime is pyasc.kernel.lib.runtime and asc.adv.Matmul is pyasc.kernel.adv.Matmul
    assert asc.runtime.config.Backend.Model.value == "Model" and asc.HardEvent.M_FIX == 17


def test_a_mix_kernel_whose_aivs_write_what_its_aics_read_runs_core_by_core():
    """Groups run every AIC before any AIV: only when no AIV writes a buffer the AICs read or write."""
    from asc_cube_kernels import mix_basic_kernel

    from pyasc.dialects.ascendc import KERNEL_ATTR
    from pyasc.runtime import batched

    m, k, n, cores = 32, 64, 64, 4
    a, b, ref = _ab(cores * m, k, n, seed=12)
    c, ws = np.zeros((cores * m, n), np.float32), np.zeros((cores * m, n), np.float32)

    @asc.jit
    def feeds_back(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ws: asc.GlobalAddress):
        if asc.ascend_is_aic():
            mix_basic_kernel(a, b, c, ws, m, k, n)  # the AIC half, inlined
        if asc.ascend_is_aiv():
            a_gm = asc.GlobalTensor()
            a_gm.set_global_buffer(a + asc.get_block_idx() * (m // 2) * k)
            ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, (m // 2) * k)
            asc.cross_core_wait_flag(1)
            asc.data_copy(ub, a_gm, (m // 2) * k)
            asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.data_copy(a_gm, ub, (m // 2) * k)  # written back into the AICs' input

    mix_basic_kernel[cores, rt.current_stream()](a, b, c, ws, m, k, n)
    np.testing.assert_array_equal(c, np.maximum(ref, 0))
    feeds_back[cores, rt.current_stream()](a, b, c, ws)
    kernels = [f for module in (mix_basic_kernel.last_compiled.module, feeds_back.last_compiled.module)
               for f in module.walk() if isinstance(f, func.FuncOp) and KERNEL_ATTR in f.attributes]
    assert [batched.mix_batchable(f) for f in kernels] == [True, False]


@pytest.mark.contract_findings
@pytest.mark.parametrize("drop_wait", [False, True])
def test_mix_basic_api_cross_core_flags(drop_wait):
    from asc_cube_kernels import mix_basic_kernel

    m, k, n, cores = 32, 64, 64, 2
    a, b, ref = _ab(cores * m, k, n, seed=11)
    c = np.zeros((cores * m, n), np.float32)
    ws = np.zeros((cores * m, n), np.float32)
    if not drop_wait:
        mix_basic_kernel[cores, rt.current_stream()](a, b, c, ws, m, k, n)
        np.testing.assert_array_equal(c, np.maximum(ref, 0))
        comp = mix_basic_kernel.last_compiled
        assert comp.kernel_type == "mix_aic_1_2" and mix_basic_kernel.last_report.findings == []
        src = comp.kernel_source()
        assert "if ASCEND_IS_AIC" in src and "AscendC::CrossCoreWaitFlag(1);" in src
        return

    @asc.jit
    def no_wait(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ws: asc.GlobalAddress):
        if asc.ascend_is_aic():
            mix_basic_kernel(a, b, c, ws, m, k, n)  # the AIC half, inlined
        if asc.ascend_is_aiv():
            w_gm = asc.GlobalTensor()
            w_gm.set_global_buffer(ws + asc.get_block_idx() * (m // 2) * n)
            ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, (m // 2) * n)
            asc.data_copy(ub, w_gm, (m // 2) * n)  # reads the workspace without waiting for the AIC

    no_wait[cores, rt.current_stream()](a, b, c, ws, hazards="ignore")
    assert no_wait.last_report.findings, "an AIV reading the AIC's workspace without a cross-core wait went unnoticed"
    assert any(f.kind == "contract" and "[crosscore-gm-handoff]" in str(f) and "(ws)" in str(f)
               for f in no_wait.last_report.findings), no_wait.last_report.findings
