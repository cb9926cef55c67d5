"""Every user mistake in the issue-6 API is a PyascError naming the op, the shapes/dtypes and the
line of the user's code that made it."""

import pytest

import pyasc

HERE = "test_errors_extra.py"


def _line(fn):
    """The (single) source line of the call inside ``fn``."""
    return fn.__code__.co_firstlineno


CASES = [
    ("reshape", lambda: pyasc.ones(2, 3).reshape(5), ["(2, 3)", "(5,)"]),
    ("view", lambda: pyasc.ones(2, 3).t().view(6), ["(3, 2)"]),
    ("transpose", lambda: pyasc.ones(2, 3).transpose(0, 3), ["(2, 3)"]),
    ("permute", lambda: pyasc.ones(2, 3).permute(1, 1), ["(2, 3)"]),
    ("squeeze", lambda: pyasc.ones(2, 3).squeeze(4), ["(2, 3)"]),
    ("getitem", lambda: pyasc.ones(2, 3)[5], ["(2, 3)"]),
    ("getitem", lambda: pyasc.ones(2, 3)[pyasc.ones(2)], ["float32"]),
    ("cat", lambda: pyasc.cat([pyasc.ones(2, 3), pyasc.ones(2, 4)]), ["(2, 3)", "(2, 4)"]),
    ("stack", lambda: pyasc.stack([pyasc.ones(2), pyasc.ones(3)]), ["(2,)", "(3,)"]),
    ("split", lambda: pyasc.split(pyasc.ones(4, 2), [1, 2]), ["(4, 2)"]),
    ("topk", lambda: pyasc.topk(pyasc.ones(3), 4), ["(3,)"]),
    ("where", lambda: pyasc.where(pyasc.ones(2), 1.0, 0.0), ["float32"]),
    ("gt", lambda: pyasc.ones(2, 3) > pyasc.ones(4), ["(2, 3)", "(4,)"]),
    ("bitwise_and", lambda: pyasc.ones(2, dtype=pyasc.bool) & pyasc.ones(3, dtype=pyasc.bool), ["(2,)", "(3,)"]),
    ("clamp", lambda: pyasc.clamp(pyasc.ones(2)), ["(2,)"]),
    ("norm", lambda: pyasc.norm(pyasc.ones(2, 2), p=-1), ["(2, 2)"]),
    ("norm", lambda: pyasc.norm(pyasc.ones(2, 2, dtype=pyasc.int32)), ["int32"]),
    ("dropout", lambda: pyasc.dropout(pyasc.ones(2), 2.0), ["(2,)"]),
    ("batch_norm", lambda: pyasc.batch_norm(pyasc.ones(2, 3), pyasc.ones(2), pyasc.ones(3)), ["(2, 3)", "(2,)"]),
    ("sub", lambda: pyasc.ones(2, dtype=pyasc.int8) - 1, ["int8"]),
    ("add", lambda: pyasc.ones(2, device=1) + pyasc.ones(2), ["npu:1", "npu:0"]),
    ("zeros", lambda: pyasc.zeros(2, 3, format="NCHW"), ["(2, 3)"]),
    ("tensor", lambda: pyasc.tensor([1000], dtype=pyasc.int8), ["int8"]),
    ("device", lambda: pyasc.device(-1).__enter__(), ["-1"]),
    ("set_target", lambda: pyasc.set_target("ascend999"), ["ascend999"]),
    ("autocast", lambda: pyasc.amp.autocast(pyasc.int32).__enter__(), ["int32"]),
    ("cast", lambda: pyasc.ones(2).to("float64"), ["float64"]),
]


@pytest.mark.parametrize("op,fn,mentions", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_error_names_op_operands_and_line(op, fn, mentions):
    with pytest.raises(pyasc.PyascError) as e:
        fn()
    msg = str(e.value)
    assert msg.startswith(f"pyasc.{op}:"), msg
    for m in mentions:
        assert m in msg, (m, msg)
    assert f"(at {HERE}:{_line(fn)})" in msg, msg


def test_errors_inside_jit_name_the_line_in_the_traced_function():
    def f(x):
        return x.topk(65).values  # the line

    with pytest.raises(pyasc.PyascError) as e:
        pyasc.jit(f)(pyasc.ones(4, 300))
    assert str(e.value).startswith("pyasc.topk: k = 65 is more than the 64 supported inside pyasc.jit")
    assert f"(at {HERE}:{f.__code__.co_firstlineno + 1})" in str(e.value) and "(4, 300)" in str(e.value)
