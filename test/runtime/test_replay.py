"""Launches replayed on their data path alone (``runtime.replay``): the outputs of NumPy / PyTorch on new data,
the report of the traced launch, and a trace again where the traces may differ.

Each program runs four times on one simulator with new inputs each time, in "verify" mode: a replayed launch is
traced again afterwards and the simulator raises if outputs or traces differ.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.runtime import Simulator
from pyasc.runtime import replay
from pyasc.runtime.codegen import data_only_source
from pyasc.runtime.simulator import parse_module

RNG = np.random.default_rng(11)


def _t(*arrays):
    return [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]


PROGRAMS = {
    "add_relu": (lambda x, y: pyasc.relu(x + y * 2.0), [(37, 1000), (37, 1000)], np.float32,
                 lambda x, y: torch.relu(x + y * 2.0)),
    "layer_norm": (lambda x: pyasc.layer_norm(x, (256,)), [(64, 256)], np.float32,
                   lambda x: torch.nn.functional.layer_norm(x, (256,))),
    "matmul_f32": (lambda a, b: a @ b, [(72, 200), (200, 130)], np.float32, lambda a, b: a @ b),
    "matmul_f16_bias_relu": (lambda a, b, c: pyasc.relu(a @ b + c), [(100, 64), (64, 48), (48,)], np.float16,
                             lambda a, b, c: torch.relu((a.float() @ b.float() + c.float())).half()),
    "conv2d": (lambda x, w: pyasc.conv2d(x, w, stride=1, padding=1), [(2, 8, 12, 12), (16, 8, 3, 3)],
               np.float32, lambda x, w: torch.nn.functional.conv2d(x, w, stride=1, padding=1)),
    "sum_axis0": (lambda x: pyasc.sum(x, 0), [(300, 96)], np.float32, lambda x: x.sum(0)),
    # gathers through offset tables the kernels compute: the patches of a stride-2 convolution, a strided slice
    "conv2d_stride2_f16": (lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3), [(2, 3, 20, 20), (8, 3, 7, 7)],
                           np.float16, lambda x, w: torch.nn.functional.conv2d(x.float(), w.float(), stride=2,
                                                                               padding=3).half()),
    "strided_slice": (lambda x: x[:, 1::2] * 2.0, [(40, 301)], np.float32, lambda x: x[:, 1::2] * 2.0),
}
GATHERS = {"conv2d_stride2_f16", "strided_slice"}


@pytest.fixture
def verify(monkeypatch):
    monkeypatch.setattr(replay, "REPLAY_MODE", "verify")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_replayed_launches_compute_new_data_like_torch(name, verify):
    fn, shapes, dtype, ref = PROGRAMS[name]
    compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
    sim = Simulator(compiled.module, hazards="ignore")
    outs = [np.zeros(o.shape, o.dtype.np_dtype) for o in compiled.outputs]
    launches = cycles = None
    for _ in range(4):
        arrays = [RNG.standard_normal(s).astype(dtype) for s in shapes]
        report = sim.run(compiled.name, [*arrays, *getattr(compiled, "constants", ()), *outs])
        assert report.error is None and not report.errors
        cycles = cycles or report.cycles
        launches = launches or len(report.launches)
        assert (report.cycles, len(report.launches)) == (cycles, launches)  # the traced launches' report
        expect = ref(*_t(*arrays)).numpy()
        tol = 2e-5 if dtype == np.float32 else 2e-2
        np.testing.assert_allclose(outs[0].astype(np.float64), expect.astype(np.float64), rtol=tol, atol=tol)
    assert sim.replayable and sim.stats["replays"] >= len(sim.replayable)
    if name in GATHERS:
        gathers = {k for k, (ck, _) in sim.kernels.items() if any(type(i.op).__name__ == "GatherOp" for i in ck.infos)}
        assert gathers and gathers <= sim.replayable


TABLE_KERNEL = """builtin.module {
  func.func @k(%x: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
    %xg = ascendc.global_tensor %x size 256 : !ascendc.global_tensor<f32>
    %c0 = arith.constant 0 : index
    %n = arith.constant 64 : index
    %pipe = ascendc.tpipe : !ascendc.tpipe
    %tb = ascendc.tbuf : !ascendc.tbuf<VECCALC>
    ascendc.init_buffer %pipe, %tb num 1 len 256 : !ascendc.tbuf<VECCALC>
    %q = ascendc.tbuf : !ascendc.tbuf<VECCALC>
    ascendc.init_buffer %pipe, %q num 1 len 512 : !ascendc.tbuf<VECCALC>
    %t = ascendc.tbuf_get %tb : !ascendc.tbuf<VECCALC> -> !ascendc.local_tensor<i32>
TABLE
    %src = ascendc.tbuf_get %q : !ascendc.tbuf<VECCALC> -> !ascendc.local_tensor<f32>
    %dst = ascendc.subview %src[%n] : !ascendc.local_tensor<f32>
    %u = ascendc.reinterpret_cast %t : !ascendc.local_tensor<i32> -> !ascendc.local_tensor<ui32>
    ascendc.gather %dst, %src, %u, %c0, %n : !ascendc.local_tensor<f32>, !ascendc.local_tensor<f32>, !ascendc.local_tensor<ui32>
    func.return
  }
}
"""


COPIED_TABLE = """    %xi = ascendc.global_tensor %x size 64 : !ascendc.global_tensor<i32>
    ascendc.data_copy %t, %xi, %n : !ascendc.local_tensor<i32>, !ascendc.global_tensor<i32>"""


@pytest.mark.parametrize("table, tables", [
    ("""    %zero = arith.constant 0 : i32
    %four = arith.constant 4 : i32
    ascendc.create_vec_index %t, %zero, %n : !ascendc.local_tensor<i32>, i32
    ascendc.muls %t, %t, %four, %n : !ascendc.local_tensor<i32>, i32""", frozenset()),
    (COPIED_TABLE, frozenset({0})),
    (COPIED_TABLE.replace("%xi", "%zi").replace("%x ", "%z "), frozenset({1})),
    (COPIED_TABLE + """
    %one = arith.constant 1 : index
    %w = ascendc.get_value %t[%c0] : !ascendc.local_tensor<i32> -> i32
    %wi = arith.index_cast %w : i32 to index
    ascendc.set_value %t[%wi], %w : !ascendc.local_tensor<i32>, i32""", None),
])
def test_a_gather_replays_through_a_table_computed_from_scalars_or_copied_from_gm(table, tables):
    """Offsets the kernel computes (CreateVecIndex, Muls) are the same on every launch. Offsets copied from GM are
    data: the kernel replays while those bytes stay the same (they join the launch signature). A value read from
    the table that picks an address makes the kernel trace every launch."""
    module = parse_module(TABLE_KERNEL.replace("TABLE", table))
    kernel = next(op for op in module.walk() if getattr(op, "sym_name", None) and op.sym_name.data == "k")
    assert replay.trace_tables(kernel) == tables
    assert replay.replayable(kernel) is (tables is not None)


def test_kernels_whose_scalar_reads_are_only_written_back_replay(verify):
    """topk's scalar reads (``GetValue``) reach only ``SetValue``s as the values they write: its traces cannot
    depend on them, so it replays; each replay is traced again and compared (verify mode), and against NumPy."""
    x = RNG.standard_normal((96, 64)).astype(np.float32)
    compiled = pyasc.jit(lambda x: pyasc.topk(x, 3, -1)[0]).compile(pyasc.tensor(x))
    sim = Simulator(compiled.module, hazards="ignore")
    readers = {name for name, (ck, _) in sim.kernels.items()
               if any(type(i.op).__name__ in ("GetValueOp", "GatherOp") for i in ck.infos)}
    assert readers and readers <= sim.replayable
    out = np.zeros(compiled.outputs[0].shape, np.float32)
    for _ in range(4):
        x = RNG.standard_normal((96, 64)).astype(np.float32)
        sim.run(compiled.name, [x, out])
        np.testing.assert_allclose(out, -np.sort(-x, -1)[:, :3], rtol=1e-6)
    assert sim.stats["replays"] >= 2


def test_a_launch_with_other_buffers_sharing_memory_is_traced_again():
    a = np.zeros(64, np.uint8)
    b = np.zeros(64, np.uint8)
    assert replay.signature([a, b, 3]) == replay.signature([a.copy(), b.copy(), 3])
    assert replay.signature([a, a]) != replay.signature([a, b])          # aliasing changes the L2 traffic
    assert replay.signature([a[:32], a[32:]]) == replay.signature([b[:32], b[32:]])
    assert replay.signature([a, 3]) != replay.signature([a, 4])          # scalar arguments
    assert replay.signature([a, 3]) != replay.signature([a, 3.0])


def test_the_data_path_keeps_the_work_and_drops_traces_and_checks():
    source = "\n".join([
        "def _kernel(bid, bnum, args, T, ct=0, sub=0):",
        "    s = 0",
        "    for v1 in range(0, 4, 1):",
        "        if v1 < 0: _fail(3, bid, 'negative')",
        "        s += 2",
        "        T((3, s, 10, 0))",
        "    if v2 & 31:",
        "        _find('copy-rounding', 4, bid, 'rounded')",
        "        v2 &= ~31",
        "    U_f32[0:8] = G0[0:8]",
        "    return s",
    ]) + "\n"
    data = data_only_source(source)
    assert data.splitlines() == [
        "def _kernel_data(bid, bnum, args, T, ct=0, sub=0):",
        "    _L2 = None",
        "    s = 0",
        "    for v1 in range(0, 4, 1):",
        "        pass",
        "    if v2 & 31:",
        "        v2 &= ~31",
        "    U_f32[0:8] = G0[0:8]",
        "    return s",
    ]
    compile(data, "<data path>", "exec")


def test_a_replayed_launch_reports_what_its_code_reported():
    """A DataCopy of 250 floats (1000 B) moves 992 B: the finding its code reports while traced is reported
    again by every replay, and the data moved are the 992 B NumPy's slice gives."""
    from test_contract import COPY, _module

    text = _module(COPY.replace("%n = arith.constant 256 : index", "%n = arith.constant 250 : index"))
    sim = Simulator(parse_module(text), hazards="ignore", initcheck=False)
    runs = []
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal(256).astype(np.float32)
        out = np.zeros(256, np.float32)
        report = sim.run("host", [x, out], raise_errors=False)
        runs.append(sorted((f.kind, f.rule, f.count) for f in report.findings))
        np.testing.assert_array_equal(out[:248], x[:248])
    assert sim.stats["replays"] >= 2
    assert runs[0] == runs[1] == runs[2] and ("copy-rounding", "datacopy-count-32b-floor", 1) in runs[0]


