"""Replays through tapes (``runtime.tape``): a replayed core or group of cores runs its recorded data statements,
then one straight-line function; every call on new data matches PyTorch, and a data path whose control flow
reads data has no tape."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.runtime import Simulator, straight_views, tape
from test_warm import PROGRAMS as WARM_PROGRAMS, _check

RNG = np.random.default_rng(11)

# test_warm's programs (a single-core launch, launches of grouped cores, softmax rows, a MIX matmul, a
# convolution), a float16 layer_norm and a strided convolution through im2col
PROGRAMS = {**WARM_PROGRAMS,
            "layer_norm_f16": (lambda x: pyasc.layer_norm(x, (96,)), [(40, 96)], np.float16,
                               lambda x: torch.nn.functional.layer_norm(x.float(), (96,)).half()),
            "conv2d_s2": (lambda x, w: pyasc.conv2d(x, w, stride=2, padding=1), [(2, 8, 9, 9), (16, 8, 3, 3)],
                          np.float32, lambda x, w: torch.nn.functional.conv2d(x, w, stride=2, padding=1))}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_taped_replays_match_torch_on_new_data(name, monkeypatch):
    monkeypatch.setattr(tape, "RECORD_AFTER", 2)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 2)
    fn, shapes, dtype, ref = PROGRAMS[name]
    compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
    sim = Simulator(compiled.module)
    calls = 9  # traced (twice for groups), replayed, recorded, taped twice, then straight-line
    for _ in range(calls):
        arrays = [RNG.standard_normal(s).astype(dtype) for s in shapes]
        outs = [np.full(o.shape, np.nan, o.dtype.np_dtype) for o in compiled.outputs]
        sim.run(compiled.name, [*arrays, *compiled.constants, *outs])
        _check(outs[0], ref, arrays, dtype)
    units = [u for traced in sim._traced.values() for u in traced.tapes.values()]
    assert units, "no launch recorded a tape"
    runners = [r for traced in sim._traced.values() for r in traced.runners.values()]
    assert any(u.straight is not None and u.runs > tape.STRAIGHT_AFTER for u in units) or \
        any(r.runs for r in runners), "no straight-line function ran"
    assert sim.stats["replays"] >= calls - 2  # a launch of groups is traced again once they are planned


def test_tapes_off_and_on_give_the_same_bits(monkeypatch):
    monkeypatch.setattr(tape, "RECORD_AFTER", 2)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 2)
    fn, shapes, dtype, ref = PROGRAMS["conv2d_s2"]
    compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
    runs = {}
    for mode in ("off", "on"):
        sim = Simulator(compiled.module)
        previous, tape.TAPE_MODE = tape.TAPE_MODE, mode
        try:
            rng = np.random.default_rng(3)
            outs = []
            for _ in range(9):
                arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
                out = np.full(compiled.outputs[0].shape, np.nan, np.float32)
                sim.run(compiled.name, [*arrays, *compiled.constants, out])
                _check(out, ref, arrays, dtype)
                outs.append(out)
        finally:
            tape.TAPE_MODE = previous
        runs[mode] = outs
    for a, b in zip(runs["off"], runs["on"]):
        assert np.array_equal(a, b)


HEADER = "def _kernel_data(bid, bnum, args, T, ct=0, sub=0):\n"


def test_control_flow_on_data_has_no_tape():
    source = HEADER + ("    a0, = args\n    v1 = _int(a0[0])\n    for v2 in range(0, v1, 1):\n        F3(U_f32[0:8])\n"
                       "    return s\n")
    assert tape.record_source(source) is None


def test_a_loop_over_a_global_table_has_no_tape():
    source = HEADER + "    s = 0\n    for _to, _from in _PAIRS:\n        _to[...] = _from\n    return s\n"
    assert tape.record_source(source) is None


def test_scalar_statements_run_when_recording_and_data_statements_are_taped():
    source = HEADER + ("    s = 0\n    a0, = args\n    G1, B2 = _gm(a0, DT, 8)\n    L3 = G1.shape[0]\n"
                       "    v4 = bid * 32\n"
                       "    for v5 in range(0, 2, 1):\n        v6 = v4 + v5 * 16\n"
                       "        _sp, _gb = _pad_in(_fail, 1, bid, v6, B2, 0, 1, 16, 0, 0)\n    return s\n")
    src, stmts = tape.record_source(source)
    assert [text for text, _ in stmts] == ["a0, = args", "G1, B2 = _gm(a0, DT, 8)",
                                           "_sp, _gb = _pad_in(_fail, 1, bid, v6, B2, 0, 1, 16, 0, 0)"]
    assert stmts[2][1] == ("bid", "v6")  # the scalars the copy reads, kept per run
    calls = []
    env = {"_gm": lambda a, dt, n: (a, a), "DT": None, "_fail": None, "_tape_snap": tape.snapshot,
           "_pad_in": lambda *a: calls.append(a[3]) or (0, 0)}
    exec(src, env)
    entries: list = []
    env["_kernel_record"](1, 2, [np.zeros(8)], None, 0, 0, entries)
    assert calls == [32, 48] and [k for k, _ in entries] == [0, 1, 2, 2]
    recorded = tape.Tape([env[f"_tape_{k}"] for k in range(3)], entries)
    calls.clear()
    recorded.run([np.ones(8)])
    assert calls == [32, 48]
    straight = {}
    code, consts = tape.straight_source([recorded], stmts)   # no UB given: the helper runs
    exec(code, env, straight)
    calls.clear()
    straight["_tape_straight_0"]([np.ones(8)], consts[0])
    assert calls == [32, 48]
    ub = np.zeros(64, np.uint8)
    code, consts = tape.straight_source([recorded], stmts, ub)  # one core's: each one-block copy as a slice copy
    assert "U_ui8[32:48] = B2[0:16]" in code and "U_ui8[48:64] = B2[0:16]" in code and "_pad_in" not in code
    assert "    B2 = _gm_bytes(a0, DT, 8)" in code.splitlines()  # no statement reads the typed view G1
    env.update(U_ui8=ub, _gm_bytes=lambda a, dt, n: a.view(np.uint8))
    exec(code, env, straight)
    data = np.arange(8, dtype=np.float64)
    straight["_tape_straight_0"]([data], consts[0])
    assert env["U_ui8"][32:48].tobytes() == data.tobytes()[:16] == env["U_ui8"][48:64].tobytes()


def test_snapshot_copies_arrays_and_refuses_objects():
    v = np.arange(3).reshape(-1, 1)
    kept = tape.snapshot((1, 2.5, v))
    v += 1
    assert kept[2].tolist() == [[0], [1], [2]]
    assert not tape.Tape([], [(0, tape.snapshot((object(),)))]).kept()


_COPY = "_sp, _gb = _pad_{way}(_fail, 1, bid, u, B, g, bc, bl, ss, ds)"


def _documented_pad(to_gm: bool, ub: np.ndarray, gm: np.ndarray, u: int, g: int, bc: int, bl: int, ss: int,
                    ds: int) -> None:
    """``DataCopyPad`` as the Ascend C reference defines it, block by block: ``blockCount`` blocks of ``blockLen``
    bytes; in UB each block starts on 32 B and the UB-side stride counts 32 B blocks, in GM the stride counts
    bytes between a block's end and the next one's start (GM -> UB: srcStride in GM, dstStride in UB; UB -> GM:
    srcStride in UB, dstStride in GM)."""
    blk = -(-bl // 32) * 32
    for i in range(bc):
        if to_gm:
            src, dst = u + i * (blk + ss * 32), g + i * (bl + ds)
            gm[dst:dst + bl] = ub[src:src + bl]
        else:
            src, dst = g + i * (bl + ss), u + i * (blk + ds * 32)
            ub[dst:dst + bl] = gm[src:src + bl]


@pytest.mark.parametrize("way", ["in", "out"])
@pytest.mark.parametrize("bc, bl, ss, ds", [(1, 24, 0, 0), (5, 24, 2, 1), (7, 6, 10, 0), (3, 64, 0, 0)])
def test_straight_copies_move_what_the_documented_copy_moves_on_one_core(way, bc, bl, ss, ds):
    """A ``DataCopyPad`` compiled into a straight tape (a slice copy, or a copy between views) leaves UB and GM
    as the documented copy does."""
    rng = np.random.default_rng(bc * bl)
    ub0, gm0 = rng.integers(0, 256, 4096, dtype=np.uint8), rng.integers(0, 256, 2048, dtype=np.uint8)
    recorded = tape.Tape([], [(0, (64, 10, bc, bl, ss, ds))])
    stmts = [(_COPY.format(way=way), ("u", "g", "bc", "bl", "ss", "ds"))]
    ub, gm = ub0.copy(), gm0.copy()
    code, consts = tape.straight_source([recorded], stmts, ub)
    assert "_pad_" not in code
    ns: dict = {}
    exec(code, {"np": np, "U_ui8": ub, "B": gm}, ns)
    ns["_tape_straight_0"]([], consts[0])
    ub_ref, gm_ref = ub0.copy(), gm0.copy()
    _documented_pad(way == "out", ub_ref, gm_ref, 64, 10, bc, bl, ss, ds)
    assert np.array_equal(ub, ub_ref) and np.array_equal(gm, gm_ref)


@pytest.mark.parametrize("way", ["in", "out"])
@pytest.mark.parametrize("starts", [[10], [0, 200, 400, 600], [0, 100, 700, 800], [30, 30, 30, 30], [0, 8, 16, 24],
                                    [0, 8, 520, 1000]])
@pytest.mark.parametrize("bc, bl, ss, ds", [(3, 40, 1, 6), (3, 8, 24, 24)])
def test_straight_copies_move_what_the_documented_copy_moves_in_a_group(way, starts, bc, bl, ss, ds):
    """The same for a group of cores (``batched.pad_copy``), each core's copy on its own UB row, in core order:
    a common GM start, evenly spaced starts and uneven ones, whose blocks overlap (written: the last core's
    stays), interleave without overlapping or lie apart."""
    from pyasc.runtime import batched
    k, ubn = 4, 4096
    rng = np.random.default_rng(len(starts))
    ub0, gm0 = rng.integers(0, 256, (k, ubn), dtype=np.uint8), rng.integers(0, 256, 4096, dtype=np.uint8)
    g = starts[0] if len(starts) == 1 else batched.weak(starts)
    recorded = tape.Tape([], [(0, (32, g, bc, bl, ss, ds))])
    stmts = [(_COPY.format(way=way), ("u", "g", "bc", "bl", "ss", "ds"))]
    ub, gm = ub0.copy(), gm0.copy()
    code, consts = tape.straight_source([recorded], stmts, ub, batched.pad_copy)
    assert "_pad_" not in code
    ns: dict = {}
    exec(code, {"np": np, "B": batched.BatchedGM(gm, k)}, ns)
    ns["_tape_straight_0"]([], consts[0])
    ub_ref, gm_ref = ub0.copy(), gm0.copy()
    for core in range(k):
        _documented_pad(way == "out", ub_ref[core], gm_ref, 32, starts[core % len(starts)], bc, bl, ss, ds)
    assert np.array_equal(ub, ub_ref) and np.array_equal(gm, gm_ref)


@pytest.mark.parametrize("way", ["in", "out"])
@pytest.mark.parametrize("starts", [[10], [0, 256, 512, 768], [0, 64, 700, 900]])
@pytest.mark.parametrize("counts", [[8, 5, 8, 5], [3, 0, 3, 1]])
@pytest.mark.parametrize("straight", [True, False])
def test_a_groups_copy_with_a_block_count_per_core_moves_each_cores_blocks(way, starts, counts, straight):
    """A group's ``DataCopyPad`` whose block count differs per core (the two AIVs of an AI Core splitting 13 rows
    into 8 and 5) moves each core's own blocks between its UB row and its GM start, as the documented copy does
    core by core: run by the group's code, and compiled into a straight tape."""
    from pyasc.runtime import batched
    from pyasc.runtime.memory import NUMPY_DTYPES

    k, ubn, bl, ss, ds = 4, 4096, 40, 1, 6
    rng = np.random.default_rng(sum(counts) + len(starts))
    ub0, gm0 = rng.integers(0, 256, (k, ubn), dtype=np.uint8), rng.integers(0, 256, 4096, dtype=np.uint8)
    g = starts[0] if len(starts) == 1 else batched.weak(starts)
    ub, gm = ub0.copy(), gm0.copy()
    if straight:
        recorded = tape.Tape([], [(0, (32, g, batched.weak(counts), bl, ss, ds))])
        stmts = [(_COPY.format(way=way), ("u", "g", "bc", "bl", "ss", "ds"))]
        code, consts = tape.straight_source([recorded], stmts, ub, batched.pad_copy)
        assert "_pad_" not in code
        ns: dict = {}
        exec(code, {"np": np, "B": batched.BatchedGM(gm, k)}, ns)
        ns["_tape_straight_0"]([], consts[0])
    else:
        env = batched.make_group_env({}, ub, k, NUMPY_DTYPES)
        env[f"_pad_{way}"](None, 0, None, 32, batched.BatchedGM(gm, k), g, batched.weak(counts), bl, ss, ds)
    ub_ref, gm_ref = ub0.copy(), gm0.copy()
    for core in range(k):
        _documented_pad(way == "out", ub_ref[core], gm_ref, 32, starts[core % len(starts)], counts[core], bl, ss, ds)
    assert np.array_equal(ub, ub_ref) and np.array_equal(gm, gm_ref)


