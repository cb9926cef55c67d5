"""Numerics of the vector ops, casts, copies, queues and scalar control flow against NumPy."""

import ml_dtypes
import numpy as np
import pytest

from pyasc.runtime import simulate
from pyasc.dialects.ascendc.numerics import cast_into
from sim_irgen import kernel_ir

NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i16": np.int16, "bf16": ml_dtypes.bfloat16}
N = 256


def _elementwise(op_line: str, t: str, out_t: str | None = None):
    out_t = out_t or t
    LT, OT = f"!ascendc.local_tensor<{t}>", f"!ascendc.local_tensor<{out_t}>"
    body = f"""    %xl = ascendc.local_tensor VECIN address 0 size {N} : {LT}
    %yl = ascendc.local_tensor VECIN address 4096 size {N} : {LT}
    %zl = ascendc.local_tensor VECOUT address 8192 size {N} : {OT}
    ascendc.data_copy %xl, %xg, %c256 : {LT}, !ascendc.global_tensor<{t}>
    ascendc.data_copy %yl, %yg, %c256 : {LT}, !ascendc.global_tensor<{t}>
    ascendc.set_flag MTE2_V, %c0
    ascendc.wait_flag MTE2_V, %c0
{op_line}
    ascendc.set_flag V_MTE3, %c0
    ascendc.wait_flag V_MTE3, %c0
    ascendc.data_copy %zg, %zl, %c256 : !ascendc.global_tensor<{out_t}>, {OT}"""
    return kernel_ir(body, (("x", t, N), ("y", t, N), ("z", out_t, N)))


def _data(t, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    if t in ("i32", "i16"):
        return rng.integers(-1000, 1000, N).astype(NP[t])
    a = rng.standard_normal(N) * 3
    if positive:
        a = np.abs(a) + 0.1
    return a.astype(NP[t])


@pytest.mark.parametrize("t", ["f32", "f16", "i32", "i16"])
@pytest.mark.parametrize("op,ref", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                    ("max", np.maximum), ("min", np.minimum)])
def test_binary(op, ref, t):
    x, y, z = _data(t, 1), _data(t, 2), np.zeros(N, NP[t])
    _, report = simulate(_elementwise(f"    ascendc.{op} %zl, %xl, %yl, %c256 : !ascendc.local_tensor<{t}>", t), x, y, z)
    np.testing.assert_array_equal(z, ref(x, y))
    assert report.findings == []


@pytest.mark.parametrize("t", ["f32", "f16"])
def test_div(t):
    x, y, z = _data(t, 1), _data(t, 2, positive=True), np.zeros(N, NP[t])
    simulate(_elementwise(f"    ascendc.div %zl, %xl, %yl, %c256 : !ascendc.local_tensor<{t}>", t), x, y, z)
    np.testing.assert_array_equal(z, x / y)


def _rounded_once(f):
    """``f`` in float64, rounded once to the input's dtype (the correctly rounded result)."""
    return lambda a: f(a.astype(np.float64)).astype(a.dtype)


# ulps the simulator may differ from the correctly rounded result, by op and type (0: exact)
APPROXIMATE = {("exp", "f32"): 2, ("ln", "f32"): 2}


@pytest.mark.parametrize("t", ["f32", "f16"])
@pytest.mark.parametrize("op,ref", [
    ("exp", _rounded_once(np.exp)), ("ln", _rounded_once(np.log)), ("abs", np.abs), ("sqrt", np.sqrt),
    ("rsqrt", lambda a: (np.ones((), a.dtype) / np.sqrt(a)).astype(a.dtype)),
    ("reciprocal", lambda a: (np.ones((), a.dtype) / a).astype(a.dtype)),
    ("relu", lambda a: np.maximum(a, 0).astype(a.dtype)),
])
def test_unary(op, ref, t):
    x = _data(t, 1, positive=op in ("ln", "sqrt", "rsqrt"))
    y, z = np.zeros(N, NP[t]), np.zeros(N, NP[t])
    simulate(_elementwise(f"    ascendc.{op} %zl, %xl, %c256 : !ascendc.local_tensor<{t}>", t), x, y, z)
    ulps = APPROXIMATE.get((op, t), 0)
    if ulps:
        np.testing.assert_array_max_ulp(z, ref(x), maxulp=ulps)
    else:
        np.testing.assert_array_equal(z, ref(x))
    assert z.dtype == NP[t]


