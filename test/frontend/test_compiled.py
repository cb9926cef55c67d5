"""``pyasc.Compiled`` on a hand-written ascendc program (test/fixtures/add_queue.mlir: z = relu(x + y)
* 1.5 on 1000 float16): simulation, emission and project writing, independent of the passes."""

from pathlib import Path

import numpy as np
import pytest

import pyasc
from pyasc.jit import Compiled, TensorSpec, make_options

FIXTURE = Path(__file__).parents[1] / "fixtures" / "add_queue.mlir"

runtime = pytest.importorskip("pyasc.runtime", reason="the simulator (pyasc.runtime) is not available yet")


@pytest.fixture(scope="module")
def compiled():
    module = runtime.parse_module(FIXTURE.read_text())
    spec = TensorSpec((1000,), pyasc.float16)
    return Compiled(module, "add", make_options(None), (spec, spec), (spec,), False)


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [pyasc.tensor(rng.standard_normal(1000), dtype=pyasc.float16) for _ in range(2)]


def expected(x, y):
    s = (x.numpy() + y.numpy()).astype(np.float16)
    return (np.maximum(s, 0) * np.float16(1.5)).astype(np.float16)


def test_simulate_returns_numpy_and_report(compiled):
    x, y = inputs()
    out, report = compiled.simulate(x, y)
    assert isinstance(out, np.ndarray) and out.dtype == np.float16 and out.shape == (1000,)
    np.testing.assert_allclose(out.astype(np.float32), expected(x, y).astype(np.float32), rtol=4e-3, atol=1e-3)
    assert report.seconds > 0 and report.cycles > 0 and "V" in report.pipe_busy


def test_call_returns_tensor(compiled):
    x, y = inputs(1)
    z = compiled(x, y)
    assert isinstance(z, pyasc.Tensor) and z.dtype is pyasc.float16 and z.shape == (1000,)


def test_kernels_and_sources(compiled):
    assert compiled.kernels == ["add_k0"]
    assert "add_k0" in compiled.ascendc_source() and "kernel_operator.h" in compiled.ascendc_source()
    assert "aclrtMalloc" in compiled.host_source()
    assert "add(float16[1000], float16[1000]) -> (float16[1000])" in repr(compiled)


def test_write_project_with_data(compiled, tmp_path):
    x, y = inputs(2)
    out = tmp_path / "proj"
    compiled.write_project(out, inputs=[x, y])
    assert (out / "CMakeLists.txt").exists() and (out / "input" / "x.bin").exists()
    golden = np.fromfile(out / "golden" / "z.bin", dtype=np.float16)
    np.testing.assert_allclose(golden.astype(np.float32), expected(x, y).astype(np.float32), rtol=4e-3, atol=1e-3)
    with pytest.raises(pyasc.PyascError, match="pyasc.write_project: output folder .* exists and is not empty"):
        compiled.write_project(out)
    compiled.write_project(out, force=True)


def test_wrong_inputs_rejected(compiled):
    with pytest.raises(pyasc.PyascError, match=r"input 1 of add is float32\[1000\]"):
        compiled.simulate(pyasc.zeros(1000, dtype=pyasc.float16), pyasc.zeros(1000))
