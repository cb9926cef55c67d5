"""Bad options, attributes, cache entries and front-end edges give clear errors; pyasc-opt never
prints a traceback: passes check their input level, internal errors are reported by pass."""

import contextlib
import hashlib
import io
import json
import logging
import re

import numpy as np
import pytest

import pyasc
from pyasc import cache
from pyasc.lowering.levels import InternalPassError, LevelError, apply_pass, check_input_level
from pyasc.lowering.options import OptionError, check_option
from pyasc.lowering.pipeline import CompileOptions


def opt(tmp_path, text: str, *args: str) -> tuple[int, str]:
    """Run pyasc-opt on ``text`` in-process: (exit code, stderr + stdout)."""
    from pyasc.opt import main

    f = tmp_path / "in.mlir"
    f.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(f), *args])
        except SystemExit as e:
            code = e.code
    return code, err.getvalue() + out.getvalue()


# -- options ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, value, message", [
    ("cores", 1.5, r"'cores' must be an integer in 1\.\.65535; got 1\.5 \(float\)"),
    ("cores", True, r"'cores' must be an integer in 1\.\.65535; got True \(bool\)"),
    ("cores", 10**6, r"'cores' must be an integer in 1\.\.65535; got 1000000"),
    ("cores", "four", r"'cores' must be an integer in 1\.\.65535; got 'four'"),
    ("cores", 0, r"'cores' must be an integer in 1\.\.65535; got 0"),
    ("buffers", 2.5, r"'buffers' must be an integer in 1\.\.4; got 2\.5"),
    ("buffers", 5, r"'buffers' must be an integer in 1\.\.4; got 5"),
    ("tile_size", -1, r"'tile_size' must be an integer in 1\.\.\d+; got -1"),
    ("tile_size", 2.0, r"'tile_size' must be an integer in 1\.\.\d+; got 2\.0"),
    ("sync_style", "fast", r"'sync_style' must be one of queue, flags; got 'fast'"),
    ("target", "ascend999", r"'target' must be one of .*ascend910b4.*; got 'ascend999'"),
])
def test_bad_options_are_refused_with_the_allowed_range(name, value, message):
    with pytest.raises(OptionError, match=message):
        CompileOptions(**{name: value})
    with pytest.raises(pyasc.PyascError, match=message):
        pyasc.jit(lambda x: x + 1.0, options={name: value})


def test_good_options_pass():
    for name, value in (("cores", 1), ("cores", 65535), ("buffers", 4), ("tile_size", 1024),
                        ("sync_style", "flags")):
        check_option(name, value, "ascend910b4")
    assert CompileOptions(cores=8, buffers=1).cores == 8


def test_pass_options_from_pyasc_opt_are_checked(tmp_path):
    code, text = opt(tmp_path, "func.func @f() {\n  func.return\n}\n", "-p", "compile{cores=-3}")
    assert code == 1 and "'cores' must be an integer in 1..65535; got -3" in text and "Traceback" not in text


# -- input levels and internal errors ---------------------------------------------------------------

ASCBUF = """func.func @k(%x: memref<1024xf32>) attributes {asctile.kernel, asctile.block_dim = 1 : i64} {
  %a = ascbuf.alloc slots 1 : memref<1x1024xf32, #ascbuf.space<ub>>
  func.return
}
"""


def test_a_pass_given_a_later_level_names_itself_the_op_and_the_level(tmp_path):
    code, text = opt(tmp_path, ASCBUF, "-p", "asctensor-fuse")
    assert code == 1 and "Traceback" not in text
    assert "pass asctensor-fuse expects its input at the asctensor level" in text
    assert "ascbuf.alloc" in text and "later level" in text


def test_to_ascendc_needs_planned_buffers(tmp_path):
    code, text = opt(tmp_path, ASCBUF, "-p", "convert-ascbuf-to-ascendc")
    assert code == 1 and "has no planned offset: run plan-memory first" in text and "Traceback" not in text


@pytest.mark.parametrize("attrs, message", [
    ("asctile.kernel", "has no asctile.block_dim attribute"),
    ("asctile.kernel, asctile.block_dim = 0 : i64", "asctile.block_dim (the cores a kernel runs on) must be an "
     "integer in 1..65535"),
    ("asctile.kernel, asctile.block_dim = 1 : i64, asctile.buffers = 2.0 : f64", "asctile.buffers"),
    ("asctile.kernel, asctile.block_dim = 2.5 : f32", "asctile.block_dim"),
])
def test_kernel_attributes_are_checked(tmp_path, attrs, message):
    text = ASCBUF.replace("asctile.kernel, asctile.block_dim = 1 : i64", attrs)
    code, out = opt(tmp_path, text, "-p", "plan-memory")
    assert code == 1 and message in out and "Traceback" not in out


