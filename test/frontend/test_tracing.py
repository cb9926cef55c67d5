"""Tracing into the asctensor level: op selection, broadcast/cast/splat insertion, promotion,
source locations, results and arguments."""

import sys

import numpy as np
import pytest
from xdsl.dialects import arith, func

import pyasc
from pyasc.dialects import asctensor
from pyasc.dialects.target import TargetAttr

HERE = "test_tracing.py"


def ops_of(module):
    (fn,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    return list(fn.body.block.ops)


def names(module):
    return [op.name for op in ops_of(module)]


def t(*shape, dtype=pyasc.float32):
    return pyasc.zeros(*shape, dtype=dtype)


def test_quickstart_text():
    def quickstart(x, y):
        return pyasc.gelu(x * y + 1.5)

    line = sys._getframe().f_lineno - 2
    x = t(4096, 1024, dtype=pyasc.float16)
    text = str(pyasc.jit(quickstart).trace(x, x))
    loc = f'{{asc.loc = "{HERE}:{line}"}}'
    expected = f"""builtin.module attributes {{asc.target = #asc.target<"ascend910b2">}} {{
  func.func @quickstart(%x: tensor<4096x1024xf16>, %y: tensor<4096x1024xf16>) -> tensor<4096x1024xf16> {{
    %0 = arith.mulf %x, %y {loc} : tensor<4096x1024xf16>
    %1 = asctensor.full 1.500000e+00 : f16 {loc} -> tensor<4096x1024xf16>
    %2 = arith.addf %0, %1 {loc} : tensor<4096x1024xf16>
    %3 = asctensor.gelu %2 approximate none {loc} : tensor<4096x1024xf16>
    func.return {{asc.loc = "{HERE}:{line - 1}"}} %3 : tensor<4096x1024xf16>
  }}
}}"""
    assert text == expected


def test_scalar_operand_is_a_full_op():
    x = t(8192, 8192, dtype=pyasc.float16)
    module = pyasc.jit(lambda x: x * 0.5).trace(x)
    text = str(module)
    assert "asctensor.full 5.000000e-01 : f16" in text
    const = ops_of(module)[0]
    assert isinstance(const, asctensor.FullOp)
    assert const.scalar == 0.5 and const.result.type.get_shape() == (8192, 8192)
    module.verify()


def test_target_attribute_from_options():
    f = pyasc.jit(lambda x: x + x, options={"target": "ascend910b4"})
    module = f.trace(t(4))
    assert module.attributes["asc.target"] == TargetAttr("ascend910b4")


@pytest.mark.parametrize("op,dtype,expected", [
    (lambda a, b: a + b, pyasc.float32, "arith.addf"),
    (lambda a, b: a - b, pyasc.float16, "arith.subf"),
    (lambda a, b: a * b, pyasc.bfloat16, "arith.mulf"),
    (lambda a, b: a / b, pyasc.float32, "arith.divf"),
    (lambda a, b: a ** b, pyasc.float32, "math.powf"),
    (pyasc.maximum, pyasc.float16, "arith.maximumf"),
    (pyasc.minimum, pyasc.float32, "arith.minimumf"),
    (lambda a, b: a + b, pyasc.int32, "arith.addi"),
    (lambda a, b: a - b, pyasc.int32, "arith.subi"),
    (lambda a, b: a * b, pyasc.int32, "arith.muli"),
    (pyasc.maximum, pyasc.int32, "arith.maxsi"),
    (pyasc.minimum, pyasc.int32, "arith.minsi"),
])
def test_binary_op_selection(op, dtype, expected):
    module = pyasc.jit(op).trace(t(2, 3, dtype=dtype), t(2, 3, dtype=dtype))
    assert names(module) == [expected, "func.return"]


@pytest.mark.parametrize("fn,expected", [
    (pyasc.exp, "math.exp"), (pyasc.log, "math.log"), (pyasc.sqrt, "math.sqrt"),
    (pyasc.rsqrt, "math.rsqrt"), (pyasc.abs, "math.absf"), (pyasc.tanh, "math.tanh"),
    (pyasc.erf, "math.erf"), (pyasc.relu, "asctensor.relu"), (pyasc.sigmoid, "asctensor.sigmoid"),
    (pyasc.gelu, "asctensor.gelu"), (pyasc.neg, "arith.negf"), (lambda x: -x, "arith.negf"),
    (abs, "math.absf"),
])
@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16, pyasc.bfloat16])
def test_unary_op_selection(fn, expected, dtype):
    module = pyasc.jit(fn).trace(t(5, dtype=dtype))
    assert names(module) == [expected, "func.return"]
    assert str(ops_of(module)[0].results[0].type) == f"tensor<5x{dtype.short}>"


def test_gelu_tanh_attribute():
    module = pyasc.jit(lambda x: pyasc.gelu(x, approximate="tanh")).trace(t(4))
    (g, _) = ops_of(module)
    assert isinstance(g, asctensor.GeluOp)
    assert "approximate tanh" in str(g)