@pytest.mark.parametrize("t,const", [("f32", "2.5 : f32"), ("f16", "-0.75 : f16"), ("i32", "7 : i32")])
@pytest.mark.parametrize("op,ref", [("adds", np.add), ("muls", np.multiply), ("maxs", np.maximum),
                                    ("mins", np.minimum)])
def test_scalar_ops(op, ref, t, const):
    x, y, z = _data(t, 1), np.zeros(N, NP[t]), np.zeros(N, NP[t])
    s = NP[t](float(const.split(":")[0]))
    line = f"    %s = arith.constant {const}\n    ascendc.{op} %zl, %xl, %s, %c256 : !ascendc.local_tensor<{t}>, {t}"
    simulate(_elementwise(line, t), x, y, z)
    np.testing.assert_array_equal(z, ref(x, s).astype(NP[t]))


def test_duplicate_and_partial_count():
    x, y, z = _data("f16", 1), np.zeros(N, np.float16), np.full(N, 9, np.float16)
    line = ("    %s = arith.constant 1.25 : f16\n"
            "    ascendc.duplicate %zl, %s, %c256 : !ascendc.local_tensor<f16>, f16\n"
            "    ascendc.pipe_barrier PIPE_V\n"
            "    ascendc.add %zl, %xl, %zl, %c128 : !ascendc.local_tensor<f16>")
    simulate(_elementwise(line, "f16"), x, y, z)
    np.testing.assert_array_equal(z[:128], x[:128] + np.float16(1.25))
    np.testing.assert_array_equal(z[128:], np.full(128, 1.25, np.float16))


@pytest.mark.parametrize("src,dst", [("f32", "f16"), ("f16", "f32"), ("f32", "i32"), ("i32", "f32"),
                                     ("f16", "i32"), ("i32", "f16"), ("f32", "bf16"), ("bf16", "f32")])
@pytest.mark.parametrize("mode", ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"])
def test_cast(src, dst, mode):
    rng = np.random.default_rng(5)
    vals = np.concatenate([np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1 + 2 ** -11, -(1 + 2 ** -11)]),
                           rng.standard_normal(N - 8) * 100])
    # ints beyond 2^24 exercise f32 rounding; f16 destinations stay in range
    x = vals.astype(NP[src]) if src != "i32" else (vals * (1e5 if dst == "f32" else 10)).astype(np.int32)
    y, z = np.zeros(N, NP[src]), np.zeros(N, NP[dst])
    line = (f"    ascendc.cast %zl, %xl, {mode}, %c256 : !ascendc.local_tensor<{dst}>, "
            f"!ascendc.local_tensor<{src}>")
    simulate(_elementwise(line, src, dst), x, y, z)
    xd = x.astype(np.float64)
    if dst == "i32":
        rnd = {"CAST_NONE": np.rint, "CAST_RINT": np.rint, "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil,
               "CAST_TRUNC": np.trunc, "CAST_ROUND": lambda a: np.sign(a) * np.floor(np.abs(a) + 0.5)}[mode]
        np.testing.assert_array_equal(z, rnd(xd).astype(np.int32))
        return
    zd = z.astype(np.float64)
    if mode in ("CAST_NONE", "CAST_RINT"):
        np.testing.assert_array_equal(z, x.astype(NP[dst]))
    elif mode == "CAST_FLOOR":
        assert (zd <= xd).all()
    elif mode == "CAST_CEIL":
        assert (zd >= xd).all()
    elif mode == "CAST_TRUNC":
        assert (np.abs(zd) <= np.abs(xd)).all()
    # every mode picks one of the two neighbours of the exact value
    rne = x.astype(NP[dst]).astype(np.float64)
    assert (np.abs(zd - xd) <= 2 * np.abs(rne - xd) + np.abs(xd) * 2.0 ** -7).all()


def test_cast_round_half_away_from_zero_f16():
    x = np.array([1 + 2 ** -11, -(1 + 2 ** -11), 2.5, 1 + 3 * 2 ** -11], np.float32)
    z = np.zeros(4, np.float16)
    cast_into(z, x, "CAST_ROUND")
    np.testing.assert_array_equal(z.astype(np.float64), [1 + 2 ** -10, -(1 + 2 ** -10), 2.5, 1 + 2 * 2 ** -10])
    cast_into(z, x, "CAST_RINT")
    np.testing.assert_array_equal(z.astype(np.float64), [1, -1, 2.5, 1 + 2 * 2 ** -10])


