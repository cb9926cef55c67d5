"""Translation of an ``ascendc`` kernel (a ``func.func`` marked ``ascendc.kernel``) into Python source.

The kernel becomes one Python function ``_kernel(bid, bnum, args, T)`` that runs one core: SSA values are
local variables (integers for scalars and tensor addresses, NumPy scalars for float scalars), ``scf.for``
is a Python ``for`` over ``range``, every ascendc op is a few lines calling NumPy on views of the
preallocated memories, and every op that occupies a pipe appends one record to the trace ``T`` (see
``opinfo``). The scalar unit's issue clock ``s`` is advanced by the number of scalar instructions between
traced ops, computed at translation time.

Value representations: a global tensor is an element offset into a typed view of its GM buffer (the view
is known statically from the ``ascendc.global_tensor`` op the value derives from); a local tensor is a
byte address in UB; a queue, buffer or pipe is a small state object (``queues``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, Operation, SSAValue

from pyasc.dialects.target import TargetSpec

from . import kernel_ops, vectorize
from . import kernel_ops_cube  # noqa: F401 - registers the cube ops into kernel_ops.HANDLERS
from . import kernel_ops_mix  # noqa: F401 - registers the MIX-kernel ops into kernel_ops.HANDLERS
from .dtypes import numpy_dtype
from .errors import SimulationError
from .opinfo import OpInfo


@dataclass
class CompiledKernel:
    """A kernel translated to Python: ``fn(bid, bnum, args, trace_append, ct, sub)`` runs one core (``ct``:
    0 AIC, 1 AIV, and ``sub`` the AIV's index in its AI Core; only MIX kernels look at them)."""

    name: str
    fn: object
    infos: list[OpInfo]
    source: str
    num_args: int
    code: object = None  # the compiled source, also run by a group of cores in other globals (``batched``)
    env: dict | None = None


def _int_width(t) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    return 64


class KernelTranslator:
    """Translates one kernel function into Python source and compiles it.

    ``env`` is the dictionary of globals shared by the generated code (UB views, helpers, constants);
    the translator adds its own constants and the ``_fail``/``_find`` helpers for its op table.
    """

    def __init__(self, func_op: func.FuncOp, spec: TargetSpec, env: dict, run_ctx):
        self.func = func_op
        self.kernel = func_op.sym_name.data
        self.spec = spec
        self.env = dict(env)
        self.run_ctx = run_ctx
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict[SSAValue, str] = {}
        self.consts: dict[SSAValue, int] = {}
        self.gm_roots: dict[SSAValue, tuple[str, str, str, int]] = {}
        self.infos: list[OpInfo] = []
        self.pending = 0
        self._ids = itertools.count()
        self._const_names: dict[tuple, str] = {}
        self.num_queues = 0
        self.checked: set[SSAValue] = set()  # event-id values already range-checked in this scope
        self.no_data = False  # emitting the trace-only copy of a vectorised loop (see ``vectorize``)
        self.sid_memo: dict | None = None  # ops emitted twice (vectorised loops) keep one OpInfo

    # ------------------------------------------------------------------ naming and emission helpers

    def fresh(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self._ids)}"

    def v(self, value: SSAValue) -> str:
        """The Python expression of an SSA value (a variable or a literal)."""
        name = self.names.get(value)
        if name is None:
            name = self.names[value] = self.fresh("v")
        return name

    def bind(self, value: SSAValue, expr: str) -> None:
        self.names[value] = expr

    def const_of(self, value: SSAValue) -> int | None:
        return self.consts.get(value)

    def const(self, obj, prefix: str = "K") -> str:
        """A global name holding ``obj`` (deduplicated by type and value)."""
        key = (type(obj), repr(obj), prefix)
        name = self._const_names.get(key)
        if name is None:
            name = self._const_names[key] = self.fresh(prefix)
            self.env[name] = obj
        return name

    def emit(self, line: str) -> None:
        if self.no_data and ("U_" in line or line.startswith("if ") and "_fail(" in line):
            return  # data work or checks of an op of a vectorised loop (done over all rows at once)
        self.lines.append("    " * self.depth + line)

    def info(self, op: Operation, pipe: int | None = None, kind: int = 0, writes=(), gm: bool = False,
             label: str = "") -> int:
        if self.sid_memo is not None:
            key = (op, pipe, kind, tuple(writes), gm, label)
            sid = self.sid_memo.get(key)
            if sid is None:
                sid = self.sid_memo[key] = len(self.infos)
                self.infos.append(OpInfo(op, self.kernel, pipe, kind, tuple(writes), gm, label))
            return sid
        self.infos.append(OpInfo(op, self.kernel, pipe, kind, tuple(writes), gm, label))
        return len(self.infos) - 1

    def issue(self) -> None:
        """Advance the scalar clock to the op being traced (it counts itself)."""
        if self.pending:
            self.emit(f"s += {self.pending}")
        self.pending = 0

    def flush(self) -> None:
        if self.pending:
            self.emit(f"s += {self.pending}")
        self.pending = 0

    def fail_line(self, sid: int, msg: str) -> None:
        self.emit(f"_fail({sid}, bid, {msg!r})")

    def local_dtype(self, value: SSAValue) -> tuple[str, int, int]:
        """(dtype key, element size, log2 of the size) of a local tensor value."""
        et = str(value.type.element_type)
        dt = numpy_dtype(et)
        es = dt.itemsize
        return et, es, es.bit_length() - 1

    def gm_root(self, value: SSAValue, op: Operation) -> tuple[str, str, str, int]:
        root = self.gm_roots.get(value)
        if root is None:
            raise SimulationError(
                f"kernel @{self.kernel}: the global tensor used by `{op}` does not derive statically from an "
                f"ascendc.global_tensor op (global tensors through block arguments are not supported)")
        return root

    # ------------------------------------------------------------------ driver

    def translate(self) -> CompiledKernel:
        args = self.func.body.block.args
        arg_names = [f"a{i}" for i in range(len(args))]
        for a, n in zip(args, arg_names):
            self.bind(a, n)
        self.env["_fail"] = self._make_fail()
        self.env["_find"] = self._make_find()
        self.env["_V2"] = vectorize.make_view2(self.env["U_ui8"])
        self.emit_block(self.func.body.block)
        self.flush()
        if not self.lines or self.lines[-1].strip() != "return s":
            self.emit("return s")
        header = ["def _kernel(bid, bnum, args, T, ct=0, sub=0):", "    s = 0"]
        if arg_names:
            header.append(f"    {', '.join(arg_names)}, = args")
        source = "\n".join(header + self.lines) + "\n"
        code = compile(source, f"<ascendc kernel @{self.kernel}>", "exec")
        exec(code, self.env)
        return CompiledKernel(self.kernel, self.env["_kernel"], self.infos, source, len(args), code, self.env)

    def _make_fail(self):
        infos = self.infos

        def _fail(sid: int, bid: int, msg: str):
            raise SimulationError(f"{infos[sid].describe()}, core {bid}: {msg}")

        return _fail

    def _make_find(self):
        infos, ctx = self.infos, self.run_ctx

        def _find(kind: str, sid: int, bid: int, msg: str):
            i = infos[sid]
            ctx.log.add(kind, msg, i.kernel, i.text, bid, loc=i.loc)

        return _find

    def emit_block(self, block: Block) -> None:
        for op in block.ops:
            handler = _HANDLERS.get(op.name)
            if handler is None:
                raise SimulationError(f"kernel @{self.kernel}: the simulator does not support `{op.name}` ({op})")
            if op.name not in ("scf.yield", "func.return"):
                self.pending += 1
            if self.no_data and op.name in vectorize.FLOAT_OPS:
                continue  # a float scalar only the vectorised data work uses
            handler(self, op)

    def emit_region_block(self, block: Block, pending: int = 0) -> None:
        """A nested block: its own scalar-count bookkeeping, at least one statement."""
        self.depth += 1
        start = len(self.lines)
        self.pending = pending
        saved = set(self.checked)
        self.emit_block(block)
        self.flush()
        self.checked = saved
        if len(self.lines) == start:
            self.emit("pass")
        self.depth -= 1
        self.pending = 0


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


_HANDLERS = {
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
_HANDLERS.update(kernel_ops.HANDLERS)


# ---------------------------------------------------------------------------------------- scalar helpers


def _u(x: int, w: int) -> int:
    return x & ((1 << w) - 1)


def _sext(x: int, w: int) -> int:
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def _pick(c, a, b):
    return a if c else b


def scalar_helpers(u=_u, sext=_sext, pick=_pick) -> dict:
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
        "_minui": lambda a, b, w: pick(u(a, w) <= u(b, w), a, b),
        "_maxui": lambda a, b, w: pick(u(a, w) >= u(b, w), a, b),
    }


class DivByZero(Exception):
    """Raised by the scalar helpers; the simulator turns it into a ``SimulationError`` naming the op."""

    def __init__(self, sid: int, bid: int):
        super().__init__(sid, bid)
        self.sid, self.bid = sid, bid