def test_int_neg_is_subi_from_zero_and_relu_allows_int():
    module = pyasc.jit(lambda x: pyasc.relu(-x)).trace(t(4, dtype=pyasc.int32))
    text = str(module)
    assert names(module) == ["asctensor.full", "arith.subi", "asctensor.relu", "func.return"]
    assert "asctensor.full 0 : i32" in text and "-> tensor<4xi32>" in text


def test_broadcast_insertion_numpy_rules():
    module = pyasc.jit(lambda a, b: a + b).trace(t(3, 1), t(4))
    ops = ops_of(module)
    assert names(module) == ["asctensor.broadcast", "asctensor.broadcast", "arith.addf", "func.return"]
    assert str(ops[0].result.type) == "tensor<3x4xf32>" and ops[0].input.name_hint == "a"
    assert str(ops[1].result.type) == "tensor<3x4xf32>" and ops[1].input.name_hint == "b"
    assert ops[2].lhs is ops[0].result and ops[2].rhs is ops[1].result


def test_same_shape_needs_no_broadcast_and_rank0():
    module = pyasc.jit(lambda a, b: a * b).trace(t(2, 3), t(()))
    assert names(module) == ["asctensor.broadcast", "arith.mulf", "func.return"]
    assert "tensor<f32> -> tensor<2x3xf32>" in str(module)


def test_cast_insertion_tensor_tensor_promotion():
    module = pyasc.jit(lambda a, b: a + b).trace(t(4, dtype=pyasc.float16), t(4, dtype=pyasc.bfloat16))
    text = str(module)
    assert names(module) == ["asctensor.cast", "asctensor.cast", "arith.addf", "func.return"]
    assert "tensor<4xf16> -> tensor<4xf32>" in text and "tensor<4xbf16> -> tensor<4xf32>" in text
    assert "-> tensor<4xf32>" in text.splitlines()[1]


def test_cast_before_broadcast_and_casts_are_shared():
    module = pyasc.jit(lambda a, b: (a + b, a * b)).trace(t(4, dtype=pyasc.int32), t(3, 4))
    assert names(module) == ["asctensor.cast", "asctensor.broadcast", "arith.addf", "arith.mulf",
                             "func.return"]
    assert "tensor<4xi32> -> tensor<4xf32>" in str(module)


def test_scalar_does_not_promote_float_tensor():
    module = pyasc.jit(lambda x: x * 2.5 + 1).trace(t(2, 2, dtype=pyasc.bfloat16))
    text = str(module)
    assert "asctensor.cast" not in text
    assert "asctensor.full 2.500000e+00 : bf16" in text
    assert "asctensor.full 1.000000e+00 : bf16" in text


def test_int_tensor_with_float_scalar_gives_float32():
    module = pyasc.jit(lambda x: x + 0.5).trace(t(3, dtype=pyasc.int32))
    assert names(module) == ["asctensor.cast", "asctensor.full", "arith.addf", "func.return"]
    assert "asctensor.full 5.000000e-01 : f32" in str(module)


def test_int_tensor_with_int_scalar_stays_int():
    module = pyasc.jit(lambda x: 3 - x).trace(t(3, dtype=pyasc.int32))
    assert names(module) == ["asctensor.full", "arith.subi", "func.return"]
    assert "asctensor.full 3 : i32" in str(module)


def test_int_true_division_casts_to_float32():
    module = pyasc.jit(lambda a, b: a / b).trace(t(3, dtype=pyasc.int32), t(3, dtype=pyasc.int32))
    assert names(module) == ["asctensor.cast", "asctensor.cast", "arith.divf", "func.return"]
    assert str(ops_of(module)[2].result.type) == "tensor<3xf32>"


def test_pow_with_scalar_and_reflected_pow():
    module = pyasc.jit(lambda x: (x ** 2, 2.0 ** x)).trace(t(4, dtype=pyasc.float16))
    ops = ops_of(module)
    assert names(module) == ["asctensor.full", "math.powf", "asctensor.full", "math.powf", "func.return"]
    assert ops[1].lhs.name_hint == "x" and ops[1].rhs is ops[0].result
    assert ops[3].lhs is ops[2].result and ops[3].rhs.name_hint == "x"


def test_reflected_operators_keep_operand_order():
    module = pyasc.jit(lambda x: (1 - x, 2 / x)).trace(t(4))
    ops = ops_of(module)
    assert isinstance(ops[1], arith.SubfOp) and ops[1].lhs is ops[0].result
    assert isinstance(ops[3], arith.DivfOp) and ops[3].lhs is ops[2].result


def test_explicit_cast_and_methods():
    module = pyasc.jit(lambda x: x.half().float().to("bfloat16").int()).trace(t(4))
    assert names(module) == ["asctensor.cast"] * 4 + ["func.return"]
    assert pyasc.jit(lambda x: x.to(pyasc.float32) + 0).trace(t(4)) is not None
    assert names(pyasc.jit(lambda x: pyasc.cast(x, "float32")).trace(t(4))) == ["func.return"]


