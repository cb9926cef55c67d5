"""The cube path end to end: matmul numerics through the simulator against NumPy (fp32 accumulation
tolerance), tails, multi-core splits, dtypes, transposes, batches, fused epilogues, errors, the tile
plan, the emitted Ascend C and random shapes."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc  # noqa: E402
from pyasc.dialects.target import get_target, module_target  # noqa: E402
from pyasc.lowering.analysis.matmul import CubeTilingError, block_cycles, plan_matmul  # noqa: E402
from pyasc.ops_linalg import reference_matmul  # noqa: E402

from .gxx import assert_compiles  # noqa: E402

RNG = np.random.default_rng(7)


def _rand(shape, dtype):
    if dtype is pyasc.int8:
        return pyasc.tensor(RNG.integers(-128, 128, shape).astype(np.int8))
    return pyasc.tensor(RNG.standard_normal(shape).astype(np.float32)).to(dtype)


def _check(out, ref, k: int, dtype=None):
    """The output against a float64 reference: fp32 accumulation plus one rounding to the output dtype."""
    out = out.numpy() if hasattr(out, "numpy") else out
    if out.dtype == np.int32:
        np.testing.assert_array_equal(out, ref.astype(np.int64).astype(np.int32))
        return
    eps = {np.dtype(np.float16): 2 ** -10, np.dtype(np.float32): 2 ** -23}.get(out.dtype, 2 ** -7)
    scale = np.abs(ref).max() + 1e-30
    tol = (eps + k * 2 ** -24 * 4) * scale * 2
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=0, atol=tol)


@pytest.mark.parametrize("m,k,n", [(1000, 1000, 1000), (1, 4096, 4096), (4097, 33, 129), (16, 16, 16), (3, 5, 7)])
def test_matmul_shapes_fp16(m, k, n):
    a, b = _rand((m, k), pyasc.float16), _rand((k, n), pyasc.float16)
    _check(a @ b, reference_matmul(a.numpy(), b.numpy()), k)


@pytest.mark.parametrize("m,k,n,ta,tb", [(256, 256, 256, False, False), (512, 512, 512, False, False),
                                         (1024, 1024, 1024, False, False), (2048, 2048, 2048, False, False),
                                         (333, 777, 555, False, False), (1000, 1000, 1000, True, False),
                                         (200, 40, 60, False, True)])
def test_matmul_simulated_against_numpy_float32(m, k, n, ta, tb):
    """Short L1 stages and tail zeroing under an if: the simulated product (every block, tail and stage)
    against NumPy's float32 product of the float16 inputs, with no race or uninitialised read."""
    a = RNG.standard_normal((k, m) if ta else (m, k)).astype(np.float16)
    b = RNG.standard_normal((n, k) if tb else (k, n)).astype(np.float16)
    x, y = pyasc.tensor(a), pyasc.tensor(b)
    out, report = pyasc.jit(lambda x, y: (x.T if ta else x) @ (y.T if tb else y)).lower(x, y).compile().simulate(x, y)
    assert report.findings == []
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    ref = (a32.T if ta else a32) @ (b32.T if tb else b32)
    _check(out, ref.astype(np.float64), k)


@pytest.mark.parametrize("dtype", [pyasc.bfloat16, pyasc.float32, pyasc.int8])
def test_matmul_dtypes(dtype):
    a, b = _rand((70, 150), dtype), _rand((150, 90), dtype)
    out = pyasc.matmul(a, b)
    assert out.dtype is (pyasc.int32 if dtype is pyasc.int8 else dtype)
    _check(out, reference_matmul(a.numpy(), b.numpy()), 150)


@pytest.mark.parametrize("out_dtype", [pyasc.float32, pyasc.bfloat16])
def test_matmul_out_dtype(out_dtype):
    a, b = _rand((40, 64), pyasc.float16), _rand((64, 50), pyasc.float16)
    out = pyasc.matmul(a, b, out_dtype=out_dtype)
    assert out.dtype is out_dtype
    _check(out, reference_matmul(a.numpy(), b.numpy()), 64)


