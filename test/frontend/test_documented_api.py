"""Documented forms of the tensor API as the user documentation writes them: scalars, NumPy
keywords, ahead-of-time compilation, logging, version and format queries, PYASC_MODE and the
progress bar. References are NumPy / PyTorch or the documentation's stated results."""

import io
import logging
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import torch

import pyasc
from pyasc import progress


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env})


# -- scalars -------------------------------------------------------------------------------------


def test_doc_install_check_sum_as_float():
    device_count = pyasc.get_device_count()
    assert device_count >= 1
    with pyasc.device(0):
        a = pyasc.ones((1024, 1024), dtype=pyasc.float32)
        b = pyasc.ones((1024, 1024), dtype=pyasc.float32)
        c = pyasc.add(a, b)
        assert c.shape == (1024, 1024)
        assert float(pyasc.sum(c)) == 2097152.0     # the documentation's 1024 x 1024 x 2


def test_int_bool_and_item_of_one_element_tensors():
    t = pyasc.tensor([[2.75]])
    assert float(t) == 2.75 and int(t) == int(torch.tensor([[2.75]])) == 2 and bool(t) is True
    assert t.item() == 2.75 and f"{pyasc.tensor(1.5):.2f}" == "1.50"
    assert int(pyasc.tensor([-3])) == -3 and [10, 20, 30][pyasc.tensor(1, dtype=pyasc.int32)] == 20
    for conv in (float, int, bool):
        with pytest.raises(pyasc.PyascError, match="one-element tensors|ambiguous"):
            conv(pyasc.ones(3))
    with pytest.raises(TypeError, match="integer tensors"):
        [1, 2][pyasc.tensor(1.0)]


# -- keywords ------------------------------------------------------------------------------------


