"""Kernels in the official pyasc style, shared by the kernel DSL tests and examples."""

import pyasc.kernel as asc

TILE = 256


@asc.jit
def add_flags_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                     tile: asc.ConstExpr[int], skip: asc.ConstExpr[int] = 0):
    """z = x + y with static tensors, double buffering and explicit flags; ``skip`` drops one set/wait pair."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    nbytes = 2 * tile * x.dtype.sizeof()
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2 * tile)
    y_ub = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, nbytes, 2 * tile)
    z_ub = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 2 * nbytes, 2 * tile)
    if skip != 3:
        asc.set_flag(asc.HardEvent.V_MTE2, 0)
        asc.set_flag(asc.HardEvent.V_MTE2, 1)
    if skip != 4:
        asc.set_flag(asc.HardEvent.MTE3_V, 0)
        asc.set_flag(asc.HardEvent.MTE3_V, 1)
    for i in range(block_length // tile):
        b = i % 2
        if skip != 3:
            asc.wait_flag(asc.HardEvent.V_MTE2, b)
        asc.data_copy(x_ub[b * tile:], x_gm[i * tile:], tile)
        asc.data_copy(y_ub[b * tile:], y_gm[i * tile:], tile)
        if skip != 1:
            asc.set_flag(asc.HardEvent.MTE2_V, b)
            asc.wait_flag(asc.HardEvent.MTE2_V, b)
        if skip != 4:
            asc.wait_flag(asc.HardEvent.MTE3_V, b)
        asc.add(z_ub[b * tile:], x_ub[b * tile:], y_ub[b * tile:], tile)
        if skip != 3:
            asc.set_flag(asc.HardEvent.V_MTE2, b)
        if skip != 2:
            asc.set_flag(asc.HardEvent.V_MTE3, b)
            asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * tile:], z_ub[b * tile:], tile)
        if skip != 4:
            asc.set_flag(asc.HardEvent.MTE3_V, b)
    if skip != 3:
        asc.wait_flag(asc.HardEvent.V_MTE2, 0)
        asc.wait_flag(asc.HardEvent.V_MTE2, 1)
    if skip != 4:
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)
        asc.wait_flag(asc.HardEvent.MTE3_V, 1)


FLAG_PAIRS = {1: "MTE2_V", 2: "V_MTE3", 3: "V_MTE2", 4: "MTE3_V"}

BUFFER_NUM = 2


@asc.jit
def add_relu_queue_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                          tile: asc.ConstExpr[int]):
    """z = relu(x + y) in the TPipe/TQue style, double buffered, with helper functions."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    pipe = asc.TPipe()
    in_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    in_y = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(in_x, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(in_y, BUFFER_NUM, tile * y.dtype.sizeof())
    pipe.init_buffer(out_z, BUFFER_NUM, tile * z.dtype.sizeof())
    for i in range(block_length // tile):
        load_tiles(i, x_gm, y_gm, in_x, in_y, tile)
        add_relu(z_gm, in_x, in_y, out_z, tile)
        store_tile(i, z_gm, out_z, tile)


@asc.jit
def load_tiles(i: int, x_gm: asc.GlobalTensor, y_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue,
               tile: asc.ConstExpr[int]):
    x_local = in_x.alloc_tensor(x_gm.dtype)
    y_local = in_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile:], tile)
    asc.data_copy(y_local, y_gm[i * tile:], count=tile)
    in_x.enque(x_local)
    in_y.enque(y_local)


@asc.jit
def add_relu(z_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue, out_z: asc.TQue, tile: asc.ConstExpr[int]):
    x_local = in_x.deque(z_gm.dtype)
    y_local = in_y.deque(z_gm.dtype)
    z_local = out_z.alloc_tensor(z_gm.dtype)
    asc.add(z_local, x_local, y_local, tile)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.relu(z_local, z_local, tile)
    out_z.enque(z_local)
    in_x.free_tensor(x_local)
    in_y.free_tensor(y_local)


@asc.jit
def store_tile(i: int, z_gm: asc.GlobalTensor, out_z: asc.TQue, tile: asc.ConstExpr[int]):
    z_local = out_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile:], z_local, tile)
    out_z.free_tensor(z_local)


