"""``LoadData`` with ``LoadData3DParamsV2`` into L0B (B2): ``Load3D.md`` says the L1 -> L0B path transposes the
img2col matrix X, so the patches are the B operand (X^T, ZN). A convolution computed as ``weights (Cout x K, A in
L0A) @ X^T`` gives the output channels by positions (NCHW); it is checked against ``torch.nn.functional.conv2d``
in float64, in the simulator and in the emitted project built for the CPU."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config

from test_load3d import _np_dtype, copy_to_l1, nc1hwc0


@asc.jit
def conv_nchw_kernel(x: asc.GlobalAddress, wa: asc.GlobalAddress, out: asc.GlobalAddress, c: asc.ConstExpr[int],
                     h: asc.ConstExpr[int], w: asc.ConstExpr[int], cout: asc.ConstExpr[int], kh: asc.ConstExpr[int],
                     kw: asc.ConstExpr[int], stride: asc.ConstExpr[int], pad: asc.ConstExpr[int],
                     tn: asc.ConstExpr[int], tk: asc.ConstExpr[int]):
    """out (cout rows of Ho*Wo) = conv2d(x, wa): x NC1HWC0 (N = 1), wa the weights as A in ZZ fractals
    ([cout/16][K/C0][16][C0]); N tiles of tn positions, K tiles of tk columns: per tile one Load3Dv2 into L0B and
    one LoadData of the weights' K tile per 16-row block into L0A."""
    dt = x.dtype
    c0 = 32 // dt.sizeof()
    ho = (h + 2 * pad - (kh - 1) - 1) // stride + 1
    wo = (w + 2 * pad - (kw - 1) - 1) // stride + 1
    p = ho * wo
    ppad = (p + 15) // 16 * 16
    k = c * kh * kw
    k1 = k // c0
    x_gm = asc.GlobalTensor()
    w_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    w_gm.set_global_buffer(wa)
    o_gm.set_global_buffer(out)
    x1 = asc.LocalTensor(dt, asc.TPosition.B1, 0, c * h * w)
    w1 = asc.LocalTensor(dt, asc.TPosition.A1, c * h * w * dt.sizeof(), cout * k)
    a2 = asc.LocalTensor(dt, asc.TPosition.A2, 0, cout * tk)
    b2 = asc.LocalTensor(dt, asc.TPosition.B2, 0, tk * tn)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, cout * tn)
    copy_to_l1(x1, w1, x_gm, w_gm, c * h * w // c0, cout * k // c0, c0)
    for ni in asc.static_range((ppad + tn - 1) // tn):
        n0 = ni * tn
        ne = min(tn, ppad - n0)
        for ki in asc.static_range(k // tk):
            if ni + ki > 0:  # the previous Mmad has read L0A and L0B
                asc.set_flag(asc.HardEvent.M_MTE1, 0)
                asc.wait_flag(asc.HardEvent.M_MTE1, 0)
            asc.load_data(b2, x1, asc.LoadData3DParamsV2(
                pad_list=[pad, pad, pad, pad], l1_h=h, l1_w=w, channel_size=c, k_extension=tk, m_extension=ne,
                k_start_pt=ki * tk, m_start_pt=n0, stride_w=stride, stride_h=stride, filter_w=kw, filter_h=kh))
            for mb in asc.static_range(cout // 16):
                asc.load_data(a2[mb * 16 * tk:], w1, asc.LoadData2DParams(
                    start_index=mb * k1 + ki * tk // c0, repeat_times=tk // c0, src_stride=1))
            asc.set_flag(asc.HardEvent.MTE1_M, 0)
            asc.wait_flag(asc.HardEvent.MTE1_M, 0)
            if ni > 0 and ki == 0:  # the previous tile's Fixpipe has read L0C
                asc.set_flag(asc.HardEvent.FIX_M, 0)
                asc.wait_flag(asc.HardEvent.FIX_M, 0)
            asc.mmad(c1, a2, b2, asc.MmadParams(cout, ne, tk, 0, False, ki == 0))
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
        asc.fixpipe(o_gm[n0:], c1, asc.FixpipeParamsV220(n_size=min(tn, p - n0), m_size=cout, src_stride=cout,
                                                         dst_stride=p))


def weights_zz(wt: np.ndarray, c0: int) -> np.ndarray:
    """(Cout, C, Kh, Kw) -> A (Cout x K, k = ((c1 * Kh + kh) * Kw + kw) * C0 + c0, Load3D.md's img2col order) as
    ZZ fractals [Cout/16][K/C0][16 (m)][C0 (k)]."""
    cout, c, kh, kw = wt.shape
    a = wt.reshape(cout, c // c0, c0, kh, kw).transpose(0, 1, 3, 4, 2).reshape(cout, c * kh * kw)
    return np.ascontiguousarray(a.reshape(cout // 16, 16, -1, c0).transpose(0, 2, 1, 3))


def _run(et, c, h, w, cout, k, stride, pad, tn, tk, ints=False):
    dt = _np_dtype(et)
    c0 = 32 // dt.itemsize
    rng = np.random.default_rng(1)
    draw = (lambda shape: rng.integers(-4, 4, shape)) if ints else rng.standard_normal
    x = draw((c, h, w)).astype(dt)
    wt = draw((cout, c, k, k)).astype(dt)
    t = lambda a: torch.from_numpy(np.asarray(a, np.float64))  # noqa: E731
    ref = torch.nn.functional.conv2d(t(x)[None], t(wt), stride=stride, padding=pad)[0]
    ref = ref.reshape(cout, -1).numpy()
    out = np.zeros(ref.shape, np.float32)
    conv_nchw_kernel[1, rt.current_stream()](nc1hwc0(x, c0), weights_zz(wt, c0), out, c, h, w, cout, k, k, stride,
                                             pad, tn, tk)
    return out, ref


CASES = {  # et, C, H, W, Cout, kernel, stride, pad, N tile, K tile
    "3x3-s1-p1-c16": ("f16", 16, 8, 8, 16, 3, 1, 1, 64, 144),
    "3x3-s1-p1-c32-tiled": ("f16", 32, 8, 8, 32, 3, 1, 1, 32, 96),
    "7x7-s2-p3-tail-tile": ("f16", 16, 14, 14, 16, 7, 2, 3, 32, 112),
    "bf16-3x3-s2": ("bf16", 32, 9, 7, 16, 3, 2, 1, 16, 144),
    "f32-3x3-c16": ("f32", 16, 6, 6, 16, 3, 1, 1, 16, 72),
}


@pytest.mark.parametrize("case", list(CASES))
def test_patches_in_l0b_give_the_nchw_convolution(case):
    out, ref = _run(*CASES[case])
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())
    assert conv_nchw_kernel.last_report.findings == [], conv_nchw_kernel.last_report.findings
    src = conv_nchw_kernel.last_compiled.kernel_source()
    assert "AscendC::LoadData3DParamsV2<" in src


def test_the_l0b_address_must_be_512_byte_aligned():
    @asc.jit
    def k(x: asc.GlobalAddress):
        x1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 0, 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 32, 256)
        asc.load_data(b2, x1, asc.LoadData3DParamsV2(l1_h=1, l1_w=16, channel_size=16, k_extension=16,
                                                     m_extension=16))

    with pytest.raises(Exception, match="L0B address 32 is not 512 B aligned"):
        k[1, rt.current_stream()](np.zeros(256, np.float16))


def test_emitted_project_on_the_cpu_matches():
    """The emitted project built with g++ for the host (pyasc's CPU implementation of the API) and the simulator
    give torch's result exactly (integer inputs: every sum exact)."""
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    args = ("f16", 32, 8, 8, 32, 3, 1, 1, 32, 96)
    sim, ref = _run(*args, ints=True)
    config.set_platform(config.Backend.CPU)  # (conftest sets the simulator back)
    cpu, _ = _run(*args, ints=True)
    np.testing.assert_array_equal(sim, ref)
    np.testing.assert_array_equal(cpu, ref)
