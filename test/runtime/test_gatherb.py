"""``Gatherb`` against its documentation (``Gatherb(ISASI).md``): the page's example (8 DataBlocks of a uint16
tensor gathered in reverse order by byte offsets), the destination strides, and the offsets it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from pyasc.runtime import Simulator
from pyasc.runtime.simulator import parse_module

KERNEL = """builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {
  func.func @k(%x: !ascendc.gm_addr, %o: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    ascendc.init_soc_state
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %n = arith.constant 128 : index
    %m = arith.constant 256 : index
    %xg = ascendc.global_tensor %x size 128 : !ascendc.global_tensor<ui16>
    %og = ascendc.global_tensor %o size 8 : !ascendc.global_tensor<ui32>
    %zg = ascendc.global_tensor %z size 256 : !ascendc.global_tensor<ui16>
    %xs = ascendc.local_tensor VECIN address 0 size 128 : !ascendc.local_tensor<ui16>
    %os = ascendc.local_tensor VECIN address 256 size 8 : !ascendc.local_tensor<ui32>
    %ds = ascendc.local_tensor VECOUT address 512 size 256 : !ascendc.local_tensor<ui16>
    %di = ascendc.reinterpret_cast %ds : !ascendc.local_tensor<ui16> -> !ascendc.local_tensor<i16>
    %zero = arith.constant 0 : i16
    ascendc.duplicate %di, %zero, %m : !ascendc.local_tensor<i16>, i16
    ascendc.data_copy %xs, %xg, %n : !ascendc.local_tensor<ui16>, !ascendc.global_tensor<ui16>
    ascendc.data_copy %os, %og, %c8 : !ascendc.local_tensor<ui32>, !ascendc.global_tensor<ui32>
    ascendc.set_flag MTE2_V, %c0
    ascendc.wait_flag MTE2_V, %c0
    ascendc.pipe_barrier PIPE_V
    ascendc.gatherb %ds, %xs, %os, %c1 strides(BLK, REP) : !ascendc.local_tensor<ui16>, !ascendc.local_tensor<ui16>, !ascendc.local_tensor<ui32>
    ascendc.set_flag V_MTE3, %c0
    ascendc.wait_flag V_MTE3, %c0
    ascendc.data_copy %zg, %ds, %m : !ascendc.global_tensor<ui16>, !ascendc.local_tensor<ui16>
    ascendc.pipe_barrier PIPE_ALL
    func.return
  }
  func.func @host(%x: memref<128xui16>, %o: memref<8xui32>, %z: memref<256xui16>) {
    ascendc.launch @k<<<1>>>(%x, %o, %z) : memref<128xui16>, memref<8xui32>, memref<256xui16>
    func.return
  }
}
"""


def _gatherb(offsets, blk: int = 1, rep: int = 8):
    sim = Simulator(parse_module(KERNEL.replace("BLK", str(blk)).replace("REP", str(rep))))
    z = np.zeros(256, np.uint16)
    report = sim.run("host", [np.arange(128, dtype=np.uint16), np.asarray(offsets, np.uint32), z],
                     raise_errors=False)
    return z, report


def test_the_documented_example_reverses_the_blocks():
    z, report = _gatherb([224, 192, 160, 128, 96, 64, 32, 0])
    assert report.error is None and not report.findings, report
    np.testing.assert_array_equal(z[:128], np.arange(128, dtype=np.uint16).reshape(8, 16)[::-1].reshape(-1))
    assert not z[128:].any()


def test_the_destination_block_stride_spaces_the_blocks():
    z, report = _gatherb([0, 32, 64, 96, 128, 160, 192, 224], blk=2, rep=16)
    assert report.error is None and not report.findings, report
    blocks = z.reshape(16, 16)
    np.testing.assert_array_equal(blocks[::2], np.arange(128, dtype=np.uint16).reshape(8, 16))
    assert not blocks[1::2].any()  # the blocks in between keep the zeros Duplicate wrote


@pytest.mark.parametrize("offsets", [[16, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 196608]])
def test_an_offset_off_a_block_or_past_ub_is_an_error(offsets):
    _, report = _gatherb(offsets)
    assert report.error is not None and "Gatherb" in str(report.error)
