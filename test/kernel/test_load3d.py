"""``LoadData`` with ``LoadData3DParamsV2`` (Load3Dv2) in an implicit-GEMM convolution kernel: the host lays
out the input as NC1HWC0 and the weights in FRACTAL_Z order, the kernel copies both into L1, img2col-loads
tiles of the input into L0A, loads the weights' K tiles into L0B, multiplies and writes the output rows;
the result is checked against ``torch.nn.functional.conv2d`` in float64. Broken fields are reported with
the documented rule and the op named."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from pyasc.kernel.errors import KernelError
from pyasc.runtime.errors import SimulationError


@asc.jit
def copy_to_l1(x1: asc.LocalTensor, w1: asc.LocalTensor, x_gm: asc.GlobalTensor, w_gm: asc.GlobalTensor,
               x_rows: asc.ConstExpr[int], w_rows: asc.ConstExpr[int], c0: asc.ConstExpr[int]):
    """The feature map and the weights GM -> L1 as rows of C0 elements (Nd2Nz), then MTE1 may read them."""
    asc.data_copy(x1, x_gm, asc.Nd2NzParams(1, x_rows, c0, 0, c0, x_rows, 1, 0))
    asc.data_copy(w1, w_gm, asc.Nd2NzParams(1, w_rows, c0, 0, c0, w_rows, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)


@asc.jit
def conv_kernel(x: asc.GlobalAddress, wt: asc.GlobalAddress, out: asc.GlobalAddress, c: asc.ConstExpr[int],
                h: asc.ConstExpr[int], w: asc.ConstExpr[int], cout: asc.ConstExpr[int], kh: asc.ConstExpr[int],
                kw: asc.ConstExpr[int], stride: asc.ConstExpr[int], dil: asc.ConstExpr[int],
                pad: asc.ConstExpr[int], pad_value: asc.ConstExpr[float], tm: asc.ConstExpr[int],
                tk: asc.ConstExpr[int], drop_mte1_m: asc.ConstExpr[bool]):
    """out (Ho*Wo rows of cout) = conv2d(x, wt): x NC1HWC0 (N = 1), wt FRACTAL_Z ([K/C0][cout/16][16][C0]);
    M tiles of tm rows, K tiles of tk columns, one Load3Dv2 per tile (``drop_mte1_m``: a race, on purpose)."""
    dt = x.dtype
    c0 = 32 // dt.sizeof()
    ho = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
    wo = (w + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    m = ho * wo
    mpad = (m + 15) // 16 * 16
    k = c * kh * kw
    x_gm = asc.GlobalTensor()
    w_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    w_gm.set_global_buffer(wt)
    o_gm.set_global_buffer(out)
    x_rows = c * h * w // c0
    w_rows = k * cout // c0
    x1 = asc.LocalTensor(dt, asc.TPosition.A1, 0, c * h * w)
    w1 = asc.LocalTensor(dt, asc.TPosition.B1, c * h * w * dt.sizeof(), k * cout)
    a2 = asc.LocalTensor(dt, asc.TPosition.A2, 0, tm * tk)
    b2 = asc.LocalTensor(dt, asc.TPosition.B2, 0, tk * cout)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, tm * cout)
    copy_to_l1(x1, w1, x_gm, w_gm, x_rows, w_rows, c0)
    for mi in asc.static_range((mpad + tm - 1) // tm):
        m0 = mi * tm
        me = min(tm, mpad - m0)
        for ki in asc.static_range(k // tk):
            if mi + ki > 0:  # the previous Mmad has read L0A and L0B
                asc.set_flag(asc.HardEvent.M_MTE1, 0)
                asc.wait_flag(asc.HardEvent.M_MTE1, 0)
            asc.load_data(a2, x1, asc.LoadData3DParamsV2(
                pad_list=[pad, pad, pad, pad], l1_h=h, l1_w=w, channel_size=c, k_extension=tk, m_extension=me,
                k_start_pt=ki * tk, m_start_pt=m0, stride_w=stride, stride_h=stride, filter_w=kw, filter_h=kh,
                dilation_filter_w=dil, dilation_filter_h=dil, pad_value=pad_value))
            asc.load_data(b2, w1, asc.LoadData2DParams(start_index=ki * tk // c0 * (cout // 16),
                                                       repeat_times=tk // c0 * (cout // 16), src_stride=1))
            if not drop_mte1_m:
                asc.set_flag(asc.HardEvent.MTE1_M, 0)
                asc.wait_flag(asc.HardEvent.MTE1_M, 0)
            if mi > 0 and ki == 0:  # the previous tile's Fixpipe has read L0C
                asc.set_flag(asc.HardEvent.FIX_M, 0)
                asc.wait_flag(asc.HardEvent.FIX_M, 0)
            asc.mmad(c1, a2, b2, asc.MmadParams(me, cout, tk, 0, False, ki == 0))
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
        asc.fixpipe(o_gm[m0 * cout:], c1, asc.FixpipeParamsV220(n_size=cout, m_size=min(tm, m - m0),
                                                                 src_stride=(me + 15) // 16 * 16, dst_stride=cout))


def _np_dtype(name: str) -> np.dtype:
    if name == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype({"f16": np.float16, "f32": np.float32}[name])


def nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    """(C, H, W) -> [C1][H][W][C0]."""
    c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(c // c0, c0, h, w).transpose(0, 2, 3, 1))


def fractal_z(wt: np.ndarray, c0: int) -> np.ndarray:
    """(Cout, C, Kh, Kw) -> B (K x Cout, k = ((c1 * Kh + kh) * Kw + kw) * C0 + c0) as ZN fractals
    [K/C0][Cout/16][16 (n)][C0 (k)]."""
    cout, c, kh, kw = wt.shape
    b = wt.reshape(cout, c // c0, c0, kh, kw).transpose(1, 3, 4, 2, 0).reshape(c * kh * kw, cout)
    return np.ascontiguousarray(b.reshape(-1, c0, cout // 16, 16).transpose(0, 2, 3, 1))


def _conv_ref(x: np.ndarray, wt: np.ndarray, stride: int, pad: int, dil: int, pad_value: float) -> np.ndarray:
    """torch's conv2d in float64, as (Ho*Wo) x Cout; a non-zero pad value: the input padded with it first."""
    x64 = np.asarray(x, np.float64)
    if pad_value:
        x64 = np.pad(x64, ((0, 0), (pad, pad), (pad, pad)), constant_values=pad_value)
        pad = 0
    y = torch.nn.functional.conv2d(torch.from_numpy(x64)[None], torch.from_numpy(np.asarray(wt, np.float64)),
                                   stride=stride, padding=pad, dilation=dil)[0]
    return y.reshape(y.shape[0], -1).T.numpy()


