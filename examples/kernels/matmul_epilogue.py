"""C = leaky_relu(A @ B + bias) with the high-level Matmul API in a MIX kernel: the AIC multiplies block by
block, the AIVs add the bias and apply the activation; the tiling comes from pyasc's own tiler.

    python examples/kernels/matmul_epilogue.py
"""

import numpy as np

import pyasc.kernel as asc
import pyasc.kernel.lib.host as host
import pyasc.kernel.lib.runtime as rt


@asc.jit
def matmul_leaky_relu(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                      alpha: float, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_idx, n_idx = idx % m_blocks, idx // m_blocks
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    c_gm = asc.GlobalTensor()
    bias_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a + m_idx * tiling.single_core_m * tiling.k_a)
    b_gm.set_global_buffer(b + n_idx * tiling.single_core_n)
    c_gm.set_global_buffer(c + m_idx * tiling.single_core_m * tiling.n + n_idx * tiling.single_core_n)
    bias_gm.set_global_buffer(bias + n_idx * tiling.single_core_n)
    pipe = asc.TPipe()
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(out_q, 1, tiling.base_m * tiling.base_n * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float32),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    mm.set_bias(bias_gm)
    with mm.iterate() as count:
        out = out_q.alloc_tensor(asc.float32)
        mm.get_tensor_c(out, en_sequential_write=True)
        asc.leaky_relu(out, out, alpha, count=tiling.base_m * tiling.base_n)
        out_q.enque(out)
        out = out_q.deque(asc.float32)
        rounds_m = tiling.single_core_m // tiling.base_m
        start = count % rounds_m * tiling.base_m * tiling.n + count // rounds_m * tiling.base_n
        params = asc.DataCopyParams(block_count=tiling.base_m, block_len=tiling.base_n * 4 // 32,
                                    src_stride=0, dst_stride=(tiling.n - tiling.base_n) * 4 // 32)
        asc.data_copy(c_gm[start:], out, repeat_params=params)
        out_q.free_tensor(out)
    mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def tiling_for(m, n, k, aivs):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.VECCALC, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(aivs)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(True)
    t.set_traverse(host.MatrixTraverse.FIRSTM)
    t.set_fix_split(128, 128, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def main():
    m, k, n = 512, 256, 512
    rng = np.random.default_rng(0)
    a = rng.integers(-4, 4, (m, k)).astype(np.float16)
    b = rng.integers(-4, 4, (k, n)).astype(np.float16)
    bias = rng.integers(-30, 30, (1, n)).astype(np.float32)
    tiling = tiling_for(m, n, k, 8)
    print(tiling)
    c = np.zeros((m, n), np.float32)
    workspace = np.zeros(16 * 1024 * 1024, np.uint8)
    alpha = 0.01
    matmul_leaky_relu[tiling.used_core_num // 2, rt.current_stream()](a, b, c, bias, alpha, tiling, workspace)
    x = a.astype(np.float32) @ b.astype(np.float32) + bias
    np.testing.assert_allclose(c, np.where(x >= 0, x, x * np.float32(alpha)), rtol=1e-6)
    print(matmul_leaky_relu.last_report)


if __name__ == "__main__":
    main()
