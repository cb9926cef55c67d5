"""``asc.gather_mask`` (Ascend C ``GatherMask``, built-in patterns) in kernels of the official style: the doc page's
own example (pattern 2 over 128 uint16 values 1..128 keeps 2, 4, ..., 128), every pattern in normal and counter
mode against the doc's definition of the patterns, strides between blocks and repeats, the cost, the contract
checks, and the emitted Ascend C built and run on the CPU."""

import numpy as np
import pytest

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from pyasc.lowering.emit.syntax import syntax_check

# the doc's patterns, as the bit strings it gives (lane 0 rightmost): 1 even lanes, 2 odd, 3-6 lane k of 4, 7 all
DOC_BITS = {1: "01", 2: "10", 3: "0001", 4: "0010", 5: "0100", 6: "1000", 7: "1"}


def _selected(pattern: int, lanes: int) -> np.ndarray:
    bits = DOC_BITS[pattern][::-1]  # lane i is bit i from the right
    return np.array([bits[i % len(bits)] == "1" for i in range(lanes)])


def _reference(src: np.ndarray, pattern: int, counter: bool, mask: int, block_stride: int, repeats: int,
               repeat_stride: int) -> np.ndarray:
    """The doc's GatherMask: repeat r reads 256 B (normal) or ``mask`` elements (counter) in 32 B blocks
    ``block_stride`` blocks apart from block ``r * repeat_stride``; the selected elements follow each other."""
    per = 32 // src.itemsize
    n = mask if counter else 256 // src.itemsize
    lanes = np.arange(n)
    where = (lanes // per) * block_stride * per + lanes % per
    out = [src[r * repeat_stride * per + where][_selected(pattern, n)] for r in range(repeats)]
    return np.concatenate(out)


@asc.jit
def gather_mask_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int], m: asc.ConstExpr[int],
                       pattern: asc.ConstExpr[int], counter: asc.ConstExpr[int], mask: asc.ConstExpr[int],
                       block_stride: asc.ConstExpr[int], repeats: asc.ConstExpr[int],
                       repeat_stride: asc.ConstExpr[int], fill: asc.ConstExpr[int] = 1):
    """``n`` elements of x into UB, one GatherMask into an ``m``-element tensor (zeroed first with ``fill``), stored to
    y."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, m)
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    y_ub = asc.LocalTensor(y.dtype, asc.TPosition.VECOUT, n * x.dtype.sizeof(), m)
    if fill:
        asc.duplicate(y_ub, 0, m)
    asc.data_copy(x_ub, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if fill:  # the Duplicate's writes before the GatherMask's
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    rsvd_cnt = 0
    asc.gather_mask(y_ub, x_ub, pattern, counter, mask, asc.GatherMaskParams(block_stride, repeats, repeat_stride, 0),
                    rsvd_cnt)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, y_ub, m)


def _run(x, m, *args, fill=1):
    y = np.zeros(m, x.dtype)
    gather_mask_kernel[1, rt.current_stream()](x, y, x.size, m, *args, fill)
    return y


def test_the_doc_example_keeps_the_odd_lanes():
    """GatherMask.md: src0 = [1 2 3 ... 128] (uint16), src1Pattern = 2, normal mode, one repeat -> dst = [2 4 6 ...
    128], rsvdCnt 64."""
    x = np.arange(1, 129, dtype=np.uint16)
    y = _run(x, 64, 2, 0, 0, 1, 1, 0, fill=0)  # no Duplicate of uint16 scalars here: every element is written
    np.testing.assert_array_equal(y, np.arange(2, 129, 2, dtype=np.uint16))
    assert gather_mask_kernel.last_report.findings == []


@pytest.mark.parametrize("pattern", range(1, 8))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32])
def test_every_pattern_in_normal_mode(pattern, dtype):
    x = (np.random.default_rng(pattern).standard_normal(1024) * 100).astype(dtype)
    ref = _reference(x, pattern, False, 0, 1, 3, 8)
    np.testing.assert_array_equal(_run(x, ref.size, pattern, 0, 0, 1, 3, 8), ref)


@pytest.mark.parametrize("pattern,mask,block_stride,repeats,repeat_stride", [
    (1, 70, 1, 2, 4),     # the doc's counter-mode example: 70 elements a repeat, repeats 4 blocks apart
    (2, 255, 1, 4, 10),   # a row of 255 columns per repeat, rows 10 blocks apart: the odd columns
    (3, 128, 2, 3, 16),   # every fourth lane, blocks two apart
    (6, 33, 1, 5, 2),     # repeats that overlap
    (7, 20, 1, 2, 3),
])
def test_counter_mode_with_strides(pattern, mask, block_stride, repeats, repeat_stride):
    x = np.arange(4096, dtype=np.float16)
    ref = _reference(x, pattern, True, mask, block_stride, repeats, repeat_stride)
    np.testing.assert_array_equal(_run(x, -(-ref.size // 16) * 16, pattern, 1, mask, block_stride, repeats,
                                       repeat_stride)[:ref.size], ref)
    assert gather_mask_kernel.last_report.findings == []


def test_cost_is_two_cycles_per_256_bytes_read():
    """Its doc's throughput table: 64 half elements per cycle, 2 cycles per 256 B repeat (fixed cost aside)."""
    x = np.arange(4096, dtype=np.float16)
    _run(x, 2048, 1, 0, 0, 1, 16, 8)
    one = gather_mask_kernel.last_report.launches[0].core_busy[0]["V"]
    _run(x, 2048, 1, 0, 0, 1, 32, 8)  # 16 more repeats
    assert gather_mask_kernel.last_report.launches[0].core_busy[0]["V"] - one == 16 * 2


def test_a_pattern_outside_1_to_7_is_refused():
    x = np.arange(256, dtype=np.float16)
    with pytest.raises(asc.KernelError, match="gathermask-pattern-range"):
        _run(x, 64, 8, 0, 0, 1, 1, 0)


@pytest.mark.contract_findings
def test_a_field_past_its_type_is_a_contract_finding():
    x = np.arange(256, dtype=np.float16)
    with pytest.raises(asc.KernelHazardError, match="gathermask-field-range"):
        _run(x, 64, 1, 0, 0, 256, 1, 0)  # src0BlockStride is a uint8_t


@pytest.mark.contract_findings
def test_reading_past_the_buffer_is_a_finding():
    """Three repeats of 256 B over a 512 B source."""
    x = np.arange(256, dtype=np.float16)
    with pytest.raises(asc.KernelHazardError, match="local-extent|UB"):
        _run(x, 192, 1, 0, 0, 1, 3, 8)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_cpu_run_of_the_emitted_source_matches_the_doc(dtype):
    x = (np.random.default_rng(2).standard_normal(2048) * 100).astype(dtype)
    args = (2, 1, 77, 1, 4, 12)
    res = syntax_check(gather_mask_kernel.compile(1, x, np.zeros(256, dtype), x.size, 256, *args).kernel_source())
    if res.skipped:
        pytest.skip(res.diagnostics)
    assert res.ok, res.diagnostics
    source = gather_mask_kernel.compile(1, x, np.zeros(256, dtype), x.size, 256, *args).kernel_source()
    assert "AscendC::GatherMaskParams(" in source and "rsvdCnt" in source
    ref = _reference(x, 2, True, 77, 1, 4, 12)
    config.set_platform(config.Backend.CPU)
    try:
        y = _run(x, 256, *args)
    finally:
        config.set_platform(config.Backend.Model)
    np.testing.assert_array_equal(y[:ref.size], ref)