def test_level_check_directly():
    from pyasc.runtime.simulator import parse_module

    module = parse_module(ASCBUF)
    check_input_level("plan-memory", "ascbuf", module)  # at its level
    with pytest.raises(LevelError, match="pass tile-movement expects its input at the asctensor level, but "
                       "`%a = ascbuf.alloc .*` is a ascbuf op, of a later level"):
        check_input_level("tile-movement", "asctensor", module)


def test_every_pass_declares_its_input_level():
    from pyasc.lowering import get_all_passes
    from pyasc.lowering.levels import INPUT_LEVELS

    for name, factory in get_all_passes().items():
        assert getattr(factory(), "INPUT_LEVEL", None) in INPUT_LEVELS, name


def test_an_exception_inside_a_pass_is_an_internal_error_naming_it():
    from dataclasses import dataclass

    from xdsl.passes import ModulePass

    from pyasc.dialects import make_context
    from pyasc.runtime.simulator import parse_module

    @dataclass(frozen=True)
    class Broken(ModulePass):
        name = "broken"

        def apply(self, ctx, op):
            min([])

    with pytest.raises(InternalPassError, match="internal error in pass broken: ValueError: min"):
        apply_pass(Broken(), make_context(), parse_module("func.func @f() {\n  func.return\n}\n"))


def test_pyasc_opt_prints_internal_errors_without_traceback(tmp_path, monkeypatch):
    import pyasc.lowering.plan_memory as pm

    def boom(self, ctx, op):
        raise KeyError("asctile.block_dim")

    monkeypatch.setattr(pm.PlanMemoryPass, "apply", boom)
    code, text = opt(tmp_path, ASCBUF, "-p", "plan-memory")
    assert code == 2 and "Traceback" not in text
    assert "internal error in pass plan-memory: KeyError" in text and "please report it" in text


@pytest.mark.parametrize("text, message", [
    ('%x = "test.op"() {v = array<i8: 300>} : () -> ()', "300"),
    ('%x = "test.op"() {v = array<i32: 99999999999999999999>} : () -> ()', "99999999999999999999"),
    ('%x = "test.op"() {v = dense<70000> : tensor<2xi16>} : () -> ()', "70000"),
])
def test_out_of_range_integers_are_diagnostics(tmp_path, text, message):
    code, out = opt(tmp_path, text + "\n")
    assert code == 1 and "Traceback" not in out and "internal error" not in out, out


# -- the disk cache -----------------------------------------------------------------------------------

def _scale(x):
    return pyasc.sigmoid(x) * 3.0


@pytest.mark.parametrize("damage", ["meta_list", "meta_field", "bool_format", "not_object"])
def test_bad_cache_entries_are_discarded_logged_and_recompiled(tmp_path, monkeypatch, caplog, damage):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))
    cache.clear()
    x = pyasc.from_numpy(np.linspace(-2, 2, 16, dtype=np.float32))
    pyasc.jit(_scale)(x)
    (path,) = sorted((tmp_path / "cache").rglob("*.json"))
    entry = json.loads(path.read_text())
    if damage == "meta_list":
        entry["meta"] = ["not", "a", "dict"]
    elif damage == "meta_field":
        entry["meta"]["outputs"] = "float32[16]"
    elif damage == "bool_format":
        entry["format"] = True
    else:
        entry = [entry]
    path.write_text(json.dumps(entry))
    with caplog.at_level(logging.WARNING, logger="pyasc"):
        out = pyasc.jit(_scale)(x).numpy()
    want = 3.0 / (1.0 + np.exp(-x.numpy()))
    np.testing.assert_allclose(out, want, rtol=1e-5)
    assert cache.stats()["rejected"] == 1 and cache.stats()["stores"] == 2
    assert any("discarding bad entry" in r.getMessage() for r in caplog.records)
    good = json.loads(path.read_text())
    cache.check_entry(good, good["key"])  # rewritten valid
    assert good["sha256"] == hashlib.sha256(path.with_suffix(".pkl").read_bytes()).hexdigest()


