"""The recorded backward graph in the IR, and the backward the ``asctensor-autodiff`` pass builds from it.

:func:`emit_vjp` writes the nodes of a backward graph into a traced program as one
``asctensor.vjp`` op whose body holds an ``asctensor.primal`` record per node (the op's name, its
attributes, its operand layout and the values of its operands and results); its results stand for
the gradients. :func:`resolve` (the pass's rewrite) replaces such an op by the backward: each
record's op is looked up by name in the op table, its gradient rule (the ``vjp`` of the op's
definition) is applied to the traced values in front of the ``asctensor.vjp`` op, and the
gradients are summed back over broadcast dimensions (``engine.propagate``).
"""

from __future__ import annotations

import ast
import math
import numbers

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Region, SSAValue

from pyasc.dialects import asctensor

from .. import dtypes as dt
from ..errors import PyascError, describe
from ..tensor import Tensor
from ..tracing import LOC_KEY, Trace, declare_lifted
from .tape import Node, VJPContext, no_grad

_FLOAT, _DTYPE, _STR, _SLICE, _ELLIPSIS = "float:", "dtype:", "str:", "slice:", "ellipsis:"
TENSOR = "%"   # a tensor operand in a layout


def _encode(value, op: str):
    """``value`` (an attribute or a non-tensor operand) as a Python literal (see :func:`decode`)."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, np.generic):
        return _encode(value.item(), op)
    if isinstance(value, float):
        return value if math.isfinite(value) else _FLOAT + repr(value)
    if isinstance(value, numbers.Real):
        return _encode(float(value), op)
    if isinstance(value, dt.DType):
        return _DTYPE + value.name
    if isinstance(value, str):
        return _STR + value if value.startswith((_FLOAT, _DTYPE, _STR, _SLICE, _ELLIPSIS, TENSOR)) else value
    if value is Ellipsis:
        return _ELLIPSIS
    if isinstance(value, slice):
        return _SLICE + repr((_encode(value.start, op), _encode(value.stop, op), _encode(value.step, op)))
    if isinstance(value, tuple):
        return tuple(_encode(v, op) for v in value)
    if isinstance(value, list):
        return [_encode(v, op) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v, op) for k, v in value.items()}
    raise PyascError(op, f"cannot record the attribute {describe(value)} of a differentiated call")


def encode(value, op: str) -> str:
    return repr(_encode(value, op))


def _decode(value):
    if isinstance(value, str):
        for prefix, make in ((_FLOAT, float), (_DTYPE, dt.get_dtype), (_STR, str),
                             (_SLICE, lambda t: slice(*_decode(ast.literal_eval(t)))), (_ELLIPSIS, lambda _: ...)):
            if value.startswith(prefix):
                return make(value[len(prefix):])
        return value
    if isinstance(value, tuple):
        return tuple(_decode(v) for v in value)
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    return value


def decode(text: str):
    """The value :func:`encode` wrote."""
    return _decode(ast.literal_eval(text))


def op_named(name: str):
    """The op definition of ``name``: an op of the table or a registered custom op (None: neither)."""
    from .. import custom, ops

    if name in ops.OPS or name in ops.ALIASES:
        return ops.get_op(name)
    return custom.CUSTOM_OPS.get(name)


def missing_rule(op, location: str, operands) -> PyascError:
    tensors = [o for o in operands if isinstance(o, Tensor)]
    return PyascError(op.name,
                      "has no gradient rule (vjp), so it cannot be differentiated; compute it under "
                      "pyasc.no_grad() or on detach()ed inputs", shapes=[t.shape for t in tensors],
                      dtypes=[t.dtype.name for t in tensors], location=location)


# -- writing the backward graph into a traced program ----------------------------------------------
def _ir(trace: Trace, t: Tensor) -> SSAValue:
    return t._value if t._trace is not None else trace.constant(t._data, t.dtype)


def primal_record(trace: Trace, node: Node, value) -> asctensor.PrimalOp:
    """The ``asctensor.primal`` record of ``node``; ``value`` gives the traced tensor of a recorded one."""
    name = node.op.name
    if op_named(name) is not node.op:
        raise PyascError(name, "is not an op of the table nor a registered custom op, so a program cannot "
                         "name it for differentiation", location=node.location)
    args = [_ir(trace, value(o)) for o in node.operands if isinstance(o, Tensor)]
    outs = [_ir(trace, value(o)) for o in node.outputs]
    layout = repr([TENSOR if isinstance(o, Tensor) else _encode(o, name) for o in node.operands])
    record = asctensor.PrimalOp(name, args, outs, encode(node.attrs, name), layout, node.several)
    record.attributes[LOC_KEY] = StringAttr(node.location)
    return record


def emit_vjp(trace: Trace, nodes: list[Node], roots: list[Tensor], cotangents: list[Tensor],
             wrt: list[Tensor], value=lambda t: t) -> list[Tensor]:
    """Emit the ``asctensor.vjp`` of ``roots`` by ``cotangents`` with respect to ``wrt`` over the
    recorded ``nodes`` into ``trace``; its results, one traced tensor per ``wrt``."""
    for node in nodes:
        if getattr(node.op, "vjp", None) is None:
            raise missing_rule(node.op, node.location, node.operands)
    block = Block()
    for node in nodes:
        block.add_op(primal_record(trace, node, value))
    op = asctensor.VjpOp([_ir(trace, value(r)) for r in roots], [_ir(trace, c) for c in cotangents],
                         [_ir(trace, value(w)) for w in wrt], Region(block))
    trace.emit(op)
    return [Tensor._traced(trace, g, w.dtype, w.shape) for g, w in zip(op.grads, wrt)]


# -- the backward of an asctensor.vjp op -------------------------------------------------------------
class _Values:
    """One traced tensor per IR value, so the rules' results are found by identity."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self.tensors: dict[SSAValue, Tensor] = {}

    def __call__(self, v: SSAValue) -> Tensor:
        t = self.tensors.get(v)
        if t is None:
            t = self.tensors[v] = Tensor._traced(self.trace, v, dt.get_dtype(v.type.get_element_type()),
                                                 v.type.get_shape())
        return t


