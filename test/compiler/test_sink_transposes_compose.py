"""``asctensor-sink-transposes`` on chains ``transpose -> reshapes -> transpose``: the rewritten program computes
what NumPy's transpose and reshape compute, and never holds more transposes than it started with (one where the
reshapes' shapes share their finer dims)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser

from pyasc.dialects import asctensor, make_context
from pyasc.lowering.asctensor_sink_transposes import AscTensorSinkTransposesPass


def _ttype(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def _program(shape, p, mid, q) -> str:
    """``transpose(reshape(transpose(x, p), mid), q)`` as asctensor text."""
    t1 = [shape[i] for i in p]
    t2 = [mid[i] for i in q]
    return (f"func.func @f(%x: {_ttype(shape)}) -> {_ttype(t2)} {{\n"
            f"  %a = asctensor.transpose %x permutation = {list(p)} : {_ttype(shape)} -> {_ttype(t1)}\n"
            f"  %b = asctensor.reshape %a : {_ttype(t1)} -> {_ttype(mid)}\n"
            f"  %c = asctensor.transpose %b permutation = {list(q)} : {_ttype(mid)} -> {_ttype(t2)}\n"
            f"  func.return %c : {_ttype(t2)}\n}}\n")


def _evaluate(func, x: np.ndarray) -> np.ndarray:
    values = {func.body.block.args[0]: x}
    for op in func.body.block.ops:
        if isinstance(op, asctensor.TransposeOp):
            values[op.result] = values[op.input].transpose(op.perm)
        elif isinstance(op, asctensor.ReshapeOp):
            values[op.result] = values[op.input].reshape(op.result.type.get_shape())
        else:
            return values[op.operands[0]]
    raise AssertionError("no return")


def _random_chain(rng):
    """A 2- to 4-D shape, a permutation, a reshape that splits or merges dims (or both, sometimes with no finer
    dims in common) and a second permutation."""
    shape = [int(v) for v in rng.choice([2, 3, 4, 6], size=rng.integers(2, 5))]
    p = [int(v) for v in rng.permutation(len(shape))]
    t1 = [shape[i] for i in p]
    kind = rng.integers(3)
    if kind == 0:  # split one dim
        i = int(rng.integers(len(t1)))
        f = next((d for d in (2, 3) if t1[i] % d == 0), None)
        mid = t1[:i] + [f, t1[i] // f] + t1[i + 1:] if f else t1
    elif kind == 1 and len(t1) > 2:  # merge two neighbours
        i = int(rng.integers(len(t1) - 1))
        mid = t1[:i] + [t1[i] * t1[i + 1]] + t1[i + 2:]
    else:  # any shape of the same size
        total = int(np.prod(t1))
        divisors = [d for d in range(2, total) if total % d == 0]
        d = int(rng.choice(divisors)) if divisors else total
        mid = [d, total // d] if d != total else [total]
    q = [int(v) for v in rng.permutation(len(mid))]
    return shape, p, mid, q


@pytest.mark.parametrize("seed", range(6))
def test_composed_transposes_match_numpy(seed):
    rng = np.random.default_rng(seed)
    ctx = make_context()
    composed = 0
    for _ in range(40):
        shape, p, mid, q = _random_chain(rng)
        module = Parser(ctx, _program(shape, p, mid, q)).parse_module()
        AscTensorSinkTransposesPass().apply(ctx, module)
        module.verify()
        func = next(iter(module.ops))
        count = sum(isinstance(op, asctensor.TransposeOp) for op in func.body.block.ops)
        assert count <= 2
        composed += count < 2
        x = rng.standard_normal(shape).astype(np.float32)
        want = x.transpose(p).reshape(mid).transpose(q)
        np.testing.assert_array_equal(_evaluate(func, x), want, err_msg=f"{shape} {p} {mid} {q}")
    assert composed > 20  # most chains have finer dims in common