# -- front-end edges ------------------------------------------------------------------------------

def test_float_of_a_traced_value_runs_the_call_eagerly_and_cannot_be_compiled():
    """``float(t)`` and ``int(t)`` of a traced tensor, as ``bool(t)`` and ``t.item()``: a call runs the function
    eagerly (as ``torch.compile`` breaks its graph there); compiling it says the value is not known."""
    @pyasc.jit
    def f(x):
        return x * float(x[0, 0]) + int(x[0, 1])

    x = np.arange(32, dtype=np.float32).reshape(4, 8) + 2.5
    np.testing.assert_array_equal(f(x).numpy(), x * x[0, 0] + int(x[0, 1]))
    with pytest.raises(pyasc.PyascError, match="float\\(\\) of a traced tensor.*traced values have no value"):
        f.lower(pyasc.tensor(x))
    assert float(pyasc.from_numpy(np.array([[2.5]], np.float32))) == 2.5
    assert int(pyasc.from_numpy(np.array([7], np.int32))) == 7


def test_a_jit_function_without_tensor_inputs_is_a_clear_error():
    @pyasc.jit
    def g():
        return pyasc.ones(4, 8) * 2.0

    with pytest.raises(pyasc.PyascError, match="passes none; pass at least one tensor"):
        g()


def test_a_shape_larger_than_device_memory_is_refused_before_allocation(tmp_path, capsys):
    from pyasc.cli import main
    from pyasc.runtime_api import check_fits

    with pytest.raises(pyasc.PyascError, match=r"do not fit in device memory \(4096\.00 GiB of \d+\.00 GiB"):
        check_fits([(1048576, 1048576)], [4])
    src = tmp_path / "f.py"
    src.write_text("import pyasc\n\ndef f(x):\n    return x + 1.0\n")
    code = main(["run", f"{src}:f", "--shape", "1048576x1048576"])
    err = capsys.readouterr().err
    assert code != 0 and "do not fit in device memory (4096.00 GiB of" in err and "Traceback" not in err


GIANT = (1 << 20, 1 << 20)
GIANT_MESSAGE = (r"a (float32|float16|int32) tensor of shape \(1048576, 1048576\) does not fit in device memory "
                 r"\(\d+\.00 GiB of \d+\.00 GiB on ascend")


def _giant_view(dtype=np.float32):
    return np.broadcast_to(np.zeros(1, dtype), GIANT)  # 4 TiB that take no memory


@pytest.mark.parametrize("op, make", [
    ("zeros", lambda: pyasc.zeros(*GIANT)),
    ("ones", lambda: pyasc.ones(GIANT, dtype=pyasc.float16)),
    ("empty", lambda: pyasc.empty(GIANT)),
    ("full", lambda: pyasc.full(GIANT, 2.0)),
    ("rand", lambda: pyasc.rand(*GIANT)),
    ("randn", lambda: pyasc.randn(*GIANT)),
    ("eye", lambda: pyasc.eye(1 << 20)),
    ("zeros", lambda: pyasc.zeros_like(_giant_view())),
    ("tensor", lambda: pyasc.tensor(_giant_view())),
    ("from_numpy", lambda: pyasc.from_numpy(_giant_view())),
    ("arange", lambda: pyasc.arange(0, 1 << 40)),
])
def test_creating_a_tensor_larger_than_device_memory_is_refused_before_allocation(op, make):
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(pyasc.PyascError, match=rf"^pyasc\.{op}: ") as e:
            make()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "does not fit in device memory" in str(e.value)
    if op != "arange":
        assert re.search(GIANT_MESSAGE, str(e.value)), str(e.value)
    assert peak < 2**20, f"{peak} B allocated before the error"  # NumPy allocations are traced too
    assert pyasc.zeros(4, 8).numpy().sum() == 0 and pyasc.ones(2).numpy().sum() == 2  # small ones still fine


def test_a_result_larger_than_device_memory_is_refused_before_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))
    row, col = pyasc.ones(1, 1 << 20), pyasc.ones(1 << 20, 1)  # 4 MiB each, their sum 4 TiB
    f = pyasc.jit(lambda a, b: a + b)
    with pytest.raises(pyasc.PyascError, match="the result, " + GIANT_MESSAGE):
        f(row, col)
    with pytest.raises(pyasc.PyascError, match="the result, " + GIANT_MESSAGE):
        row + col  # eager
    assert f.cache_size() == 0  # nothing was compiled
    np.testing.assert_array_equal((pyasc.ones(1, 8) + pyasc.ones(4, 1)).numpy(), np.full((4, 8), 2.0, np.float32))


