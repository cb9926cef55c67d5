"""Vector kernels in the official style: results, hazards, emitted source, CPU run."""

import numpy as np
import pytest

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from asc_kernels import FLAG_PAIRS, add_flags_kernel, add_relu_queue_kernel, reverse_tiles_bind_kernel, softmax_kernel
from pyasc.lowering.emit.project import write_project
from pyasc.lowering.emit.syntax import check_project, syntax_check

torch = pytest.importorskip("torch")


def _inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def test_add_static_flags_numpy():
    x, y = _inputs(8 * 2048)
    z = np.zeros_like(x)
    add_flags_kernel[8, rt.current_stream()](x, y, z, 2048, 256)
    np.testing.assert_array_equal(z, x + y)
    report = add_flags_kernel.last_report
    assert report.findings == [] and report.cycles > 0
    assert add_flags_kernel.last_compiled.kernel_type == "aiv_only"


def test_add_static_flags_torch_and_cache():
    x = torch.rand(4 * 1024)
    y = torch.rand(4 * 1024)
    z = torch.zeros_like(x)
    add_flags_kernel[4, rt.current_stream()](x, y, z, 1024, 256)
    assert torch.allclose(z, x + y)
    first = add_flags_kernel.last_compiled
    z2 = torch.zeros_like(x)
    add_flags_kernel[4, rt.current_stream()](x, y, z2, 1024, 256)
    assert add_flags_kernel.last_compiled is first
    assert torch.equal(z, z2)


def test_add_loop_is_scf_for_with_locations():
    x, y = _inputs(2 * 1024)
    c = add_flags_kernel.compile(2, x, y, np.zeros_like(x), 1024, 256)
    text = str(c.module)
    assert "scf.for" in text  # block_length // tile is a run-time bound
    assert 'asc.loc = "asc_kernels.py:' in text
    src = c.kernel_source()
    assert "// asc_kernels.py:" in src and "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>" in src
    assert "AscendC::PipeBarrier<PIPE_ALL>();" in src.splitlines()[-3] or "PipeBarrier<PIPE_ALL>" in src


@pytest.mark.parametrize("skip", sorted(FLAG_PAIRS))
def test_missing_flag_pair_is_reported(skip):
    x, y = _inputs(2 * 1024)
    z = np.zeros_like(x)
    add_flags_kernel[2, rt.current_stream()](x, y, z, 1024, 256, skip, hazards="ignore")
    report = add_flags_kernel.last_report
    assert report.errors, f"dropping the {FLAG_PAIRS[skip]} pair went unnoticed"
    assert any(f.loc and f.loc.startswith("asc_kernels.py:") for f in report.errors)


def test_missing_flag_pair_raises_by_default():
    x, y = _inputs(2 * 1024)
    with pytest.raises(asc.KernelHazardError) as e:
        add_flags_kernel[2, rt.current_stream()](x, y, np.zeros_like(x), 1024, 256, 1)
    assert "asc_kernels.py:" in str(e.value)


def test_add_relu_queue_style():
    x, y = _inputs(8 * 4096, seed=1)
    z = np.zeros_like(x)
    add_relu_queue_kernel[8, rt.current_stream()](x, y, z, 4096, 512)
    np.testing.assert_array_equal(z, np.maximum(x + y, 0))
    assert add_relu_queue_kernel.last_report.findings == []
    src = add_relu_queue_kernel.last_compiled.kernel_source()
    assert "AllocTensor<float>" in src and "EnQue" in src and "DeQue<float>" in src


def test_tque_bind_vecin_to_vecout():
    """A tile moved GM -> UB -> GM through one TQueBind<VECIN, VECOUT> (the documented form when no vector
    work is needed): the tiles arrive in NumPy's reversed order, the simulator sees no hazard, and the
    emitted source declares the bound queue and passes the syntax check."""
    tiles, tile = 6, 512
    x = np.random.default_rng(4).standard_normal(tiles * tile).astype(np.float32)
    z = np.zeros_like(x)
    reverse_tiles_bind_kernel[1, rt.current_stream()](x, z, tiles, tile)
    np.testing.assert_array_equal(z, x.reshape(tiles, tile)[::-1].reshape(-1))
    assert reverse_tiles_bind_kernel.last_report.findings == []
    src = reverse_tiles_bind_kernel.last_compiled.kernel_source()
    assert "AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT, 1>" in src
    res = syntax_check(src)
    assert res.skipped or res.ok, res.diagnostics


def test_tque_bind_other_positions_unsupported():
    with pytest.raises(Exception, match="VECOUT to VECIN"):
        asc.TQueBind(asc.TPosition.VECOUT, asc.TPosition.VECIN, 1)


