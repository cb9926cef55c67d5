"""``ascendc-merge-launches``: consecutive vector kernels launched once, their parts meeting at SyncAll.

Every program is compared with PyTorch (float64 reference, float32 tolerance) with the launches merged and kept
separate; the merged program must take fewer launches and less simulated time, print valid Ascend C and run on the
CPU build. Removing a merged kernel's SyncAll must be reported: the parts then race on GM between cores."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from xdsl.dialects import func

import pyasc
from pyasc.dialects import ascendc as A
from pyasc.lowering.emit.cpu import cpu_run
from pyasc.lowering.emit.syntax import syntax_check
from pyasc.runtime import Simulator

PROGRAMS = {
    # two kernels, both on 48 blocks
    "softmax of a long row": (lambda x: pyasc.softmax(x, -1), lambda t: torch.softmax(t, -1), [(1, 1 << 20)]),
    # a row-wise kernel on 26 blocks, then one on 48: the first part runs under GetBlockIdx() < 26
    "log_softmax of long rows": (lambda x: pyasc.log_softmax(x, -1), lambda t: torch.log_softmax(t, -1),
                                 [(2, 40001)]),
    # a tree of elementwise kernels on one block each
    "column sum": (lambda x: pyasc.sum(x, 0), lambda t: t.sum(0), [(100, 64)]),
    # the same kernel launched twice in the run (layer_norm's two passes over long rows)
    "layer_norm of long rows": (lambda x: pyasc.layer_norm(x, (300000,)),
                                lambda t: torch.nn.functional.layer_norm(t, (300000,)), [(2, 300000)]),
    # two chains of kernels that meet only in the last one (see test_independent_parts_share_a_level)
    "two softmaxes of long rows": (lambda x, y: pyasc.softmax(x, -1) + pyasc.softmax(y, -1),
                                   lambda t, u: torch.softmax(t, -1) + torch.softmax(u, -1), [(1, 1 << 18)] * 2),
}
SYNC_ALLS = {"two softmaxes of long rows": 2}  # SyncAll calls where fewer than one per boundary between parts


def _inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [pyasc.tensor((rng.standard_normal(s) * 2).astype(np.float32)) for s in shapes]


def _check(out, ref: torch.Tensor) -> None:
    np.testing.assert_allclose(np.asarray(out, dtype=np.float64), ref.numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_merged_launches_match_torch_and_take_less_time(name):
    fn, ref_fn, shapes = PROGRAMS[name]
    xs = _inputs(shapes)
    ref = ref_fn(*(torch.from_numpy(x.numpy().astype(np.float64)) for x in xs))
    runs = {}
    for launches in ("separate", "merge"):
        c = pyasc.jit(fn, options={"launches": launches}).lower(*xs).compile()
        out, report = c.simulate(*xs)
        _check(out, ref)
        assert report.findings == [], str(report)
        runs[launches] = (c, report)
    (_, apart), (merged, together) = runs["separate"], runs["merge"]
    assert len(apart.launches) >= 2 and len(together.launches) == 1
    assert together.seconds < apart.seconds
    src = merged.ascendc_source()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);" in src
    assert src.count("AscendC::SyncAll();") == SYNC_ALLS.get(name, len(apart.launches) - 1)
    # again on new data: the launch replays its data path
    ys = _inputs(shapes, 1)
    out, _ = merged.simulate(*ys)
    _check(out, ref_fn(*(torch.from_numpy(y.numpy().astype(np.float64)) for y in ys)))


@pytest.mark.parametrize("name", ["log_softmax of long rows", "column sum", "two softmaxes of long rows"])
def test_merged_kernels_build_and_run_on_the_cpu(name):
    fn, ref_fn, shapes = PROGRAMS[name]
    xs = _inputs(shapes, 2)
    c = pyasc.jit(fn).lower(*xs).compile()
    res = syntax_check(c.ascendc_source())
    if res.skipped or shutil.which("g++") is None:
        pytest.skip("no g++")
    assert res.ok, res.diagnostics
    out = cpu_run(c.module, [x.numpy() for x in xs])
    (value,) = out.outputs.values()
    ref = ref_fn(*(torch.from_numpy(x.numpy().astype(np.float64)) for x in xs))
    _check(value.reshape(ref.shape), ref)


def test_independent_parts_share_a_level():
    """softmax(x) + softmax(y) over long rows is four kernels: x's statistics, x normalised, y's statistics, and y
    normalised plus x's. y's statistics depend on neither of x's kernels: they run in the first level with x's,
    after a PipeBarrier<PIPE_ALL>; the longest chain has three parts, so two SyncAll calls (one per boundary would
    be three). The first launch's core-order check, which runs the cores in the reverse order, finds no race."""
    fn, ref_fn, shapes = PROGRAMS["two softmaxes of long rows"]
    xs = _inputs(shapes, 4)
    c = pyasc.jit(fn).lower(*xs).compile()
    (kernel,) = [op for op in c.module.body.block.ops if isinstance(op, func.FuncOp) and A.KERNEL_ATTR in op.attributes]
    # the boundaries between parts: each TPipe Reset, after a PipeBarrier or before a SyncAll
    marks = [type(op.next_op if isinstance(op.next_op, A.SyncAllOp) else op.prev_op).__name__
             for op in kernel.body.block.ops if isinstance(op, A.TPipeResetOp)]
    assert marks == ["PipeBarrierOp", "SyncAllOp", "SyncAllOp"], marks
    out, report = c.simulate(*xs)
    assert report.findings == [], str(report)
    _check(out, ref_fn(*(torch.from_numpy(x.numpy().astype(np.float64)) for x in xs)))


