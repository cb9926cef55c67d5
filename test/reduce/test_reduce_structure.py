"""The shape of the compiled reductions: kernel counts, the emitted Ascend C, and the errors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import pyasc
from pyasc.lowering.emit.syntax import syntax_check

THIS_FILE = os.path.basename(__file__)


def _f32(shape, seed=0):
    return pyasc.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _compile(fn, *tensors, **options):
    return pyasc.jit(fn, options=options or None).lower(*tensors).compile()


def test_softmax_is_one_kernel():
    compiled = _compile(lambda x: pyasc.softmax(x, -1), _f32((64, 48)))
    assert len(compiled.kernels) == 1


@pytest.mark.parametrize("rms", [False, True])
def test_norm_with_affine_is_one_kernel(rms):
    x, w, b = _f32((40, 32)), _f32((32,), 1), _f32((32,), 2)
    op = pyasc.rms_norm if rms else pyasc.layer_norm
    compiled = _compile(lambda x, w, b: op(x, 32, weight=w, bias=b), x, w, b)
    assert len(compiled.kernels) == 1


def test_softmax_of_elementwise_expression_is_one_kernel():
    compiled = _compile(lambda x, y: pyasc.softmax(x * y + 1.0, 1).exp(), _f32((16, 33)), _f32((16, 33), 1))
    assert len(compiled.kernels) == 1


def test_column_sum_is_a_tree_of_elementwise_kernels():
    """A sum over axis 0 reads slices of rows: elementwise kernels, no ReduceSum; launched as one kernel whose
    parts meet at SyncAll unless the launches stay separate."""
    compiled = _compile(lambda x: pyasc.sum(x, 0), _f32((100, 64)), launches="separate")
    assert len(compiled.kernels) >= 2
    src = compiled.ascendc_source()
    assert "ReduceSum" not in src
    assert "AscendC::Add(" in src
    merged = _compile(lambda x: pyasc.sum(x, 0), _f32((100, 64)))
    assert len(merged.kernels) == 1
    assert merged.ascendc_source().count("AscendC::SyncAll();") == len(compiled.kernels) - 1


def test_row_reductions_emit_reduce_calls_and_pass_the_syntax_check():
    x = _f32((24, 40))
    compiled = _compile(lambda x: pyasc.softmax(x, 1) + pyasc.amin(x, 1, keepdim=True), x)
    src = compiled.ascendc_source()
    for call in ("ReduceMax", "ReduceSum", "ReduceMin", "GetValue"):
        assert call in src, call
    ok, diagnostics = syntax_check(src)
    if ok is None:
        pytest.skip("g++ is not installed")
    assert ok, diagnostics


@pytest.mark.parametrize("sync_style", ["queue", "flags"])
def test_layer_norm_source_passes_the_syntax_check(sync_style):
    x, w = _f32((8, 96)), _f32((96,), 1)
    compiled = _compile(lambda x, w: pyasc.layer_norm(x, 96, weight=w), x, w, sync_style=sync_style)
    src = compiled.ascendc_source()
    assert "ReduceSum" in src
    if sync_style == "flags":
        assert "SetFlag" in src and "WaitFlag" in src
    ok, diagnostics = syntax_check(src)
    if ok is None:
        pytest.skip("g++ is not installed")
    assert ok, diagnostics


# ----------------------------------------------------------------------------------------- errors

def _error(fn, *tensors) -> str:
    with pytest.raises(pyasc.PyascError) as err:
        _compile(fn, *tensors)
    msg = str(err.value)
    assert THIS_FILE in msg, msg
    return msg


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "prod"])
def test_axis_out_of_range(op):
    msg = _error(lambda x: getattr(pyasc, op)(x, 2), _f32((4, 8)))
    assert f"pyasc.{op}" in msg and "out of range" in msg and "(4, 8)" in msg


def test_softmax_axis_out_of_range():
    msg = _error(lambda x: pyasc.softmax(x, -3), _f32((4, 8)))
    assert "pyasc.softmax" in msg and "out of range" in msg and "(4, 8)" in msg


def test_repeated_dim():
    msg = _error(lambda x: pyasc.sum(x, (1, -1)), _f32((4, 8)))
    assert "pyasc.sum" in msg and "repeats" in msg


@pytest.mark.parametrize("op", ["layer_norm", "rms_norm"])
def test_normalized_shape_not_matching(op):
    msg = _error(lambda x: getattr(pyasc, op)(x, (4,)), _f32((4, 8)))
    assert f"pyasc.{op}" in msg and "normalized_shape [4]" in msg and "[4, 8]" in msg


def test_weight_shape_not_matching():
    msg = _error(lambda x, w: pyasc.layer_norm(x, 8, weight=w), _f32((4, 8)), _f32((4,)))
    assert "pyasc.layer_norm" in msg and "weight" in msg and "[4]" in msg


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "layer_norm"])
def test_integer_input_rejected(op):
    xi = pyasc.tensor(np.ones((4, 8), np.int32))
    call = {"softmax": lambda x: pyasc.softmax(x, 1), "log_softmax": lambda x: pyasc.log_softmax(x, 1),
            "layer_norm": lambda x: pyasc.layer_norm(x, 8)}[op]
    msg = _error(call, xi)
    assert f"pyasc.{op}" in msg and "int32" in msg and "(4, 8)" in msg


def test_integer_sum_is_exact_inside_jit():
    a = np.random.default_rng(5).integers(-2**31, 2**31, (4, 8), dtype=np.int64).astype(np.int32)
    out = pyasc.jit(lambda x: pyasc.sum(x, 1))(pyasc.tensor(a)).numpy()
    np.testing.assert_array_equal(out, a.astype(np.int64).sum(1).astype(np.int32))     # modulo 2**32, as torch


# ------------------------------------------------------------------------------------ reproducers

F16_ROW_MAX = """
func.func @h(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  %s = asctensor.reduce max %x axes [1] : tensor<4x8xf16> -> tensor<4xf16>
  func.return %s : tensor<4xf16>
}
"""


def test_f16_row_max_decomposes(tmp_path):
    """A float16 row-wise max is already primitive (max needs no widening): decompose leaves it alone.
    Run in a subprocess with a timeout, so a regression to an endless rewrite loop fails quickly."""
    opt = shutil.which("pyasc-opt", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    assert opt is not None
    src = tmp_path / "h.mlir"
    src.write_text(F16_ROW_MAX)
    try:
        out = subprocess.run([opt, str(src), "-p", "asctensor-decompose"], capture_output=True, text=True,
                             timeout=8)
    except subprocess.TimeoutExpired:
        pytest.fail("asctensor-decompose did not finish within 8 s")
    assert out.returncode == 0, out.stderr
    assert "asctensor.reduce max" in out.stdout


def test_prod_and_row_sum_in_one_program():
    x = _f32((6, 10))
    compiled = _compile(lambda x: x.prod(1) + x.sum(1), x)
    out, report = compiled.simulate(x)
    assert report.findings == []
    a = x.numpy().astype(np.float64)
    np.testing.assert_allclose(out, a.prod(1) + a.sum(1), rtol=1e-5, atol=1e-5)


def test_long_row_softmax_is_two_kernels_online():
    """A row of 2^20 floats: per-piece max and sum (one row-wise kernel over all pieces), then one
    elementwise kernel that combines them online (its row prologue) and normalises the row."""
    for launches, kernels in (("separate", 2), ("merge", 1)):
        compiled = _compile(lambda x: pyasc.softmax(x, -1), _f32((1, 1 << 20)), launches=launches)
        assert len(compiled.kernels) == kernels
        src = compiled.ascendc_source()
        assert src.count("ReduceMax(") == 2 and src.count("ReduceSum(") == 2
        assert src.count("AscendC::SyncAll();") == 2 - kernels


def test_long_row_sum_is_two_row_wise_kernels():
    compiled = _compile(lambda x: pyasc.sum(x, -1), _f32((2, 1 << 18)), launches="separate")
    assert len(compiled.kernels) == 2
    assert compiled.ascendc_source().count("ReduceSum(") >= 2
