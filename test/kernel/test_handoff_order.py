"""A MIX hand-off whose flag is set before the write it should announce: a race the simulator reports.

``CrossCoreSetFlag`` reports that its pipe's earlier work is done, and the ``j``-th ``CrossCoreWaitFlag`` passes on
the ``j``-th set (``CrossCoreSetFlag(ISASI).md``). An AIC that sets the flag before it writes the workspace, and
once more after, lets its AIVs read the workspace before it is written; on the chip they read stale GM. The
structural check (``runtime/handoff.py``) passes it (each read follows a wait, each write is followed by a set),
so the joint schedule's check does the work: the AIVs' first read starts before the AIC's write ends. Values are
checked against NumPy.
"""

import numpy as np
import pytest

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
from asc_cube_kernels import aic_rows_product, aiv_half_rows


@asc.jit
def mix_relu(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ws: asc.GlobalAddress,
             m: asc.ConstExpr[int], k: asc.ConstExpr[int], n: asc.ConstExpr[int], early: asc.ConstExpr[int]):
    """The AIC computes A @ B into the workspace and sets flag 1 twice: both after the write, or (``early``) one
    before it; each AIV waits, writes relu of its half of the rows, and waits for the second set."""
    if asc.ascend_is_aic():
        if early:
            asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_FIX)
        aic_rows_product(a, b, ws, m, k, n)
        if not early:
            asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_FIX)
    if asc.ascend_is_aiv():
        aiv_half_rows(c, ws, m, n, 0, 1)
        asc.cross_core_wait_flag(1)


def _operands():
    m, k, n = 32, 32, 32
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 4, (m, k)).astype(np.float16)
    b = rng.integers(-4, 4, (k, n)).astype(np.float16)
    return a, b, np.zeros((m, n), np.float32), np.zeros((m, n), np.float32), (m, k, n)


def test_a_flag_set_before_the_write_is_a_race():
    a, b, c, ws, (m, k, n) = _operands()
    with pytest.raises(asc.KernelHazardError) as err:
        mix_relu[1, rt.current_stream()](a, b, c, ws, m, k, n, 1)
    text = str(err.value)
    assert "crosscore-gm-handoff" in text and "reads ws at cycle" in text and "before the other core" in text
    helper = __file__.replace("test_handoff_order.py", "asc_cube_kernels.py")
    line = next(i for i, src in enumerate(open(helper), 1) if "asc.data_copy(ub, w_gm, half + spill)" in src)
    assert f"asc_cube_kernels.py:{line}" in text


def test_both_sets_after_the_write_hand_off_cleanly():
    a, b, c, ws, (m, k, n) = _operands()
    mix_relu[1, rt.current_stream()](a, b, c, ws, m, k, n, 0)
    assert mix_relu.last_compiled.kernel_type == "mix_aic_1_2" and mix_relu.last_report.findings == []
    np.testing.assert_array_equal(c, np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0))
