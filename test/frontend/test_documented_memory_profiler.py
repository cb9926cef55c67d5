"""The documented memory and profiler forms, as the user documentation writes them. Byte counts
are computed from the shapes (512-byte blocks); profile figures are checked for consistency with
the shapes (an elementwise op reads and writes at least its tensors)."""

import gc
import json

import numpy as np
import pytest

import pyasc
from pyasc import runtime_api as rt

MIB = 1024**2


def test_doc_memory_pool_allocator():
    pool = pyasc.MemoryPool(2 * 1024**3)  # 2GB池
    with pool.allocator():
        temp_buf = pyasc.empty((512, 512), dtype=np.float32)
    print(pyasc.memory_stats())  # 输出当前内存状态
    assert pool.used == 512 * 512 * 4 and pool.free == 2 * 1024**3 - 512 * 512 * 4
    assert temp_buf.shape == (512, 512)
    outside = pyasc.empty((512, 512), dtype=np.float32)
    assert pool.used == 512 * 512 * 4                   # made after the block: not in the pool
    del temp_buf, outside
    gc.collect()
    assert pool.used == 0 and pool.peak == 512 * 512 * 4


def test_pool_out_of_memory_names_request_and_free_bytes():
    pool = pyasc.MemoryPool(3 * MIB)
    with pool.allocator():
        a = pyasc.zeros(MIB // 2, dtype=pyasc.float32)   # 2 MiB
        with pytest.raises(pyasc.PyascError, match=r"MemoryPool: out of memory: tried to allocate 2\.00 MiB "
                                                   r"for a tensor in a pool of 3\.00 MiB with 1\.00 MiB free"):
            pyasc.zeros(MIB // 2, dtype=pyasc.float32)
    assert pool.used == 2 * MIB
    del a


def test_doc_memory_stats_with_device():
    gc.collect()
    pyasc.reset_peak_memory_stats(device=0)
    base = pyasc.memory_stats(device=0)["allocated"]
    # 执行推理...
    x = pyasc.zeros((1024, 256), dtype=pyasc.float32)   # 1 MiB, counted from creation
    y = pyasc.ones((256, 256), dtype=pyasc.float16)     # 128 KiB
    mem_info = pyasc.memory_stats(device=0)
    print(f"当前占用: {mem_info['allocated'] / 1024**2:.2f} MB")
    print(f"峰值占用: {mem_info['peak_allocated'] / 1024**2:.2f} MB")
    print(f"缓存预留: {mem_info['reserved'] / 1024**2:.2f} MB")
    assert mem_info["allocated"] - base == 1024 * 256 * 4 + 256 * 256 * 2
    assert mem_info["peak_allocated"] >= mem_info["allocated"]
    other = pyasc.memory_stats(device=1)["allocated"]
    with pyasc.device(1):
        z = pyasc.zeros(1024)
    assert pyasc.memory_stats(device=1)["allocated"] - other == 4096
    assert pyasc.memory_stats(device=0)["allocated"] - base == 1024 * 256 * 4 + 256 * 256 * 2
    del x, y, z


def test_doc_memory_release_returns_cached_segments():
    gc.collect()
    before = pyasc.memory_stats()["reserved"]
    big = pyasc.zeros(8 * MIB // 4)                      # 8 MiB: four more 2 MiB segments
    assert pyasc.memory_stats()["reserved"] >= before
    del big
    gc.collect()
    released = pyasc.memory_release()
    st = pyasc.memory_stats()
    assert released >= 0 and st["reserved"] == -(-st["allocated"] // (2 * MIB)) * 2 * MIB


def test_doc_memory_allocator_sets_a_custom_allocator():
    class CountingAllocator:
        def __init__(self):
            self.live = {}
            self.calls = 0

        def malloc(self, nbytes):
            self.calls += 1
            self.live[self.calls] = nbytes
            return self.calls

        def free(self, handle):
            del self.live[handle]

    mine = CountingAllocator()
    with pyasc.memory_allocator(mine):
        t = pyasc.ones(1000)                              # 4000 B -> 4096 B in 512 B blocks
    assert list(mine.live.values()) == [4096]
    del t
    gc.collect()
    assert mine.live == {}
    with pytest.raises(pyasc.PyascError, match="malloc"):
        pyasc.memory_allocator(object())


def test_device_out_of_memory_still_clear():
    gc.collect()
    rt.set_memory_capacity(pyasc.memory_stats()["allocated"] + 3 * MIB)
    try:
        with pytest.raises(pyasc.PyascError, match=r"device out of memory: tried to allocate 4\.00 MiB"):
            pyasc.zeros(MIB)
    finally:
        rt.set_memory_capacity(None)


def test_doc_profiler_directory_and_summary(tmp_path):
    path = tmp_path / "profile_result"
    # 启动性能分析 (the documented loop; smaller shapes than the documentation's 64x128x224x224)
    with pyasc.profiler(str(path)):
        with pyasc.device(0):
            x = pyasc.randn((1, 4, 8, 8), dtype=pyasc.float32)
            w = pyasc.randn((8, 4, 3, 3), dtype=pyasc.float32)
            for _ in range(10):
                y = pyasc.conv2d(x, w, stride=1, padding=1)
                pyasc.relu(y)
    # 导出分析报告
    report = pyasc.profiler.summary(str(path))
    print(report)
    assert set(report.ops) == {"conv2d", "relu"}
    for s in report.ops.values():
        assert s.calls == 10 and s.min_ms <= s.avg_ms <= s.max_ms
        assert s.avg_ms * s.calls == pytest.approx(s.total_ms)
        assert s.bound in ("cube", "vector", "HBM", "scalar")
    assert sum(s.share for s in report.ops.values()) == pytest.approx(1.0)
    assert report.ops["relu"].gm_bytes >= 10 * 2 * y.nbytes            # reads y, writes its result
    text = str(report)
    assert "conv2d: avg=" in text and "calls=10" in text and "bottleneck:" in text
    assert "memory: peak allocated" in text and "GB/s" in text
    assert report.bottleneck.op == max(report.ops.values(), key=lambda s: s.total_ms).op
    assert json.loads((path / "trace.json").read_text())["traceEvents"]
    assert (path / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (path / "summary.txt").read_text().startswith(text.splitlines()[0])


def test_profiler_accepts_an_existing_directory(tmp_path):
    x = pyasc.ones(256)
    with pyasc.profiler(tmp_path, timeline=False) as prof:
        pyasc.exp(x)
    assert (tmp_path / "trace.json").is_file()
    assert str(pyasc.profiler.summary(tmp_path)).splitlines()[0] == str(prof.summary(print_it=False)).splitlines()[0]
    with pytest.raises(pyasc.PyascError, match="no finished profile"):
        pyasc.profiler.summary(tmp_path / "missing")