def test_verify_mode_traces_an_in_place_launch_again_from_its_inputs(verify):
    """A kernel that adds 1 to its input in place (GM -> UB, Adds, UB -> the same GM): each call adds exactly 1,
    replayed or not, and the verify mode's second run starts from the inputs the replay started from."""
    from test_contract import _module

    body = """    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<f32>
    %n = arith.constant 256 : index
    %one = arith.constant 1.0 : f32
    ascendc.data_copy %a, %xg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_V, %c0
    ascendc.wait_flag MTE2_V, %c0
    ascendc.adds %a, %a, %one, %n : !ascendc.local_tensor<f32>, f32
    ascendc.set_flag V_MTE3, %c0
    ascendc.wait_flag V_MTE3, %c0
    ascendc.data_copy %xg, %a, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>"""
    sim = Simulator(parse_module(_module(body)), hazards="ignore")
    x = np.random.default_rng(3).standard_normal(256).astype(np.float32)
    expect = x.copy()
    for _ in range(4):
        report = sim.run("host", [x, np.zeros(256, np.float32)], raise_errors=False)
        assert report.error is None and not report.errors
        expect = expect + np.float32(1)
        np.testing.assert_array_equal(x, expect)
    assert sim.stats["replays"] >= 2


def test_an_integer_read_that_only_fills_a_vector_replays_on_new_values(verify):
    """Cross-entropy reads each row's label with GetValue and fills a vector with it (Duplicate) to pick the
    row's logit: a value the vector instructions compute with, never a count, an address or a condition, so
    the kernel replays on new labels and matches PyTorch each time."""
    import pyasc.nn.functional as F

    x0, y0 = np.zeros((13, 10), np.float32), np.zeros(13, np.int32)
    compiled = pyasc.jit(lambda x, y: F.cross_entropy(x, y)).compile(pyasc.tensor(x0), pyasc.tensor(y0))
    sim = Simulator(compiled.module, hazards="ignore")
    readers = {name for name, (ck, _) in sim.kernels.items()
               if any(type(i.op).__name__ == "GetValueOp" for i in ck.infos)}
    assert readers and readers <= sim.replayable
    out = np.zeros(compiled.outputs[0].shape, np.float32)
    for _ in range(4):
        x, y = RNG.standard_normal((13, 10)).astype(np.float32), RNG.integers(0, 10, 13).astype(np.int32)
        report = sim.run(compiled.name, [x, y, *getattr(compiled, "constants", ()), out])
        assert report.error is None and not report.errors
        expect = torch.nn.functional.cross_entropy(*_t(x), torch.from_numpy(y).long()).numpy()
        np.testing.assert_allclose(out, expect, rtol=1e-5)
    assert sim.stats["replays"] >= 3 * len(readers)