@pytest.mark.parametrize("dtype", [pyasc.float16, pyasc.float32, pyasc.int8])
@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_matmul_transposes(dtype, ta, tb):
    from pyasc.ops_linalg import _matmul

    a = _rand((45, 37) if ta else (37, 45), dtype)
    b = _rand((29, 45) if tb else (45, 29), dtype)

    @pyasc.jit
    def f(x, y):
        return _matmul("matmul", x, y, transpose_a=ta, transpose_b=tb)

    _check(f(a, b), reference_matmul(a.numpy(), b.numpy(), None, ta, tb), 45)


def test_batched_and_bmm():
    a, b = _rand((3, 40, 24), pyasc.float16), _rand((3, 24, 56), pyasc.float16)
    _check(pyasc.bmm(a, b), reference_matmul(a.numpy(), b.numpy()), 24)
    w = _rand((24, 56), pyasc.float16)  # a 2-D operand is shared by every batch
    _check(a @ w, reference_matmul(a.numpy(), w.numpy()), 24)


def test_linear_and_addmm():
    x, w, bias = _rand((33, 64), pyasc.float16), _rand((48, 64), pyasc.float16), _rand((48,), pyasc.float16)
    ref = reference_matmul(x.numpy(), w.numpy(), bias.numpy(), transpose_b=True)
    _check(pyasc.linear(x, w, bias), ref, 64)
    m2 = _rand((64, 48), pyasc.float16)
    inp = _rand((33, 48), pyasc.float16)
    ref2 = inp.numpy().astype(np.float64) + 2.0 * reference_matmul(x.numpy(), m2.numpy())
    _check(pyasc.addmm(inp, x, m2, alpha=2), ref2, 64)


def test_matmul_bias_relu_one_program():
    x, w, bias = _rand((100, 64), pyasc.float16), _rand((64, 80), pyasc.float16), _rand((80,), pyasc.float16)

    @pyasc.jit
    def f(x, w, bias):
        return pyasc.relu(x @ w + bias)

    lowered = f.lower(x, w, bias)
    compiled = lowered.compile()
    assert len(compiled.kernels) == 1  # one MIX kernel: the cube computes, the vector cores add and clamp
    ref = np.maximum(reference_matmul(x.numpy(), w.numpy(), bias.numpy()), 0)
    _check(f(x, w, bias), ref, 64)


def test_relu_is_fused_into_fixpipe():
    x, w = _rand((50, 32), pyasc.float16), _rand((32, 40), pyasc.float16)

    @pyasc.jit
    def f(x, w):
        return pyasc.relu(x @ w)

    compiled = f.lower(x, w).compile()
    assert len(compiled.kernels) == 1
    assert "ascendc.fixpipe" in compiled.as_text() and "relu" in compiled.as_text()
    _check(f(x, w), np.maximum(reference_matmul(x.numpy(), w.numpy()), 0), 32)


def test_matmul_epilogues_gelu_sigmoid_residual():
    x, w, r = _rand((48, 32), pyasc.float16), _rand((32, 64), pyasc.float16), _rand((48, 64), pyasc.float16)

    @pyasc.jit
    def f(x, w, r):
        y = x @ w
        return pyasc.gelu(y) + r, pyasc.sigmoid(y)

    g, s = f(x, w, r)
    y = reference_matmul(x.numpy(), w.numpy()).astype(np.float16).astype(np.float64)
    ref_g = pyasc.reference("gelu", y) + r.numpy().astype(np.float64)
    np.testing.assert_allclose(g.numpy().astype(np.float64), ref_g, atol=0.05 * np.abs(ref_g).max())
    np.testing.assert_allclose(s.numpy().astype(np.float64), 1 / (1 + np.exp(-y)), atol=2e-3)


