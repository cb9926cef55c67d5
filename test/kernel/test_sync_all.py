"""``asc.sync_all()``: SyncAll across the cores of a launch (SyncAll.md), on the simulator and the CPU build.

Each value is checked against NumPy; the simulator's findings against the rules of SyncAll.md (a core that does
not arrive, more blocks than cores, GM shared between cores with no SyncAll between, the kernel type)."""

import os
import shutil
import sys

import numpy as np
import pytest
import torch
from sync_all_kernels import SLOT, sum_of_doubles, uneven_halves

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from pyasc.dialects.target import get_target
from pyasc.lowering.emit.cpu import CpuRunError
from pyasc.lowering.emit.syntax import syntax_check

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kernels"))
from long_row_softmax import run as long_row_softmax  # noqa: E402

BLOCKS = 8


def _doubles(seed=0):
    x = np.random.default_rng(seed).standard_normal(BLOCKS * SLOT).astype(np.float32)
    return x, np.tile((2 * x.astype(np.float64)).reshape(BLOCKS, SLOT).sum(0), BLOCKS)


def test_doc_example_sums_every_core():
    x, ref = _doubles()
    work, z = np.zeros(BLOCKS * SLOT, np.float32), np.zeros_like(x)
    sum_of_doubles[BLOCKS, rt.current_stream()](x, work, z, -1, False)
    np.testing.assert_allclose(z, ref, rtol=1e-6)
    report = sum_of_doubles.last_report
    assert report.findings == [], str(report)
    c = sum_of_doubles.last_compiled
    assert c.kernel_type == "mix_aiv_1_0"
    src = c.kernel_source()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);" in src and src.count("AscendC::SyncAll();") == 1


def test_doc_example_on_the_cpu_build():
    x, ref = _doubles(1)
    c = sum_of_doubles.compile(BLOCKS, x, np.zeros(BLOCKS * SLOT, np.float32), np.zeros_like(x), -1, False)
    res = syntax_check(c.kernel_source())
    if res.skipped or shutil.which("g++") is None:
        pytest.skip("no g++")
    assert res.ok, res.diagnostics
    config.set_platform(config.Backend.CPU)
    work, z = np.zeros(BLOCKS * SLOT, np.float32), np.zeros_like(x)
    sum_of_doubles[BLOCKS, rt.current_stream()](x, work, z, -1, False)
    np.testing.assert_allclose(z, ref, rtol=1e-6)


def test_a_core_that_skips_sync_all_hangs():
    x, _ = _doubles()
    with pytest.raises(Exception, match=r"deadlock: .*core\(s\) 0 ended after 0.*sync-all-every-core"):
        sum_of_doubles[BLOCKS, rt.current_stream()](x, np.zeros(BLOCKS * SLOT, np.float32), np.zeros_like(x), 0,
                                                     False)
    if shutil.which("g++") is None:
        return
    config.set_platform(config.Backend.CPU)
    with pytest.raises(CpuRunError, match="wait in SyncAll for it|after .* ended"):
        sum_of_doubles[BLOCKS, rt.current_stream()](x, np.zeros(BLOCKS * SLOT, np.float32), np.zeros_like(x), 0,
                                                     False)


def test_more_blocks_than_vector_cores_hang():
    cores = get_target("ascend910b1").vector_cores
    blocks = cores + 1
    x = np.zeros(blocks * SLOT, np.float32)
    with pytest.raises(Exception, match=rf"deadlock: .*launched on {blocks} blocks.*runs {cores} vector cores.*"
                                        r"sync-all-blocks"):
        sum_of_doubles[blocks, rt.current_stream()](x, np.zeros(blocks * SLOT, np.float32), np.zeros_like(x), -1,
                                                     False)


def test_gm_written_after_the_last_sync_all_is_a_race():
    x, ref = _doubles(2)
    z = np.zeros_like(x)
    with pytest.raises(asc.KernelHazardError, match=r"cross-core-gm-sync.*GM argument work ends differently"):
        sum_of_doubles[BLOCKS, rt.current_stream()](x, np.zeros(BLOCKS * SLOT, np.float32), z, -1, True)
    # without the late write, the same kernel has no finding
    sum_of_doubles[BLOCKS, rt.current_stream()](x, np.zeros(BLOCKS * SLOT, np.float32), z, -1, False)
    assert sum_of_doubles.last_report.findings == []


def test_the_launch_waits_for_the_slowest_core_at_each_sync_all():
    n, rounds = 2048, 6
    x = np.random.default_rng(3).uniform(0.5, 1.5, 4 * n).astype(np.float32)
    z = np.zeros_like(x)
    uneven_halves[4, rt.current_stream()](x, z, n, rounds, False)
    alone = uneven_halves.last_report.launches[0]
    uneven_halves[4, rt.current_stream()](x, z, n, rounds, True)
    met = uneven_halves.last_report.launches[0]
    np.testing.assert_allclose(z, x, rtol=1e-4)  # ln(exp(x)) rounds
    # apart, cores 0 and 1 work at the same time; meeting in the middle, core 1 starts its work when core 0 is done
    busy = max(alone.core_cycles)
    spec = get_target("ascend910b1")
    assert met.cycles >= 2 * busy - 2 * min(alone.core_cycles) + spec.sync_all_cycles
    assert max(met.core_cycles) < busy + 500  # no core does more work of its own


@pytest.mark.parametrize("blocks,chunk,pieces", [(8, 4096, 2), (4, 8192, 4)])
def test_softmax_of_a_long_row_in_one_launch(blocks, chunk, pieces):
    x = (np.random.default_rng(blocks).standard_normal(blocks * chunk) * 4).astype(np.float32)
    y, report = long_row_softmax(x, blocks, pieces)
    ref = torch.softmax(torch.from_numpy(x.astype(np.float64)), 0).numpy()
    np.testing.assert_allclose(y, ref, rtol=2e-6, atol=1e-12)
    assert report.findings == [] and len(report.launches) == 1


def test_kernel_type_and_unsupported_forms_are_errors():
    x, _ = _doubles()
    args = (x, np.zeros(BLOCKS * SLOT, np.float32), np.zeros_like(x), -1, False)
    with pytest.raises(asc.KernelError, match="sync-all-kernel-type"):
        sum_of_doubles.compile(BLOCKS, *args, kernel_type=config.KernelType.AIV_ONLY)

    @asc.jit
    def soft(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        asc.sync_all(g, asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 64))

    @asc.jit
    def mix(x: asc.GlobalAddress):
        asc.sync_all(is_aiv_only=False)

    for k in (soft, mix):
        with pytest.raises(asc.Unsupported, match="sync_all"):
            k.compile(2, np.zeros(64, np.int32))
