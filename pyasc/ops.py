"""The op table: every op of the tensor API by name, and the NumPy oracle of each.

Each op is one ``OpDef`` (``opdef.py``) written in the module of its kind; this table collects
them (custom ops, registered at run time, are in ``custom.CUSTOM_OPS``). ``pyasc.<name>`` and the
methods of ``Tensor`` are the ops of this table.
"""

from __future__ import annotations

from . import (composite, eager, ops_compare, ops_elementwise, ops_elementwise_extras, ops_index_extras,
               ops_inverse_trig, ops_linalg, ops_linalg_extras, ops_loss, ops_math, ops_nn_extras, ops_nn_functions,
               ops_pad, ops_pool, ops_reduce, ops_select, ops_shape, ops_tensor_functions, ops_torch_extras, views)
from .opdef import OpDef

OPS: dict[str, OpDef] = {op.name: op for module in (ops_elementwise, ops_compare, ops_reduce, ops_linalg, views,
                                                     composite, ops_math, ops_shape, ops_select,
                                                     ops_pool, ops_loss, ops_pad, ops_torch_extras, ops_nn_extras,
                                                     ops_index_extras, ops_inverse_trig, ops_linalg_extras,
                                                     ops_elementwise_extras, ops_nn_functions, ops_tensor_functions)
                      for op in module.OPS}

# other names of ops of the table (as in PyTorch)
ALIASES = {"clip": "clamp", "concat": "cat", "true_divide": "div"}


def get_op(name: str) -> OpDef:
    return OPS[ALIASES.get(name, name)]


def reference(name: str, *operands, **attrs):
    """The NumPy oracle of op ``name``: operands (NumPy arrays, pyasc Tensors or Python scalars)
    are rounded to the op's compute dtype, computed in float64 (int64 for integers) and the
    result is cast to the op's result dtype. A composite is its decomposition with every op
    computed by its reference. Returns a NumPy array (a tuple of them for several results)."""
    op = get_op(name)
    if op.build is None and op.reference is None:
        with eager.reference_backend():
            out = op(*operands, **attrs)
        return tuple(t.numpy() for t in out) if isinstance(out, tuple) else out.numpy()
    args, kwargs = op.bind(operands, attrs)
    return op.evaluate(args, kwargs, op.types(args, kwargs))