def test_data_copy_pad_strided_both_ways():
    # GM->UB: 3 blocks of 40 B (10 f32) with 24 B gaps in GM, 1 block (32 B) gap in UB;
    # UB->GM: same blocks back with a 8 B gap in GM
    body = """    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<f32>
    %bl = arith.constant 40 : index
    %sg = arith.constant 24 : index
    %dg = arith.constant 8 : index
    ascendc.data_copy_pad %a, %xg, {%c3, %bl, %sg, %c1} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_MTE3, %c0
    ascendc.wait_flag MTE2_MTE3, %c0
    ascendc.data_copy_pad %zg, %a, {%c3, %bl, %c1, %dg} : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>"""
    x = np.arange(1024, dtype=np.float32)
    z = np.full(1024, -1, np.float32)
    _, report = simulate(kernel_ir(body), x, z)
    # GM blocks start every 64 B = 16 elements; written back every 48 B = 12 elements
    ref = np.full(1024, -1, np.float32)
    for i in range(3):
        ref[12 * i:12 * i + 10] = x[16 * i:16 * i + 10]
    np.testing.assert_array_equal(z, ref)
    assert report.launches[0].gm_bytes == 2 * 3 * 40
    assert report.findings == []


def test_queue_round_robin_and_host_alloc_between_launches():
    """A TQue with 2 buffers over 6 tiles, two launches chained through a memref.alloc buffer."""
    T = "!ascendc.local_tensor<f32>"
    Q = "!ascendc.tque<VECIN, 2>"
    body = f"""    %p = ascendc.tpipe : !ascendc.tpipe
    %q = ascendc.tque : {Q}
    %qo = ascendc.tque : !ascendc.tque<VECOUT, 2>
    ascendc.init_buffer %p, %q num 2 len 1024 : {Q}
    ascendc.init_buffer %p, %qo num 2 len 1024 : !ascendc.tque<VECOUT, 2>
    %s = arith.constant 2.0 : f32
    %n6 = arith.constant 6 : index
    scf.for %i = %c0 to %n6 step %c1 {{
      %off = arith.muli %i, %c256 : index
      %xs = ascendc.subview %xg[%off] : !ascendc.global_tensor<f32>
      %zs = ascendc.subview %zg[%off] : !ascendc.global_tensor<f32>
      %t = ascendc.alloc_tensor %q : {Q} -> {T}
      ascendc.data_copy %t, %xs, %c256 : {T}, !ascendc.global_tensor<f32>
      ascendc.enque %q, %t : {Q}, {T}
      %d = ascendc.deque %q : {Q} -> {T}
      %o = ascendc.alloc_tensor %qo : !ascendc.tque<VECOUT, 2> -> {T}
      ascendc.muls %o, %d, %s, %c256 : {T}, f32
      ascendc.free_tensor %q, %d : {Q}, {T}
      ascendc.enque %qo, %o : !ascendc.tque<VECOUT, 2>, {T}
      %od = ascendc.deque %qo : !ascendc.tque<VECOUT, 2> -> {T}
      ascendc.data_copy %zs, %od, %c256 : !ascendc.global_tensor<f32>, {T}
      ascendc.free_tensor %qo, %od : !ascendc.tque<VECOUT, 2>, {T}
    }}"""
    host = ("    %tmp = memref.alloc() : memref<1536xf32>\n"
            "    ascendc.launch @k<<<1>>>(%x, %tmp) : memref<1536xf32>, memref<1536xf32>\n"
            "    ascendc.launch @k<<<1>>>(%tmp, %z) : memref<1536xf32>, memref<1536xf32>\n")
    text = kernel_ir(body, (("x", "f32", 1536), ("z", "f32", 1536)), host_body=host)
    x = np.random.default_rng(0).standard_normal(1536).astype(np.float32)
    z = np.zeros(1536, np.float32)
    _, report = simulate(text, x, z)
    np.testing.assert_array_equal(z, x * 4)
    assert report.findings == []
    assert len(report.launches) == 2
    tl = report.launches[0].timeline(0)
    copies = [(s, e) for s, e, name in tl["MTE2"] if name == "ascendc.data_copy"]
    muls = [(s, e) for s, e, name in tl["V"] if name == "ascendc.muls"]
    assert len(copies) == len(muls) == 6
    # the queue orders each copy before its compute, and double buffering lets copy i+1 overlap compute i
    assert all(c[1] <= m[0] for c, m in zip(copies, muls))
    assert copies[1][0] < muls[0][1] or copies[1][1] <= muls[0][0]