def test_every_op_has_a_location_of_this_file():
    def program(x, y):
        a = x + y * 2                   # line +1
        return pyasc.sigmoid(a) - x.to("float16")

    first = program.__code__.co_firstlineno
    module = pyasc.jit(program).trace(t(3, 4), t(4))
    locs = {op.name: op.attributes["asc.loc"].data for op in ops_of(module)}
    for op in ops_of(module):
        assert "asc.loc" in op.attributes, op.name
        assert op.attributes["asc.loc"].data.startswith(HERE + ":")
    assert locs["arith.mulf"] == f"{HERE}:{first + 1}"
    assert locs["asctensor.sigmoid"] == f"{HERE}:{first + 2}"
    assert locs["func.return"] == f"{HERE}:{first}"


def test_tuple_results_and_function_type():
    module = pyasc.jit(lambda a, b: (a + b, a.to("float16"))).trace(t(2), t(2))
    (fn,) = module.ops
    assert [str(r) for r in fn.function_type.outputs] == ["tensor<2xf32>", "tensor<2xf16>"]
    assert fn.sym_name.data == "lambda"


def test_static_number_arguments_are_baked_in_and_keyed():
    f = pyasc.jit(lambda x, s: x * s)
    m1 = f.trace(t(2), 3.0)
    assert "asctensor.full 3.000000e+00" in str(m1)
    assert len(list(m1.ops)[0].body.block.args) == 1
    l1 = f.lower(t(2, dtype=pyasc.int32), 3)
    l2 = f.lower(t(2, dtype=pyasc.int32), 3.0)
    assert l1.outputs[0].dtype is pyasc.int32 and l2.outputs[0].dtype is pyasc.float32


def test_numpy_arrays_are_tensor_arguments():
    module = pyasc.jit(lambda x: x + 1).trace(np.zeros((2, 3), np.float16))
    assert "tensor<2x3xf16>" in str(module)


def test_concrete_tensor_inside_trace_becomes_a_lifted_parameter():
    """A non-uniform concrete tensor is passed as an extra parameter after the inputs (kernels
    read it from global memory); a uniform one is a splat."""
    bias = pyasc.tensor([1.0, 2.0, 3.0])
    lowered = pyasc.jit(lambda x: x + bias + pyasc.ones(3)).lower(t(2, 3))
    text = str(lowered.traced)
    assert "%const0: tensor<3xf32>" in text and "asctensor.broadcast" in text
    assert "asctensor.full" in text and "dense<" not in text
    assert len(lowered.constants) == 1 and lowered.constants[0].tolist() == [1.0, 2.0, 3.0]
    assert [str(s) for s in lowered.inputs] == ["float32[2, 3]"]


def test_trace_is_verified_and_parses_back():
    from xdsl.parser import Parser

    from pyasc.lowering.pipeline import make_context

    module = pyasc.jit(lambda a, b: pyasc.gelu(a / b - 1, approximate="tanh")).trace(
        t(8, 1, dtype=pyasc.float16), t(8, dtype=pyasc.int32))
    text = str(module)
    reparsed = Parser(make_context(), text).parse_module()
    reparsed.verify()
    assert str(reparsed) == text


def test_traced_tensor_metadata():
    seen = {}

    def f(x):
        seen["shape"], seen["dtype"], seen["ndim"], seen["numel"] = x.shape, x.dtype, x.ndim, x.numel()
        seen["traced"], seen["repr"] = x.is_traced, repr(x)
        return x

    pyasc.jit(f).trace(t(2, 5, dtype=pyasc.bfloat16))
    assert seen == {"shape": (2, 5), "dtype": pyasc.bfloat16, "ndim": 2, "numel": 10, "traced": True,
                    "repr": "Tensor(traced, shape=(2, 5), dtype=pyasc.bfloat16)"}


def test_lowered_as_text_traced_level():
    lowered = pyasc.jit(lambda x: x + 1).lower(t(4))
    assert lowered.as_text("traced") == str(lowered.traced)
    with pytest.raises(pyasc.PyascError, match="unknown level 'nope'"):
        lowered.as_text("nope")


def test_nested_results_keep_their_nesting():
    a = pyasc.tensor(np.array([1.0, 2.0, 3.0], np.float32))
    f = pyasc.jit(lambda x, y: (x + 1, [x * y, (y, x - y)]))
    for _ in range(2):  # compiled, then the cached program's fast path
        r = f(a, a * 2)
        assert type(r) is tuple and type(r[1]) is list and type(r[1][1]) is tuple
        np.testing.assert_array_equal(r[1][1][1].numpy(), [-1.0, -2.0, -3.0])
        np.testing.assert_array_equal(r[1][0].numpy(), [2.0, 8.0, 18.0])
