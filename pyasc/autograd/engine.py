"""The reverse pass: ``backward`` (PyTorch's ``Tensor.backward``) and ``grad`` (``torch.autograd.grad``).

The nodes reachable from the differentiated tensors are visited consumers first; each applies its
op's VJP rule to the gradients of its results and adds the gradients of its operands (summed back
over broadcast dimensions and cast to the operand's dtype). The rules are tensor ops, so:

* inside ``pyasc.jit`` (traced tensors) the graph is written into the traced program as an
  ``asctensor.vjp`` op holding a record of each call (``program.py``); the ``asctensor-autodiff``
  pass replaces it with the rules' ops, which the compiler then fuses like any program;
* eagerly, the backward of the graph is such a program of the tensors the rules read (the
  recorded operands and results) and the incoming gradients, compiled once per graph signature
  (the ops, attributes, shapes, dtypes and how the tensors connect) and run on the simulated
  device; with the ``"reference"`` eager backend the rules run op by op on the host.
"""

from __future__ import annotations

import weakref

from .. import eager
from ..creation import ones
from ..errors import PyascError, describe
from ..tensor import Tensor
from .program import emit_vjp
from .tape import Node, VJPContext, no_grad


def graph(roots: list[Tensor]) -> list[Node]:
    """The nodes the roots depend on, producers before consumers."""
    order: list[Node] = []
    seen: set[int] = set()
    for root in roots:
        if root._grad_fn is None or id(root._grad_fn) in seen:
            continue
        stack = [(root._grad_fn, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents if id(p) not in seen)
    return order


def _fit(node: Node, g: Tensor, like: Tensor) -> Tensor:
    """A rule's gradient for operand ``like``: summed over broadcast dims, in its dtype."""
    if not isinstance(g, Tensor):
        raise PyascError(node.op.name, f"the gradient rule returned {describe(g)} instead of a tensor",
                         location=node.location)
    if g.shape != like.shape:
        try:
            g = VJPContext.sum_to(g, like.shape)
        except PyascError:
            pass
        if g.shape != like.shape:
            raise PyascError(node.op.name, f"the gradient rule returned shape {list(g.shape)} for an operand of "
                             f"shape {list(like.shape)}", shapes=[g.shape, like.shape], location=node.location)
    return g if g.dtype is like.dtype else g.to(like.dtype)


def _rule(node: Node):
    rule = getattr(node.op, "vjp", None)
    if rule is None:
        tensors = [o for o in node.operands if isinstance(o, Tensor)]
        raise PyascError(node.op.name, "has no gradient rule (vjp), so it cannot be differentiated; compute it "
                         "under pyasc.no_grad() or on detach()ed inputs", shapes=[t.shape for t in tensors],
                         dtypes=[t.dtype.name for t in tensors], location=node.location)
    return rule


def propagate(nodes: list[Node], seeds: dict[int, Tensor], value, visit=None) -> dict[int, Tensor]:
    """Gradients by ``id`` of the recorded tensors, from the ``seeds`` (gradients of the roots);
    ``value`` gives the tensor the rules use for a recorded one (itself, or a traced stand-in);
    ``visit(node)`` is called before each rule is applied."""
    grads = dict(seeds)
    for node in reversed(nodes):
        gs = [grads.get(id(o)) for o in node.outputs]
        if all(g is None for g in gs):
            continue
        if visit is not None:
            visit(node)
        rule = _rule(node)
        outs = [value(o) for o in node.outputs]
        gs = [VJPContext.zeros(o.shape, o.dtype) if g is None else g for g, o in zip(gs, outs)]
        ctx = VJPContext(node.op.name, [value(o) if isinstance(o, Tensor) else o for o in node.operands], outs,
                         node.attrs, node.types)
        got = rule(ctx, tuple(gs) if node.several else gs[0])
        got = tuple(got) if isinstance(got, tuple | list) else (got,)
        if len(got) > len(node.operands):
            raise PyascError(node.op.name, f"the gradient rule returned {len(got)} gradients for "
                             f"{len(node.operands)} operands", location=node.location)
        for o, gi in zip(node.operands, got):
            if gi is None or not isinstance(o, Tensor) or not o._requires_grad:
                continue
            gi = _fit(node, gi, value(o))
            prev = grads.get(id(o))
            grads[id(o)] = gi if prev is None else prev + gi
    return grads


def _reached(nodes: list[Node], roots: list[Tensor]) -> set[int]:
    """``id`` of every tensor a gradient reaches: the roots and the operands needing one."""
    out = {id(r) for r in roots}
    for n in nodes:
        out.update(id(o) for o in n.operands if isinstance(o, Tensor) and o._requires_grad)
    return out


def gradients(roots: list[Tensor], root_grads: list[Tensor], targets: list[Tensor]) -> list[Tensor | None]:
    """The gradients of ``targets`` given those of ``roots`` (None for a target none reaches)."""
    nodes = graph(roots)
    reached = _reached(nodes, roots)
    wanted = [t for t in targets if id(t) in reached]
    traced = [t._trace for t in [*roots, *root_grads] if t._trace is not None]
    if not nodes or (not traced and eager.get_eager_backend() == "reference"):
        with no_grad():
            grads = propagate(nodes, {id(r): g for r, g in zip(roots, root_grads)}, lambda t: t)
        return [grads.get(id(t)) for t in targets]
    if traced:
        # the backward is built by the asctensor-autodiff pass from the recorded calls
        out = dict(zip(map(id, wanted), emit_vjp(traced[0], nodes, roots, root_grads, wanted)))
        return [out.get(id(t)) for t in targets]
    saved: list[Tensor] = []
    index: dict[int, int] = {}

    def ref(t: Tensor) -> int:
        if id(t) not in index:
            index[id(t)] = len(saved)
            saved.append(t)
        return index[id(t)]

    key = ("backward", tuple(n.signature(ref) for n in nodes), tuple(ref(r) for r in roots),
           tuple(ref(t) for t in wanted))
    inputs = [*saved, *root_grads]
    key = (*key, tuple((t.shape, t.dtype.name) for t in inputs))

    def backward(*proxies):
        def value(t: Tensor) -> Tensor:
            return proxies[index[id(t)]]
        seeds = list(proxies[len(saved):])
        return tuple(emit_vjp(proxies[0]._trace, nodes, roots, seeds, wanted, value))

    compiled = eager.compiled_program(key, lambda: backward, inputs)
    out = dict(zip(map(id, wanted), compiled(*inputs)))
    return [out.get(id(t)) for t in targets]


def _roots_and_grads(op: str, tensors, grad_tensors) -> tuple[list[Tensor], list[Tensor]]:
    roots = list(tensors) if isinstance(tensors, tuple | list) else [tensors]
    if grad_tensors is None:
        grad_tensors = [None] * len(roots)
    elif not isinstance(grad_tensors, tuple | list):
        grad_tensors = [grad_tensors]
    if len(grad_tensors) != len(roots):
        raise PyascError(op, f"got {len(grad_tensors)} gradients for {len(roots)} tensors")
    grads = []
    for i, (r, g) in enumerate(zip(roots, grad_tensors)):
        if not isinstance(r, Tensor):
            raise PyascError(op, f"expected tensors to differentiate, got {describe(r)}")
        if not r._requires_grad:
            raise PyascError(op, f"element {i} of the tensors ({describe(r)}) does not require grad and has no "
                             "grad_fn", shapes=[r.shape], dtypes=[r.dtype.name])
        if g is None:
            if r.numel() != 1:
                raise PyascError(op, f"grad can be implicitly created only for scalar outputs, got shape "
                                 f"{list(r.shape)}; pass the gradient", shapes=[r.shape])
            g = ones(*r.shape, dtype=r.dtype)
        elif not isinstance(g, Tensor):
            from ..creation import to_pyasc

            g = to_pyasc(g, op)
        if g.shape != r.shape:
            raise PyascError(op, f"gradient of shape {list(g.shape)} for a tensor of shape {list(r.shape)}",
                             shapes=[g.shape, r.shape])
        grads.append(g if g.dtype is r.dtype else g.to(r.dtype))
    return roots, grads


def _leaves(nodes: list[Node], roots: list[Tensor]) -> list[Tensor]:
    out, seen = [], set()
    for t in [*roots, *(o for n in nodes for o in n.operands)]:
        if isinstance(t, Tensor) and t._requires_grad and t._grad_fn is None and id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    return out


# ids of the non-leaf tensors whose ``.grad`` ``backward`` fills (``Tensor.retain_grad``), each weakly
_retained: dict[int, weakref.ref] = {}


def retain_grad(t: Tensor) -> None:
    """``backward`` fills the ``.grad`` of the non-leaf ``t`` too."""
    if len(_retained) > 4096:
        for k in [k for k, r in _retained.items() if r() is None]:
            del _retained[k]
    _retained[id(t)] = weakref.ref(t)


def _retained_in(nodes: list[Node]) -> list[Tensor]:
    made = {id(n) for n in nodes}
    kept = (r() for r in list(_retained.values()))
    return [t for t in kept if t is not None and t._grad_fn is not None and id(t._grad_fn) in made]


def refuse_create_graph(op: str, create_graph: bool) -> None:
    if create_graph:
        raise PyascError(op, "create_graph=True: gradients of gradients are not supported (the backward is not "
                         "recorded)")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """Add the gradients of ``tensors`` (weighted by ``grad_tensors``; ones for a one-element tensor)
    to the ``.grad`` of the leaves they depend on and of the non-leaf tensors that retain theirs (or of
    ``inputs``). The recorded graph stays, whatever ``retain_graph`` says."""
    refuse_create_graph("backward", create_graph)
    roots, grads = _roots_and_grads("backward", tensors, grad_tensors)
    if inputs is not None:
        targets = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    else:
        nodes = graph(roots)
        targets = _leaves(nodes, roots) + _retained_in(nodes)
    for leaf, g in zip(targets, gradients(roots, grads, targets)):
        if g is None:
            continue
        with no_grad():
            leaf._grad = g if leaf._grad is None else leaf._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (``torch.autograd.grad``), without
    touching any ``.grad``."""
    refuse_create_graph("autograd.grad", create_graph)
    roots, grads = _roots_and_grads("autograd.grad", outputs, grad_outputs)
    targets = list(inputs) if isinstance(inputs, tuple | list) else [inputs]
    for t in targets:
        if not isinstance(t, Tensor) or not t._requires_grad:
            raise PyascError("autograd.grad", f"every input must be a tensor that requires grad, got {describe(t)}")
    out = gradients(roots, grads, targets)
    for t, g in zip(targets, out):
        if g is None and not allow_unused:
            raise PyascError("autograd.grad", f"an input ({describe(t)}) was not used to compute the outputs "
                             "(pass allow_unused=True)", shapes=[t.shape])
    return tuple(out)
