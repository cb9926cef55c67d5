"""The documented Ascend C contract: each rule, broken on purpose in a small hand-written ``ascendc``
kernel, is reported naming the rule and its doc page (a verifier error for constants, a ``contract``
finding of the simulator for run-time values); the same kernels with the rule kept report nothing."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

from pyasc.dialects.ascendc.contract import RULES
from pyasc.runtime import get_initcheck_default, set_initcheck_default
from pyasc.runtime.simulator import Simulator, parse_module

pytestmark = pytest.mark.contract_findings

HEAD = 'builtin.module attributes {asc.target = #asc.target<"ascend910b2">} {\n'


def _module(body: str, n: int = 256, dtype: str = "f32", frame: bool = True) -> str:
    """A one-core kernel over ``x`` and ``z`` (``n`` elements of ``dtype``) with ``body`` inside;
    ``frame``: the static-tensor entry and exit (InitSocState, PipeBarrier<PIPE_ALL>)."""
    start = "    ascendc.init_soc_state\n" if frame else ""
    end = "    ascendc.pipe_barrier PIPE_ALL\n" if frame else ""
    return HEAD + f"""  func.func @k(%x: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {{ascendc.kernel, ascendc.block_dim = 1 : i64}} {{
{start}    %c0 = arith.constant 0 : index
    %xg = ascendc.global_tensor %x size {n} : !ascendc.global_tensor<{dtype}>
    %zg = ascendc.global_tensor %z size {n} : !ascendc.global_tensor<{dtype}>
{body}
{end}    func.return
  }}
  func.func @host(%x: memref<{n}x{dtype}>, %z: memref<{n}x{dtype}>) {{
    ascendc.launch @k<<<1>>>(%x, %z) : memref<{n}x{dtype}>, memref<{n}x{dtype}>
    func.return
  }}
}}
"""


def _run(text: str, n: int = 256, dtype=np.float32):
    sim = Simulator(parse_module(text), hazards="ignore", initcheck=False)  # the other rules, one at a time
    x = np.arange(n).astype(dtype)
    return sim.run("host", [x, np.zeros(n, dtype)], raise_errors=False)


def _rules(report) -> set[str]:
    return {f.rule for f in report.findings if f.kind == "contract"}


COPY = """    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<f32>
    %n = arith.constant 256 : index
    ascendc.data_copy %a, %xg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_MTE3, %c0
    ascendc.wait_flag MTE2_MTE3, %c0
    ascendc.data_copy %zg, %a, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>"""


def test_a_framed_static_kernel_keeps_the_contract():
    report = _run(_module(COPY))
    assert report.error is None and _rules(report) == set(), report


def test_static_kernel_without_init_soc_state_or_final_barrier():
    report = _run(_module(COPY, frame=False))
    assert {"initsoc-static-entry", "kernel-end-pipe-all"} <= _rules(report)
    f = next(f for f in report.findings if f.rule == "initsoc-static-entry")
    assert RULES["initsoc-static-entry"].doc in f.message and "InitSocState" in str(f)


REDUCE = """    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<f32>
    %w = ascendc.local_tensor VECCALC address 1024 size 256 : !ascendc.local_tensor<f32>
    %d = ascendc.local_tensor VECOUT address 2048 size 8 : !ascendc.local_tensor<f32>
    %n = arith.constant 256 : index
    ascendc.data_copy %a, %xg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_V, %c0
    ascendc.wait_flag MTE2_V, %c0
    ascendc.reduce_max %d, %a, %w, %n : !ascendc.local_tensor<f32>"""


def test_api_needing_a_tpipe_in_a_kernel_without_one():
    report = _run(_module(REDUCE))
    assert "static-api-whitelist-a2" in _rules(report)
    f = next(f for f in report.findings if f.rule == "static-api-whitelist-a2")
    assert "ReduceMax" in f.message and "reduce_max" in f.op


def _compare(mode: str, dtype: str, count: str) -> str:
    return f"""    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<{dtype}>
    %m = ascendc.local_tensor VECOUT address 2048 size 64 : !ascendc.local_tensor<ui8>
    %n = {count}
    ascendc.compare %m, %a, %a, {mode}, %n : !ascendc.local_tensor<ui8>, !ascendc.local_tensor<{dtype}>"""


def test_int32_compare_other_than_eq_is_a_verifier_error():
    with pytest.raises(VerifyException, match=r"\[cmp-dtypes-modes-a2\].*Compare\.md"):
        parse_module(_module(_compare("NE", "i32", "arith.constant 64 : index"), dtype="i32")).verify()
    parse_module(_module(_compare("EQ", "i32", "arith.constant 64 : index"), dtype="i32")).verify()


def test_constant_compare_count_not_filling_256_bytes_is_a_verifier_error():
    with pytest.raises(VerifyException, match=r"\[cmp-count-256b\]"):
        parse_module(_module(_compare("LT", "f32", "arith.constant 100 : index"))).verify()
    parse_module(_module(_compare("LT", "f32", "arith.constant 128 : index"))).verify()


def test_run_time_compare_count_not_filling_256_bytes_is_a_finding():
    # a count only known at run time: the block count times 100 elements
    body = f"""    %a = ascendc.local_tensor VECIN address 0 size 256 : !ascendc.local_tensor<f32>
    %m = ascendc.local_tensor VECOUT address 2048 size 64 : !ascendc.local_tensor<ui8>
    %b = ascendc.get_block_num : index
    %h = arith.constant 100 : index
    %n = arith.muli %b, %h : index
    ascendc.compare %m, %a, %a, LT, %n : !ascendc.local_tensor<ui8>, !ascendc.local_tensor<f32>"""
    report = _run(_module(body))
    assert "cmp-count-256b" in _rules(report)
    body64 = body.replace("arith.constant 100", "arith.constant 64")
    assert "cmp-count-256b" not in _rules(_run(_module(body64)))


def _queues(count: int, num: int) -> str:
    lines = ["    %pipe = ascendc.tpipe : !ascendc.tpipe"]
    for i in range(count):
        lines.append(f"    %q{i} = ascendc.tque : !ascendc.tque<VECIN, {num}>")
        lines.append(f"    ascendc.init_buffer %pipe, %q{i} num {num} len 256 : !ascendc.tque<VECIN, {num}>")
    return "\n".join(lines)


def test_more_than_eight_queue_buffers_on_a_position_is_a_verifier_error():
    with pytest.raises(VerifyException, match=r"\[tque-max-buffers-per-pos-8\].*TQue简介\.md"):
        parse_module(_module(_queues(5, 2), frame=False)).verify()
    parse_module(_module(_queues(4, 2), frame=False)).verify()


def _nd2nz(d: int, mat_stride: int, nd: int = 8) -> str:
    return f"""    %l1 = ascendc.local_tensor B1 address 0 size 4096 : !ascendc.local_tensor<f32>
    %nd = arith.constant {nd} : index
    %nv = arith.constant 16 : index
    %dv = arith.constant {d} : index
    %sm = arith.constant 16 : index
    %sd = arith.constant 16 : index
    %c0s = arith.constant 16 : index
    %ns = arith.constant 1 : index
    %ms = arith.constant {mat_stride} : index
    ascendc.data_copy_nd2nz %l1, %xg, {{%nd, %nv, %dv, %sm, %sd, %c0s, %ns, %ms}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>"""


def test_nd2nz_rows_padded_over_each_other_is_a_finding():
    # one-element rows one element apart: each row's 32 B zero padding covers the next matrices'
    report = _run(_module(_nd2nz(1, 1), n=1024), n=1024)
    assert "nd2nz-no-overlap-l1" in _rules(report)
    f = next(f for f in report.findings if f.rule == "nd2nz-no-overlap-l1")
    assert "ND2NZ" in f.message and RULES["nd2nz-no-overlap-l1"].doc in f.message
    # the matrices 16 rows (512 B) apart
    assert "nd2nz-no-overlap-l1" not in _rules(_run(_module(_nd2nz(1, 128), n=1024), n=1024))


def _add(size_x: int, addr_z: int = 2048) -> str:
    return f"""    %a = ascendc.local_tensor VECIN address 0 size {size_x} : !ascendc.local_tensor<f32>
    %zb = ascendc.local_tensor VECOUT address {addr_z} size 256 : !ascendc.local_tensor<f32>
    %n = arith.constant 256 : index
    ascendc.data_copy %a, %xg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_V, %c0
    ascendc.wait_flag MTE2_V, %c0
    ascendc.add %zb, %a, %a, %n : !ascendc.local_tensor<f32>
    ascendc.set_flag V_MTE3, %c0
    ascendc.wait_flag V_MTE3, %c0
    ascendc.data_copy %zg, %zb, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>"""


def test_access_past_a_local_tensor_is_a_finding():
    report = _run(_module(_add(128)))
    assert "local-extent" in _rules(report)
    f = next(f for f in report.findings if f.rule == "local-extent")
    assert "accesses bytes [0, 1024) of a buffer at [0, 512)" in f.message
    assert "local-extent" not in _rules(_run(_module(_add(256))))


def test_two_live_local_tensors_overlapping_is_a_finding():
    report = _run(_module(_add(256, addr_z=512)))
    assert "local-no-overlap" in _rules(report)
    assert "local-no-overlap" not in _rules(_run(_module(_add(256, addr_z=1024))))


def _reduce_max(work: int) -> str:
    return REDUCE.replace("%w = ascendc.local_tensor VECCALC address 1024 size 256",
                          f"%w = ascendc.local_tensor VECCALC address 1024 size {work}")


def test_reduce_max_work_buffer_below_the_documented_size_is_a_finding():
    # 256 floats: 4 repeats, 2 partials each, rounded to a 32 B block: 8 elements
    pipe = "    %pipe = ascendc.tpipe : !ascendc.tpipe\n"
    report = _run(_module(pipe + _reduce_max(4), frame=False))
    assert "reducemax-tmp-size" in _rules(report)
    f = next(f for f in report.findings if f.rule == "reducemax-tmp-size")
    assert "ReduceMax accesses bytes [1024, 1056)" in f.message
    assert _rules(_run(_module(pipe + _reduce_max(8), frame=False))) == set()


def test_reduce_work_size_matches_the_documented_examples():
    from pyasc.dialects.ascendc import ReduceCountOp

    # ReduceMax.md: half, 8320 elements with the index: 176 elements; float, 130 repeats: 288
    assert ReduceCountOp.work_elems(8320, 2, True) == 176
    assert ReduceCountOp.work_elems(130 * 64, 4, True) == 288



def test_reserved_event_id_names_its_rule():
    body = COPY.replace("ascendc.set_flag MTE2_MTE3, %c0\n    ascendc.wait_flag MTE2_MTE3, %c0",
                        "%c7 = arith.constant 7 : index\n    ascendc.set_flag MTE2_MTE3, %c7\n"
                        "    ascendc.wait_flag MTE2_MTE3, %c7")
    report = _run(_module(body))
    assert any(f.rule == "flag-static-ids-0-5" and f.kind == "reserved-event-id" for f in report.findings)


def test_data_copy_rounded_down_names_its_rule():
    body = COPY.replace("%n = arith.constant 256 : index", "%n = arith.constant 250 : index")
    report = _run(_module(body))
    assert any(f.rule == "datacopy-count-32b-floor" and f.kind == "copy-rounding" for f in report.findings)


def _pipe_copy(allocs: int, release: bool = True, stray_release: bool = False) -> str:
    """COPY in a TPipe kernel whose flag id comes from AllocEventID<MTE2_MTE3>; ``allocs - 1`` more ids of
    the same event are taken before it (held to the end), all released at the end when ``release``."""
    lines = ["    %pipe = ascendc.tpipe : !ascendc.tpipe"]
    lines += [f"    %h{i} = ascendc.alloc_event_id %pipe, MTE2_MTE3 : index" for i in range(allocs - 1)]
    lines.append("    %ev = ascendc.alloc_event_id %pipe, MTE2_MTE3 : index")
    body = COPY.replace("MTE2_MTE3, %c0", "MTE2_MTE3, %ev")
    lines.append(body)
    if release:
        lines += [f"    ascendc.release_event_id %pipe, MTE2_MTE3, %h{i}" for i in range(allocs - 1)]
        lines.append("    ascendc.release_event_id %pipe, MTE2_MTE3, %ev")
    if stray_release:
        lines.append("    ascendc.release_event_id %pipe, V_S, %c0")
    return "\n".join(lines)


def test_event_ids_from_the_tpipe_keep_the_contract():
    report = _run(_module(_pipe_copy(8), frame=False))
    assert report.error is None and _rules(report) == set(), report


def test_a_ninth_event_id_of_one_hardevent_is_a_finding():
    # 8 ids of MTE2_MTE3 are held; the ninth AllocEventID finds none (the copy's flag then fails on id 8)
    report = _run(_module(_pipe_copy(9), frame=False))
    assert "tpipe-event-pool-8" in _rules(report), report
    f = next(f for f in report.findings if f.rule == "tpipe-event-pool-8")
    assert "AllocEventID<MTE2_MTE3>" in str(f) and RULES["tpipe-event-pool-8"].doc in f.message
    assert "ascendc.alloc_event_id" in str(f)


def test_released_ids_are_allocated_again():
    body = ("    %pipe = ascendc.tpipe : !ascendc.tpipe\n"
            + "".join(f"    %e{i} = ascendc.alloc_event_id %pipe, V_S : index\n"
                      f"    ascendc.release_event_id %pipe, V_S, %e{i}\n" for i in range(20)))
    report = _run(_module(body, frame=False))
    assert report.error is None and _rules(report) == set(), report


def test_release_of_an_id_never_allocated_is_a_finding():
    report = _run(_module(_pipe_copy(1, stray_release=True), frame=False))
    assert "release-event-id-paired" in _rules(report), report


def _enqueued(held: int) -> str:
    """A TPipe kernel holding ``held`` ids of MTE2_V from AllocEventID while two buffers of a VECIN queue are
    enqueued at once (each EnQue takes an id of MTE2_V until its DeQue), then dequeued, freed and released."""
    lines = ["    %pipe = ascendc.tpipe : !ascendc.tpipe",
             "    %q = ascendc.tque : !ascendc.tque<VECIN, 2>",
             "    ascendc.init_buffer %pipe, %q num 2 len 1024 : !ascendc.tque<VECIN, 2>",
             "    %n = arith.constant 256 : index"]
    lines += [f"    %h{i} = ascendc.alloc_event_id %pipe, MTE2_V : index" for i in range(held)]
    for t in ("a", "b"):
        lines += [f"    %{t} = ascendc.alloc_tensor %q : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f32>",
                  f"    ascendc.data_copy %{t}, %xg, %n : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>",
                  f"    ascendc.enque %q, %{t} : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f32>"]
    for t in ("a", "b"):
        lines += [f"    %{t}2 = ascendc.deque %q : !ascendc.tque<VECIN, 2> -> !ascendc.local_tensor<f32>",
                  f"    ascendc.free_tensor %q, %{t}2 : !ascendc.tque<VECIN, 2>, !ascendc.local_tensor<f32>"]
    lines += [f"    ascendc.release_event_id %pipe, MTE2_V, %h{i}" for i in range(held)]
    return "\n".join(lines)


def test_queue_flags_take_ids_from_the_pipes_pool():
    # two buffers enqueued hold two ids of MTE2_V: with 6 more held by AllocEventID the pool is exactly full
    report = _run(_module(_enqueued(6), frame=False))
    assert report.error is None and _rules(report) == set(), report
    report = _run(_module(_enqueued(7), frame=False))  # the second EnQue finds all 8 taken
    f = next(f for f in report.findings if f.rule == "tpipe-event-pool-8")
    assert "EnQue needs an event id of MTE2_V with all 8 taken" in f.message and "ascendc.enque" in str(f)


def _add_of(b_written: int | None) -> str:
    """``z = a + b`` over 256 floats, ``a`` copied in and ``b`` given its first ``b_written`` elements by a
    Duplicate (None: never written)."""
    dup = "" if b_written is None else (
        f"    %bn = arith.constant {b_written} : index\n    %one = arith.constant 1.0 : f32\n"
        "    ascendc.duplicate %b, %one, %bn : !ascendc.local_tensor<f32>, f32\n")
    return _add(256).replace("    ascendc.set_flag MTE2_V, %c0", dup + "    ascendc.set_flag MTE2_V, %c0").replace(
        "%zb = ascendc.local_tensor VECOUT", "%b = ascendc.local_tensor VECCALC address 1024 size 256 : "
        "!ascendc.local_tensor<f32>\n    %zb = ascendc.local_tensor VECOUT").replace(
        "ascendc.add %zb, %a, %a, %n", "ascendc.add %zb, %a, %b, %n")


def _initcheck(text: str) -> list:
    sim = Simulator(parse_module(text), hazards="ignore", initcheck=True)
    report = sim.run("host", [np.arange(256).astype(np.float32), np.zeros(256, np.float32)], raise_errors=False)
    assert report.error is None
    return [f for f in report.findings if f.kind == "contract" and f.rule == "local-initcheck"]


def test_reading_a_never_written_ub_tensor_is_a_finding():
    assert _rules(_run(_module(_add_of(None)))) == set()  # with initcheck=False: not checked
    # the Add carries the undefined lanes; storing them is the finding, naming the op that computed them
    (f,) = _initcheck(_module(_add_of(None)))
    assert "ascendc.data_copy %zg" in f.op and RULES["local-initcheck"].doc in f.message
    assert ("DataCopy reads UB bytes [2048, 3072), of which [2048, 3072) hold values Add computed from local "
            "memory never written") in f.message
    # half of it written: the other half is reported
    (f,) = _initcheck(_module(_add_of(128)))
    assert "of which [2560, 3072) hold values Add" in f.message
    assert _initcheck(_module(_add_of(256))) == []


def test_the_initcheck_default_applies_to_simulators_made_without_the_keyword():
    text = _module(_add_of(None))
    args = lambda: [np.arange(256).astype(np.float32), np.zeros(256, np.float32)]  # noqa: E731
    before = get_initcheck_default()
    try:
        set_initcheck_default(True)
        sim = Simulator(parse_module(text), hazards="ignore")
        assert [f.rule for f in sim.run("host", args(), raise_errors=False).findings] == ["local-initcheck"]
        off = Simulator(parse_module(text), hazards="ignore", initcheck=False)  # the opt-out
        assert off.run("host", args(), raise_errors=False).findings == []
        set_initcheck_default(False)
        assert Simulator(parse_module(text), hazards="ignore").run("host", args(), raise_errors=False).findings == []
    finally:
        set_initcheck_default(before)


def test_reading_past_a_rounded_down_copy_is_a_finding():
    # 250 floats round down to 248 on the way in: the Add computes the last two lanes from never-written
    # bytes, and a DataCopyPad of exactly 1000 bytes stores them
    body = _add(256).replace("%n = arith.constant 256 : index", "%n = arith.constant 250 : index").replace(
        "ascendc.data_copy %zg, %zb, %n : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>",
        "%one = arith.constant 1 : index\n    %nb = arith.constant 1000 : index\n"
        "    ascendc.data_copy_pad %zg, %zb, {%one, %nb, %c0, %c0} : !ascendc.global_tensor<f32>, "
        "!ascendc.local_tensor<f32>")
    (f,) = _initcheck(_module(body))
    assert "DataCopyPad reads UB bytes [2048, 3048), of which [3040, 3048) hold values Add" in f.message


def test_lanes_computed_but_never_stored_are_not_findings():
    # 128 floats copied in, the Add runs over 256, only the first 128 results are stored
    body = _add(256).replace("ascendc.data_copy %a, %xg, %n", "%h = arith.constant 128 : index\n"
                             "    ascendc.data_copy %a, %xg, %h").replace("ascendc.data_copy %zg, %zb, %n",
                                                                         "ascendc.data_copy %zg, %zb, %h")
    assert _initcheck(_module(body)) == []
    # stored whole, the 128 lanes computed from never-written bytes are a finding
    (f,) = _initcheck(_module(body.replace("ascendc.data_copy %zg, %zb, %h", "ascendc.data_copy %zg, %zb, %n")))
    assert "DataCopy reads UB bytes [2048, 3072), of which [2560, 3072) hold values Add" in f.message


def _scalar_of(written: bool) -> str:
    """``z = x + s``, the scalar ``s`` read with GetValue from a UB tensor that a Duplicate writes or not."""
    dup = "    ascendc.duplicate %b, %two, %n : !ascendc.local_tensor<f32>, f32\n" if written else ""
    return _add(256).replace("    ascendc.set_flag MTE2_V, %c0", dup + "    ascendc.set_flag MTE2_V, %c0").replace(
        "%zb = ascendc.local_tensor VECOUT", "%b = ascendc.local_tensor VECCALC address 1024 size 256 : "
        "!ascendc.local_tensor<f32>\n    %two = arith.constant 2.0 : f32\n    %zb = ascendc.local_tensor VECOUT"
    ).replace("ascendc.add %zb, %a, %a, %n : !ascendc.local_tensor<f32>",
              "ascendc.set_flag V_S, %c0\n    ascendc.wait_flag V_S, %c0\n"
              "    %s = ascendc.get_value %b[%c0] : !ascendc.local_tensor<f32> -> f32\n"
              "    %s2 = arith.mulf %s, %two : f32\n"
              "    ascendc.set_flag S_V, %c0\n    ascendc.wait_flag S_V, %c0\n"
              "    ascendc.adds %zb, %a, %s2, %n : !ascendc.local_tensor<f32>, f32")


def test_a_scalar_read_from_never_written_ub_is_followed_to_its_use():
    assert _initcheck(_module(_scalar_of(True))) == []
    (f,) = _initcheck(_module(_scalar_of(False)))
    assert "ascendc.data_copy %zg" in f.op
    assert "of which [2048, 3072) hold values GetValue computed from local memory never written" in f.message


def _pad_blocks(read_bytes: int) -> str:
    """8 blocks of 4 bytes copied into the first 4 bytes of 8 consecutive 32 B blocks of UB, then
    ``read_bytes`` of each block copied out: DataCopyPad touches its blocks, not the gaps between them."""
    return """    %t = ascendc.local_tensor VECIN address 0 size 64 : !ascendc.local_tensor<f32>
    %c8 = arith.constant 8 : index
    %c4 = arith.constant 4 : index
    %rb = arith.constant {rb} : index
    ascendc.data_copy_pad %t, %xg, {{%c8, %c4, %c0, %c0}} : !ascendc.local_tensor<f32>, !ascendc.global_tensor<f32>
    ascendc.set_flag MTE2_MTE3, %c0
    ascendc.wait_flag MTE2_MTE3, %c0
    ascendc.data_copy_pad %zg, %t, {{%c8, %rb, %c0, %c0}} : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32>""".format(rb=read_bytes)


def test_data_copy_pad_reads_and_writes_its_blocks_only():
    assert _initcheck(_module(_pad_blocks(4))) == []
    (f,) = _initcheck(_module(_pad_blocks(8)))  # bytes 4-7 of every block were never written
    assert "DataCopyPad reads UB bytes [0, 232), of which [4, 8) were never written" in f.message