def test_multicore_split_and_report():
    a, b = _rand((512, 256), pyasc.float16), _rand((256, 512), pyasc.float16)

    @pyasc.jit
    def f(a, b):
        return a @ b

    compiled = f.lower(a, b).compile()
    out, report = compiled.simulate(a, b)
    (launch,) = report.launches
    assert launch.block_dim == 24  # 4 x 2 blocks of 128 x 256 are too few: N is split to 4 x 6 blocks
    assert report.pipe_busy["M"] > 0 and report.pipe_busy["MTE1"] > 0 and report.pipe_busy["FIX"] > 0
    _check(out, reference_matmul(a.numpy(), b.numpy()), 256)


def test_errors_name_op_shapes_and_line():
    a, b = _rand((8, 5), pyasc.float16), _rand((6, 7), pyasc.float16)
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.matmul: inner dimensions do not match.*test_matmul\.py:\d+"):
        a @ b
    a8, b8 = _rand((8, 6), pyasc.int8), _rand((6, 7), pyasc.int8)
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.addmm: an int8 product takes an int32 bias.*test_matmul\.py"):
        pyasc.addmm(_rand((7,), pyasc.float16), a8, b8)
    with pytest.raises(pyasc.PyascError, match=r"pyasc\.matmul: operands must have one dtype"):
        pyasc.matmul(a8, _rand((6, 7), pyasc.float16))


def test_tile_plan_from_the_target():
    spec = get_target("ascend910b2")
    p = plan_matmul("k", spec, 1, 4096, 4096, 4096, "f16")
    assert (p.base_m, p.base_n, p.k_l0) == (128, 256, 64)  # L0C 128 KB of fp32; L0A/L0B 64 KB, twice
    assert p.k_l1 % p.k_l0 == 0 and 2 * (p.base_m + p.base_n) * p.k_l1 * 2 <= spec.l1_bytes
    assert p.block_dim == 24
    small = plan_matmul("k", spec, 1, 1, 4096, 4096, "f16")
    assert small.base_m == 16 and small.blocks >= 24  # N split so every AIC gets a block


def test_block_shape_minimises_the_estimated_makespan(monkeypatch):
    """1024^3 on 24 AICs: 128 x 256 blocks make 32 blocks, so 8 AICs run two of them; a narrower
    block that gives every AIC two blocks finishes sooner, by the estimate and in the simulator."""
    import pyasc.lowering.matmul_tiler as tm

    spec = get_target("ascend910b2")
    chosen = plan_matmul("k", spec, 1, 1024, 1024, 1024, "f16")
    full = plan_matmul("k", spec, 1, 1024, 1024, 1024, "f16", base_m=128, base_n=256)

    def makespan(p):
        return -(-p.blocks // 24) * block_cycles(spec, p.base_m, p.base_n, 1024, "f16")

    assert makespan(chosen) < makespan(full) and chosen.base_m * chosen.base_n < 128 * 256
    a, b = _rand((1024, 1024), pyasc.float16), _rand((1024, 1024), pyasc.float16)
    times = {}
    for name in ("chosen", "full"):
        if name == "full":  # the 128 x 256 block forced on the tiler
            original = tm.plan_matmul
            monkeypatch.setattr(tm, "plan_matmul", lambda *args, **kw: original(*args, **{**kw, "base_m": 128,
                                                                                         "base_n": 256}))
        out, report = pyasc.jit(lambda x, y: x @ y).lower(a, b).compile().simulate(a, b)
        assert report.findings == []
        times[name] = report.seconds
    assert times["chosen"] < times["full"]
    with pytest.raises(CubeTilingError, match="L0C"):
        plan_matmul("k", spec, 1, 512, 512, 512, "f16", base_m=256, base_n=256)


def test_emitted_cube_kernel_compiles():
    a, b = _rand((40, 64), pyasc.float16), _rand((64, 48), pyasc.float16)

    @pyasc.jit
    def f(a, b):
        return pyasc.relu(a @ b)

    src = f.lower(a, b).compile().ascendc_source()
    for api in ("AscendC::Nd2NzParams", "AscendC::LoadData2DParams", "AscendC::MmadParams",
                "AscendC::FixpipeParamsV220", "QuantMode_t::F322F16", "HardEvent::MTE1_M", "0, 1, 0, 0, 3});"):
        assert api in src  # the last: the Fixpipe's unitFlag, which hands L0C back to the cube (no M_FIX flag)
    assert_compiles(src)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 70), k=st.integers(1, 70), n=st.integers(1, 70),
       dtype=st.sampled_from(["float16", "float32", "int8"]), tb=st.booleans())