def test_a_global_tensor_keeps_its_typed_view_when_a_statement_reads_it():
    stmts = [("a0, = args", ()), ("G1, B2 = _gm(a0, DT, 8)", ()), ("G3, B4 = _gm(a0, DT, 8)", ()),
             ("G5, B6 = _gm(a0, DT, 8)", ()), ("G1[0:2] = 7", ()), ("B4[0:4] = 1", ())]
    recorded = tape.Tape([None] * 6, [(k, ()) for k in range(6)])
    code, _ = tape.straight_source([recorded], stmts, np.zeros(64, np.uint8))
    lines = code.splitlines()
    assert "    G1, B2 = _gm(a0, DT, 8)" in lines and "    B4 = _gm_bytes(a0, DT, 8)" in lines
    assert not any("G5" in line or "B6" in line for line in lines)  # no line reads them: not made


def test_the_byte_view_alone_is_the_byte_view_of_the_global_tensor():
    from pyasc.runtime.memory import gm_bytes

    buf = np.arange(40, dtype=np.uint8)
    for dtype, size in ((np.dtype(np.float32), 10), (np.dtype(np.float32), 4), (np.dtype(np.float16), 30)):
        whole = gm_bytes(buf, dtype, size)  # SetGlobalBuffer(buf, size): size elements, clipped to the buffer
        assert whole.nbytes == min(size * dtype.itemsize, 40)
        assert np.shares_memory(whole, buf) and whole.tobytes() == buf.tobytes()[:whole.nbytes]


