"""Function transforms in the style of JAX: ``grad``, ``value_and_grad`` and ``vjp``.

``pyasc.grad(f)(x)`` differentiates ``f`` with respect to its argument(s) ``argnums``. Called with
concrete tensors, the forward and the backward are traced into one program and compiled once per
input signature (as ``pyasc.jit``): the backward kernels fuse with the forward's. Called inside a
``pyasc.jit`` function (traced tensors), they record into the enclosing program. A ``pyasc.jit``
function can be differentiated (its Python function is traced).
"""

from __future__ import annotations

import functools
import numbers

from ..creation import ones
from ..errors import PyascError, describe
from ..jit import JitFunction
from ..tensor import Tensor
from .engine import gradients
from .tape import enable_grad, is_grad_enabled, no_grad


def _leaf(x: Tensor, taken: set | None = None) -> Tensor:
    """A new leaf requiring a gradient with the values (or traced value) of ``x``. A traced value already in
    ``taken`` (the same tensor differentiated twice) is copied first (``x * 1``, exact): each leaf is a value of
    its own, with a gradient of its own."""
    if not x.dtype.is_floating_point:
        raise PyascError("grad", f"can only differentiate with respect to floating point tensors, got "
                         f"{describe(x)}", shapes=[x.shape], dtypes=[x.dtype.name])
    if x.is_traced and x._requires_grad and is_grad_enabled():
        raise PyascError("grad", "differentiates a tensor whose gradient an enclosing grad, vjp or backward also "
                         "records: gradients of gradients are not supported (compute the inner one under "
                         "pyasc.no_grad() if it is a constant)", shapes=[x.shape], dtypes=[x.dtype.name])
    if taken is not None and x.is_traced:
        if x._value in taken:
            with no_grad():
                x = x * 1
        taken.add(x._value)
    t = x.detach()
    t._requires_grad = True
    return t


def _argnums(argnums, nargs: int) -> tuple[tuple[int, ...], bool]:
    single = isinstance(argnums, numbers.Integral)
    nums = (argnums,) if single else tuple(argnums)
    for i in nums:
        if not isinstance(i, numbers.Integral) or not -nargs <= i < nargs:
            raise PyascError("grad", f"argnums {argnums!r} does not name a positional argument of the {nargs} given")
    return tuple(i % nargs for i in nums), single


def _python_fn(fn):
    return fn.fn if isinstance(fn, JitFunction) else fn


def _value_and_grads(fn, argnums, args, kwargs, has_aux: bool = False):
    """Trace-or-eager core: ``(value, grads)`` with the gradients in the order of ``argnums``; with ``has_aux``,
    ``fn`` returns ``(value, aux)`` and the first result is that pair (``aux`` detached)."""
    nums, single = _argnums(argnums, len(args))
    args = list(args)
    leaves, specs, taken = [], [], set()
    for i in nums:
        parts, spec = _tensors_of(i, args[i])
        made = [_leaf(t, taken) for t in parts]
        args[i] = made[0] if spec is None else _unflatten(spec, made)
        leaves += made
        specs.append((spec, len(made)))
    with enable_grad():
        value = fn(*args, **kwargs)
    aux = None
    if has_aux:
        if not isinstance(value, tuple | list) or len(value) != 2:
            raise PyascError("grad", f"with has_aux=True the function must return a pair (value, aux), got "
                             f"{describe(value)}")
        value, aux = value
        aux = _detached(aux)
    if not isinstance(value, Tensor) or value.numel() != 1:
        raise PyascError("grad", "the differentiated function must return a one-element tensor, got "
                         f"{describe(value)} (use pyasc.vjp for other outputs)")
    if not value.dtype.is_floating_point:
        raise PyascError("grad", f"the differentiated function returned {describe(value)}, not a floating "
                         "point tensor")
    if not value.requires_grad:
        grads = [t.detach() * 0.0 for t in leaves]
    else:
        grads = [g if g is not None else t.detach() * 0.0
                 for g, t in zip(gradients([value], [ones(*value.shape, dtype=value.dtype)], leaves), leaves)]
    value = value.detach()
    grouped, at = [], 0
    for spec, n in specs:  # each argument's gradients in its shape: a tensor, or its dict, list or tuple
        grouped.append(grads[at] if spec is None else _unflatten(spec, grads[at:at + n]))
        at += n
    return (value, aux) if has_aux else value, (grouped[0] if single else tuple(grouped))