def test_doc_lennard_jones_with_axis_keyword():
    @pyasc.jit
    def lj_potential(positions):
        rij = positions[:, None] - positions[None, :]
        r2 = pyasc.sum(rij**2, axis=-1)
        r6 = (1.0 / r2)**3
        return 4.0 * (r6**2 - r6)

    p = np.random.default_rng(0).uniform(0, 5, (48, 3)).astype(np.float32)
    out = lj_potential(pyasc.from_numpy(p)).numpy()
    d = p[:, None].astype(np.float64) - p[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        r6 = (1.0 / (d**2).sum(-1))**3
        ref = 4.0 * (r6**2 - r6)
    off = ~np.eye(48, dtype=bool)
    np.testing.assert_allclose(out[off], ref[off], rtol=2e-4, atol=1e-3)
    assert np.isnan(out[~off]).all() and np.isnan(ref[~off]).all()   # r2 = 0 on the diagonal


def test_axis_and_keepdims_wherever_dim_and_keepdim():
    a = np.random.default_rng(1).standard_normal((5, 6, 7)).astype(np.float32)
    x = pyasc.from_numpy(a)
    t = torch.from_numpy(a)
    np.testing.assert_allclose(pyasc.mean(x, axis=1, keepdims=True).numpy(),
                               t.mean(dim=1, keepdim=True).numpy(), rtol=1e-5)
    np.testing.assert_allclose(x.sum(axis=0).numpy(), t.sum(dim=0).numpy(), rtol=1e-5)
    np.testing.assert_allclose(pyasc.softmax(x, axis=-1).numpy(), torch.softmax(t, dim=-1).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_misspelt_keywords_name_the_op():
    x = pyasc.ones(2, 3)
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.sum: got an unexpected keyword argument 'dmi'; "
                                                r"did you mean 'dim'\?"):
        pyasc.sum(x, dmi=1)
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.mean: .*'keepdin'"):
        x.mean(1, keepdin=True)
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.exp: .*'out'"):
        pyasc.exp(x, out=x)
    with pytest.raises(pyasc.PyascError, match="twice"):
        pyasc.sum(x, dim=0, axis=1)


# -- ahead-of-time compilation -------------------------------------------------------------------


def test_doc_jit_shape_infer_compiles_at_decoration():
    # 原始函数
    def model_fn(x, y):
        z = x + y
        return z * 2

    # 编译优化
    opt_fn = pyasc.jit(model_fn, shape_infer=[(1024,), (1024,)])  # 指定输入形状
    assert opt_fn.cache_size() == 1                              # compiled before any call
    a = np.random.default_rng(2).standard_normal(1024).astype(np.float32)
    b = np.random.default_rng(3).standard_normal(1024).astype(np.float32)
    tensor_a, tensor_b = pyasc.from_numpy(a), pyasc.from_numpy(b)
    result = opt_fn(tensor_a, tensor_b)
    assert opt_fn.cache_size() == 1
    np.testing.assert_allclose(result.numpy(), (a + b) * 2, rtol=1e-6)
    with pytest.raises(pyasc.PyascError, match="shape_infer"):
        pyasc.jit(model_fn, shape_infer=(1024,))
    f16 = pyasc.jit(model_fn, shape_infer=[((8, 8), pyasc.float16), ((8, 8), pyasc.float16)])
    assert f16.cache_size() == 1


# -- logging -------------------------------------------------------------------------------------


_LOGGED = ("import pyasc; f = pyasc.jit(lambda x: x * 2); y = f(pyasc.ones(64)); y = f(pyasc.ones(64)); "
           "pyasc.exp(pyasc.ones(64)); pyasc.exp(pyasc.ones(64))")


def test_log_is_silent_by_default():
    out = _run(_LOGGED, PYASC_LOG_LEVEL="", PYASC_PROGRESS="0")
    assert out.returncode == 0, out.stderr
    assert out.stderr == "" and out.stdout == ""


def test_doc_environment_log_level_3(tmp_path):
    out = _run(_LOGGED, PYASC_LOG_LEVEL="3", PYASC_CACHE_DIR=str(tmp_path))
    assert out.returncode == 0, out.stderr
    err = out.stderr
    assert "stage asctile" in err and "stage ascendc" in err          # compile stages
    assert "cache miss" in err and "eager eager_exp: cache hit" in err  # cache misses and hits
    assert "launch eager_exp:" in err and "us simulated" in err         # launches and simulated times


def test_doc_set_debug_level(caplog):
    pyasc.set_debug_level(1)  # 启用调试输出
    try:
        assert logging.getLogger("pyasc").getEffectiveLevel() == logging.INFO
        with caplog.at_level(logging.INFO, logger="pyasc"):
            pyasc.jit(lambda x: x + 3.0)(pyasc.ones(32))
        assert any("compiling for (float32[32])" in r.message for r in caplog.records)
        assert any(r.message.startswith("launch") for r in caplog.records)
    finally:
        pyasc.set_debug_level(0)
    assert pyasc.get_debug_level() == 0
    with pytest.raises(pyasc.PyascError, match="non-negative integer"):
        pyasc.set_debug_level(-1)


# -- small things --------------------------------------------------------------------------------


def test_doc_versions():
    print("pyasc version:", pyasc.__version__)
    print("CANN version:", pyasc.cann_version())
    assert pyasc.cann_version() == "8.0.RC1"   # the documentation's environment: CANN 8.0.RC1


def test_doc_tensor_attributes_of_a_3d_nchw_tensor():
    a = pyasc.ones((16, 32, 32), dtype=pyasc.float32, format="NCHW")
    assert a.shape == (16, 32, 32)
    assert a.dtype is pyasc.float32
    assert str(a.format) == "NCHW"
    assert str(a.device) == "npu:0"
    assert a.nbytes == 65536
    assert isinstance(a.data_ptr(), int)
    assert a.reshape(16, 1024).shape == (16, 1024)
    assert a.transpose(0, 2).shape == (32, 32, 16)
    with pytest.raises(pyasc.PyascError, match="NCHW needs a 4-d tensor"):
        pyasc.ones((4, 4), format="NCHW")


def test_fractal_z_format():
    w = pyasc.randn((64, 3, 7, 7), dtype=pyasc.float16, format="FRACTAL_Z")
    assert w.format is pyasc.FRACTAL_Z and str(w.format) == "FRACTAL_Z"
    assert (w * 2).format is pyasc.FRACTAL_Z
    with pytest.raises(pyasc.PyascError, match="FRACTAL_Z .* needs a 4-d tensor"):
        pyasc.zeros((64, 3), format=pyasc.FRACTAL_Z)


def test_doc_pyasc_mode_int8_is_a_clear_error():
    code = "import numpy as np, pyasc\ninput_fp32 = pyasc.tensor(np.random.rand(10))\nprint(input_fp32 * 2)"
    out = _run(code, PYASC_MODE="INT8")
    assert out.returncode != 0
    assert "PyascError: pyasc.PYASC_MODE: INT8 is not a compute precision" in out.stderr
    assert "Warning" not in out.stderr     # FP32/FP16/BF16: test_custom_amp_torch.py


# -- the progress bar ----------------------------------------------------------------------------


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(progress, "_enabled", [True])
    tty, pipe = _Tty(), io.StringIO()
    with progress.progress("simulating f", delay=0.05, stream=tty):
        time.sleep(0.5)
    with progress.progress("simulating f", delay=0.05, stream=pipe):
        time.sleep(0.2)
    with progress.progress("quick", delay=0.5, stream=tty):
        pass
    assert "pyasc: simulating f" in tty.getvalue() and "done in" in tty.getvalue()
    assert "quick" not in tty.getvalue()
    assert pipe.getvalue() == ""
    threads = threading.active_count()
    for _ in range(50):  # fast work on a terminal starts no thread of its own
        with progress.progress("quick", delay=0.5, stream=tty):
            assert threading.active_count() <= threads
    assert "quick" not in tty.getvalue()