def test_scalar_control_flow_and_get_value():
    body = """    %p0 = ascendc.get_value %xg[%c2] : !ascendc.global_tensor<i32> -> i32
    %pi = arith.index_cast %p0 : i32 to index
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
      %nx = arith.addi %acc, %i : index
      scf.yield %nx : index
    }
    %big = arith.cmpi ugt, %pi, %c5 : index
    %cnt = scf.if %big -> (index) {
      scf.yield %c64 : index
    } else {
      %m = arith.muli %sum, %c32 : index
      scf.yield %m : index
    }
    %neg = arith.subi %c0, %c7 : index
    %q = arith.divsi %neg, %c2 : index
    %r = arith.remsi %neg, %c2 : index
    %cd = arith.ceildivui %c9, %c4 : index
    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<i32>
    %v = arith.constant 1 : i32
    ascendc.duplicate %a, %v, %c256 : !ascendc.local_tensor<i32>, i32
    %o1 = arith.addi %q, %c8 : index
    %o2 = arith.addi %r, %c8 : index
    %qi = arith.index_cast %o1 : index to i32
    %ri = arith.index_cast %o2 : index to i32
    %ci = arith.index_cast %cd : index to i32
    %b = ascendc.local_tensor VECIN address 1024 size 256 : !ascendc.local_tensor<i32>
    ascendc.duplicate %b, %qi, %c8 : !ascendc.local_tensor<i32>, i32
    %b8 = ascendc.subview %b[%c8] : !ascendc.local_tensor<i32>
    ascendc.duplicate %b8, %ri, %c8 : !ascendc.local_tensor<i32>, i32
    %b16 = arith.constant 16 : index
    %bb = ascendc.subview %b[%b16] : !ascendc.local_tensor<i32>
    %c16 = arith.constant 16 : index
    ascendc.duplicate %bb, %ci, %c16 : !ascendc.local_tensor<i32>, i32
    ascendc.set_flag V_MTE3, %c0
    ascendc.wait_flag V_MTE3, %c0
    ascendc.data_copy %zg, %a, %cnt : !ascendc.global_tensor<i32>, !ascendc.local_tensor<i32>
    %zs = ascendc.subview %zg[%c256] : !ascendc.global_tensor<i32>
    ascendc.data_copy %zs, %b, %c32 : !ascendc.global_tensor<i32>, !ascendc.local_tensor<i32>"""
    for p, expect in ((3, 6 * 32), (9, 64)):
        x = np.zeros(1024, np.int32)
        x[2] = p
        z = np.zeros(1024, np.int32)
        _, report = simulate(kernel_ir(body, (("x", "i32", 1024), ("z", "i32", 1024))), x, z)
        assert z[:expect].tolist() == [1] * expect and not z[expect:256].any()
        # divsi truncates toward zero: -7 / 2 = -3, remsi -7 % 2 = -1, ceildivui 9 / 4 = 3
        assert z[256:264].tolist() == [5] * 8 and z[264:272].tolist() == [7] * 8 and z[272:288].tolist() == [3] * 16
        assert report.pipe_busy["S"] == _gm_read_cycles()


def _gm_read_cycles():
    from pyasc.dialects.target import DEFAULT_TARGET, get_target
    return get_target(DEFAULT_TARGET).scalar_gm_read_cycles


def test_scalar_flags_and_pipe_all_barrier_stall_the_scalar_unit():
    body = """    %a = ascendc.local_tensor VECIN address 0 size 1024 : !ascendc.local_tensor<f32>
    %n = arith.constant 1024 : index
    ascendc.data_copy %a, %xg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.pipe_barrier PIPE_ALL
    ascendc.data_copy %zg, %a, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>"""
    x = np.arange(1024, dtype=np.float32)
    z = np.zeros(1024, np.float32)
    _, report = simulate(kernel_ir(body), x, z)
    np.testing.assert_array_equal(z, x)
    assert report.findings == []
    tl = report.launches[0].timeline(0)
    (cin,) = [e for s, e, n in tl["MTE2"]]
    (cout,) = [s for s, e, n in tl["MTE3"]]
    assert cout >= cin  # the barrier drained MTE2 before MTE3 could even be issued
    # without the barrier the copies race
    _, report = simulate(kernel_ir(body.replace("    ascendc.pipe_barrier PIPE_ALL\n", "")), x, z)
    assert report.findings_of("race")
    # MTE2 -> S -> MTE3 through the scalar unit also orders them
    flags = body.replace("    ascendc.pipe_barrier PIPE_ALL\n",
                         "    ascendc.set_flag MTE2_S, %c0\n    ascendc.wait_flag MTE2_S, %c0\n")
    _, report = simulate(kernel_ir(flags), x, z)
    assert report.findings == []
