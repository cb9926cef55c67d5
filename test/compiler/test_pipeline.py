"""The compiler's decisions, end to end: fusion, derived tiles, options, sync styles, emission."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import pyasc
from pyasc.dialects.target import get_target
from pyasc.lowering.emit.syntax import syntax_check

F16, F32 = pyasc.float16, pyasc.float32


def quickstart(x, y):
    return pyasc.gelu(x * y + 1.5)


def tile_shape(compiled_text: str) -> tuple[int, int]:
    m = re.search(r"asctile\.load .* -> tensor<(\d+)x(\d+)x", compiled_text)
    return int(m.group(1)), int(m.group(2))


def test_quickstart_chain_is_one_kernel():
    x = pyasc.randn(64, 256, dtype=F16)
    compiled = pyasc.jit(quickstart).lower(x, x).compile()
    assert compiled.kernels == ["quickstart_k0"]
    assert compiled.ascendc_source().count('extern "C" __global__ __aicore__') == 1


def test_a_shape_change_starts_a_new_kernel():
    x = pyasc.randn(16, 1, dtype=F32)
    y = pyasc.randn(16, 8, dtype=F32)
    separate = pyasc.jit(lambda x, y: pyasc.exp(x) * y, options={"launches": "separate"})
    assert separate.lower(x, y).compile().kernels == ["lambda_k0", "lambda_k1"]
    fn = pyasc.jit(lambda x, y: pyasc.exp(x) * y)  # the two launched as one, meeting at SyncAll
    assert fn.lower(x, y).compile().ascendc_source().count("AscendC::SyncAll();") == 1
    got = fn(x, y).numpy()
    np.testing.assert_allclose(got, np.exp(x.numpy()) * y.numpy(), rtol=1e-5)


@pytest.mark.parametrize("dtype", [F16, F32])
def test_tile_is_derived_from_ub_capacity(dtype):
    """The tile fills UB with the live buffers (x, y, z double buffered) and no more."""
    n = 1 << 22
    x = pyasc.randn(n, dtype=dtype)
    text = pyasc.jit(lambda a, b: a + b).lower(x, x).as_text("asctile")
    rows, pitch = tile_shape(text)
    tile_bytes = rows * pitch * dtype.itemsize
    ub = get_target("ascend910b2").ub_usable_bytes
    assert tile_bytes * 3 * 2 <= ub  # three rotating buffers of two slots fit
    assert tile_bytes * 3 * 2 > ub * 0.75  # and they use most of UB
    assert (pitch * dtype.itemsize) % 32 == 0


def test_fewer_buffers_give_bigger_tiles():
    x = pyasc.randn(1 << 22, dtype=F32)
    double = tile_shape(pyasc.jit(lambda a, b: a + b).lower(x, x).as_text("asctile"))
    single = tile_shape(pyasc.jit(lambda a, b: a + b, options={"buffers": 1}).lower(x, x).as_text("asctile"))
    assert single[0] * single[1] > 1.8 * double[0] * double[1]


def test_options_change_simulated_cycles():
    x = pyasc.randn(1 << 20, dtype=F32)

    def cycles(**options):
        _, report = pyasc.jit(lambda a, b: a * b + 1.0, options=options).lower(x, x).compile().simulate(x, x)
        return report.cycles

    default = cycles()
    assert cycles(tile_size=64) > 2 * default  # fixed costs per copy and instruction dominate
    assert cycles(cores=4) > 2 * default
    assert cycles(buffers=1, cores=4) > cycles(cores=4)  # no overlap of copies and compute


@pytest.mark.parametrize("shape", [(1000003,), (37, 129), (5, 1, 33)])
def test_sync_styles_agree_bit_for_bit(shape):
    x = pyasc.randn(*shape, dtype=F32)
    y = pyasc.randn(*shape[-1:], dtype=F32)
    outs = []
    for style in ("queue", "flags"):
        out, report = pyasc.jit(quickstart, options={"sync_style": style}).lower(x, y).compile().simulate(x, y)
        assert not report.findings, report.findings
        outs.append(out)
    assert np.array_equal(outs[0], outs[1])


def test_flags_style_sync_is_explicit_and_outside_loops_has_no_pipe_all():
    x = pyasc.randn(4096, dtype=F16)
    src = pyasc.jit(quickstart, options={"sync_style": "flags"}).lower(x, x).compile().ascendc_source()
    for event in ("MTE2_V", "V_MTE2", "V_MTE3", "MTE3_V"):
        assert f"SetFlag<AscendC::HardEvent::{event}>" in src
        assert f"WaitFlag<AscendC::HardEvent::{event}>" in src
    # the static-tensor frame: InitSocState() at entry, one PipeBarrier<PIPE_ALL> at the very end, none in the loop
    assert src.count("PIPE_ALL") == 1 and "InitSocState()" in src
    assert src.index("PipeBarrier<PIPE_ALL>") > src.rindex("WaitFlag")
    assert "TQue" not in src and "LocalTensor<half>" in src


def test_queue_style_uses_tpipe_and_tque():
    x = pyasc.randn(4096, dtype=F16)
    src = pyasc.jit(quickstart).lower(x, x).compile().ascendc_source()
    assert "AscendC::TPipe pipe;" in src
    # depth 1 (the TQue page's recommendation); double buffering is InitBuffer's buffer count
    assert "TQue<AscendC::TPosition::VECIN, 1>" in src and "TQue<AscendC::TPosition::VECOUT, 1>" in src
    assert re.search(r"pipe\.InitBuffer\(\w+, 2, \d+\);", src)
    assert "EnQue" in src and "DeQue" in src and "SetFlag" not in src


def test_plan_that_cannot_fit_is_a_compile_error():
    x = pyasc.randn(1 << 20, dtype=F32)
    with pytest.raises(pyasc.PyascError, match=r"UB overflow in kernel @lambda_k0.*test_pipeline.py"):
        pyasc.jit(lambda a: pyasc.sigmoid(a) * a, options={"tile_size": 1 << 16})(x)


PROGRAMS = {
    "quickstart": (quickstart, [(128, 96), (96,)], F16),
    "broadcast_column": (lambda x, y: x * y - pyasc.tanh(y), [(33, 70), (33, 1)], F32),
    "scalar_and_int": (lambda x, y: pyasc.maximum(x + 3, y) * 2, [(1001,), ()], pyasc.int32),
    "bf16": (lambda x, y: pyasc.sigmoid(x) / (y * y + 1.0), [(4, 5, 6), (5, 1)], pyasc.bfloat16),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed: the syntax check is skipped")
@pytest.mark.parametrize("style", ["queue", "flags"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_emitted_kernels_pass_gxx_syntax_check(name, style):
    fn, shapes, dtype = PROGRAMS[name]
    args = [pyasc.randn(*s).to(dtype) for s in shapes]
    compiled = pyasc.jit(fn, options={"sync_style": style}).lower(*args).compile()
    ok, diagnostics = syntax_check(compiled.ascendc_source())
    assert ok, diagnostics


IN_PLACE_PROGRAMS = {
    "bias_then_scale": (lambda x, r, c, s: (x + r) * c - s,
                        lambda x, r, c, s: (x + r) * c - s),
    "row_vector_twice": (lambda x, r, c, s: pyasc.exp(x * r) + r * c,
                         lambda x, r, c, s: np.exp(x * r) + r * c),
}


@pytest.mark.parametrize("name", list(IN_PLACE_PROGRAMS))
def test_in_place_chains_over_many_tiles_keep_loop_invariant_operands(name):
    """Temporaries are reused in place along a chain, never the row vector or scalar loaded once for
    every tile (each core runs many tiles here)."""
    fn, ref = IN_PLACE_PROGRAMS[name]
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((64, 100), (100,), (64, 1), (1,))]
    lowered = pyasc.jit(fn, options={"cores": 2, "tile_size": 256}).lower(*[pyasc.tensor(a) for a in arrays])
    assert re.search(r"ascbuf\.v\w+ \w+ (%\w+), \1,", lowered.as_text("ascbuf")), "a chain computed in place"
    out, _ = lowered.compile().simulate(*[pyasc.tensor(a) for a in arrays])
    np.testing.assert_allclose(out, ref(*arrays), rtol=2e-6, atol=2e-6)
