"""A kernel written without its flags: the analysis names each missing SetFlag/WaitFlag with its line,
and ``@asc.jit(insert_sync=True)`` adds them (the ``ascendc-insert-sync`` pass), as the official
pyasc's insert-sync mode does.

    python examples/kernels/auto_sync.py
"""

import numpy as np

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt

TILE = 256


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    x_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 2 * TILE)
    y_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2 * TILE * 4, 2 * TILE)
    z_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * TILE * 4, 2 * TILE)
    for i in range(block_length // TILE):
        b = i % 2  # double buffering: two slots per local tensor
        asc.data_copy(x_ub[b * TILE:], x_gm[i * TILE:], TILE)
        asc.data_copy(y_ub[b * TILE:], y_gm[i * TILE:], TILE)
        asc.add(z_ub[b * TILE:], x_ub[b * TILE:], y_ub[b * TILE:], TILE)
        asc.data_copy(z_gm[i * TILE:], z_ub[b * TILE:], TILE)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(8 * 2048).astype(np.float32)
    y = rng.standard_normal(8 * 2048).astype(np.float32)
    z = np.zeros_like(x)
    vadd[8, rt.current_stream()](x, y, z, 2048, hazards="ignore")
    print("as written:")
    for f in vadd.last_report.findings:
        if f.kind == "missing-sync":
            print(f"  {f.loc}: {f.message}")
    print(f"  and {len(vadd.last_report.errors)} race(s) seen by the simulator")
    vadd[8, rt.current_stream()](x, y, z, 2048, insert_sync=True)
    np.testing.assert_array_equal(z, x + y)
    print(f"with insert_sync=True: {len(vadd.last_report.findings)} findings; the kernel now reads")
    print(vadd.last_compiled.kernel_source())


if __name__ == "__main__":
    main()