def test_a_launch_runner_is_dropped_when_its_group_memories_are_rebuilt(monkeypatch):
    """A launch whose units all run straight-line functions runs them in turn (``replay._Runner``). A larger group
    of another program on the same thread grows the group UB, so the functions' globals are rebuilt: the runner is
    not used, and every call still matches PyTorch."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 1)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 1)
    fn, shapes, dtype, ref = PROGRAMS["add_relu_rows"]
    compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
    sim = Simulator(compiled.module)

    def call():
        arrays = [RNG.standard_normal(s).astype(dtype) for s in shapes]
        outs = [np.full(o.shape, np.nan, o.dtype.np_dtype) for o in compiled.outputs]
        sim.run(compiled.name, [*arrays, *compiled.constants, *outs])
        _check(outs[0], ref, arrays, dtype)

    for _ in range(6):
        call()
    runners = [r for traced in sim._traced.values() for r in traced.runners.values() if r.biggest]
    assert runners and all(r.runs for r in runners), "no launch of groups ran its runner"
    ran = [r.runs for r in runners]
    from pyasc.runtime import batched

    batched.group_ub(sim.spec.ub_bytes, 64)  # what a group of 64 cores of another program leaves behind
    machine = sim._idle[0]
    assert not any(r.valid(machine, r.ck, name) for (name, _, _), t in sim._traced.items()
                   for r in t.runners.values() if r.biggest)
    for _ in range(3):
        call()
    assert [r.runs for r in runners] == ran  # the old runners never ran again


def test_fixed_ub_slices_are_views_made_once_and_unread_scalars_go():
    """A UB slice whose bounds the recorded scalars fix is read (or written through) a view made when the tape is
    compiled; a scalar only such bounds read is no longer assigned. The UB bytes are those of the NumPy
    statements' meaning, written out below."""
    stmts = [("U_f32[v1>>2:(v1>>2)+8] = U_f32[v2>>2:(v2>>2)+8] * 2.0", ("v1", "v2")),
             ("np.add(U_f32[v1>>2:(v1>>2)+8], U_f32[v3:v3+8], out=U_f32[v3:v3+8])", ("v1", "v3")),
             ("U_f32[v4:v4+4][:] = v5", ("v4", "v5"))]
    recorded = tape.Tape([None] * 3, [(0, (64, 0)), (1, (64, 32)), (2, (48, 1.5))])
    ub = np.arange(4096 // 4, dtype=np.float32).view(np.uint8)
    expect = ub.view(np.float32).copy()
    expect[16:24] = expect[0:8] * 2.0            # v1 = 64 B, v2 = 0 B
    expect[32:40] = expect[16:24] + expect[32:40]  # v3 = 32 elements
    expect[48:52] = 1.5                          # v4 = 48 elements, v5 = 1.5
    env = {"np": np, "U_ui8": ub, "U_f32": ub.view(np.float32)}
    code, consts = tape.straight_source([recorded], stmts, ub, None, lambda name, lo, hi: env[name][lo:hi])
    ns: dict = {}
    exec(code, env, ns)
    ns["_tape_straight_0"]([], consts[0])
    assert np.array_equal(ub.view(np.float32), expect)
    assert "U_f32" not in code and not any(f"    v{i} = " in code for i in (1, 2, 3, 4))
    assert "    v5 = _c[" in code  # a value the statement computes with, still read


@pytest.mark.parametrize("starts, rewritten", [([0, 10, 20, 30], True), ([7, 7, 7, 7], True), ([0, 3, 6, 9], True),
                                               ([0, 12, 20, 30], False)])
def test_a_groups_gm_rows_at_evenly_spaced_starts_are_one_strided_view(starts, rewritten):
    """``G0[v1:v1+v2]`` with one start per core of a group reads (and, rows not overlapping, writes) each core's
    ``v2`` elements from its own start, as a DataCopy of that many elements from each core's offset does."""
    from pyasc.runtime import batched

    k, n = 4, 5
    scope = {"v1": batched.weak(starts), "v2": n}
    read = straight_views.strided_gm_rows("X[...] = G0[v1:v1+v2]", scope, k)
    write = straight_views.strided_gm_rows("G0[v1:v1+v2] = Y", scope, k)
    gm = np.arange(100, dtype=np.float32)
    env = {"np": np, "G0": batched.BatchedGM(gm, k), "X": np.zeros((k, n), np.float32),
           "Y": np.arange(k * n, dtype=np.float32).reshape(k, n) + 1000, **scope}
    exec(read, env)
    assert np.array_equal(env["X"], np.stack([gm[s:s + n] for s in starts]))
    overlapping = starts[1] - starts[0] < n
    assert ("G0[" not in read) == rewritten and ("G0[" not in write) == (rewritten and not overlapping)
    exec(write, env)
    expect = np.arange(100, dtype=np.float32)
    for c, s in enumerate(starts):  # core by core, in core order
        expect[s:s + n] = env["Y"][c]
    assert np.array_equal(gm, expect)


@pytest.mark.parametrize("starts, n, rewritten", [([0, 3000, 1100, 9000], 2048, True), ([5, 5, 9, 2], 1024, True),
                                                  ([0, 30, 20, 70], 16, False), ([0, -1, 20, 70], 2048, False)])
def test_a_groups_long_gm_rows_at_uneven_starts_move_core_by_core(starts, n, rewritten):
    """``_c[0][...] = G0[v1:v1+v2]`` with uneven per-core starts reads each core's ``v2`` elements from its own start
    into its row of the UB view, as a DataCopy of that many elements from each core's offset does."""
    from pyasc.runtime import batched

    k = len(starts)
    scope = {"v1": batched.weak(starts), "v2": n}
    consts: list = [np.zeros((k, n), np.float32)]
    text = straight_views.gm_rows_per_core("_c[0][...] = G0[v1:v1+v2]", scope, k, consts)
    assert ("for _r" in text) == rewritten
    if not rewritten:
        return
    gm = np.arange(12000, dtype=np.float32)
    exec(text, {"np": np, "G0": batched.BatchedGM(gm, k), "_c": consts})  # noqa: S102
    assert np.array_equal(consts[0], np.stack([gm[s:s + n] for s in starts]))


def test_views_of_whole_arguments_are_the_arguments_themselves():
    from pyasc.runtime.memory import gm_bytes, gm_view

    dt = np.dtype(np.float32)
    stmts = [("a0, a1, a2, = args", ()), ("G1, B2 = _gm(a0, DT, 8)", ()), ("G3, B4 = _gm(a1, DT, 8)", ()),
             ("G5, B6 = _gm(a2, DT, 8)", ()), ("G1[0:2] = G1[2:4] + 1", ()), ("B4[0:4] = B6[4:8]", ()),
             ("G5[1:2] = 3", ())]
    recorded = tape.Tape([None] * 7, [(k, ()) for k in range(7)])
    env = {"DT": dt, "np": np, "_gm": gm_view, "_gm_bytes": gm_bytes}
    code, consts = tape.straight_source([recorded], stmts, np.zeros(64, np.uint8), env=env, arg_bytes=[32, 32, 40])
    lines = code.splitlines()
    # whole arguments: the first (typed and bytes read), the second (bytes only, named by the argument itself); the
    # third is longer than 8 floats
    assert "    G1, B2 = a0.view(DT), a0" in lines and "    a1[0:4] = B6[4:8]" in lines
    assert not any("B4" in line for line in lines)
    assert "    G5, B6 = _gm(a2, DT, 8)" in lines and not any("= a2" in line or "a2.view" in line for line in lines)
    ns: dict = {}
    exec(compile(code, "<straight>", "exec"), env, ns)  # noqa: S102
    args = [np.arange(8, dtype=dt).view(np.uint8).copy(), np.zeros(32, np.uint8), np.arange(10, dtype=dt).view(np.uint8)]
    ns["_tape_straight_0"](args, consts[0])
    np.testing.assert_array_equal(args[0].view(dt), [3, 4, 2, 3, 4, 5, 6, 7])  # as written on the views of gm_view
    np.testing.assert_array_equal(args[1][:4], np.arange(10, dtype=dt).view(np.uint8)[4:8])
    np.testing.assert_array_equal(args[2].view(dt), [0, 3, 2, 3, 4, 5, 6, 7, 8, 9])


def test_a_name_bound_twice_is_not_taken_for_the_argument():
    """``B2 = a0`` names the argument only while nothing binds ``B2`` again: a tape that makes the view twice (a
    loop's body recorded twice) keeps both bindings, and both writes land in the argument."""
    from pyasc.runtime.memory import gm_bytes, gm_view

    dt = np.dtype(np.float32)
    stmts = [("a0, = args", ()), ("B2 = _gm_bytes(a0, DT, 4)", ()), ("B2[0:4] = B2[4:8]", ())]
    recorded = tape.Tape([None] * 3, [(0, ()), (1, ()), (2, ()), (1, ()), (2, ())])
    env = {"DT": dt, "np": np, "_gm": gm_view, "_gm_bytes": gm_bytes}
    code, consts = tape.straight_source([recorded], stmts, np.zeros(64, np.uint8), env=env, arg_bytes=[16])
    lines = code.splitlines()
    assert lines.count("    B2 = a0") == 2 and lines.count("    B2[0:4] = B2[4:8]") == 2
    ns: dict = {}
    exec(compile(code, "<straight>", "exec"), env, ns)  # noqa: S102
    args = [np.arange(4, dtype=dt).view(np.uint8).copy()]
    ns["_tape_straight_0"](args, consts[0])
    np.testing.assert_array_equal(args[0].view(dt), [1, 1, 2, 3])  # bytes 4-7 (the float 1.0) to 0-3, twice


def test_int_scalars_are_read_as_their_values_until_bound_again():
    """A scalar bound to an int is read as that int by the statements after it, until a statement binds it
    otherwise (its value from then on is that statement's); the function computes what the lines as recorded
    compute, written out below: a[0] = 3 * 2, a[1] = the float a[0] read back + 1, a[2] = -2 * 3."""
    stmts = [("a0, = args", ()), ("G0 = a0.view(np.float32)", ()), ("G0[0] = v1 * 2", ("v1",)),
             ("v1 = float(G0[0])", ()), ("G0[1] = v1 + 1", ()), ("G0[2] = v2 * 3", ("v2",))]
    recorded = tape.Tape([None] * 6, [(0, ()), (1, ()), (2, (3,)), (3, ()), (4, ()), (5, (-2,))])
    env = {"np": np}
    code, consts = tape.straight_source([recorded], stmts, env=env)
    lines = code.splitlines()
    assert "    a0, = args" in lines  # one argument unpacked, as written
    assert "    G0[0] = 3 * 2" in lines and "    G0[1] = v1 + 1" in lines and "    G0[2] = (-2) * 3" in lines
    ns: dict = {}
    exec(compile(code, "<straight>", "exec"), env, ns)  # noqa: S102
    a = np.zeros(3, np.float32)
    ns["_tape_straight_0"]([a.view(np.uint8)], consts[0])
    np.testing.assert_array_equal(a, [6, 7, -6])


def test_a_scalar_bound_inside_a_statement_is_not_folded():
    stmts = [("v1 = 4", ()), ("if True: v1 = 5", ()), ("out[0] = v1", ())]
    recorded = tape.Tape([None] * 3, [(0, ()), (1, ()), (2, ())])
    code, consts = tape.straight_source([recorded], stmts, env={})
    out = np.zeros(1, np.int64)
    ns: dict = {}
    exec(compile(code, "<straight>", "exec"), {"out": out}, ns)  # noqa: S102
    ns["_tape_straight_0"]([], consts[0])
    assert out[0] == 5 and "    out[0] = v1" in code.splitlines()


def test_rows_of_a_vectorised_loop_at_fixed_bytes_are_made_once():
    """``_V2(dtype, base, coef, rows, n)`` with fixed bytes is the view ``memory.make_view2`` makes, made when the
    function is compiled; the rows' values are those of the loop written out below."""
    from pyasc.runtime.memory import make_view2

    ub = np.arange(64, dtype=np.float32).view(np.uint8)
    made = []

    def view2(*a):
        made.append(a)
        return make_view2(ub)(*a)

    stmts = [("np.multiply(_V2(DT, v1, 32, 2, 4), 2.0, out=_V2(DT, 128, 32, 2, 4))", ("v1",))]
    recorded = tape.Tape([None], [(0, (0,))])
    env = {"np": np, "DT": np.dtype(np.float32), "_V2": view2}
    code, consts = tape.straight_source([recorded], stmts, env=env)
    assert "_V2" not in code and len(made) == 2
    expect = ub.view(np.float32).copy()
    for r in range(2):  # row r: 4 floats at byte 32 r, doubled into byte 128 + 32 r
        expect[32 + 8 * r: 36 + 8 * r] = expect[8 * r: 8 * r + 4] * 2
    ns: dict = {}
    exec(compile(code, "<straight>", "exec"), env, ns)  # noqa: S102
    ns["_tape_straight_0"]([], consts[0])
    np.testing.assert_array_equal(ub.view(np.float32), expect)