def test_softmax_rows():
    rows, cols, cores = 16, 256, 4
    rng = np.random.default_rng(3)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    z = np.zeros_like(x)
    softmax_kernel[cores, rt.current_stream()](x, z, rows // cores, cols)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(z, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert softmax_kernel.last_report.findings == []


@pytest.mark.parametrize("kernel,args,ref", [
    (add_flags_kernel, (1024, 256), lambda x, y: x + y),
    (add_relu_queue_kernel, (1024, 256), lambda x, y: np.maximum(x + y, 0)),
])
def test_emitted_source_and_cpu_run(kernel, args, ref, tmp_path):
    x, y = _inputs(4 * 1024, seed=5)
    c = kernel.compile(4, x, y, np.zeros_like(x), *args)
    res = syntax_check(c.kernel_source())
    if res.skipped:
        pytest.skip(res.diagnostics)
    assert res.ok, res.diagnostics
    write_project(c.module, tmp_path / "p", host=c.host)
    for name, r in check_project(tmp_path / "p").items():
        assert r.ok, f"{name}: {r.diagnostics}"
    z_sim = np.zeros_like(x)
    kernel[4, rt.current_stream()](x, y, z_sim, *args)
    z_cpu = np.zeros_like(x)
    config.set_platform(config.Backend.CPU)
    kernel[4, rt.current_stream()](x, y, z_cpu, *args)
    np.testing.assert_array_equal(z_cpu, z_sim)
    np.testing.assert_array_equal(z_sim, ref(x, y))


def test_softmax_cpu_run_agrees():
    rows, cols = 8, 128
    x = np.random.default_rng(4).standard_normal((rows, cols)).astype(np.float32)
    z_sim, z_cpu = np.zeros_like(x), np.zeros_like(x)
    softmax_kernel[2, rt.current_stream()](x, z_sim, rows // 2, cols)
    res = syntax_check(softmax_kernel.last_compiled.kernel_source())
    assert res.skipped or res.ok, res.diagnostics
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(z_sim, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    config.set_platform(config.Backend.CPU)
    softmax_kernel[2, rt.current_stream()](x, z_cpu, rows // 2, cols)
    np.testing.assert_allclose(z_cpu, z_sim, rtol=1e-5, atol=1e-7)


def test_npu_backend_writes_project(tmp_path, capsys):
    config.set_platform(config.Backend.NPU)
    config.set_project_dir(str(tmp_path))
    x, y = _inputs(2 * 1024)
    z = np.zeros_like(x)
    add_flags_kernel[2, rt.current_stream()](x, y, z, 1024, 256)
    out = tmp_path / "add_flags_kernel"
    assert (out / "kernel" / "add_flags_kernel.asc").is_file() and (out / "host" / "main.asc").is_file()
    assert (out / "CMakeLists.txt").is_file() and (out / "input").is_dir()
    assert "run.sh" in capsys.readouterr().out
    assert not z.any()  # nothing ran


def test_compare_select_cast():
    from asc_kernels import select_cast_kernel

    n = 512
    x, y = _inputs(n, seed=8)
    z = np.zeros(n, np.float32)
    h = np.zeros(n, np.float16)
    select_cast_kernel[1, rt.current_stream()](x, y, z, h, n)
    np.testing.assert_array_equal(z, np.maximum(x, y))
    np.testing.assert_array_equal(h, np.maximum(x, y).astype(np.float16))
    assert select_cast_kernel.last_report.findings == []


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_leaky_relu_against_numpy_and_cpu(dtype):
    from asc_kernels import leaky_relu_kernel

    n, alpha = 1024, 0.01
    x = (np.random.default_rng(12).standard_normal(n) * 100).astype(dtype)
    want = np.where(x >= 0, x, x * dtype(alpha)).astype(dtype)  # the doc's formula, in the tensor's type
    z = np.zeros_like(x)
    leaky_relu_kernel[1, rt.current_stream()](x, z, alpha, n)
    np.testing.assert_array_equal(z, want)
    assert leaky_relu_kernel.last_report.findings == []
    src = leaky_relu_kernel.last_compiled.kernel_source()
    assert "AscendC::LeakyRelu(" in src
    res = syntax_check(src)
    assert res.skipped or res.ok, res.diagnostics
    z_cpu = np.zeros_like(x)
    config.set_platform(config.Backend.CPU)
    leaky_relu_kernel[1, rt.current_stream()](x, z_cpu, alpha, n)
    rtol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(z_cpu.astype(np.float32), want.astype(np.float32), rtol=rtol)
