"""Problems the simulator must report: fatal ones raise SimulationError naming op and core, the
others appear in report.findings. Never silent, never a hang."""

import numpy as np
import pytest

from functools import partial

from pyasc.runtime import SimulationError, Simulator, parse_module
from pyasc.runtime import simulate as _simulate

simulate = partial(_simulate, raise_errors=True)
from sim_irgen import add_flags_ir, kernel_ir


def _xyz(n, dtype=np.float32):
    rng = np.random.default_rng(3)
    return rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype), np.zeros(n, dtype)


def _run(body, gm=(("x", "f32", 1024), ("z", "f32", 1024)), cores=1, **kw):
    arrays = [np.arange(s, dtype={"f32": np.float32, "f16": np.float16, "i32": np.int32}[t]) for _, t, s in gm]
    _, report = simulate(kernel_ir(body, gm, cores), *arrays, **kw)
    return arrays, report


def test_missing_wait_flag_gives_race_and_unpaired_flag():
    x, y, z = _xyz(256)
    _, report = simulate(add_flags_ir(256, 1, 256, drop="wait_flag MTE2_V"), x, y, z)
    races = report.findings_of("race")
    assert races, str(report)
    assert any("RAW" in f.message and "ascendc.data_copy" in f.message and "ascendc.add" in f.message for f in races)
    unpaired = report.findings_of("unpaired-flag")
    assert unpaired and "MTE2_V id 0" in unpaired[0].message
    assert "race" in str(report)


def test_missing_priming_set_deadlocks():
    x, y, z = _xyz(2048)
    with pytest.raises(SimulationError, match="deadlock") as e:
        simulate(add_flags_ir(2048, 2, 256, drop="set_flag V_MTE2, %c1"), x, y, z)
    msg = str(e.value)
    assert "ascendc.wait_flag V_MTE2" in msg and "core 0" in msg and "V_MTE2 id 1" in msg


def test_wait_on_scalar_pipe_without_set_deadlocks():
    with pytest.raises(SimulationError, match="deadlock.*wait_flag V_S"):
        _run("    ascendc.wait_flag V_S, %c0")


def test_constant_event_id_out_of_range():
    with pytest.raises(SimulationError, match=r"set_flag MTE2_V, %c9.*core 0: event id 9 is out of range 0..7"):
        _run("    ascendc.set_flag MTE2_V, %c9\n    ascendc.wait_flag MTE2_V, %c9")


def test_dynamic_event_id_out_of_range():
    x, y, z = _xyz(1024)
    text = add_flags_ir(1024, 1, 256, event_id="arith.muli %slot, %tile : index")
    with pytest.raises(SimulationError, match=r"set_flag MTE2_V, %ev.*core 0: event id 256 is out of range"):
        simulate(text, x, y, z)


def test_reserved_event_id_is_a_finding():
    _, report = _run("    ascendc.set_flag MTE2_V, %c7\n    ascendc.wait_flag MTE2_V, %c7")
    assert report.findings_of("reserved-event-id")


def test_set_twice_while_set_is_an_error():
    _, report = _run("    ascendc.set_flag MTE2_V, %c0\n    ascendc.set_flag MTE2_V, %c0\n"
                     "    ascendc.wait_flag MTE2_V, %c0\n    ascendc.wait_flag MTE2_V, %c0")
    (f,) = report.findings_of("double-set")
    assert "set_flag MTE2_V" in f.message and "MTE2_V id 0" in f.message and f.severity == "error"


def test_ub_overflow_local_tensor():
    body = ("    %a = ascendc.local_tensor VECIN address 196576 size 64 : !ascendc.local_tensor<f32>\n"
            "    ascendc.data_copy %a, %xg, %c64 : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>")
    with pytest.raises(SimulationError, match=r"local_tensor.*core 0: UB overflow"):
        _run(body)


def test_ub_overflow_access_past_end():
    body = ("    %a = ascendc.local_tensor VECIN address 196352 size 64 : !ascendc.local_tensor<f32>\n"
            "    %n = arith.constant 1000 : index\n"
            "    ascendc.data_copy %a, %xg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>")
    with pytest.raises(SimulationError, match=r"data_copy.*core 0: UB overflow"):
        _run(body)


def test_ub_overflow_init_buffer():
    body = ("    %p = ascendc.tpipe : !ascendc.tpipe\n"
            "    %q = ascendc.tque : !ascendc.tque<VECIN, 2>\n"
            "    ascendc.init_buffer %p, %q num 2 len 100000 : !ascendc.tque<VECIN, 2>")
    with pytest.raises(SimulationError, match=r"init_buffer.*core 0: UB overflow"):
        _run(body)


def test_misaligned_local_tensor_address():
    body = ("    %a = ascendc.local_tensor VECIN address 16 size 64 : !ascendc.local_tensor<f32>\n"
            "    ascendc.data_copy %a, %xg, %c64 : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>")
    with pytest.raises(SimulationError, match="address 16 is not 32 B aligned"):
        _run(body)


def test_misaligned_subview_in_vector_op():
    body = ("    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<f32>\n"
            "    %b = ascendc.subview %a[%bid] : !ascendc.local_tensor<f32>\n"
            "    ascendc.add %a, %b, %b, %c64 : !ascendc.local_tensor<f32>")
    with pytest.raises(SimulationError, match=r"ascendc.add.*core 1: local address 4 is not 32 B aligned"):
        _run(body, cores=2)


