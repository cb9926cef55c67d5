"""Straight-line forms of the cube's data movement (``runtime.cube_straight``).

Each form's statements are run here on real memories and compared with the copy the Ascend C documentation
describes, written out element by element in this file:

* ``DataCopy`` GM -> L1 with ``Nd2NzParams``: element ``(i, r, c)`` of ND matrix ``i`` (``srcNdMatrixStride``
  elements apart, rows ``srcDValue`` apart) lands in the 32 B block ``c // c0`` (``dstNzC0Stride`` blocks apart),
  row ``r`` (``dstNzNStride`` blocks apart) of NZ matrix ``i`` (``dstNzMatrixStride`` elements apart), at
  ``c % c0``; a row's last block is zero past ``dValue``;
* ``InitConstValue``: ``repeatTimes`` runs of ``blockNum`` 32 B blocks, ``dstGap`` blocks apart, set to the value;
* ``Fixpipe`` L0C (NZ) -> GM (ND): element ``(r, j)`` of L0C's 16-column block ``j // 16`` (``srcStride`` rows
  per block) lands at ``r * dstStride + j`` in GM, after ReLU when asked, cast to GM's type.

Programs that run them are compared with PyTorch.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest
import torch

import pyasc
from pyasc.dialects.target import get_target
from pyasc.runtime import tape
from pyasc.runtime.cube_straight import FORMS
from pyasc.runtime.kernel_ops_cube import CubeMemories

RNG = np.random.default_rng(11)
SPEC = get_target("ascend910b3")


def _form(name: str, args: list[str], scope: dict, gm: dict, group: bool, cube: CubeMemories):
    """The statements of ``name``'s form and its constants, with the cube's memories as the kernel's globals."""
    env = {"L1": cube.l1, "_CUBE": cube, **{k: v for k, v in scope.items() if k.startswith("DT")}}

    def value(x):
        return scope[x] if x in scope else env[x] if x in env else ast.literal_eval(x)

    consts: list = []
    return FORMS[name](args, value, gm, group, consts), consts


def _run(lines, consts, names: dict) -> None:
    exec("\n".join(lines), {"np": np, "_c": consts, "_cube_flush": None, **names})  # noqa: S102


