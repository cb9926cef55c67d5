"""The arguments and results of a ``pyasc.jit`` call: their layout (tensors, static values, and dicts, lists and
tuples of them, flattened by ``optree``), the signature key they give, and the call's results rebuilt in the
function's shape, with the inputs it updated in place written back into the caller's tensors."""

from __future__ import annotations

import re

import numpy as np

from . import dtypes as dt
from .creation import to_numpy, to_pyasc
from .errors import PyascError, describe
from .interop import is_torch_tensor
from .tensor import Tensor


def as_tensor_arg(x) -> Tensor:
    """A tensor argument (pyasc, NumPy or torch) as a pyasc tensor."""
    return x if isinstance(x, Tensor) else to_pyasc(x, "jit")


def entry_of(name: str, a, i: int, pname: str, tensors: list) -> tuple:
    """The layout entry of argument ``i`` of jit function ``name`` (``pname``: its name, or its path in a
    container), its tensors appended to ``tensors``."""
    if isinstance(a, Tensor):
        if a.is_traced:
            raise PyascError(name, f"argument {i} ('{pname}') is a traced tensor; calling a "
                             "jit function from inside another is not supported yet")
        tensors.append(a)
        return ("tensor", pname)
    if isinstance(a, np.ndarray) and (a.dtype.kind in "biuf" or a.dtype == dt.bfloat16.np_dtype) or \
            is_torch_tensor(a):
        tensors.append(to_pyasc(a, name))
        return ("tensor", pname)
    if isinstance(a, np.generic) and a.dtype.kind in "biuf":
        return ("static", a.item())
    if dt.is_python_scalar(a) or a is None or isinstance(a, str):
        return ("static", a)
    if isinstance(a, dict | list | tuple):
        import optree

        paths, leaves, spec = optree.tree_flatten_with_path(a)
        return ("tree", (spec, tuple(entry_of(name, leaf, i, _leaf_name(pname, path), tensors)
                                     for path, leaf in zip(paths, leaves))))
    raise PyascError(name, f"argument {i} ('{pname}') must be a tensor, a number, a string, None, or a "
                     f"dict, list or tuple of them, got {describe(a)}")


def results_of(compiled, outs, args):
    """A call's result in the function's shape; the new values of the inputs it updated in place written back
    into the caller's tensors (pyasc, NumPy or torch) first."""
    if not compiled.mutated:
        return nested(compiled.structure, outs)
    n = len(outs) - len(compiled.mutated)
    sources = _tensor_args(args)
    for k, new in zip(compiled.mutated, outs[n:]):
        _write_back(sources[k], new.numpy())
    own = outs[:n]
    if not compiled.user_tuple:
        return own[0]
    return nested(compiled.structure, tuple(own))


def _tensor_args(args) -> list:
    """The tensor arguments of a call (pyasc, NumPy or torch), containers' leaves included, in ``_split``'s
    order."""
    out = []
    for a in args:
        if isinstance(a, dict | list | tuple):
            import optree

            out += _tensor_args(optree.tree_leaves(a))
        elif isinstance(a, Tensor | np.ndarray) or is_torch_tensor(a):
            out.append(a)
    return out


def call_eagerly(fn, args, kwargs):
    """``fn`` called eagerly (a signature whose trace met a data-dependent value) on the call's NumPy and torch
    tensors as pyasc tensors, as the compiled path takes them, so that each op runs on pyasc; what it updated in
    place is written back into the caller's tensors."""
    import optree

    converted = []

    def as_pyasc(a):
        if isinstance(a, np.ndarray) and (a.dtype.kind in "biuf" or a.dtype == dt.bfloat16.np_dtype) or \
                is_torch_tensor(a):
            t = to_pyasc(a, "jit")
            converted.append((a, t))
            return t
        return a

    out = fn(*optree.tree_map(as_pyasc, list(args), none_is_leaf=True), **kwargs)
    for source, t in converted:
        new = t.numpy()
        if not np.array_equal(new, to_numpy(source).astype(new.dtype), equal_nan=new.dtype.kind == "f"):
            _write_back(source, new)
    return out


def _write_back(target, data: np.ndarray) -> None:
    """``data`` copied into a caller's tensor that the function updated in place."""
    if isinstance(target, Tensor):
        np.copyto(target._data, data)
    elif isinstance(target, np.ndarray):
        np.copyto(target, data, casting="unsafe")
    else:  # a torch tensor: copy_ casts (bfloat16 goes through float32, which holds it exactly)
        import torch

        target.copy_(torch.from_numpy(data.astype(np.float32) if data.dtype == dt.bfloat16.np_dtype else data))


def entry_key(entry) -> tuple:
    """The part of a signature's key an argument's layout entry gives."""
    kind, v = entry
    if kind == "static":
        return (kind, type(v).__name__, repr(v))
    if kind == "tree":
        return (kind, v[0], tuple(entry_key(e) for e in v[1]))
    return (kind,)


def _leaf_name(pname: str, path: tuple) -> str:
    """The name of a container argument's leaf, from its path (``params.w.0`` for ``params["w"][0]``)."""
    return ".".join([pname, *(re.sub(r"[^\w$-]", "_", str(p)) for p in path)])


def tensor_names(layout) -> list[str]:
    """The names of the tensor inputs in a layout, in order, containers' leaves included."""
    out = []
    for kind, v in layout:
        if kind == "tensor":
            out.append(v)
        elif kind == "tree":
            out += tensor_names(v[1])
    return out


def built(entry, proxies):
    """The value a layout entry passes to the traced function: the next traced input for a tensor, containers
    rebuilt around theirs."""
    kind, v = entry
    if kind == "tensor":
        return next(proxies)
    if kind == "tree":
        import optree

        return optree.tree_unflatten(v[0], [built(e, proxies) for e in v[1]])
    return v


def nesting(result):
    """How a result of nested dicts, lists and tuples nests (an ``optree`` spec), or None for a tensor or a flat
    tuple or list."""
    if not isinstance(result, tuple | list | dict) or isinstance(result, tuple | list) and all(
            r is not None and not isinstance(r, tuple | list | dict) for r in result):
        return None
    import optree

    return optree.tree_structure(result)


def flattened(result) -> list:
    """The leaves of nested dicts, lists and tuples, in ``optree`` order (None is no leaf)."""
    import optree

    return optree.tree_leaves(result)


def nested(structure, flat):
    """``flat`` (a compiled program's results) in the shape ``nesting`` recorded (unchanged for None)."""
    if structure is None:
        return flat
    import optree

    return optree.tree_unflatten(structure, list(flat) if isinstance(flat, tuple | list) else [flat])
