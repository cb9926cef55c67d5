"""``asctensor-autodiff``: reverse-mode differentiation of traced programs.

A traced program records each differentiated call of a tensor-API op as an ``asctensor.primal``
op (its name, attributes and values). The pass builds the backward from these records:

* every ``asctensor.vjp`` op (what ``pyasc.grad``, ``pyasc.vjp`` and ``backward()`` emit) is
  replaced by the ops computing its vector-Jacobian products;
* with ``wrt`` (argument positions of ``function``, the only public function by default), the
  function itself is differentiated: the records in its body are its calls, a cotangent argument
  is appended for each output with more than one element (a one-element output is seeded with 1),
  and it returns its outputs followed by the gradients of the arguments ``wrt``.

Each record's rule is the ``vjp`` of the op's definition (found by the op's name in the op table
or among the registered custom ops); the rule's tensor ops are emitted as ``asctensor`` IR in
front of the ``asctensor.vjp`` op, where they read the forward's values. An op without a rule is a
``CompileError`` naming it. Records left after the rewrite are erased: the program computes what
it did. The rest of the pipeline then fuses the backward like any program.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import asctensor
from pyasc.dialects.target import module_target

from .errors import CompileError
from .options import check_argnums


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    public = [op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_visibility is None
              and asctensor.KERNEL_ATTR not in op.attributes]
    if name:
        for op in module.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data == name:
                return op
        raise CompileError(f"asctensor-autodiff: no function named '{name}'")
    if len(public) != 1:
        raise CompileError(f"asctensor-autodiff: {len(public)} public functions; name the one to differentiate "
                           "with function=<name>")
    return public[0]


def _differentiate(fn: func.FuncOp, wrt: tuple[int, ...]) -> None:
    """Rewrite ``fn`` to also return the gradients of its arguments ``wrt`` (see the module doc)."""
    block = fn.body.block
    check_argnums("asctensor-autodiff", "wrt", wrt, len(block.args))
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    roots = list(ret.arguments)
    if not roots:
        raise CompileError(f"asctensor-autodiff: @{fn.sym_name.data} returns nothing to differentiate")
    body = Block()
    for record in [op for op in block.ops if isinstance(op, asctensor.PrimalOp)]:
        record.detach()
        body.add_op(record)
    cotangents = []
    for r in roots:
        t = r.type
        if any(d != 1 for d in t.get_shape()):
            ct = block.insert_arg(t, len(block.args))
            ct.name_hint = "ct"
            cotangents.append(ct)
        else:
            one = asctensor.FullOp(1.0, t)
            Rewriter.insert_op(one, InsertPoint.before(ret))
            cotangents.append(one.results[0])
    vjp = asctensor.VjpOp(roots, cotangents, [block.args[i] for i in wrt], Region(body))
    Rewriter.insert_op(vjp, InsertPoint.before(ret))
    Rewriter.replace_op(ret, func.ReturnOp(*roots, *vjp.grads))
    fn.function_type = FunctionType.from_lists([a.type for a in block.args],
                                               [v.type for v in [*roots, *vjp.grads]])
    if fn.arg_attrs is not None:    # the cotangents carry no attribute
        fn.arg_attrs = ArrayAttr([*fn.arg_attrs.data, *[DictionaryAttr({})] * (len(block.args) - len(fn.arg_attrs.data))])


@dataclass(frozen=True)
class AscTensorAutodiffPass(ModulePass):
    """Build the backward of the ``asctensor.vjp`` ops (and of ``function`` when ``wrt`` is given)."""

    name = "asctensor-autodiff"
    INPUT_LEVEL = "asctensor"

    function: str = ""
    wrt: tuple[int, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from pyasc.autograd.program import resolve
        from pyasc.errors import PyascError

        if self.wrt:
            _differentiate(_function(op, self.function), tuple(self.wrt))
        elif self.function:
            _function(op, self.function)
        target = module_target(op).name
        last = None
        while True:
            # the innermost first: a rule may itself differentiate (a composition's rule)
            pending = [o for o in op.walk() if isinstance(o, asctensor.VjpOp)]
            if not pending:
                break
            if pending[0] is last:  # each resolve replaces its op: one left in place would loop forever
                raise RuntimeError(f"the gradient of {last.name} was not resolved")
            last = pending[0]
            try:
                resolve(pending[0], target)
            except PyascError as e:
                raise CompileError(f"asctensor-autodiff: {e}") from None
        for record in [o for o in op.walk() if isinstance(o, asctensor.PrimalOp)]:
            record.detach()
            record.erase()