@asc.jit
def softmax_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, rows_per_core: int, cols: asc.ConstExpr[int]):
    """Row-wise softmax of a (rows, cols) float32 matrix: max, exp(x - max), sum, scale."""
    row0 = asc.get_block_idx() * rows_per_core
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + row0 * cols)
    z_gm.set_global_buffer(z + row0 * cols)
    pipe = asc.TPipe()
    in_q = asc.TQue(asc.TPosition.VECIN, 2)
    out_q = asc.TQue(asc.TPosition.VECOUT, 2)
    stat_buf = asc.TBuf(asc.TPosition.VECCALC)
    work_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_q, 2, cols * 4)
    pipe.init_buffer(out_q, 2, cols * 4)
    pipe.init_buffer(stat_buf, 32)
    pipe.init_buffer(work_buf, cols * 4)
    for r in range(rows_per_core):
        x_local = in_q.alloc_tensor(asc.float32)
        asc.data_copy(x_local, x_gm[r * cols:], cols)
        in_q.enque(x_local)
        x_local = in_q.deque(asc.float32)
        y_local = out_q.alloc_tensor(asc.float32)
        stat = stat_buf.get(asc.float32)
        work = work_buf.get(asc.float32)
        asc.reduce_max(stat, x_local, work, cols)
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
        row_max = stat.get_value(0)
        asc.adds(y_local, x_local, -row_max, cols)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.exp(y_local, y_local, cols)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.reduce_sum(stat, y_local, work, cols)
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
        total = stat.get_value(0)
        asc.muls(y_local, y_local, 1.0 / total, cols)
        out_q.enque(y_local)
        in_q.free_tensor(x_local)
        z_local = out_q.deque(asc.float32)
        asc.data_copy(z_gm[r * cols:], z_local, cols)
        out_q.free_tensor(z_local)


@asc.jit
def select_cast_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, h: asc.GlobalAddress,
                       n: asc.ConstExpr[int]):
    """z = where(x > y, x, y) with Compare/Select; h = half(z) with Cast (one block of n floats)."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    h_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    z_gm.set_global_buffer(z)
    h_gm.set_global_buffer(h)
    x_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    y_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, n * 4, n)
    z_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2 * n * 4, n)
    h_ub = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 3 * n * 4, n)
    mask = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 3 * n * 4 + n * 2, n // 8)
    asc.data_copy(x_ub, x_gm, n)
    asc.data_copy(y_ub, y_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.compare(mask, x_ub, y_ub, asc.CMPMODE.GT, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.select(z_ub, mask, x_ub, y_ub, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.cast(h_ub, z_ub, asc.RoundMode.CAST_NONE, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, z_ub, n)
    asc.data_copy(h_gm, h_ub, n)


@asc.jit
def leaky_relu_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, alpha: float, n: asc.ConstExpr[int]):
    """z = leaky_relu(x, alpha) on one block of n elements (half or float)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    pipe = asc.TPipe()
    in_q = asc.TQue(asc.TPosition.VECIN, 1)
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(in_q, 1, n * x.dtype.sizeof())
    pipe.init_buffer(out_q, 1, n * z.dtype.sizeof())
    x_local = in_q.alloc_tensor(x.dtype)
    asc.data_copy(x_local, x_gm, n)
    in_q.enque(x_local)
    x_local = in_q.deque(x.dtype)
    z_local = out_q.alloc_tensor(z.dtype)
    asc.leaky_relu(z_local, x_local, alpha, count=n)
    out_q.enque(z_local)
    in_q.free_tensor(x_local)
    z_local = out_q.deque(z.dtype)
    asc.data_copy(z_gm, z_local, n)
    out_q.free_tensor(z_local)


@asc.jit
def reverse_tiles_bind_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, tile: asc.ConstExpr[int]):
    """z's tile i is x's tile ``tiles - 1 - i``: each tile goes GM -> UB -> GM through one
    ``TQueBind<VECIN, VECOUT>``, double buffered, with no vector work."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    pipe = asc.TPipe()
    que = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que, 2, tile * 4)
    for i in range(tiles):
        t = que.alloc_tensor(x_gm.dtype)
        asc.data_copy(t, x_gm[i * tile:], tile)
        que.enque(t)
        out = que.deque(x_gm.dtype)
        asc.data_copy(z_gm[(tiles - 1 - i) * tile:], out, tile)
        que.free_tensor(out)
