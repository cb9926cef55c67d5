"""z = x + y written as an Ascend C kernel in Python (the official pyasc style), run on pyasc's
simulator, its Ascend C printed, and run again through the emitted C++ on the CPU.

    python examples/kernels/vector_add.py [--cpu] [--project DIR]
"""

import argparse

import numpy as np

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config

BUFFER_NUM = 2


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
         tile: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qy = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(qx, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(qy, BUFFER_NUM, tile * y.dtype.sizeof())
    pipe.init_buffer(qz, BUFFER_NUM, tile * z.dtype.sizeof())
    for i in range(block_length // tile):
        xl = qx.alloc_tensor(x.dtype)
        yl = qy.alloc_tensor(y.dtype)
        asc.data_copy(xl, x_gm[i * tile:], tile)
        asc.data_copy(yl, y_gm[i * tile:], tile)
        qx.enque(xl)
        qy.enque(yl)
        xl = qx.deque(x.dtype)
        yl = qy.deque(y.dtype)
        zl = qz.alloc_tensor(z.dtype)
        asc.add(zl, xl, yl, tile)
        qz.enque(zl)
        qx.free_tensor(xl)
        qy.free_tensor(yl)
        zl = qz.deque(z.dtype)
        asc.data_copy(z_gm[i * tile:], zl, tile)
        qz.free_tensor(zl)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cpu", action="store_true", help="also run the emitted Ascend C on the CPU (needs g++)")
    p.add_argument("--project", help="write the CANN project (what Backend.NPU does) into this folder")
    args = p.parse_args()
    cores, n = 8, 8 * 8192
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    z = np.zeros_like(x)
    vadd[cores, rt.current_stream()](x, y, z, n // cores, 1024)
    np.testing.assert_array_equal(z, x + y)
    report = vadd.last_report
    print(f"simulated: {report.cycles:.0f} cycles, {len(report.findings)} findings")
    print(vadd.last_compiled.kernel_source())
    if args.cpu:
        config.set_platform(config.Backend.CPU)
        z_cpu = np.zeros_like(x)
        vadd[cores, rt.current_stream()](x, y, z_cpu, n // cores, 1024)
        print("CPU run of the emitted C++ agrees:", bool(np.array_equal(z_cpu, z)))
    if args.project:
        config.set_platform(config.Backend.NPU)
        config.set_project_dir(args.project)
        vadd[cores, rt.current_stream()](x, y, np.zeros_like(x), n // cores, 1024)


if __name__ == "__main__":
    main()