def _tensors_of(i: int, arg) -> tuple[list, object]:
    """The tensors a differentiated argument holds and how they nest (an ``optree`` spec; None for a tensor)."""
    if isinstance(arg, Tensor):
        return [arg], None
    if isinstance(arg, dict | list | tuple):
        import optree

        parts, spec = optree.tree_flatten(arg)
        if parts and all(isinstance(t, Tensor) for t in parts):
            return parts, spec
        other = next((t for t in parts if not isinstance(t, Tensor)), None)
        raise PyascError("grad", f"argument {i} is differentiated, and the dicts, lists and tuples it holds must "
                         f"hold tensors only, got {describe(other) if parts else 'no tensor'}")
    raise PyascError("grad", f"argument {i} is differentiated but is {describe(arg)}, not a tensor (or a dict, "
                     f"list or tuple of them)")


def _unflatten(spec, tensors: list):
    import optree

    return optree.tree_unflatten(spec, list(tensors))


def _detached(aux):
    """Auxiliary results (tensors, nested in tuples and lists) outside the recorded graph."""
    if isinstance(aux, tuple | list):
        return type(aux)(_detached(a) for a in aux)
    return aux.detach() if isinstance(aux, Tensor) else aux


def _flat(args) -> list:
    """The arguments, the contents of dicts, lists and tuples among them included."""
    if not any(isinstance(a, dict | list | tuple) for a in args):
        return list(args)
    import optree

    return optree.tree_leaves(list(args))


def value_and_grad(fn, argnums=0, has_aux: bool = False):
    """``fn`` -> a function returning ``(fn(*args), gradient)``; the gradient is a tensor for an
    int ``argnums`` and a tuple for a sequence of them (a differentiated dict, list or tuple of tensors gets
    its gradients in the same shape, as ``torch.func.grad`` gives them). With ``has_aux``, ``fn`` returns
    ``(value, aux)`` (``aux``: tensors, nested in tuples and lists) and the first result is ``(value, aux)``."""
    py = _python_fn(fn)
    programs: dict = {}

    @functools.wraps(py)
    def wrapped(*args, **kwargs):
        if any(isinstance(a, Tensor) and a.is_traced for a in _flat(args)):
            return _value_and_grads(py, argnums, args, kwargs, has_aux)
        nums, _ = _argnums(argnums, len(args))
        program = programs.get(nums)
        if program is None:
            def traced(*targs, **tkwargs):
                return _value_and_grads(py, argnums, targs, tkwargs, has_aux)
            traced.__name__ = traced.__qualname__ = f"value_and_grad_{getattr(py, '__name__', 'fn')}"
            program = programs[nums] = JitFunction(traced, getattr(fn, "options", None))
        return program(*args, **kwargs)

    return wrapped


def grad(fn, argnums=0, has_aux: bool = False):
    """``fn`` -> a function returning the gradient of ``fn`` (a one-element tensor) with respect to
    argument(s) ``argnums``, usable inside and around ``pyasc.jit``; with ``has_aux``, ``(gradient, aux)``."""
    both = value_and_grad(fn, argnums, has_aux)

    @functools.wraps(_python_fn(fn))
    def wrapped(*args, **kwargs):
        value, g = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapped


def vjp(fn, *primals):
    """``(fn(*primals), pullback)``: ``pullback(cotangent)`` gives the vector-Jacobian products, one
    per primal (a tuple). Eagerly the forward runs op by op and the pullback as one compiled program."""
    py = _python_fn(fn)
    taken: set = set()
    leaves = [_leaf(p, taken) if isinstance(p, Tensor) else p for p in primals]
    with enable_grad():
        out = py(*leaves)
    several = isinstance(out, tuple | list)
    outs = list(out) if several else [out]
    targets = [t for t in leaves if isinstance(t, Tensor)]

    def pullback(cotangent):
        cts = list(cotangent) if several else [cotangent]
        if len(cts) != len(outs):
            raise PyascError("vjp", f"got {len(cts)} cotangent(s) for {len(outs)} output(s)")
        live = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
        if not live:
            return tuple(t.detach() * 0.0 for t in targets)
        from .engine import _roots_and_grads

        roots, grads = _roots_and_grads("vjp", [o for o, _ in live], [c for _, c in live])
        got = gradients(roots, grads, targets)
        return tuple(g if g is not None else t.detach() * 0.0 for g, t in zip(got, targets))

    detached = tuple(o.detach() for o in outs)
    return (detached if several else detached[0]), pullback
