"""The integer-valued discardable attributes of the pyasc dialects, and their verifier.

MLIR lets a dialect verify the discardable attributes it owns (``verifyOperationAttribute``); xDSL
0.75 has no such hook, so ``verify_integer_attributes`` walks the IR instead. An attribute named in
``INTEGER_ATTRS`` must be an ``IntegerAttr`` of an integer type wider than ``i1`` or of ``index``,
with its value in the attribute's range: ``asctile.buffers = 2.0`` or ``asctile.block_dim = 0`` is a
one-line ``VerifyException`` naming the op, the attribute and the range. The properties of the
ops of the pyasc dialects are checked against their definitions too, so that a float where an
integer property belongs (``offset = 6.4e1 : f64``) names the op and the property. ``pyasc-opt``
runs it before the IR verifier, on its input and after every pass.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import VerificationContext
from xdsl.utils.exceptions import VerifyException

DIALECTS = ("asctensor", "asctile", "ascbuf", "ascendc")

MAX_BLOCK_DIM = 65535  # the largest block_dim of an Ascend C kernel launch
MAX_BUFFERS = 4  # the most rotating copies a queue of the compiled kernels takes
MAX_MIX_CREDITS = 15  # pending cross-core signals of one channel

# name -> (least value, greatest value or None, what it counts)
INTEGER_ATTRS: dict[str, tuple[int, int | None, str]] = {
    "asctile.block_dim": (1, MAX_BLOCK_DIM, "the cores a kernel runs on"),
    "ascendc.block_dim": (1, MAX_BLOCK_DIM, "the cores a kernel runs on"),
    "asctile.buffers": (1, MAX_BUFFERS, "the copies of each queue of a kernel"),
    "asctile.mix_credits": (1, MAX_MIX_CREDITS, "the credits of a MIX kernel's channels"),
    "ascendc.num_outputs": (0, None, "the outputs of a host function"),
}


def _range(low: int, high: int | None) -> str:
    return f"in {low}..{high}" if high is not None else f">= {low}"


def _where(op: Operation) -> str:
    sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return f"{op.name} @{sym.data}" if sym is not None else op.name


def check_integer_attribute(op: Operation, name: str) -> None:
    """Raise ``VerifyException`` unless ``op``'s attribute ``name`` (one of ``INTEGER_ATTRS``) is an
    integer in its range."""
    low, high, what = INTEGER_ATTRS[name]
    attr = op.attributes[name]
    ok = (isinstance(attr, IntegerAttr)
          and (isinstance(attr.type, IndexType) or isinstance(attr.type, IntegerType) and attr.type.width.data > 1))
    if ok:
        value = attr.value.data
        ok = value >= low and (high is None or value <= high)
    if not ok:
        raise VerifyException(f"`{_where(op)}` has {name} = {attr}; {name} ({what}) must be an integer "
                              f"{_range(low, high)}")


def verify_integer_attributes(root: Operation) -> None:
    """Check every attribute of ``INTEGER_ATTRS`` and the properties of the pyasc ops on ``root``
    and the ops nested in it."""
    for op in root.walk():
        check_properties(op)
        for name in op.attributes.keys() & INTEGER_ATTRS.keys():
            check_integer_attribute(op, name)


def check_properties(op: Operation) -> None:
    """Raise ``VerifyException`` naming the op and the property unless each property of ``op`` (an
    op of the pyasc dialects) meets its definition's constraint."""
    if not isinstance(op, IRDLOperation) or op.name.split(".", 1)[0] not in DIALECTS:
        return
    for name, prop in type(op).get_irdl_definition().properties.items():
        attr = op.properties.get(name)
        if attr is None:
            continue
        try:
            prop.constr.verify(attr, VerificationContext())
        except VerifyException as e:
            raise VerifyException(f"`{op.name}` has {name} = {attr}: {e}") from None
