"""Mmad accumulation chains in the simulator: float16 Mmads into one L0C block are multiplied only when
L0C is read (Fixpipe) or another block, an init or another dtype comes. A hand-written kernel that
interleaves two L0C blocks, continues a block after its Fixpipe and restarts one with init gets NumPy's
sums; so do matmuls with infs and NaNs in the operands and with K past one multiplication segment.
float32 and int8 Mmads are staged and multiplied per L0C block: long chains (past one staging batch),
both operand orders (A^T B^T for M < N, A B otherwise) and several blocks per core match NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import pyasc
from pyasc.runtime import Simulator, cube_mmad
from pyasc.runtime.simulator import parse_module

M, N, K = 32, 32, 64  # two K chunks of 32: A[:, :32] @ B[:32] and A[:, 32:] @ B[32:]


def _loads(h: int) -> str:
    """LoadData of K chunk ``h`` of A (NZ in L1 -> ZZ in L0A) and of B (NZ -> ZN, transposed)."""
    lines = []
    for j in range(2):
        lines += [f"%as{h}{j} = ascendc.subview %a2_{h}[%i{j * 256}] : !ascendc.local_tensor<f16>",
                  f"ascendc.load_data %as{h}{j}, %a1, {{%i{(2 * h + j) * 2}, %i2, %i1, %i0, %i1}} "
                  f": !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>",
                  f"%bs{h}{j} = ascendc.subview %b2_{h}[%i{j * 512}] : !ascendc.local_tensor<f16>",
                  f"ascendc.load_data %bs{h}{j}, %b1, {{%i{2 * h + j}, %i2, %i4, %i0, %i0}} transpose "
                  f": !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>"]
    return "\n    ".join(lines)


def _mmad(c: int, h: int, init: bool) -> str:
    return (f"ascendc.mmad %c{c}, %a2_{h}, %b2_{h}, {{%i32, %i32, %i32}} init %{'t' if init else 'f'} "
            f": !ascendc.local_tensor<f32>, !ascendc.local_tensor<f16>, !ascendc.local_tensor<f16>")


def _fixpipe(c: int, slot: int) -> str:
    return (f"%o{slot} = ascendc.subview %og[%i{slot * M * N}] : !ascendc.global_tensor<f32>\n    "
            f"ascendc.fixpipe %o{slot}, %c{c}, {{%i32, %i32, %i32, %i32}} quant NoQuant "
            f": !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>")


# c0 and c1 interleaved; c0 continued after its Fixpipe; c0 restarted with init; c1 restarted mid-chain
STEPS = [_mmad(0, 0, True), _mmad(1, 0, True), _mmad(0, 1, False), _mmad(1, 1, False), _fixpipe(0, 0),
         _mmad(0, 0, False), _fixpipe(1, 1), _fixpipe(0, 2), _mmad(0, 1, True), _mmad(0, 0, False), _fixpipe(0, 3),
         _mmad(1, 0, True), _mmad(1, 1, True), _fixpipe(1, 4)]
OUTS = 5

CONSTANTS = sorted({*range(8), 32, 64, 256, 512, *(s * M * N for s in range(OUTS))})

PROGRAM = f"""
builtin.module attributes {{asc.target = #asc.target<"ascend910b2">}} {{
  func.func @k(%a: !ascendc.gm_addr, %b: !ascendc.gm_addr, %o: !ascendc.gm_addr) attributes {{ascendc.kernel,
      ascendc.block_dim = 1 : i64, ascendc.kernel_type = "aic_only"}} {{
    ascendc.init_soc_state
    {chr(10).join(f"    %i{v} = arith.constant {v} : index" for v in CONSTANTS).strip()}
    %t = arith.constant true
    %f = arith.constant false
    %ag = ascendc.global_tensor %a size {M * K} : !ascendc.global_tensor<f16>
    %bg = ascendc.global_tensor %b size {K * N} : !ascendc.global_tensor<f16>
    %og = ascendc.global_tensor %o size {OUTS * M * N} : !ascendc.global_tensor<f32>
    %a1 = ascendc.local_tensor A1 address 0 size {M * K} : !ascendc.local_tensor<f16>
    %b1 = ascendc.local_tensor B1 address 8192 size {K * N} : !ascendc.local_tensor<f16>
    %a2_0 = ascendc.local_tensor A2 address 0 size 1024 : !ascendc.local_tensor<f16>
    %a2_1 = ascendc.local_tensor A2 address 2048 size 1024 : !ascendc.local_tensor<f16>
    %b2_0 = ascendc.local_tensor B2 address 0 size 1024 : !ascendc.local_tensor<f16>
    %b2_1 = ascendc.local_tensor B2 address 2048 size 1024 : !ascendc.local_tensor<f16>
    %c0 = ascendc.local_tensor CO1 address 0 size 1024 : !ascendc.local_tensor<f32>
    %c1 = ascendc.local_tensor CO1 address 4096 size 1024 : !ascendc.local_tensor<f32>
    ascendc.data_copy_nd2nz %a1, %ag, {{%i1, %i32, %i64, %i0, %i64, %i32, %i1, %i0}}
      : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
    ascendc.data_copy_nd2nz %b1, %bg, {{%i1, %i64, %i32, %i0, %i32, %i64, %i1, %i0}}
      : !ascendc.local_tensor<f16>, !ascendc.global_tensor<f16>
    {_loads(0)}
    {_loads(1)}
    {chr(10).join("    " + s for s in STEPS).strip()}
    ascendc.pipe_barrier PIPE_ALL
    func.return
  }}
  func.func @host(%a: memref<{M * K}xf16>, %b: memref<{K * N}xf16>, %o: memref<{OUTS * M * N}xf32>) {{
    ascendc.launch @k<<<1>>>(%a, %b, %o) : memref<{M * K}xf16>, memref<{K * N}xf16>, memref<{OUTS * M * N}xf32>
    func.return
  }}
}}
"""


def test_interleaved_and_continued_chains():
    """Two L0C blocks accumulating in turn, a block continued after its Fixpipe (init false), one
    restarted with init after its Fixpipe and one in the middle of its chain: each Fixpipe writes the
    sum NumPy gives."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    out = np.zeros(OUTS * M * N, np.float32)
    sim = Simulator(parse_module(PROGRAM), hazards="off")
    for _ in range(2):  # the second run starts with the first run's chains and L0C
        sim.run("host", [a.ravel(), b.ravel(), out])
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        ab, p0, p1 = a64 @ b64, a64[:, :32] @ b64[:32], a64[:, 32:] @ b64[32:]
        for got, want in zip(out.reshape(OUTS, M, N), (ab, ab, ab + p0, ab, p1)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
def test_infs_and_nans_in_the_operands(special):
    """An inf or NaN anywhere in a chain's operands: the products NumPy's float32 matmul gives."""
    rng = np.random.default_rng(12)
    a = rng.standard_normal((40, 300)).astype(np.float16)
    b = rng.standard_normal((300, 50)).astype(np.float16)
    a[3, 7] = special
    b[250, 9] = -special
    got = (pyasc.tensor(a) @ pyasc.tensor(b)).numpy().astype(np.float32)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    ok = np.isfinite(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("dtype", [pyasc.float16, pyasc.bfloat16])
def test_k_past_one_segment(dtype):
    """K = 3000: a chain longer than one multiplication segment, summed in parts."""
    rng = np.random.default_rng(13)
    a = pyasc.tensor(rng.standard_normal((20, 3000)).astype(np.float32)).to(dtype)
    b = pyasc.tensor(rng.standard_normal((3000, 24)).astype(np.float32)).to(dtype)
    want = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    got = (a @ b).numpy().astype(np.float64)
    eps = 2 ** -10 if dtype is pyasc.float16 else 2 ** -7
    np.testing.assert_allclose(got, want, rtol=0, atol=(eps + 3000 * 2 ** -22) * np.abs(want).max() * 2)


@pytest.mark.parametrize("m, k, n", [(300, 3000, 40), (20, 3000, 300), (1, 4096, 64), (70, 90, 33)])
def test_staged_float32_matmul(m, k, n):
    """float32: within the error bound of a K-term float32 sum, K u (|A| |B|), of the float64 product."""
    _check_float32(m, k, n)


def _check_float32(m, k, n):
    rng = np.random.default_rng(14)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    got = (pyasc.tensor(a) @ pyasc.tensor(b)).numpy().astype(np.float64)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = (k + 1) * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(got - a64 @ b64) <= bound)


@pytest.mark.parametrize("m, k, n", [(300, 3000, 40), (20, 3000, 300), (70, 90, 33)])
def test_staged_int8_matmul(m, k, n):
    """int8 -> int32: exactly NumPy's integer product."""
    _check_int8(m, k, n)


def _check_int8(m, k, n):
    rng = np.random.default_rng(15)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    got = (pyasc.tensor(a) @ pyasc.tensor(b)).numpy()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64))


