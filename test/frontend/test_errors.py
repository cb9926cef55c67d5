"""User mistakes raise PyascError naming the op, the shapes/dtypes and the user's source line."""

import sys

import numpy as np
import pytest

import pyasc
from pyasc import PyascError

HERE = "test_errors.py"


def here() -> str:
    """``test_errors.py:LINE`` of the caller's next line."""
    return f"{HERE}:{sys._getframe(1).f_lineno + 1}"


def test_non_broadcastable_shapes_traced():
    def f(a, b):
        return a + b

    line = f"{HERE}:{f.__code__.co_firstlineno + 1}"
    with pytest.raises(PyascError) as info:
        pyasc.jit(f).trace(pyasc.zeros(3, 4), pyasc.zeros(5))
    e = info.value
    assert e.op == "add" and e.location == line
    msg = str(e)
    assert msg.startswith("pyasc.add:")
    assert "(3, 4)" in msg and "(5,)" in msg and "do not broadcast" in msg
    assert line in msg
    assert e.shapes == ((3, 4), (5,))


def test_non_broadcastable_shapes_eager(reference_eager):
    x, y = pyasc.zeros(2, 3, dtype=pyasc.float16), pyasc.ones(4, 1, 2)
    with pytest.raises(PyascError) as info:
        loc = here()
        pyasc.maximum(x, y)
    msg = str(info.value)
    assert "pyasc.maximum" in msg and "(2, 3)" in msg and "(4, 1, 2)" in msg and loc in msg
    assert "float16" in msg and "float32" in msg


def test_gelu_on_int32():
    """torch's gelu refuses integers too (exp, log, sigmoid ... of int32 give float32, as in torch)."""
    with pytest.raises(PyascError) as info:
        loc = here()
        pyasc.jit(lambda x: pyasc.gelu(x)).trace(pyasc.zeros(8, dtype=pyasc.int32))
    msg = str(info.value)
    assert info.value.op == "gelu"
    assert "does not support dtype int32" in msg and "int32[8]" in msg and loc in msg
    assert "supported: float32, float16, bfloat16" in msg


@pytest.mark.parametrize("fn,op", [
    (lambda x: pyasc.gelu(x), "gelu"), (lambda x: pyasc.softplus(x), "softplus"),
])
def test_float_only_ops_reject_int32(fn, op):
    with pytest.raises(PyascError, match=rf"pyasc\.{op}: does not support dtype int32"):
        pyasc.jit(fn).trace(pyasc.zeros(2, dtype=pyasc.int32))


def test_string_argument_to_jit():
    """A string is a static argument (as torch.compile takes it); adding it to a tensor is the op's error."""
    with pytest.raises(PyascError) as info:
        loc = here()
        pyasc.jit(lambda x, y: x + y)(pyasc.zeros(2), "hello")
    msg = str(info.value)
    assert "pyasc.add" in msg and "str 'hello'" in msg and loc in msg


def test_list_of_strings_argument_to_jit():
    with pytest.raises(PyascError, match=r"this call passes none; pass at least one tensor"):
        pyasc.jit(lambda x: x)(["a", "b"])
    assert pyasc.jit(lambda x, names: x * len(names))(pyasc.ones(2), ["a", "b"]).numpy().tolist() == [2.0, 2.0]


def test_string_operand_to_op():
    def f(x):
        return x * "2"

    with pytest.raises(PyascError) as info:
        pyasc.jit(f).trace(pyasc.zeros(2))
    assert "pyasc.mul: expected a tensor or a Python number, got str '2'" in str(info.value)
    assert f"{HERE}:{f.__code__.co_firstlineno + 1}" in str(info.value)


def test_string_data_to_tensor():
    with pytest.raises(PyascError, match="pyasc.tensor: cannot make a tensor from"):
        pyasc.tensor(["a", "b"])
    with pytest.raises(PyascError, match="pyasc.tensor: cannot make a tensor from str"):
        pyasc.tensor("abc")


def test_op_needs_a_tensor():
    with pytest.raises(PyascError, match="needs at least one tensor operand"):
        pyasc.add(1, 2)


def test_int_scalar_overflow():
    with pytest.raises(PyascError, match="cannot be converted to int32 without overflow"):
        pyasc.jit(lambda x: x + 2 ** 40).trace(pyasc.zeros(2, dtype=pyasc.int32))


def test_bad_gelu_approximation():
    with pytest.raises(PyascError, match="approximate must be 'none' or 'tanh'"):
        pyasc.jit(lambda x: pyasc.gelu(x, approximate="erf")).trace(pyasc.zeros(2))


@pytest.mark.parametrize("options,match", [
    ({"cores": 0}, r"'cores' must be an integer in 1\.\.65535; got 0"),
    ({"target": "ascend310"}, "unknown target 'ascend310'"),
    ({"sync_style": "magic"}, "sync_style"),
    ({"buffers": 9}, "buffers"),
    ({"tile": 4}, "unknown compile option"),
    ("fast", "options must be a dict"),
])
def test_bad_options(options, match):
    with pytest.raises(PyascError, match=match) as info:
        pyasc.jit(lambda x: x, options=options)
    assert info.value.op == "jit" and HERE in str(info.value)


def test_traced_tensor_has_no_values():
    with pytest.raises(PyascError, match="traced tensor .* has no values"):
        pyasc.jit(lambda x: x.numpy()).trace(pyasc.zeros(2))


def test_traced_tensor_escaping_its_trace():
    kept = []

    def f(x):
        kept.append(x)
        return x + 1

    pyasc.jit(f).trace(pyasc.zeros(2))
    with pytest.raises(PyascError, match="used outside its pyasc.jit function"):
        kept[0] + 1


def test_result_must_be_tensor():
    with pytest.raises(PyascError, match="result 0 must be a tensor, got python int 3"):
        pyasc.jit(lambda x: 3).trace(pyasc.zeros(2))


def test_error_fields():
    e = PyascError("add", "shapes (2,) and (3,) do not broadcast", shapes=[(2,), (3,)],
                   dtypes=["float16", "float32"], location="model.py:7")
    assert (e.op, e.location, e.shapes, e.dtypes) == ("add", "model.py:7", ((2,), (3,)), ("float16", "float32"))
    assert str(e) == ("pyasc.add: shapes (2,) and (3,) do not broadcast [dtypes float16, float32] "
                      "(at model.py:7)")


def test_compiled_program_checks_inputs():
    lowered = pyasc.jit(lambda x: x + 1).lower(pyasc.zeros(4))
    from pyasc.jit import Compiled

    c = Compiled(lowered.traced, lowered.name, lowered.options, lowered.inputs, lowered.outputs, False)
    with pytest.raises(PyascError, match=r"input 0 of lambda is float16\[4\], but the program was compiled for float32\[4\]"):
        c.simulate(pyasc.zeros(4, dtype=pyasc.float16))
    with pytest.raises(PyascError, match="compiled for 1 tensor input"):
        c.simulate(np.zeros(4, np.float32), np.zeros(4, np.float32))
