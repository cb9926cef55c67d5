"""Kernels that synchronise their cores with ``asc.sync_all()`` (SyncAll.md), for the tests."""

import pyasc.kernel as asc

SLOT = 32  # floats per core in SyncAll.md's example


@asc.jit(insert_sync=True)
def sum_of_doubles(x: asc.GlobalAddress, work: asc.GlobalAddress, z: asc.GlobalAddress, skip_on: asc.ConstExpr[int],
                   overwrite_next: asc.ConstExpr[bool]):
    """SyncAll.md's example: each core doubles its 32 floats into the shared ``work``, waits for all, and adds every
    core's. ``skip_on``: a core (>= 0) that does not call SyncAll; ``overwrite_next``: each core then writes over the
    next core's slot, which that core may not have read yet."""
    blocks = asc.get_block_num()
    idx = asc.get_block_idx()
    x_gm = asc.GlobalTensor()
    w_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + idx * SLOT, SLOT)
    w_gm.set_global_buffer(work)
    z_gm.set_global_buffer(z + idx * SLOT, SLOT)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, SLOT)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, SLOT * 4, SLOT)
    asc.data_copy(a, x_gm, SLOT)
    asc.muls(acc, a, 2.0, SLOT)
    asc.data_copy(w_gm[idx * SLOT:], acc, SLOT)
    if skip_on < 0:
        asc.sync_all()
    elif idx != skip_on:
        asc.sync_all()
    asc.duplicate(acc, 0.0, SLOT)
    for c in range(blocks):
        asc.data_copy(a, w_gm[c * SLOT:], SLOT)
        asc.add(acc, acc, a, SLOT)
    asc.data_copy(z_gm, acc, SLOT)
    if overwrite_next:
        asc.data_copy(w_gm[((idx + 1) % blocks) * SLOT:], acc, SLOT)


@asc.jit
def _exp_ln_rounds(a, n: int, rounds: asc.ConstExpr[int]):
    for _ in range(rounds):
        asc.exp(a, a, n)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.ln(a, a, n)
        asc.pipe_barrier(asc.PipeID.PIPE_V)


@asc.jit
def uneven_halves(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], rounds: asc.ConstExpr[int],
                  meet: asc.ConstExpr[bool]):
    """Core 0 works ``rounds`` Exp/Ln pairs before the middle, core 1 after it; the others do neither. With ``meet``
    the cores call SyncAll in the middle."""
    idx = asc.get_block_idx()
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + idx * n, n)
    z_gm.set_global_buffer(z + idx * n, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(a, x_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if idx == 0:
        _exp_ln_rounds(a, n, rounds)
    if meet:
        asc.sync_all()
    if idx == 1:
        _exp_ln_rounds(a, n, rounds)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, a, n)