# -- verifiers ---------------------------------------------------------------------------------------

LAUNCH = """func.func @k(%a: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = BD} {
  func.return
}
func.func @h(%x: memref<64xf32>) {
  ascendc.launch @k<<<4>>>(%x) : memref<64xf32>
  func.return
}
"""


@pytest.mark.parametrize("block_dim, message", [
    ("0 : i64", "ascendc.block_dim = 0 : i64; ascendc.block_dim (the cores a kernel runs on) must be an integer in "
     "1..65535"),
    ("2.0 : f32", "ascendc.block_dim (the cores a kernel runs on) must be an integer"),
    ("2 : i64", "launch of @k on 4 cores, but the kernel declares ascendc.block_dim = 2"),
    ("4 : i64", None),
])
def test_launch_and_kernel_agree(tmp_path, block_dim, message):
    code, out = opt(tmp_path, LAUNCH.replace("BD", block_dim))
    assert "Traceback" not in out
    if message is None:
        assert code == 0, out
    else:
        assert code == 1 and message in out


def test_a_launch_passes_the_arguments_its_kernel_takes(tmp_path):
    two = LAUNCH.replace("BD", "4 : i64").replace("(%a: !ascendc.gm_addr)", "(%a: !ascendc.gm_addr, %b: !ascendc.gm_addr)")
    code, out = opt(tmp_path, two)
    assert code == 1 and "launch of @k passes 1 arguments, the kernel takes 2" in out and "Traceback" not in out


@pytest.mark.parametrize("address, size, ok", [(0, 1024, True), (196576, 8, True), (196608, 8, False),
                                               (0, 10**6, False)])
def test_local_tensor_addresses_stay_within_their_memory(tmp_path, address, size, ok):
    text = ("func.func @k() attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {\n"
            f"  %t = ascendc.local_tensor VECCALC address {address} size {size} : !ascendc.local_tensor<f32>\n"
            "  func.return\n}\n")
    code, out = opt(tmp_path, text)
    assert "Traceback" not in out
    assert (code == 0) == ok, out
    if not ok:
        assert "past the 196608 B of UB" in out


# -- compile limits ----------------------------------------------------------------------------------

@pytest.mark.parametrize("limit, message", [({"ops": 20}, "more than 20 operations, the limit"),
                                            ({"seconds": 1e-9}, "more than the limit of 1e-09 s")])
def test_compile_limits_stop_a_compilation_with_a_clear_error(limit, message, tmp_path, monkeypatch):
    from pyasc.lowering import pipeline

    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))  # compiled here, not found on disk

    saved = (pipeline.LIMITS.seconds, pipeline.LIMITS.ops)
    pipeline.set_compile_limits(**limit)
    try:
        f = pyasc.jit(lambda x: pyasc.exp(x) * 2.0 + x)
        with pytest.raises(pyasc.PyascError, match=message):
            f(np.ones((8, 64), np.float32))
    finally:
        pipeline.set_compile_limits(*saved)
    with pytest.raises(OptionError, match="must be a positive number"):
        pipeline.set_compile_limits(ops=0)
    out = pyasc.jit(lambda x: pyasc.exp(x) * 2.0 + x)(np.ones((8, 64), np.float32)).numpy()
    np.testing.assert_allclose(out, np.exp(1.0) * 2.0 + 1.0, rtol=1e-5)


def test_dense_array_integers_out_of_range_in_custom_syntax(tmp_path):
    text = ("func.func @f(%x: tensor<4x8xf16>) -> tensor<2x4xf16> {\n"
            "  %s = asctensor.strided_slice %x offsets [1, 99999999999999999999] strides [2, 3] : "
            "tensor<4x8xf16> -> tensor<2x4xf16>\n  func.return %s : tensor<2x4xf16>\n}\n")
    code, out = opt(tmp_path, text, "-p", "compile")
    assert code == 1 and "out of range" in out and "Traceback" not in out and "internal error" not in out