def _run(et, c, h, w, cout, k, stride, pad, dil, pad_value=0.0, tm=None, tk=None, seed=0, ints=False,
         drop_mte1_m=False):
    """(the kernel's output, the reference); ``ints``: small integer inputs, whose sums are exact in float32."""
    dt = _np_dtype(et)
    c0 = 32 // dt.itemsize
    rng = np.random.default_rng(seed)
    draw = (lambda shape: rng.integers(-4, 4, shape)) if ints else rng.standard_normal
    x = draw((c, h, w)).astype(dt)
    wt = draw((cout, c, k, k)).astype(dt)
    ref = _conv_ref(x, wt, stride, pad, dil, pad_value)
    mpad = -(-ref.shape[0] // 16) * 16
    out = np.zeros(ref.shape, np.float32)
    conv_kernel[1, rt.current_stream()](nc1hwc0(x, c0), fractal_z(wt, c0), out, c, h, w, cout, k, k, stride, dil,
                                        pad, pad_value, tm or mpad, tk or c * k * k, drop_mte1_m)
    return out, ref


def _close(out: np.ndarray, ref: np.ndarray) -> None:
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())


CASES = {  # et, C, H, W, Cout, kernel, stride, pad, dilation, M tile, K tile
    "3x3-s1-p1-c16": ("f16", 16, 8, 8, 16, 3, 1, 1, 1, None, None),
    "3x3-s1-p1-c32-tiled": ("f16", 32, 8, 8, 32, 3, 1, 1, 1, 32, 96),
    "7x7-s2-p3": ("f16", 16, 14, 14, 16, 7, 2, 3, 1, None, 112),
    "3x3-dilation2-tail-tile": ("f16", 16, 10, 10, 16, 3, 1, 2, 2, 48, None),
    "bf16-3x3-s2": ("bf16", 32, 9, 7, 16, 3, 2, 1, 1, None, 144),
    "f32-3x3-c16": ("f32", 16, 6, 6, 16, 3, 1, 1, 1, 16, 72),
}


@pytest.mark.parametrize("case", list(CASES))
def test_implicit_gemm_conv_matches_torch(case):
    et, c, h, w, cout, k, stride, pad, dil, tm, tk = CASES[case]
    out, ref = _run(et, c, h, w, cout, k, stride, pad, dil, tm=tm, tk=tk)
    _close(out, ref)
    rep = conv_kernel.last_report
    assert rep.findings == [], rep.findings
    src = conv_kernel.last_compiled.kernel_source()
    assert "AscendC::LoadData3DParamsV2<" in src


def test_pad_value_fills_the_border():
    out, ref = _run("f16", 16, 6, 6, 16, 3, 1, 1, 1, pad_value=1.5)
    _close(out, ref)
    zero_out, _ = _run("f16", 16, 6, 6, 16, 3, 1, 1, 1)
    assert not np.allclose(out, zero_out)


