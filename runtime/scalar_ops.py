"""Code generation for the upstream ops inside a kernel (``arith`` scalars, ``scf.for``/``scf.if``,
``func.return``) and the helpers the generated scalar code calls.

Integers are Python ints wrapped to their width (``_sext``); index and 64-bit values are left as they
are. ``scf.for`` is a Python ``for`` over ``range`` unless ``vectorize`` runs its rows at once.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Operation, SSAValue

from pyasc.dialects.types import numpy_dtype

from . import vectorize
from .codegen import KernelTranslator
from .errors import SimulationError


def _int_width(t) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    return 64


# ---------------------------------------------------------------------------------------- arith


def _constant(t: KernelTranslator, op: Operation) -> None:
    attr = op.value
    r = op.result
    if isinstance(attr, IntegerAttr):
        val = attr.value.data
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            val = int(bool(val & 1))
        t.consts[r] = val
        t.bind(r, repr(val) if val >= 0 else f"({val})")
    elif isinstance(attr, FloatAttr):
        dt = numpy_dtype(attr.type)
        t.bind(r, t.const(dt.type(attr.value.data), "F"))
    else:
        raise SimulationError(f"kernel @{t.kernel}: unsupported constant `{op}`")


def _wrap(t: KernelTranslator, value: SSAValue, expr: str) -> str:
    w = _int_width(value.type)
    if isinstance(value.type, IndexType) or w >= 64:
        return expr
    if w == 1:
        return f"(({expr}) & 1)"
    return f"_sext({expr}, {w})"


def _binary(pyop: str):
    def h(t: KernelTranslator, op: Operation) -> None:
        a, b = t.v(op.operands[0]), t.v(op.operands[1])
        t.emit(f"{t.v(op.results[0])} = {_wrap(t, op.results[0], f'{a} {pyop} {b}')}")

    return h


def _helper(fn: str, with_width: bool = True, checked: bool = False):
    def h(t: KernelTranslator, op: Operation) -> None:
        args = [t.v(x) for x in op.operands]
        if with_width:
            args.append(str(_int_width(op.operands[0].type)))
        if checked:
            sid = t.info(op)
            args += [str(sid), "bid"]
        t.emit(f"{t.v(op.results[0])} = {fn}({', '.join(args)})")

    return h


def _unsigned_by_const(fn: str, pyop: str):
    """``divui``/``remui`` of a 64-bit value by a positive constant: inline for a non-negative value
    (index math), else the helper."""
    general = _helper(fn, checked=True)

    def h(t: KernelTranslator, op: Operation) -> None:
        b = t.consts.get(op.operands[1])
        if not (isinstance(b, int) and b > 0 and _int_width(op.operands[0].type) >= 64):
            general(t, op)
            return
        a, sid = t.v(op.operands[0]), t.info(op)
        t.emit(f"{t.v(op.results[0])} = {a} {pyop} {b} if {a} >= 0 else {fn}({a}, {b}, 64, {sid}, bid)")

    return h


_CMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}


def _cmpi(t: KernelTranslator, op: Operation) -> None:
    pred = op.predicate.value.data
    a, b = t.v(op.lhs), t.v(op.rhs)
    if pred >= 6:
        w = _int_width(op.lhs.type)
        a, b = f"_u({a}, {w})", f"_u({b}, {w})"
    t.emit(f"{t.v(op.result)} = int({a} {_CMPI[pred]} {b})")


_CMPF = {1: "==", 2: ">", 3: ">=", 4: "<", 5: "<=", 6: "!=", 8: "==", 9: ">", 10: ">=", 11: "<", 12: "<=",
         13: "!="}


def _cmpf(t: KernelTranslator, op: Operation) -> None:
    pred = op.predicate.value.data
    a, b = t.v(op.lhs), t.v(op.rhs)
    if pred in _CMPF:
        expr = f"int({a} {_CMPF[pred]} {b})"
    else:
        expr = {0: "0", 15: "1", 7: f"int({a} == {a} and {b} == {b})",
                14: f"int({a} != {a} or {b} != {b})"}[pred]
    t.emit(f"{t.v(op.result)} = {expr}")


def _select(t: KernelTranslator, op: Operation) -> None:
    c, a, b = (t.v(x) for x in op.operands)
    t.emit(f"{t.v(op.result)} = {a} if {c} else {b}")


def _cast_int(t: KernelTranslator, op: Operation) -> None:
    t.emit(f"{t.v(op.results[0])} = {_wrap(t, op.results[0], t.v(op.operands[0]))}")


def _negf(t: KernelTranslator, op: Operation) -> None:
    t.emit(f"{t.v(op.result)} = -{t.v(op.operand)}")


def _to_float(t: KernelTranslator, op: Operation) -> None:
    ctor = t.const(numpy_dtype(op.result.type).type, "D")
    t.emit(f"{t.v(op.result)} = {ctor}({t.v(op.input)})")


def _to_int(t: KernelTranslator, op: Operation) -> None:
    t.emit(f"{t.v(op.result)} = {_wrap(t, op.result, f'int({t.v(op.input)})')}")


# ---------------------------------------------------------------------------------------- scf / func


def _for(t: KernelTranslator, op: Operation) -> None:
    lb, ub, step = t.v(op.lb), t.v(op.ub), t.v(op.step)
    plan = vectorize.plan_loop(t, op)
    if plan is not None:
        vectorize.emit_loop(t, op, plan)
        return
    block = op.body.block
    iv = t.v(block.args[0])
    carried = [t.v(a) for a in block.args[1:]]
    t.flush()
    for var, init in zip(carried, op.iter_args):
        t.emit(f"{var} = {t.v(init)}")
    for res, var in zip(op.results, carried):
        t.bind(res, var)
    sid = t.info(op)
    t.emit(f"if {step} <= 0: _fail({sid}, bid, 'scf.for step must be positive')")
    t.emit(f"for {iv} in range({lb}, {ub}, {step}):")
    t.emit_region_block(block, pending=1)


def _if(t: KernelTranslator, op: Operation) -> None:
    cond = t.v(op.cond)
    res = [t.v(r) for r in op.results]
    t.flush()
    t.emit(f"if {cond}:")
    t.emit_region_block(op.true_region.block)
    if op.false_region.blocks:
        t.emit("else:")
        t.emit_region_block(op.false_region.block)


def _yield(t: KernelTranslator, op: Operation) -> None:
    parent = op.parent_op()
    if parent is None or not op.operands:
        return
    if parent.name == "scf.for":
        targets = [t.v(a) for a in parent.body.block.args[1:]]
    else:
        targets = [t.v(r) for r in parent.results]
    vals = [t.v(x) for x in op.operands]
    t.emit(f"{', '.join(targets)}, = {', '.join(vals)},")


def _return(t: KernelTranslator, op: Operation) -> None:
    t.flush()
    if op.parent_op() is not t.func:
        raise SimulationError(f"kernel @{t.kernel}: func.return inside a nested region is not supported")
    t.emit("return s")


# upstream op name -> code generator
SCALAR_HANDLERS = {
    "arith.constant": _constant,
    "arith.addi": _binary("+"),
    "arith.subi": _binary("-"),
    "arith.muli": _binary("*"),
    "arith.andi": _binary("&"),
    "arith.ori": _binary("|"),
    "arith.xori": _binary("^"),
    "arith.shli": _binary("<<"),
    "arith.shrsi": _binary(">>"),
    "arith.divui": _unsigned_by_const("_divui", "//"),
    "arith.divsi": _helper("_divsi", checked=True),
    "arith.remui": _unsigned_by_const("_remui", "%"),
    "arith.remsi": _helper("_remsi", checked=True),
    "arith.ceildivui": _helper("_ceildivui", checked=True),
    "arith.ceildivsi": _helper("_ceildivsi", checked=True),
    "arith.floordivsi": _helper("_floordivsi", checked=True),
    "arith.minui": _helper("_minui"),
    "arith.maxui": _helper("_maxui"),
    "arith.minsi": _helper("min", with_width=False),
    "arith.maxsi": _helper("max", with_width=False),
    "arith.cmpi": _cmpi,
    "arith.cmpf": _cmpf,
    "arith.select": _select,
    "arith.index_cast": _cast_int,
    "arith.index_castui": _cast_int,
    "arith.extsi": _cast_int,
    "arith.extui": _cast_int,
    "arith.trunci": _cast_int,
    "arith.addf": _binary("+"),
    "arith.subf": _binary("-"),
    "arith.mulf": _binary("*"),
    "arith.divf": _binary("/"),
    "arith.negf": _negf,
    "arith.maximumf": _helper("max", with_width=False),
    "arith.minimumf": _helper("min", with_width=False),
    "arith.sitofp": _to_float,
    "arith.uitofp": _to_float,
    "arith.extf": _to_float,
    "arith.truncf": _to_float,
    "arith.fptosi": _to_int,
    "arith.fptoui": _to_int,
    "scf.for": _for,
    "scf.if": _if,
    "scf.yield": _yield,
    "func.return": _return,
}


# ---------------------------------------------------------------------------------------- scalar helpers


def unsigned(x: int, w: int) -> int:
    """The unsigned reading of the low ``w`` bits of ``x``."""
    return x & ((1 << w) - 1)


def sign_extend(x: int, w: int) -> int:
    """The signed reading of the low ``w`` bits of ``x``."""
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def pick(c, a, b):
    return a if c else b


def scalar_helpers(u=unsigned, sext=sign_extend, pick=pick) -> dict:
    """The helpers the generated scalar code calls (unsigned views, sign extension, division), built on
    ``u``, ``sext`` and ``pick(cond, a, b)`` (``batched`` passes versions for per-core vectors)."""

    def checked(fn):
        def h(a, b, w, sid, bid):
            if b == 0:
                raise DivByZero(sid, bid)
            return fn(a, b, w)

        return h

    def divsi(a, b, w):
        q = abs(a) // abs(b)
        return sext(pick((a < 0) == (b < 0), q, -q), w)

    if u is unsigned:  # one core's Python ints: those already unsigned compare as they are
        def minui(a, b, w):
            if a >= 0 <= b and not (a | b) >> w:
                return a if a <= b else b
            return a if unsigned(a, w) <= unsigned(b, w) else b

        def maxui(a, b, w):
            if a >= 0 <= b and not (a | b) >> w:
                return a if a >= b else b
            return a if unsigned(a, w) >= unsigned(b, w) else b
    else:
        def minui(a, b, w):
            return pick(u(a, w) <= u(b, w), a, b)

        def maxui(a, b, w):
            return pick(u(a, w) >= u(b, w), a, b)

    return {
        "_int": int,  # a scalar read from data (one core's; a group reads one per core)
        "_float": float,
        "_u": u,
        "_sext": sext,
        "_divui": checked(lambda a, b, w: sext(u(a, w) // u(b, w), w)),
        "_remui": checked(lambda a, b, w: sext(u(a, w) % u(b, w), w)),
        "_ceildivui": checked(lambda a, b, w: sext(-(-u(a, w) // u(b, w)), w)),
        "_divsi": checked(divsi),
        "_remsi": checked(lambda a, b, w: sext(a - b * divsi(a, b, w), w)),
        "_ceildivsi": checked(lambda a, b, w: sext(-((-a) // b), w)),
        "_floordivsi": checked(lambda a, b, w: sext(a // b, w)),
        "_minui": minui,
        "_maxui": maxui,
    }


class DivByZero(Exception):
    """Raised by the scalar helpers; the simulator turns it into a ``SimulationError`` naming the op."""

    def __init__(self, sid: int, bid: int):
        super().__init__(sid, bid)
        self.sid, self.bid = sid, bid