def test_a_merged_kernel_without_its_sync_all_races():
    fn, _, shapes = PROGRAMS["softmax of a long row"]
    xs = _inputs(shapes, 3)
    c = pyasc.jit(fn).lower(*xs).compile()
    (kernel,) = [op for op in c.module.body.block.ops if isinstance(op, func.FuncOp) and A.KERNEL_ATTR in op.attributes]
    (sync,) = [op for op in kernel.walk() if isinstance(op, A.SyncAllOp)]
    barrier = A.PipeBarrierOp(A.PipeKind.PIPE_ALL)  # the core still drains its pipes; only the meeting is gone
    sync.parent_block().insert_op_before(barrier, sync)
    sync.detach()
    sync.erase()
    host = next(op.sym_name.data for op in c.module.body.block.ops
                if isinstance(op, func.FuncOp) and A.KERNEL_ATTR not in op.attributes)
    arrays = [x.numpy() for x in xs] + [np.zeros(s, np.float32) for s in shapes]
    report = Simulator(c.module, hazards="ignore").run(host, arrays, raise_errors=False)
    assert report.error is None
    races = [f for f in report.findings if f.kind == "race" and f.rule == "cross-core-gm-sync"]
    assert races, str(report)


def test_replays_run_groups_of_cores_together_like_torch():
    """A merged launch replayed on new data runs each group of cores with one trace as one unit, round by round
    between the SyncAll calls; every run matches PyTorch."""
    fn, ref_fn, _ = PROGRAMS["softmax of a long row"]
    shape = (1, 1 << 18)
    c = pyasc.jit(fn).lower(*_inputs([shape])).compile()
    host = next(op.sym_name.data for op in c.module.body.block.ops
                if isinstance(op, func.FuncOp) and A.KERNEL_ATTR not in op.attributes)
    sim = Simulator(c.module, hazards="ignore")
    for seed in range(3):
        (x,) = _inputs([shape], 10 + seed)
        out = np.zeros(shape, np.float32)
        report = sim.run(host, [x.numpy(), out])
        assert report.findings == []
        _check(out, ref_fn(torch.from_numpy(x.numpy().astype(np.float64))))
    assert sim.stats["replays"] == 2 and sim.stats["grouped"] > 0, sim.stats
