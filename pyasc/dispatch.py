"""Calling an op of the table by its name: ``apply("add", x, y)`` is ``pyasc.add(x, y)``, and
``infer`` checks a call and gives its operands, attributes and result types without running it.
"""

from __future__ import annotations

from .opdef import Types
from .ops import get_op


def apply(name: str, *args, **kwargs):
    """Op ``name`` of the table applied to the arguments."""
    return get_op(name)(*args, **kwargs)


def infer(name: str, args, kwargs: dict) -> tuple[list, dict, Types | None]:
    """A call of op ``name`` checked: its operands, attributes and result types (PyascError for a
    call the op does not take)."""
    op = get_op(name)
    operands, attrs = op.bind(tuple(args), kwargs)
    return operands, attrs, op.types(operands, attrs)
