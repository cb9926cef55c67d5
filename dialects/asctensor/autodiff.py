"""The ``asctensor`` dialect: what reverse-mode differentiation reads and resolves.

* ``asctensor.primal`` records one call of an op of the tensor API in a traced program: the op's
  name, its attributes (``call_attrs``, a Python literal), the layout of its operands (``layout``: a
  list with ``'%'`` for each tensor operand, in order, and the Python value of the others) and
  the values of its tensor operands and results. It computes nothing; the op's gradient rule is
  found from its name (the ``vjp`` of the op's definition).
* ``asctensor.vjp`` stands for the vector-Jacobian products of ``roots`` weighted by
  ``cotangents`` with respect to ``wrt`` (one result per ``wrt``, of its type). Its body holds the
  ``asctensor.primal`` records of the calls between them. The ``asctensor-autodiff`` pass replaces
  it with the backward ops.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType, UnitAttr
from xdsl.ir import Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from .base import FLOAT_TYPES, check_element_type


@irdl_op_definition
class PrimalOp(IRDLOperation):
    """One recorded call of op ``op`` (see the module docstring); it has no effect of its own."""

    name = "asctensor.primal"
    args = var_operand_def(TensorType)
    outs = var_operand_def(TensorType)
    op = prop_def(StringAttr)
    call_attrs = prop_def(StringAttr)
    layout = prop_def(StringAttr)
    several = opt_prop_def(UnitAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = ("$op `(` $args `)` `->` `(` $outs `)` `attrs` $call_attrs `layout` $layout "
                       "(`several` $several^)? attr-dict `:` `(` type($args) `)` `->` `(` type($outs) `)`")

    def __init__(self, op: str, args, outs, call_attrs: str, layout: str, several: bool = False):
        props = {"op": StringAttr(op), "call_attrs": StringAttr(call_attrs), "layout": StringAttr(layout)}
        if several:
            props["several"] = UnitAttr()
        super().__init__(operands=[list(args), list(outs)], properties=props)


@irdl_op_definition
class VjpOp(IRDLOperation):
    """The gradients of ``roots`` (weighted by ``cotangents``) with respect to ``wrt``; the body
    holds the records of the calls in between."""

    name = "asctensor.vjp"
    roots = var_operand_def(TensorType)
    cotangents = var_operand_def(TensorType)
    wrt = var_operand_def(TensorType)
    grads = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = ("`of` `(` $roots `)` `by` `(` $cotangents `)` `wrt` `(` $wrt `)` $body attr-dict `:` "
                       "`(` type($roots) `)` `,` `(` type($cotangents) `)` `,` `(` type($wrt) `)` `->` "
                       "`(` type($grads) `)`")

    def __init__(self, roots, cotangents, wrt, body: Region):
        super().__init__(operands=[list(roots), list(cotangents), list(wrt)],
                         result_types=[[v.type for v in wrt]], regions=[body])

    def verify_(self) -> None:
        if len(self.roots) != len(self.cotangents):
            raise VerifyException(f"asctensor.vjp: {len(self.cotangents)} cotangent(s) for {len(self.roots)} root(s)")
        for r, c in zip(self.roots, self.cotangents):
            if r.type != c.type:
                raise VerifyException(f"asctensor.vjp: cotangent {c.type} for a root of type {r.type}")
        for w, g in zip(self.wrt, self.grads, strict=True):
            if w.type != g.type:
                raise VerifyException(f"asctensor.vjp: gradient {g.type} for an input of type {w.type}")
            check_element_type(self.name, w.type, FLOAT_TYPES)
        for op in self.body.block.ops:
            if not isinstance(op, PrimalOp):
                raise VerifyException(f"asctensor.vjp: its body holds asctensor.primal records only, not {op.name}")


OPS = [PrimalOp, VjpOp]
ATTRIBUTES: list = []