def _nd2nz_expected(l1_row, gm, dst, goff, nd, n, d, src_nd, src_d, c0s, ns, ms, dt):
    es = dt.itemsize
    c0 = 32 // es
    out = l1_row.copy()
    for i in range(nd):
        for r in range(n):
            for c in range(-(-d // c0) * c0):
                at = dst + i * ms * es + (c // c0) * c0s * 32 + r * ns * 32 + (c % c0) * es
                v = gm[goff + i * src_nd + r * src_d + c] if c < d else dt.type(0)
                out[at:at + es] = np.frombuffer(np.array(v, dt).tobytes(), np.uint8)
    return out


ND2NZ = [  # (nd, n, d, src_nd, src_d, c0 stride, n stride, matrix stride), float32 (c0 = 8)
    (1, 13, 20, 0, 20, 13, 1, 0),
    (1, 16, 32, 0, 40, 16, 1, 0),
    (2, 5, 8, 64, 12, 5, 1, 96),
    (3, 4, 3, 30, 10, 4, 1, 64),
]


@pytest.mark.parametrize("geometry", ND2NZ)
@pytest.mark.parametrize("starts", [None, (0, 0, 0), (0, 100, 200), (0, 7, 300)])
def test_nd2nz_form_moves_what_the_documented_copy_moves(geometry, starts):
    nd, n, d, src_nd, src_d, c0s, ns, ms = geometry
    dt = np.dtype(np.float32)
    cores = 1 if starts is None else len(starts)
    cube = CubeMemories(SPEC, cores)
    cube.l1[...] = RNG.integers(0, 256, cube.l1.shape, dtype=np.uint8)
    before = cube.l1.copy()
    g = RNG.standard_normal(1200).astype(dt)
    goff = 4 if starts is None else np.array(starts)
    scope = {"v0": 64, "goff": goff, "DT": dt, "_L2": None}
    args = ["_fail", "1", "bid", "L1", "v0", "G0", "goff", *map(str, geometry), "_L2", "args"]
    lines, consts = _form("_nd2nz", args, scope, {"G0": ("B0", dt, g.size)}, starts is not None, cube)
    assert lines and not any("_nd2nz(" in line for line in lines)
    b = g.view(np.uint8)
    _run(lines, consts, {"B0": type("G", (), {"a": b})() if starts is not None else b})
    for core in range(cores):
        o = 4 if starts is None else starts[core]
        expect = _nd2nz_expected(before[core], g, 64, o, nd, n, d, src_nd, src_d, c0s, ns, ms, dt)
        np.testing.assert_array_equal(cube.l1[core], expect)


def test_init_const_form_fills_the_documented_runs():
    cube = CubeMemories(SPEC, 1)
    cube.l1.fill(7)
    dt = np.dtype(np.float16)
    lines, consts = _form("_init_const", ["_fail", "2", "bid", "L1", "96", "3", "2", "1", "1.5", "DT"], {"DT": dt},
                          {}, False, cube)
    _run(lines, consts, {})
    expect = np.full(cube.l1.shape[1], 7, np.uint8)
    one = np.frombuffer(np.float16(1.5).tobytes(), np.uint8)
    for r in range(3):
        start = 96 + r * (2 + 1) * 32
        expect[start:start + 64] = np.tile(one, 32)
    np.testing.assert_array_equal(cube.l1[0], expect)


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("out_dt", [np.float32, np.float16])
@pytest.mark.parametrize("starts", [None, (0, 16), (0, 640), (5, 5)])
def test_fixpipe_form_writes_what_the_documented_fixpipe_writes(relu, out_dt, starts):
    m, n, src_stride, dst_stride = 13, 20, 16, 40
    cores = 1 if starts is None else len(starts)
    cube = CubeMemories(SPEC, cores)
    n1 = -(-n // 16)
    acc = RNG.standard_normal((cores, n1, src_stride, 16)).astype(np.float32)
    cube.l0c[:, 512:512 + acc[0].nbytes] = acc.reshape(cores, -1).view(np.uint8)
    dt = np.dtype(out_dt)
    g = np.zeros(1400, dt)
    goff = 3 if starts is None else np.array(starts)
    scope = {"goff": goff, "DT": dt, "ACC": np.dtype(np.float32)}
    args = ["_fail", "3", "bid", "G0", "goff", "_CUBE", "512", str(n), str(m), str(src_stride), str(dst_stride),
            str(relu), "ACC"]
    lines, consts = _form("_fixpipe", args, scope, {"G0": ("B0", dt, g.size)}, starts is not None, cube)
    assert lines and not any("_fixpipe(" in line for line in lines)
    b = g.view(np.uint8)
    _run(lines, consts, {"B0": type("G", (), {"a": b})() if starts is not None else b, "_CUBE": cube})
    expect = np.zeros_like(g)
    for core in range(cores):  # cores write in order: the last one's value stays where two write
        o = 3 if starts is None else starts[core]
        for r in range(m):
            for j in range(n):
                v = acc[core, j // 16, r, j % 16]
                expect[o + r * dst_stride + j] = max(v, 0) if relu else v
    np.testing.assert_array_equal(g, expect)


def test_forms_refuse_what_the_helper_must_check():
    cube = CubeMemories(SPEC, 1)
    dt = np.dtype(np.float32)
    scope = {"DT": dt, "_L2": None}
    past_gm = ["_fail", "1", "bid", "L1", "0", "G0", "90", "1", "4", "8", "0", "8", "4", "1", "0", "_L2", "args"]
    assert _form("_nd2nz", past_gm, scope, {"G0": ("B0", dt, 100)}, False, cube)[0] is None
    unaligned = ["_fail", "1", "bid", "L1", "16", "G0", "0", "1", "4", "8", "0", "8", "4", "1", "0", "_L2", "args"]
    assert _form("_nd2nz", unaligned, scope, {"G0": ("B0", dt, 100)}, False, cube)[0] is None
    counting_l2 = dict(scope, _L2=object())
    fine = ["_fail", "1", "bid", "L1", "0", "G0", "0", "1", "4", "8", "0", "8", "4", "1", "0", "_L2", "args"]
    assert _form("_nd2nz", fine, counting_l2, {"G0": ("B0", dt, 100)}, False, cube)[0] is None
    assert _form("_nd2nz", fine, scope, {"G0": ("B0", dt, 100)}, False, cube)[0]
    too_many = ["_fail", "2", "bid", "L1", "0", "40000", "1", "0", "1.0", "DT"]
    assert _form("_init_const", too_many, scope, {}, False, cube)[0] is None
    rows_past_stride = ["_fail", "3", "bid", "G0", "0", "_CUBE", "0", "16", "20", "16", "16", "False", "DT"]
    assert _form("_fixpipe", rows_past_stride, scope, {"G0": ("B0", dt, 1000)}, False, cube)[0] is None


def test_straight_matmuls_call_no_cube_copy_helper_and_match_torch(monkeypatch):
    sources = []
    made = tape.straight_source

    def spy(*args, **kwargs):
        src, consts = made(*args, **kwargs)
        sources.append(src)
        return src, consts

    monkeypatch.setattr(tape, "straight_source", spy)

    @pyasc.jit
    def mlp(x, w1, w2):
        return pyasc.relu(x @ w1) @ w2

    shapes = [(13, 20), (20, 40), (40, 10)]
    for dtype, tol in ((np.float32, 1e-5), (np.float16, 2e-2)):
        for _ in range(24):
            xs = [RNG.standard_normal(s).astype(dtype) for s in shapes]
            got = mlp(*map(pyasc.tensor, xs)).numpy()
            t = [torch.from_numpy(x.astype(np.float64)) for x in xs]
            expect = (torch.relu(t[0] @ t[1]) @ t[2]).numpy()
            np.testing.assert_allclose(got.astype(np.float64), expect, rtol=tol, atol=tol * np.abs(expect).max())
    cube_sources = [s for s in sources if "_CUBE" in s]
    assert cube_sources
    assert not any(helper in s for s in cube_sources for helper in ("_nd2nz(", "_fixpipe(", "_init_const("))


def test_a_plan_its_table_holds_is_taken_once_and_a_missing_one_is_made():
    src_mem, dst_mem = np.arange(8, dtype=np.int32), np.zeros(8, np.int32)
    made = []

    def make(at):
        made.append(at)
        return dst_mem[at:at + 2], src_mem[at:at + 2]

    env = {"np": np, "_CUBE_PLANS": ["LD1"], "LD1": {(2, 0): (dst_mem[2:4], src_mem[2:4])}, "_make": make}
    stmts = [("_lp = LD1.get((v1, 0))", ("v1",)), ("if _lp is None: _lp = _make(v1)", ("v1",)),
             ("_lp[0][...] = _lp[1]", ())]
    tapes = [tape.Tape([], [(0, (at,)), (1, (at,)), (2, ())]) for at in (2, 6)]
    source, consts = tape.straight_source(tapes, stmts, env=env)
    held, missing = source.split("def _tape_straight_1")
    assert ".get(" not in held and "is None" not in held
    assert "LD1.get((6, 0))" in missing and "_make(6)" in missing  # the recorded scalar read as its value
    ns: dict = {}
    exec(compile(source, "<straight>", "exec"), env, ns)  # noqa: S102
    for i, c in enumerate(consts):
        ns[f"_tape_straight_{i}"]([], c)
    np.testing.assert_array_equal(dst_mem, [0, 0, 2, 3, 0, 0, 6, 7])
    assert made == [6]