def test_two_loads_cover_m_and_k_tiles():
    """A 64 x 288 img2col matrix in 2 M tiles by 3 K tiles: six Load3Dv2 calls, each a different
    (mStartPt, kStartPt)."""
    out, ref = _run("f16", 32, 8, 8, 32, 3, 1, 1, 1, tm=32, tk=96)
    _close(out, ref)
    ops = [o for o in conv_kernel.last_compiled.module.walk() if o.name == "ascendc.load_data_3dv2"]
    starts = {(o.m_start_pt.owner.value.value.data, o.k_start_pt.owner.value.value.data) for o in ops}
    assert starts == {(m, k) for m in (0, 32) for k in (0, 96, 192)}


@asc.jit
def broken_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, channel: asc.ConstExpr[int],
                  k_start: asc.ConstExpr[int], l1_h: asc.ConstExpr[int], a2_at: asc.ConstExpr[int],
                  a2_elems: asc.ConstExpr[int]):
    """One Load3Dv2 whose fields arrive as run-time scalars (``channel`` and ``k_start`` from GM), so that
    only the simulator sees them."""
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    o_gm = asc.GlobalTensor()
    o_gm.set_global_buffer(out)
    x1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 16 * 4 * 4)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, a2_at, a2_elems)
    asc.data_copy(x1, x_gm, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    cs = o_gm.get_value(0) + channel
    ks = o_gm.get_value(1) + k_start
    asc.load_data(a2, x1, asc.LoadData3DParamsV2(pad_list=[1, 1, 1, 1], l1_h=l1_h, l1_w=4, channel_size=cs,
                                                 k_extension=144 - k_start, m_extension=16, k_start_pt=ks,
                                                 filter_w=3, filter_h=3))


def _broken(channel=16, k_start=0, l1_h=4, a2_at=0, a2_elems=16 * 144) -> str:
    x = np.zeros(16 * 4 * 4, np.float16)
    out = np.zeros(16, np.int32)
    try:
        broken_kernel[1, rt.current_stream()](x, out, channel, k_start, l1_h, a2_at, a2_elems)
    except (SimulationError, asc.KernelHazardError) as e:
        return str(e)
    return " ".join(str(f) for f in broken_kernel.last_report.findings)


@pytest.mark.contract_findings
@pytest.mark.parametrize("fields,words", [
    (dict(channel=18), ["load3dv2-channel-size-a2", "channelSize 18"]),
    (dict(channel=20), ["channelSize 20", "not modelled"]),
    (dict(k_start=8), ["load3dv2-kstart-c0", "kStartPt 8"]),
    (dict(a2_at=32), ["load3dv2-address-align", "L0A address 32"]),
    (dict(l1_h=40), ["local-extent", "LoadData", "bytes [0, 640) of a buffer at [0, 512)"]),
    (dict(a2_elems=16 * 128), ["local-extent", "LoadData", "bytes [0, 4608) of a buffer at [0, 4096)"]),
])
def test_broken_fields_are_reported_with_the_rule(fields, words):
    text = _broken(**fields)
    assert "load_data_3dv2" in text or "LoadData" in text, text
    for w in words:
        assert w in text, text


def test_a_missing_flag_before_the_mmad_is_a_race_on_l0a():
    with pytest.raises(asc.KernelHazardError, match="race on L0A"):
        _run("f16", 16, 6, 6, 16, 3, 1, 1, 1, drop_mte1_m=True)


def test_constant_fields_are_checked_when_the_kernel_is_traced():
    words = r"load_data_3dv2: kExtension 8 is not a multiple of 16.*load3dv2-extension-multiple"
    with pytest.raises(KernelError, match=words):
        conv_kernel[1, rt.current_stream()](np.zeros(16 * 64, np.float16), np.zeros(144 * 16, np.float16),
                                            np.zeros((64, 16), np.float32), 16, 8, 8, 16, 3, 3, 1, 1, 1, 0.0,
                                            64, 8, False)


@pytest.mark.parametrize("flag", ["en_transpose", "en_small_k", "filter_size_w", "filter_size_h", "f_matrix_ctrl"])
def test_unmodelled_flags_are_refused(flag):
    @asc.jit
    def k(x: asc.GlobalAddress):
        x1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        asc.load_data(a2, x1, asc.LoadData3DParamsV2(l1_h=1, l1_w=16, channel_size=16, k_extension=16,
                                                     m_extension=16, **{flag: True}))

    with pytest.raises(Exception, match=f"{flag}=True.*not modelled"):
        k[1, rt.current_stream()](np.zeros(256, np.float16))


def test_emitted_project_on_the_cpu_matches():
    """The emitted project built with g++ for the host (pyasc's CPU implementation of the API) and the
    simulator give torch's result exactly (integer inputs: every sum exact)."""
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    args = ("f16", 32, 8, 8, 32, 3, 1, 1, 1)
    sim, ref = _run(*args, pad_value=0.5, tm=32, tk=96, ints=True)
    config.set_platform(config.Backend.CPU)
    cpu, _ = _run(*args, pad_value=0.5, tm=32, tk=96, ints=True)
    np.testing.assert_array_equal(sim, ref)
    np.testing.assert_array_equal(cpu, ref)
