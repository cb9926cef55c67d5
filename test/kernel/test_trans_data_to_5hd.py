"""``asc.trans_data_to_5hd`` (Ascend C ``TransDataTo5HD``) in kernels of the official style: NCHW -> NC1HWC0 as
its doc page configures it, against NumPy's transpose of the same data; its contract checks; its Ascend C."""

import numpy as np
import pytest

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from pyasc.lowering.emit.syntax import syntax_check


@asc.jit
def to_5hd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, planes: asc.ConstExpr[int], hw: asc.ConstExpr[int],
                  copied: asc.ConstExpr[int] = 0, stored: asc.ConstExpr[int] = 0):
    """NCHW planes -> NC1HWC0 (C0 = 16): per 16 planes one TransDataTo5HD over the whole HW plane. Only the first
    ``copied`` and ``stored`` elements are copied in and out (0: all)."""
    n = planes * hw
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    nbytes = n * x.dtype.sizeof()
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    y_ub = asc.LocalTensor(y.dtype, asc.TPosition.VECOUT, nbytes, n)
    asc.data_copy(x_ub, x_gm, copied if copied else n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    per = 32 // x.dtype.sizeof()  # elements of a DataBlock
    step = 16 * 16 * x.dtype.sizeof() // 32  # 16 positions of 16 channels, in blocks
    params = asc.TransDataTo5HDParams(repeat_times=hw // per, dst_rep_stride=step // (2 if per == 8 else 1),
                                      src_rep_stride=1)
    for group in range(planes // 16):
        base = group * 16 * hw
        src_list = []
        dst_list = []
        for i in range(16):
            src_list.append(x_ub[base + i * hw])
            if per == 16:  # block i: position i's 16 channels
                dst_list.append(y_ub[base + i * 16])
            else:  # blocks 2k, 2k + 1: position k's channels 0-7 and 8-15
                dst_list.append(y_ub[base + (i // 2) * 16 + (i % 2) * 8])
        asc.trans_data_to_5hd(dst_list, src_list, params)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, y_ub, stored if stored else n)


def _nc1hwc0(x: np.ndarray, planes: int, hw: int) -> np.ndarray:
    """NumPy's NCHW -> NC1HWC0 of ``planes`` channel planes of ``hw`` elements (C0 = 16)."""
    return x.reshape(planes // 16, 16, hw).transpose(0, 2, 1).reshape(-1)


@pytest.mark.parametrize("dtype,planes,hw", [(np.float16, 64, 256), (np.float16, 32, 64), (np.float32, 32, 256),
                                             (np.int16, 16, 128), (np.int32, 48, 64)])
def test_nchw_to_nc1hwc0_matches_numpy(dtype, planes, hw):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(planes * hw) * 100).astype(dtype)
    y = np.zeros_like(x)
    to_5hd_kernel[1, rt.current_stream()](x, y, planes, hw)
    np.testing.assert_array_equal(y, _nc1hwc0(x, planes, hw))
    report = to_5hd_kernel.last_report
    assert report.findings == []
    busy = report.launches[0].core_busy[0]["V"]
    repeats = planes // 16 * hw // (32 // x.itemsize)
    assert busy == repeats * 512 / 256  # 512 B a repeat at 256 B/cycle (the fixed cost is pipelined latency)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_cpu_run_of_the_emitted_source_matches_numpy(dtype):
    """The emitted Ascend C, built and run on the CPU (``kernel_operator.h`` and its CPU implementation)."""
    planes, hw = 32, 128
    x = np.random.default_rng(1).standard_normal(planes * hw).astype(dtype)
    res = syntax_check(to_5hd_kernel.compile(1, x, np.zeros_like(x), planes, hw).kernel_source())
    if res.skipped:
        pytest.skip(res.diagnostics)
    assert res.ok, res.diagnostics
    y = np.zeros_like(x)
    config.set_platform(config.Backend.CPU)
    to_5hd_kernel[1, rt.current_stream()](x, y, planes, hw)
    np.testing.assert_array_equal(y, _nc1hwc0(x, planes, hw))


def test_ascendc_source_builds_the_address_lists():
    x = np.zeros(32 * 64, np.float16)
    c = to_5hd_kernel.compile(1, x, np.zeros_like(x), 32, 64)
    src = c.kernel_source()
    assert "AscendC::TransDataTo5HD<half>(dstList, srcList, params);" in src
    assert "params.repeatTimes = 4;" in src and "params.dstRepStride = 16;" in src and "params.srcRepStride = 1;" in src
    assert "(uint64_t)" in src and ".GetPhyAddr()" in src


@pytest.mark.contract_findings
def test_initcheck_follows_each_element():
    """The last 16 planes are never copied in: storing their transposed elements is an initcheck finding that
    names TransDataTo5HD as carrying them; storing only the planes before them is not."""
    planes, hw = 48, 64
    x = np.arange(planes * hw).astype(np.float16)
    y = np.zeros_like(x)
    defined = (planes - 16) * hw
    to_5hd_kernel[1, rt.current_stream()](x, y, planes, hw, defined, defined)
    assert to_5hd_kernel.last_report.findings == []
    np.testing.assert_array_equal(y[:defined], _nc1hwc0(x, planes, hw)[:defined])
    with pytest.raises(asc.KernelHazardError, match="local-initcheck") as e:
        to_5hd_kernel[1, rt.current_stream()](x, y, planes, hw, defined)
    assert "TransDataTo5HD" in str(e.value) and "never written" in str(e.value)


@pytest.mark.contract_findings
def test_overlapping_blocks_are_a_contract_finding():
    """A destination one block into its own source: repeat 0 writes blocks that repeats 1-3 read."""
    x = np.arange(32 * 64, dtype=np.float16)
    with pytest.raises(asc.KernelHazardError, match="trans5hd-no-overlap") as e:
        in_place_kernel[1, rt.current_stream()](x, np.zeros_like(x), 2048, 16, 64, 4, 1)
    assert str(e.value).count("[contract]") == 1


def test_documented_layout_has_no_overlap_finding_in_place():
    """A repeat that writes exactly the blocks it reads (16 x 16 in place) is allowed."""
    x = np.arange(256, dtype=np.float16)
    y = np.zeros_like(x)
    in_place_kernel[1, rt.current_stream()](x, y, 256, 0, 16, 1, 0)
    np.testing.assert_array_equal(y, x.reshape(16, 16).T.reshape(-1))
    assert in_place_kernel.last_report.findings == []


def test_dst_list_views_of_two_tensors_is_an_error():
    x = np.arange(256, dtype=np.float16)
    with pytest.raises(asc.KernelError, match="view different tensors"):
        to_two_bases_kernel[1, rt.current_stream()](x, np.zeros_like(x))


@asc.jit
def in_place_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int], dst_first: asc.ConstExpr[int],
                    src_step: asc.ConstExpr[int], repeat: asc.ConstExpr[int], stride: asc.ConstExpr[int]):
    """One TransDataTo5HD within one tensor of ``n`` elements: destination block ``i`` at ``dst_first + 16 * i``,
    source block ``i`` at ``src_step * i``, ``repeat`` repeats ``stride`` blocks apart on both sides."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    y_gm.set_global_buffer(y, n)
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    asc.data_copy(x_ub, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    dst_list = []
    src_list = []
    for i in range(16):
        dst_list.append(x_ub[dst_first + i * 16])
        src_list.append(x_ub[i * src_step])
    params = asc.TransDataTo5HDParams(repeat_times=repeat, dst_rep_stride=stride, src_rep_stride=stride)
    asc.trans_data_to_5hd(dst_list, src_list, params)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, x_ub, n)


@asc.jit
def to_two_bases_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress):
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    y_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 512, 256)
    dst_list = []
    src_list = []
    for i in range(16):
        dst_list.append(y_ub[i * 16] if i else x_ub[0])
        src_list.append(x_ub[i * 16])
    asc.trans_data_to_5hd(dst_list, src_list, asc.TransDataTo5HDParams(repeat_times=1))
