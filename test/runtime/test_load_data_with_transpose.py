"""``LoadDataWithTranspose`` in the simulator, in a hand-written cube kernel: a float32 B (K x N, 16-row blocks
in L1) transposed into L0B gives NumPy's product through Mmad; its documented constraints (a 512 B aligned
destination, fractals that do not overlap, the source inside L1) are reported."""

from __future__ import annotations

import numpy as np
import pytest

from pyasc.runtime.errors import HazardError
from pyasc.runtime.simulator import Simulator, parse_module

HEAD = 'builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {\n'


def _module(k: int, n: int, load: str, b2: int = 0) -> str:
    """C (16 x n) = A (16 x k) @ B (k x n), f32; B in L1 as 16-row blocks [k/16][n/8][16][8] (one ND2NZ of
    k/16 matrices), moved into L0B by ``load`` (its params; ``b2``: the L0B address)."""
    return HEAD + f"""  func.func @k(%a: !ascendc.gm_addr, %b: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {{ascendc.kernel, ascendc.block_dim = 1 : i64, ascendc.kernel_type = "aic_only"}} {{
    ascendc.init_soc_state
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %k = arith.constant {k} : index
    %n = arith.constant {n} : index
    %kb = arith.constant {k // 16} : index
    %k1 = arith.constant {k // 8} : index
    %bs = arith.constant {16 * n} : index
    %blk = arith.constant {16 * n} : index
    %ag = ascendc.global_tensor %a size {16 * k} : !ascendc.global_tensor<f32>
    %bg = ascendc.global_tensor %b size {k * n} : !ascendc.global_tensor<f32>
    %zg = ascendc.global_tensor %z size {16 * n} : !ascendc.global_tensor<f32>
    %a1 = ascendc.local_tensor A1 address 0 size {16 * k} : !ascendc.local_tensor<f32>
    %b1 = ascendc.local_tensor B1 address 65536 size {k * n} : !ascendc.local_tensor<f32>
    %a2 = ascendc.local_tensor A2 address 0 size {16 * k} : !ascendc.local_tensor<f32>
    %b2 = ascendc.local_tensor B2 address {b2} size {k * n} : !ascendc.local_tensor<f32>
    %c = ascendc.local_tensor CO1 address 0 size {16 * n} : !ascendc.local_tensor<f32>
    ascendc.data_copy_nd2nz %a1, %ag, {{%c1, %c16, %k, %c0, %k, %c16, %c1, %c0}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.data_copy_nd2nz %b1, %bg, {{%kb, %c16, %n, %bs, %n, %c16, %c1, %blk}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_MTE1, %c0
    ascendc.wait_flag MTE2_MTE1, %c0
    ascendc.load_data %a2, %a1, {{%c0, %k1, %c1, %c0, %c0}} : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
{load}
    ascendc.set_flag MTE1_M, %c0
    ascendc.wait_flag MTE1_M, %c0
    %t = arith.constant true
    ascendc.mmad %c, %a2, %b2, {{%c16, %n, %k}} init %t : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>
    ascendc.set_flag M_FIX, %c0
    ascendc.wait_flag M_FIX, %c0
    ascendc.fixpipe %zg, %c, {{%n, %c16, %c16, %n}} quant NoQuant : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>
    ascendc.pipe_barrier PIPE_ALL
    func.return
  }}
  func.func @host(%a: memref<{16 * k}xf32>, %b: memref<{k * n}xf32>, %z: memref<{16 * n}xf32>) {{
    ascendc.launch @k<<<1>>>(%a, %b, %z) : memref<{16 * k}xf32>, memref<{k * n}xf32>, memref<{16 * n}xf32>
    func.return
  }}
}}
"""


def _load(start, rep, stride, gap, fgap, dst="%b2") -> str:
    consts = "\n".join(f"    %p{i} = arith.constant {v} : index" for i, v in enumerate((start, rep, stride, gap, fgap)))
    return consts + (f"\n    ascendc.load_data_with_transpose {dst}, %b1, {{%p0, %p1, %p2, %p3, %p4}} : "
                     "!ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>")


def _run(text: str, k: int, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((16, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    z = np.zeros(16 * n, np.float32)
    report = Simulator(parse_module(text)).run("host", [a.ravel(), b.ravel(), z], raise_errors=False)
    return report, z.reshape(16, n), a.astype(np.float64) @ b.astype(np.float64)


def _reported(text: str) -> str:
    """What the simulator reports of a broken kernel (its error or findings)."""
    try:
        report, _, _ = _run(text, 16, 16)
    except HazardError as e:
        return str(e)
    return " ".join(str(f) for f in [report.error, *report.findings])


def _loads_per_block(k: int, n: int) -> str:
    """One LoadDataWithTranspose per 16-row block of K, over the N/16 squares of the block: fractals
    (2b, x) at 2b * N1 + x and (2b + 1, x) N1 after it (ZN, N1 = n / 16)."""
    n1 = n // 16
    out = []
    for blk in range(k // 16):
        out.append(f"    %o{blk} = arith.constant {2 * blk * n1 * 128} : index\n"
                   f"    %d{blk} = ascendc.subview %b2[%o{blk}] : !ascendc.local_tensor<f32>\n"
                   + _load(blk * n1, n1, 1, 0, n1 - 1, dst=f"%d{blk}").replace("%p", f"%q{blk}_"))
    return "\n".join(out)


@pytest.mark.parametrize("k,n", [(16, 16), (32, 48), (64, 32)])
def test_transposed_b_gives_numpys_product(k, n):
    report, z, ref = _run(_module(k, n, _loads_per_block(k, n)), k, n)
    assert report.error is None and report.findings == [], report
    np.testing.assert_allclose(z, ref, rtol=0, atol=1e-5 * np.abs(ref).max() * k)


def test_one_load_over_k_blocks():
    """The other orientation: one load per N square, repeating over the K blocks (srcStride: the squares of
    a block, dstGap: 2 * N1 - 1)."""
    k, n = 32, 16
    report, z, ref = _run(_module(k, n, _load(0, 2, 1, 1, 0)), k, n)
    assert report.error is None and report.findings == [], report
    np.testing.assert_allclose(z, ref, rtol=0, atol=1e-5 * np.abs(ref).max() * k)


@pytest.mark.parametrize("load,b2,words", [
    (_load(0, 1, 1, 0, 0), 32, "512 B aligned"),
    (_load(0, 2, 1, 0, 0), 0, "overlap"),
    (_load(500, 1, 1, 0, 0), 0, "outside"),
])
def test_broken_constraints_are_reported(load, b2, words):
    assert words in _reported(_module(16, 16, load, b2=b2))