def _nodes(vjp: asctensor.VjpOp, tensor: _Values) -> list[Node]:
    """The records of ``vjp`` as nodes; a tensor needs a gradient when it depends on a ``wrt``."""
    needs = set(vjp.wrt)
    nodes = []
    made: set[SSAValue] = set()
    for record in vjp.body.block.ops:
        if record.outs and all(v in made and v not in record.args for v in record.outs):
            continue  # a call the trace answered with an earlier call's value (a cast done twice): counted once
        made.update(record.outs)
        name = record.op.data
        location = record.attributes[LOC_KEY].data if LOC_KEY in record.attributes else "<unknown>"
        op = op_named(name)
        args = iter(record.args)
        operands = [tensor(next(args)) if x == TENSOR else _decode(x) for x in ast.literal_eval(record.layout.data)]
        if op is None:
            raise PyascError(name, "is not an op of the tensor API nor a registered custom op, so its recorded "
                             "call cannot be differentiated", location=location)
        if getattr(op, "vjp", None) is None:
            raise missing_rule(op, location, operands)
        for v in record.args:
            tensor(v)._requires_grad = v in needs
        live = any(v in needs for v in record.args)
        # a result that is an operand's own value (a reshape to the same shape) stands apart from it: the
        # gradient of their uses reaches the operand once, directly
        outs = [_Values(tensor.trace)(v) if v in record.args else tensor(v) for v in record.outs]
        for v, t in zip(record.outs, outs):
            if live and t.dtype.is_floating_point:
                needs.add(v)
                t._requires_grad = True
        nodes.append(Node(op, operands, decode(record.call_attrs.data), None, outs, record.several is not None,
                          location))
    for v in vjp.wrt:
        tensor(v)._requires_grad = True
    return nodes


def _cotangent(v: SSAValue, tensor: _Values) -> Tensor:
    """A splat cotangent (the seed 1 of a one-element output) as a concrete tensor, so the rules
    fold it (``sum``'s expansion of it is a splat again); any other as its traced value."""
    if isinstance(v.owner, asctensor.FullOp):
        from ..creation import full

        return full(tuple(v.type.get_shape()), v.owner.scalar, dtype=dt.get_dtype(v.type.get_element_type()))
    return tensor(v)


def resolve(vjp: asctensor.VjpOp, target: str) -> None:
    """Replace ``vjp`` by the backward ops (emitted in front of it) and erase it."""
    from .engine import propagate

    trace = Trace.before(vjp, target)
    module = vjp.get_toplevel_object()
    known = [op for op in module.ops if isinstance(op, func.FuncOp)]
    trace.callees = list(known)   # the custom ops' functions a rule calls get fresh names
    here = vjp.attributes[LOC_KEY].data if LOC_KEY in vjp.attributes else ""   # "": none
    trace.location = here
    current: list[Node] = []
    tensor = _Values(trace)
    with trace:
        nodes = _nodes(vjp, tensor)
        seeds = {}
        for r, c in zip(vjp.roots, vjp.cotangents):
            c = _cotangent(c, tensor)
            seeds[id(tensor(r))] = c if id(tensor(r)) not in seeds else seeds[id(tensor(r))] + c

        def visit(node: Node) -> None:
            current[:] = [node]
            trace.location = node.location if node.location != "<unknown>" else here

        with no_grad():
            try:
                grads = propagate(nodes, seeds, lambda t: t, visit)
            except PyascError:
                raise
            except (TypeError, ValueError, KeyError, IndexError) as e:
                node = current[0]
                raise PyascError(node.op.name, "its gradient rule failed on the recorded call (does the record "
                                 f"match the op's definition?): {type(e).__name__}: {e}",
                                 location=node.location) from None
            trace.location = here
            results = []
            for w in vjp.wrt:
                g = grads.get(id(tensor(w)))
                t = tensor(w)
                if g is None:
                    g = VJPContext.zeros(t.shape, t.dtype)
                elif g.dtype is not t.dtype:
                    g = g.to(t.dtype)
                results.append(_ir(trace, g))
    for callee in trace.callees:
        if not any(callee is k for k in known):
            module.body.block.add_op(callee)
    if trace.rewriting:
        declare_lifted(vjp.parent_block().parent_op(), trace.rewriting)
    for old, new in zip(vjp.grads, results):
        old.replace_all_uses_with(new)
    vjp.detach()
    vjp.erase()