def test_random_matmul_shapes(m, k, n, dtype, tb):
    from pyasc.ops_linalg import _matmul

    d = pyasc.get_dtype(dtype)
    a, b = _rand((m, k), d), _rand((n, k) if tb else (k, n), d)
    out = _matmul("matmul", a, b, transpose_b=tb)
    _check(out, reference_matmul(a.numpy(), b.numpy(), None, False, tb), k)


@pytest.mark.parametrize("event,space", [("unit flags", "L0C"), ("MTE1_M", "L0A"), ("MTE2_MTE1", "L1")])
def test_missing_cube_flag_is_a_race_on_the_cube_buffer(event, space):
    """The hazard checker tracks L1, L0A, L0B and L0C like UB: deleting the flags of one event inside
    the block loop of a matmul (two blocks per AIC, several K stages), or the unit flags that hand L0C between
    the Mmads and the Fixpipes, leaves a read or write of the cube buffer unordered, reported as a race naming
    that buffer."""
    from pyasc.runtime import Simulator

    a, b = _rand((1024, 1024), pyasc.float16), _rand((1024, 1024), pyasc.float16)
    compiled = pyasc.jit(lambda x, y: x @ y, options={"sync_style": "flags"}).lower(a, b).compile()
    module = compiled.module.clone()
    if event == "unit flags":
        flagged = [op for op in module.walk() if op.name in ("ascendc.mmad", "ascendc.fixpipe")
                   and op.properties.get("unit_flag") is not None]
        assert flagged
        for op in flagged:
            del op.properties["unit_flag"]
    else:
        loop_flags = [op for op in module.walk() if op.name in ("ascendc.set_flag", "ascendc.wait_flag")
                      and op.event.data.value == event and op.parent_op().name in ("scf.for", "scf.if")]
        assert loop_flags
        for op in loop_flags:
            op.detach()
            op.erase()
    arrays = [a.numpy(), b.numpy(), np.zeros((1024, 1024), np.float16)]
    report = Simulator(module, hazards="ignore").run(compiled.name, arrays, raise_errors=False)
    races = [f for f in report.findings if f.kind == "race"]
    assert any(f" on {space} [" in f.message for f in races), [f.message for f in report.findings]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_launch_cannot_beat_the_hbm_roofline(dtype):
    """A GEMV whose N is split over the cube cores in slices that share L2 lines: every byte of B still comes
    from HBM once (the lines two cores read parts of are fetched once, whole), so the launch's HBM traffic is at
    least B's bytes and its simulated time at least the bytes over the HBM bandwidth."""
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((1, 1024)).astype(dtype), rng.standard_normal((1024, 1000)).astype(dtype)
    compiled = pyasc.jit(lambda a, b: a @ b).lower(pyasc.tensor(a), pyasc.tensor(b)).compile()
    out, report = compiled.simulate(pyasc.tensor(a), pyasc.tensor(b))
    np.testing.assert_allclose(out.astype(np.float64), a.astype(np.float64) @ b.astype(np.float64),
                               rtol=0, atol=2e-3 * np.abs(out).max())
    (launch,) = report.launches
    assert launch.block_dim > 1 and launch.gm_bytes >= b.nbytes
    assert launch.seconds >= (a.nbytes + b.nbytes + out.nbytes) / module_target(compiled.module).hbm_bytes_per_s
