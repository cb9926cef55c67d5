"""``asctensor-fuse-conv-weights``: a convolution's weight layout joins its ``conv_prologue`` kernel.

When a convolution's weights are an argument of the program (a constant is laid out once, by
``asctensor-hoist-constants``), kernels of their own lay them out for the cube before it runs: for a stem rewritten
over its stride's phases (``conv_fold.py``), the weights' ``im2col``, the zero channels that make whole 16-channel
groups and a transpose. That is one more launch, most of it launch overhead for a few KB.

Such a chain only moves elements: each element of the laid-out matrix (``M x K``, ``M`` the output channels) is a
weight of its own output channel or zero. This pass evaluates the chain on the weights' indices (``const_eval``)
and, when every row takes the same positions of its weights (``K`` of them, a zero where none), replaces the chain
by one ``asctensor.row_gather`` at the start of the ``conv_prologue`` kernel (``asctensor-fuse-conv-prologue``):

* the kernel takes the weights and the gather's table, a parameter the pass adds to the program (its value an
  argument attribute, ``pyasc.tracing.declare_lifted``), and returns the laid-out matrix after its input workspace;
* the table is one row: the position each column takes in a row of ``pitch`` elements (the weights' row and the
  zeros after it up to its last 32 B; a row of whole 32 B blocks is not rewritten). Each AIV lays out half the
  rows (``tile-conv-prologue``), transposed so that a position's weights of its rows are one row of whole 32 B
  blocks (``Gatherb``), so ``M`` is a multiple of 32 and ``K`` of 16.

Only 2-byte weights are rewritten: float32 ones need twice the UB, which the float32 stem's phase tiles leave
too little of (``tile-conv-prologue`` checks the sum).

The mapping is checked on random weights before the rewrite: the gather gives what the chain gives, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType, i32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import CONV_PROLOGUE_KIND, kernel_kind
from pyasc.dialects.types import element_bytes

from .const_eval import evaluable, evaluate
from .emitter import copy_loc


def _chain(value: SSAValue, funcs: dict) -> tuple[SSAValue, list[func.CallOp]] | None:
    """The one host value the kernel calls computing ``value`` read, and those calls (producers first); None unless
    every call has one result read once and kernel ops the host evaluates, and one value outside the calls is read."""
    calls, sources = [], set()

    def visit(v: SSAValue) -> bool:
        call = v.owner
        if not isinstance(call, func.CallOp):
            sources.add(v)
            return True
        f = funcs.get(call.callee.root_reference.data)
        if f is None or len(call.results) != 1 or not call.results[0].has_one_use() \
                or not all(evaluable(op) for op in list(f.body.block.ops)[:-1]):
            return False
        if not all(visit(a) for a in call.arguments):
            return False
        calls.append(call)
        return True

    if not visit(value) or len(sources) != 1 or not calls:
        return None
    return sources.pop(), calls


def _run(calls: list[func.CallOp], funcs: dict, source: SSAValue, array: np.ndarray) -> np.ndarray:
    env = {source: array}
    for call in calls:
        env[call.results[0]] = evaluate(funcs[call.callee.root_reference.data], [env[a] for a in call.arguments])[0]
    return env[calls[-1].results[0]]


def row_pattern(calls, funcs, source: SSAValue, rows: int) -> np.ndarray | None:
    """The weight position (in its row of ``F``) each column of the laid-out matrix takes, ``F`` for a zero; None
    unless every row takes the same, and the gather gives exactly what the chain gives on random weights."""
    shape = source.type.get_shape()
    n = int(np.prod(shape))
    if not shape or shape[0] != rows or n % rows:
        return None
    f = n // rows
    with np.errstate(all="ignore"):
        index = _run(calls, funcs, source, np.arange(1, n + 1, dtype=np.float64).reshape(shape))
    if index.size % rows or not np.all((index >= 0) & (index <= n) & (index == np.floor(index))):
        return None
    index = index.reshape(rows, -1).astype(np.int64)
    position = np.where(index == 0, f, index - 1 - np.arange(rows)[:, None] * f)
    pattern = position[0]
    if not np.all(position == pattern) or np.any((pattern < 0) | (pattern > f)):
        return None
    weights = np.random.default_rng(0).standard_normal(shape)
    with np.errstate(all="ignore"):
        expected = _run(calls, funcs, source, weights).reshape(rows, -1)
    padded = np.concatenate([weights.reshape(rows, f), np.zeros((rows, 1))], axis=1)
    return pattern if np.array_equal(padded[:, pattern], expected) else None


def _weights_argument(f: func.FuncOp) -> int | None:
    """The argument of the ``conv_prologue`` kernel ``f`` its ``matmul`` reads through reshapes and broadcasts."""
    for i, a in enumerate(f.body.block.args):
        v = a
        while v.has_one_use() and isinstance(user := next(iter(v.uses)).operation,
                                             asctensor.ReshapeOp | asctensor.BroadcastOp):
            v = user.results[0]
        if any(isinstance(u.operation, asctensor.MatmulOp) for u in v.uses):
            return i
    return None


def _fuse(host: func.FuncOp, call: func.CallOp, f: func.FuncOp, index: int, source: SSAValue, chain: list,
          pattern: np.ndarray, funcs: dict) -> None:
    """``f`` reading the weights ``source`` and the table in place of the laid-out matrix; ``call`` passing them."""
    from pyasc.tracing import declare_lifted
    from pyasc import dtypes as dt

    old = f.body.block.args[index]
    rows, k = source.type.get_shape()[0], len(pattern)
    width = int(np.prod(source.type.get_shape())) // rows
    block = 32 // element_bytes(source.type.element_type)
    pitch = (width + block) // block * block  # the row and its zeros up to the next 32 B: one zero at least
    table = pattern[None, :].astype(np.int32)  # one row: every row takes the same positions of its own
    kb = f.body.block
    weights = kb.insert_arg(source.type, index)
    weights.name_hint = "weights"
    table_arg = kb.insert_arg(TensorType(i32, [1, k]), len(kb.args))
    table_arg.name_hint = "weight_table"
    first_use = next(iter(old.uses)).operation
    at = InsertPoint.before(first_use)
    flat = copy_loc(first_use, asctensor.ReshapeOp(weights, [rows, width]))
    gather = copy_loc(first_use, asctensor.RowGatherOp(flat.result, table_arg, pitch))
    laid = copy_loc(first_use, asctensor.ReshapeOp(gather.result, old.type.get_shape()))
    for op in (flat, gather, laid):
        Rewriter.insert_op(op, at)
    old.replace_all_uses_with(laid.result)
    kb.erase_arg(old)
    ret = kb.last_op
    Rewriter.replace_op(ret, func.ReturnOp(ret.operands[0], laid.result, *ret.operands[1:]))
    f.function_type = FunctionType.from_lists([a.type for a in kb.args],
                                              [v.type for v in kb.last_op.operands])
    # the program: the table is a new last parameter, passed to the kernel with the weights
    hb = host.body.block
    param = hb.insert_arg(table_arg.type, len(hb.args))
    param.name_hint = "weight_table"
    declare_lifted(host, [(param, table, dt.int32)])
    args = list(call.arguments)
    args[index] = source
    fused = copy_loc(call, func.CallOp(call.callee, [*args, param], [v.type for v in kb.last_op.operands]))
    fused.results[0].name_hint, fused.results[1].name_hint = "workspace", "laid_weights"
    Rewriter.replace_op(call, fused, [fused.results[0], *fused.results[2:]])
    fused.results[-1].name_hint = None
    for made in reversed(chain):
        name = made.callee.root_reference.data
        Rewriter.erase_op(made)
        if not any(isinstance(c, func.CallOp) and c.callee.root_reference.data == name for c in host.walk()):
            Rewriter.erase_op(funcs.pop(name))


@dataclass(frozen=True)
class AscTensorFuseConvWeightsPass(ModulePass):
    """Lay a convolution's weights out inside its ``conv_prologue`` kernel (see the module docstring)."""

    name = "asctensor-fuse-conv-weights"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        for f in list(funcs.values()):
            if kernel_kind(f) != CONV_PROLOGUE_KIND:
                continue
            calls = [c for c in op.walk() if isinstance(c, func.CallOp) and c.callee.root_reference.data ==
                     f.sym_name.data]
            index = _weights_argument(f)
            if len(calls) != 1 or index is None:
                continue
            call = calls[0]
            host = call.parent_op()
            found = _chain(call.arguments[index], funcs)
            if not isinstance(host, func.FuncOp) or found is None:
                continue
            source, chain = found
            rows = source.type.get_shape()[0] if isinstance(source.type, TensorType) else 0
            es = element_bytes(source.type.element_type) if rows else 0
            fits = es == 2 and rows % 32 == 0 and np.prod(source.type.get_shape()) // rows * es % 32
            pattern = row_pattern(chain, funcs, source, rows) if fits else None
            if pattern is not None and len(pattern) % 16 == 0 \
                    and len(pattern) * rows == np.prod(f.body.block.args[index].type.get_shape()):
                _fuse(host, call, f, index, source, chain, pattern, funcs)