def test_unknown_target_of_a_module_is_a_diagnostic(tmp_path):
    text = ('builtin.module attributes {asc.target = #asc.target<"ascend310p">} {\n'
            "  func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {\n    func.return %x : tensor<8xf32>\n  }\n}\n")
    code, out = opt(tmp_path, text, "-p", "compile")
    assert code == 1 and "Traceback" not in out and "internal error" not in out, out
    assert "ascend310p" in out


def test_a_bufferized_host_calls_kernels_only(tmp_path):
    text = ("func.func private @f_k0(memref<1024xf32>, memref<1024xf32>)\n"
            "func.func @f(%x: memref<1024xf32>, %y: memref<1024xf32>) {\n"
            "  func.call @f_k0(%x, %y) : (memref<1024xf32>, memref<1024xf32>) -> ()\n  func.return\n}\n")
    code, out = opt(tmp_path, text, "-p", "convert-ascbuf-to-ascendc")
    assert code == 1 and "calls @f_k0, which is not a kernel of the module" in out and "Traceback" not in out


def test_outlined_kernels_never_redefine_a_symbol_of_the_module():
    """A module holding an outlined kernel (``f_im2col0``) next to a host whose convolution would be
    outlined under the same name compiles: the new kernel takes a free name."""
    from pathlib import Path

    from pyasc.opt import main

    src = Path(__file__).parents[1] / "lit" / "pipelines" / "cube" / "tile-im2col.mlir"
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        try:
            main([str(src), "-p", "compile"])
            code = 0
        except SystemExit as e:
            code = e.code
    text = buf.getvalue()
    assert code == 0, err.getvalue()
    names = re.findall(r"func\.func @(\w+)", text)
    assert len(names) == len(set(names)) and {"f_im2col0", "f_im2col0_1", "f"} <= set(names)


# -- fixed-point loops -------------------------------------------------------------------------------

EXP_MUL = """func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = math.exp %x : tensor<4x8xf32>
  asctensor.primal "exp"(%x) -> (%e) attrs "{}" layout "['%']" : (tensor<4x8xf32>) -> (tensor<4x8xf32>)
  %p = arith.mulf %e, %y : tensor<4x8xf32>
  asctensor.primal "mul"(%e, %y) -> (%p) attrs "{}" layout "['%', '%']" : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>)
  func.return %p : tensor<4x8xf32>
}
"""
SIGMOID_OF_TRANSPOSE = """func.func @f(%x: tensor<8x16xf32>) -> tensor<16x8xf32> {
  %t = asctensor.transpose %x permutation = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = asctensor.sigmoid %t : tensor<16x8xf32>
  func.return %s : tensor<16x8xf32>
}
"""


def _sigmoid_again(inner, max_row):
    """A decomposition that never settles: each sigmoid becomes another sigmoid."""
    from xdsl.rewriter import InsertPoint, Rewriter

    from pyasc.dialects import asctensor

    if not isinstance(inner, asctensor.SigmoidOp):
        return None
    new = asctensor.SigmoidOp(inner.operands[0])
    Rewriter.insert_op(new, InsertPoint.before(inner))
    return new.results[0]


@pytest.mark.parametrize("module, target, broken, program, pipeline, message", [
    ("pyasc.lowering.asctensor_sink_transposes", "_compose", lambda op: True, SIGMOID_OF_TRANSPOSE,
     "asctensor-sink-transposes", "asctensor-sink-transposes: RuntimeError: the rewrites did not settle"),
    ("pyasc.lowering.asctensor_decompose", "_decompose", _sigmoid_again, SIGMOID_OF_TRANSPOSE,
     "asctensor-decompose", "asctensor-decompose: RuntimeError: the decompositions did not settle after 64 rounds"),
    ("pyasc.autograd.program", "resolve", lambda op, target: None, EXP_MUL, "asctensor-autodiff{wrt=0,1}",
     "asctensor-autodiff: RuntimeError: the gradient of asctensor.vjp was not resolved"),
])
def test_a_rewrite_loop_that_would_never_settle_is_an_internal_error(tmp_path, monkeypatch, module, target, broken,
                                                                       program, pipeline, message):
    """The pipeline's loops "until nothing changes" are bounded: a rewrite that never settles (a bug) stops
    with an internal error naming the pass, rather than running forever."""
    import importlib

    monkeypatch.setattr(importlib.import_module(module), target, broken)
    code, text = opt(tmp_path, program, "-p", pipeline)
    assert code != 0
    assert "internal error in pass " + message in text, text
    assert "Traceback" not in text