def test_out_of_bounds_gm():
    body = ("    %a = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f32>\n"
            "    %o = arith.constant 1000 : index\n"
            "    %s = ascendc.subview %xg[%o] : !ascendc.global_tensor<f32>\n"
            "    ascendc.data_copy %a, %s, %c64 : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>")
    with pytest.raises(SimulationError, match=r"data_copy.*core 0: out-of-bounds GM access: elements \[1000, 1064\)"):
        _run(body)


def test_get_value_out_of_bounds():
    body = "    %o = arith.constant 1024 : index\n    %v = ascendc.get_value %xg[%o] : !ascendc.global_tensor<f32> -> f32"
    with pytest.raises(SimulationError, match="get_value.*outside the global tensor"):
        _run(body)


_COPY_BODY = """    %a = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f32>
    %n = arith.constant {n} : index
    ascendc.data_copy %a, %xg, %c64 : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_MTE3, %c0
    ascendc.wait_flag MTE2_MTE3, %c0
    ascendc.data_copy %zg, %a, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>"""


def test_data_copy_of_20_bytes_is_rounded_down_to_nothing():
    (x, z), report = _run(_COPY_BODY.format(n=5))
    (f,) = report.findings_of("copy-rounding")
    assert "20 bytes" in f.message and "moves 0" in f.message and "data_copy %zg" in f.op
    np.testing.assert_array_equal(z, np.arange(1024, dtype=np.float32))  # untouched


def test_data_copy_of_40_bytes_moves_32():
    (x, z), report = _run(_COPY_BODY.format(n=10))
    (f,) = report.findings_of("copy-rounding")
    assert "40 bytes" in f.message and "moves 32" in f.message
    ref = np.arange(1024, dtype=np.float32)
    ref[:8] = np.arange(8)  # the UB held x[0:64] = 0..63
    np.testing.assert_array_equal(z, ref)


def test_dynamic_copy_rounding_counts_occurrences():
    x, y, z = _xyz(1004)
    _, report = simulate(add_flags_ir(1004, 2, 256), x, y, z)  # tail tile: 236 x 4 B = 944 B -> 928 B
    fs = report.findings_of("copy-rounding")
    assert len(fs) == 3  # the tail tile's three copies, on the second core, once each
    assert all(f.count == 1 and f.core == 1 and "944 bytes" in f.message for f in fs)
    np.testing.assert_array_equal(z[:1000], (x + y)[:1000])
    assert not z[1000:].any()


def test_deque_on_empty_queue():
    body = ("    %p = ascendc.tpipe : !ascendc.tpipe\n"
            "    %q = ascendc.tque : !ascendc.tque<VECIN, 2>\n"
            "    ascendc.init_buffer %p, %q num 2 len 256 : !ascendc.tque<VECIN, 2>\n"
            "    %t = ascendc.deque %q : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f32>")
    with pytest.raises(SimulationError, match=r"ascendc.deque.*core 0: deadlock: DeQue on an empty queue"):
        _run(body)


def test_alloc_more_than_num_buffers():
    body = ("    %p = ascendc.tpipe : !ascendc.tpipe\n"
            "    %q = ascendc.tque : !ascendc.tque<VECIN, 2>\n"
            "    ascendc.init_buffer %p, %q num 2 len 256 : !ascendc.tque<VECIN, 2>\n"
            "    %t0 = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f32>\n"
            "    %t1 = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f32>\n"
            "    %t2 = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f32>")
    with pytest.raises(SimulationError, match="deadlock: AllocTensor needs buffer 0, which was never freed"):
        _run(body)


def test_integer_division_by_zero_names_the_op():
    with pytest.raises(SimulationError, match=r"arith.divui.*core 0: integer division by zero"):
        _run("    %d = arith.divui %c1, %bid : index")


def test_unsupported_op_is_reported_at_translation():
    text = kernel_ir("    %m = memref.alloc() : memref<4xf32>")
    with pytest.raises(SimulationError, match="does not support `memref.alloc`"):
        Simulator(parse_module(text))


def test_bad_host_arguments():
    text = kernel_ir("")
    sim = Simulator(parse_module(text))
    with pytest.raises(SimulationError, match="argument 0 is float64"):
        sim.run("host", [np.zeros(1024), np.zeros(1024, np.float32)])
    with pytest.raises(SimulationError, match="takes 2 arguments"):
        sim.run("host", [np.zeros(1024, np.float32)])
    with pytest.raises(SimulationError, match="no host function @nope"):
        sim.run("nope", [])


@pytest.mark.parametrize("pos,mem,cap", [("A1", "L1", 512 * 1024), ("A2", "L0A", 64 * 1024),
                                         ("B2", "L0B", 64 * 1024), ("CO1", "L0C", 128 * 1024)])
def test_l1_and_l0_overflow(pos, mem, cap):
    ok = f"    %a = ascendc.local_tensor {pos} address {cap - 1024} size 256 : !ascendc.local_tensor<f32>"
    _run(ok)
    bad = f"    %a = ascendc.local_tensor {pos} address {cap - 512} size 256 : !ascendc.local_tensor<f32>"
    with pytest.raises(SimulationError, match=rf"local_tensor {pos}.*core 0: {mem} overflow: .*past the {cap} B"):
        _run(bad)