def test_staged_in_parts(monkeypatch):
    """At most 2 Mmads staged at a time: each block's chain is stored into L0C in parts (shapes no other
    test uses, so that no simulator staged more before)."""
    monkeypatch.setattr(cube_mmad, "STAGED", 2)
    _check_float32(21, 2600, 19)
    _check_int8(21, 2600, 19)


@pytest.mark.parametrize("rows", [1, 3, 16])
def test_float16_operands_widen_as_numpys_cast_does(rows):
    """A chain's float16 operands as float32, bit for bit NumPy's cast of every float16 bit pattern (subnormals,
    infinities and NaN payloads included): moved by bits from ``WIDEN_BITS_MIN`` elements on, else (or with an inf
    or a NaN) by NumPy's cast."""
    every = np.random.default_rng(rows).permutation(1 << 16).astype(np.uint16).view(np.int16)
    raw = np.resize(every, (rows, 4096))  # 1 and 3 rows: patterns of every kind, in random order; 16: all of them
    expect = raw.view(np.float16).astype(np.float32).view(np.int32)
    got = cube_mmad._widen(cube_mmad.FP16, raw, np.empty(raw.shape, np.int32))
    assert np.array_equal(got.view(np.int32), expect)
    finite = raw[(raw.view(np.uint16) & 0x7C00) != 0x7C00][: rows * 4096 // 2].reshape(rows, -1)  # the bits path
    got = cube_mmad._widen(cube_mmad.FP16, finite, np.empty(finite.shape, np.int32))
    assert np.array_equal(got.view(np.int32), finite.view(np.float16).astype(np.float32).view(np.int32))


def test_a_reused_chain_fits_its_previous_block(monkeypatch):
    """A convolution whose blocks multiply K = 576 in steps of 96: a chain's first block grows its buffer by
    doubling to 768 columns; its next block starts at the 576 the first one took (``Chain.begin``, ``room``), and
    the chain grows no more, so the columns widened are the ones in use. Every call gives PyTorch's result."""
    import torch

    grown = {}
    grow = cube_mmad.Chain.grow
    monkeypatch.setattr(cube_mmad.Chain, "grow",
                        lambda self, cols: (grown.setdefault(id(self), []).append(cols), grow(self, cols))[1])
    rng = np.random.default_rng(14)
    x = rng.standard_normal((2, 64, 20, 20)).astype(np.float16)
    w = (rng.standard_normal((64, 64, 3, 3)) * 0.1).astype(np.float16)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, padding=1), options={"conv": "implicit_gemm"})
    want = torch.nn.functional.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)),
                                      padding=1).numpy()
    for _ in range(4):
        got = fn(pyasc.tensor(x), pyasc.tensor(w)).numpy().astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=0, atol=(2 ** -10 + 576 * 2 ** -24) * np.abs(want).max())
    assert grown and all(widths[-1] == 576 and max(widths) == 768 for widths in grown.values()), grown
