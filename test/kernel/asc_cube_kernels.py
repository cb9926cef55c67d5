"""Cube kernels in the official pyasc style (basic API, Matmul API cube-only and MIX)."""

import pyasc.kernel as asc
import pyasc.kernel.lib.host as host


@asc.jit
def rows_product(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
                 k: asc.ConstExpr[int], n: asc.ConstExpr[int], c_row: int):
    """C[from row ``c_row``, m rows] = A[m rows of this block] @ B with the basic cube API (one tile per block)."""
    row = asc.get_block_idx() * m
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    c_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a + row * k)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c + c_row * n)
    a1 = asc.LocalTensor(a.dtype, asc.TPosition.A1, 0, m * k)
    b1 = asc.LocalTensor(b.dtype, asc.TPosition.B1, m * k * a.dtype.sizeof(), k * n)
    a2 = asc.LocalTensor(a.dtype, asc.TPosition.A2, 0, m * k)
    b2 = asc.LocalTensor(b.dtype, asc.TPosition.B2, 0, k * n)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, k, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(k // 16):
        asc.load_data(a2[i * 256:], a1, asc.LoadData2DParams(start_index=i * (m // 16), repeat_times=m // 16,
                                                             src_stride=1, dst_gap=k // 16 - 1))
        asc.load_data(b2[i * (n // 16) * 256:], b1, asc.LoadData2DParams(start_index=i, repeat_times=n // 16,
                                                                         src_stride=k // 16, if_transpose=True))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, 0, False, True))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    quant = asc.QuantModes.NoQuant if c.dtype == asc.float32 else asc.QuantModes.F322F16
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m, dst_stride=n, quant_pre=quant))


@asc.jit
def mmad_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
                k: asc.ConstExpr[int], n: asc.ConstExpr[int]):
    """C[m rows of this block] = A[...] @ B with the basic cube API (one tile per block)."""
    rows_product(a, b, c, m, k, n, asc.get_block_idx() * m)


@asc.jit
def core_piece(tiling: asc.adv.TCubeTiling):
    """(row piece, column piece, valid rows, valid columns) of this core's single_core_m x single_core_n piece of C
    (pieces along M first)."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_idx = idx % m_blocks
    n_idx = idx // m_blocks
    tail_m = tiling.m - m_idx * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - n_idx * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    return m_idx, n_idx, tail_m, tail_n


@asc.jit(matmul_cube_only=True, always_compile=True)
def matmul_cube_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                       tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """Each AIC computes its single_core_m x single_core_n piece of C with the Matmul API."""
    if asc.ascend_is_aic():
        idx = asc.get_block_idx()
        m_idx, n_idx, tail_m, tail_n = core_piece(tiling)
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        a_global.set_global_buffer(a + m_idx * tiling.single_core_m * tiling.k_a)
        b_global.set_global_buffer(b + n_idx * tiling.single_core_n)
        c_global.set_global_buffer(c + m_idx * tiling.single_core_m * tiling.n + n_idx * tiling.single_core_n)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        if idx < tiling.used_core_num:
            mm.set_tensor_a(a_global)
            mm.set_tensor_b(b_global)
            mm.set_tail(tail_m, tail_n, tiling.k_a)
            mm.iterate_all(c_global)
            mm.end()
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True, always_compile=True)
def matmul_cube_bias_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                            tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """The official cube-only Matmul tutorial with its bias on (``ENABLE_BIAS``): ``set_bias`` in an AIC-only kernel."""
    if asc.ascend_is_aic():
        asc.set_sys_workspace(workspace)
        idx = asc.get_block_idx()
        m_idx, n_idx, tail_m, tail_n = core_piece(tiling)
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        bias_global = asc.GlobalTensor()
        a_global.set_global_buffer(a + m_idx * tiling.single_core_m * tiling.k_a)
        b_global.set_global_buffer(b + n_idx * tiling.single_core_n)
        c_global.set_global_buffer(c + m_idx * tiling.single_core_m * tiling.n + n_idx * tiling.single_core_n)
        bias_global.set_global_buffer(bias + n_idx * tiling.single_core_n)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype),
                            bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_global.dtype))
        asc.adv.register_matmul(pipe, mm, tiling)
        if idx < tiling.used_core_num:
            mm.set_tensor_a(a_global)
            mm.set_tensor_b(b_global)
            if tiling.is_bias:
                mm.set_bias(bias_global)
            mm.set_tail(tail_m, tail_n, tiling.k_a)
            mm.iterate_all(c_global)
            mm.end()
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def matmul_epilogue_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                           bias: asc.GlobalAddress, alpha: float, scale: float, tiling: asc.adv.TCubeTiling,
                           workspace: asc.GlobalAddress):
    """MIX: C = leaky_relu(A @ B + bias, alpha) * scale, block by block: the AIC multiplies, the AIV finishes."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_idx = idx % m_blocks
    n_idx = idx // m_blocks
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    bias_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + m_idx * tiling.single_core_m * tiling.k_a)
    b_global.set_global_buffer(b + n_idx * tiling.single_core_n)
    c_global.set_global_buffer(c + m_idx * tiling.single_core_m * tiling.n + n_idx * tiling.single_core_n)
    bias_global.set_global_buffer(bias + n_idx * tiling.single_core_n)
    pipe = asc.TPipe()
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(out_q, 1, tiling.base_m * tiling.base_n * c.dtype.sizeof())
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, c_global.dtype),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_global.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    mm.set_tensor_a(a_global)
    mm.set_tensor_b(b_global)
    mm.set_bias(bias_global)
    elems = tiling.base_m * tiling.base_n
    with mm.iterate() as count:
        out = out_q.alloc_tensor(c.dtype)
        mm.get_tensor_c(out, en_sequential_write=True)
        asc.leaky_relu(out, out, alpha, count=elems)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.muls(out, out, scale, count=elems)
        out_q.enque(out)
        out = out_q.deque(c.dtype)
        rounds_m = tiling.single_core_m // tiling.base_m
        start = count % rounds_m * tiling.base_m * tiling.n + count // rounds_m * tiling.base_n
        block = asc.property(asc.DEFAULT_C0_SIZE)
        params = asc.DataCopyParams(block_count=tiling.base_m, block_len=tiling.base_n * c.dtype.sizeof() // block,
                                    src_stride=0, dst_stride=(tiling.n - tiling.base_n) * c.dtype.sizeof() // block)
        asc.data_copy(c_global[start:], out, repeat_params=params)
        out_q.free_tensor(out)
    mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def make_tiling(m, n, k, dim, c_pos=host.TPosition.GM, bias=False, fix=None):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(c_pos, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(bias)
    if fix:
        t.set_traverse(host.MatrixTraverse.FIRSTM)
        t.set_fix_split(*fix)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


@asc.jit(always_compile=True)
def matmul_mix_gm_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                         tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """MIX, C in GM: each AIV asks for its piece of C (the older 3-argument register_matmul)."""
    asc.set_sys_workspace(workspace)
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_idx = idx % m_blocks
    n_idx = idx // m_blocks
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + m_idx * tiling.single_core_m * tiling.k_a)
    b_global.set_global_buffer(b + n_idx * tiling.single_core_n)
    c_global.set_global_buffer(c + m_idx * tiling.single_core_m * tiling.n + n_idx * tiling.single_core_n)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype))
    asc.adv.register_matmul(pipe, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(a_global)
        mm.set_tensor_b(b_global)
        mm.set_tail(min_of(tiling.single_core_m, tiling.m - m_idx * tiling.single_core_m),
                    min_of(tiling.single_core_n, tiling.n - n_idx * tiling.single_core_n))
        mm.iterate_all(c_global)
        mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def min_of(a: int, b: int):
    """min(a, b) of run-time integers (a helper inlined into the kernels that call it)."""
    r = a
    if b < a:
        r = b
    return r


@asc.jit
def aic_rows_product(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress, m: asc.ConstExpr[int],
                     k: asc.ConstExpr[int], n: asc.ConstExpr[int]):
    """The AIC part of a MIX kernel with the basic API: A @ B of its AI Core's ``m`` rows into the workspace
    (float32), then a cross-core flag to its two AIVs."""
    core = asc.get_block_idx()
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    w_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a + core * m * k)
    b_gm.set_global_buffer(b)
    w_gm.set_global_buffer(ws + core * m * n)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m * k)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, m * k * 2, k * n)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * k)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k * n)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, k, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(k // 16):
        asc.load_data(a2[i * 256:], a1, asc.LoadData2DParams(i * (m // 16), m // 16, 1, 0, k // 16 - 1))
        asc.load_data(b2[i * (n // 16) * 256:], b1, asc.LoadData2DParams(i, n // 16, k // 16, 0, 0, True))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(w_gm, c1, asc.FixpipeParamsV220(n, m, m, n))
    asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_FIX)


@asc.jit
def aiv_half_rows(c: asc.GlobalAddress, ws: asc.GlobalAddress, m: asc.ConstExpr[int], n: asc.ConstExpr[int],
                  spill: asc.ConstExpr[int], relu: asc.ConstExpr[int]):
    """The AIV part of a MIX kernel: once flag 1 arrives, its half of the workspace's ``m`` rows (and ``spill``
    elements more) to ``c``, through relu (``relu``) or plus the AIV's index."""
    half = m // 2 * n
    idx = asc.get_block_idx()
    w_gm = asc.GlobalTensor()
    c_gm = asc.GlobalTensor()
    w_gm.set_global_buffer(ws + idx * half)
    c_gm.set_global_buffer(c + idx * half)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, half + spill)
    asc.cross_core_wait_flag(1)
    asc.data_copy(ub, w_gm, half + spill)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if relu:
        asc.relu(ub, ub, half + spill)
    else:
        asc.adds(ub, ub, idx * 1.0, half + spill)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(c_gm, ub, half + spill)


@asc.jit
def mix_basic_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ws: asc.GlobalAddress,
                     m: asc.ConstExpr[int], k: asc.ConstExpr[int], n: asc.ConstExpr[int]):
    """MIX with the basic API: the AIC computes A @ B of its rows into the workspace and sets a cross-core
    flag; each of its two AIVs waits for it and writes relu of its half of the rows."""
    if asc.ascend_is_aic():
        aic_rows_product(a, b, ws, m, k, n)
    if asc.ascend_is_aiv():
        half = m // 2
        idx = asc.get_block_idx()
        w_gm = asc.GlobalTensor()
        c_gm = asc.GlobalTensor()
        w_gm.set_global_buffer(ws + idx * half * n)
        c_gm.set_global_buffer(c + idx * half * n)
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, half * n)
        asc.cross_core_wait_flag(1)
        asc.data_copy(ub, w_gm, half * n)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.relu(ub, ub, half * n)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(c_gm, ub, half * n)
