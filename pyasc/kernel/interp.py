"""Tracing a kernel's Python source: an interpreter over its AST that emits ops as it goes.

Expressions are evaluated with Python's own semantics on DSL objects (whose methods emit ops);
statements are interpreted so that control flow on run-time values becomes ``scf``:

* ``for i in range(...)``: with compile-time bounds the loop is unrolled (up to ``UNROLL_LIMIT``
  iterations; ``asc.static_range`` always, ``asc.range`` never); otherwise it is an ``scf.for``
  whose loop-carried values are the scalars the body reassigns;
* ``if``: on a compile-time condition only the taken branch is traced; on a run-time one it is an
  ``scf.if`` yielding the scalars either branch assigns. When a branch needs a constant that only
  the launch knows (or uses an API that cannot be expressed) and the condition's value in this
  launch is known, the ``if`` is specialised on it instead (the same for ``for`` bounds);
* ``and``/``or``/``not``/``x if c else y`` on run-time booleans become ``arith`` ops;
* a call of another ``@asc.jit`` function is inlined; ``with matmul.iterate() as count:`` is a loop.

Every op carries the line it came from (``asc.loc`` = ``file.py:LINE``).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import os
import textwrap
from typing import Any

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Region

from . import trace
from .errors import KernelError, NeedsStatic, Unsupported
from .trace import Scalar, current, is_scalar_like, kind_of, logical, materialize

UNROLL_LIMIT = 64
_MISSING = object()


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class RangeSpec:
    """``asc.range``/``asc.static_range``/``range`` arguments and how to loop over them."""

    def __init__(self, args, mode: str = "auto"):
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        self.start, self.stop, self.step = args
        self.mode = mode


_SOURCES: dict = {}


def function_ast(fn) -> tuple[ast.FunctionDef, str]:
    """The ``FunctionDef`` of ``fn`` with file line numbers, and the file's base name."""
    key = fn.__code__
    if key not in _SOURCES:
        src = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(src)
        ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
        fdef = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
        _SOURCES[key] = (fdef, os.path.basename(fn.__code__.co_filename))
    return _SOURCES[key]


def assigned_names(stmts) -> set[str]:
    """Names a list of statements (re)binds, nested blocks included."""
    out: set[str] = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


class Frame:
    """One function being traced: its locals, closure and globals."""

    def __init__(self, fn, env: dict):
        self.fn = fn
        self.fdef, self.file = function_ast(fn)
        self.env = env
        self.globals = fn.__globals__
        try:
            self.nonlocals = inspect.getclosurevars(fn).nonlocals
        except (TypeError, ValueError):
            self.nonlocals = {}


class Interpreter:
    """Traces one function body into the current tracer's block."""

    def __init__(self, frame: Frame, entry_block=None):
        self.f = frame
        self.entry_block = entry_block  # a `return` is allowed only here (not in a traced region)
        self._env: dict = frame.env

    # ------------------------------------------------------------------------------- entry
    def run(self):
        try:
            self.exec_body(self.f.fdef.body, self.f.env)
        except _Return as r:
            return r.value
        return None

    def _loc(self, node) -> None:
        if hasattr(node, "lineno"):
            current().loc = f"{self.f.file}:{node.lineno}"

    def err(self, node, api: str, detail: str) -> KernelError:
        self._loc(node)
        return KernelError(api, detail, location=current().loc)

    # ------------------------------------------------------------------------------- statements
    def exec_body(self, stmts, env: dict) -> None:
        for s in stmts:
            self.exec_stmt(s, env)

    def exec_stmt(self, node, env: dict) -> None:
        self._loc(node)
        match node:
            case ast.Expr():
                self.eval(node.value, env)
            case ast.Assign():
                value = self.eval(node.value, env)
                for tgt in node.targets:
                    self.assign(tgt, value, env)
            case ast.AnnAssign():
                if node.value is not None:
                    self.assign(node.target, self.eval(node.value, env), env)
            case ast.AugAssign():
                cur = self.eval(_load(node.target), env)
                self._loc(node)
                self.assign(node.target, _binop(node.op, cur, self.eval(node.value, env)), env)
            case ast.If():
                self.exec_if(node, env)
            case ast.For():
                self.exec_for(node, env)
            case ast.With():
                self.exec_with(node, env)
            case ast.Return():
                value = None if node.value is None else self.eval(node.value, env)
                if current().block is not self.entry_block:
                    raise self.err(node, "return", "`return` inside a run-time `if` or loop is not supported; "
                                                   "assign the value and return at the end of the function")
                raise _Return(value)
            case ast.Pass():
                pass
            case ast.Break():
                raise _Break()
            case ast.Continue():
                raise _Continue()
            case ast.Assert():
                test = self.eval(node.test, env)
                if not isinstance(test, Scalar) and not test:
                    msg = "" if node.msg is None else f": {self.eval(node.msg, env)}"
                    raise self.err(node, "assert", f"assertion failed{msg}")
            case ast.While():
                raise self.err(node, "while", "`while` loops are not supported in kernels; use `for ... in range`")
            case _:
                raise self.err(node, type(node).__name__.lower(), "this statement is not supported in a kernel")

    def assign(self, tgt, value, env: dict) -> None:
        match tgt:
            case ast.Name():
                env[tgt.id] = value
                _name(value, tgt.id)
            case ast.Tuple() | ast.List():
                vals = list(value)
                if len(vals) != len(tgt.elts):
                    raise self.err(tgt, "assign", f"cannot unpack {len(vals)} values into {len(tgt.elts)} names")
                for t, v in zip(tgt.elts, vals):
                    self.assign(t, v, env)
            case ast.Attribute():
                setattr(self.eval(tgt.value, env), tgt.attr, value)
            case ast.Subscript():
                obj = self.eval(tgt.value, env)
                obj[self.eval(tgt.slice, env)] = value
            case _:
                raise self.err(tgt, "assign", "unsupported assignment target")

    # -- if ------------------------------------------------------------------------------------
    def exec_if(self, node: ast.If, env: dict) -> None:
        cond = self.eval(node.test, env)
        if not isinstance(cond, Scalar):
            self.exec_body(node.body if cond else node.orelse, env)
            return
        try:
            self._trace_if(node, cond, env)
        except (NeedsStatic, Unsupported):
            if cond.known is None:
                raise
            current().pin()
            self.exec_body(node.body if cond.known else node.orelse, env)

    def _trace_if(self, node: ast.If, cond: Scalar, env: dict) -> None:
        t = current()
        c = trace.to_i1(cond)
        blocks, envs = [], []
        for stmts in (node.body, node.orelse):
            blk = Block()
            e = dict(env)
            t.if_path.append(object())
            try:
                with t.at_end(blk):
                    self.exec_body(stmts, e)
            finally:
                t.if_path.pop()
            blocks.append(blk)
            envs.append(e)
        names = sorted(assigned_names(node.body) | assigned_names(node.orelse))
        carried = []
        for n in names:
            vt, ve = envs[0].get(n, _MISSING), envs[1].get(n, _MISSING)
            if vt is ve:
                if vt is not _MISSING:
                    env[n] = vt
                continue
            if vt is _MISSING or ve is _MISSING:
                env.pop(n, None)  # defined on one path only: not visible after the if
                continue
            if is_scalar_like(vt) and is_scalar_like(ve):
                carried.append((n, vt, ve))
                continue
            raise self.err(node, "if", f"`{n}` is assigned different objects in the branches of a run-time `if` "
                                       f"(only scalars can differ between them)")
        kinds = [_unify(kind_of(a), kind_of(b)) for _, a, b in carried]
        ftypes = [_ftype(a, b) for _, a, b in carried]
        types = []
        for blk, side in zip(blocks, (1, 2)):
            with t.at_end(blk):
                vals = [materialize(c_[side], k, ft) for c_, k, ft in zip(carried, kinds, ftypes)]
                t.add(scf.YieldOp(*vals))
            types = [v.type for v in vals]
        op = scf.IfOp(c, types, Region(blocks[0]), Region(blocks[1]))
        t.add(op)
        for (n, vt, ve), k, r in zip(carried, kinds, op.results):
            known = None
            if cond.known is not None:
                known = trace.known_value(vt if cond.known else ve)
            elif trace.known_value(vt) is not None and trace.known_value(vt) == trace.known_value(ve):
                known = trace.known_value(vt)
            env[n] = Scalar(r, k, known)

    # -- for -----------------------------------------------------------------------------------
    def exec_for(self, node: ast.For, env: dict) -> None:
        it = self.eval(node.iter, env)
        if node.orelse:
            raise self.err(node, "for", "`for ... else` is not supported in kernels")
        if not isinstance(it, RangeSpec):
            if isinstance(it, Scalar):
                raise self.err(node, "for", "iterate over `range(...)` in a kernel")
            self._unroll(node, list(it), env)
            return
        bounds = (it.start, it.stop, it.step)
        static = not any(isinstance(b, Scalar) for b in bounds)
        if static and it.mode != "dynamic":
            values = range(*[int(b) for b in bounds])
            if it.mode == "static" or len(values) <= UNROLL_LIMIT:
                self._unroll(node, list(values), env)
                return
        try:
            self._trace_for(node, bounds, env)
        except (NeedsStatic, Unsupported):
            known = [trace.known_value(b) for b in bounds]
            if any(k is None for k in known) or it.mode == "dynamic" or len(range(*known)) > UNROLL_LIMIT:
                raise
            current().pin()
            self._unroll(node, list(range(*known)), env)

    def _unroll(self, node: ast.For, values: list, env: dict) -> None:
        for v in values:
            self.assign(node.target, v, env)
            try:
                self.exec_body(node.body, env)
            except _Continue:
                continue
            except _Break:
                break

    def _trace_for(self, node: ast.For, bounds, env: dict) -> None:
        t = current()
        if not isinstance(node.target, ast.Name):
            raise self.err(node, "for", "the loop variable of a run-time loop must be a single name")
        lb, ub, step = (trace.to_index(b) for b in bounds)
        names = sorted(assigned_names(node.body) - {node.target.id})
        carried = [n for n in names if n in env and is_scalar_like(env[n])]
        kinds = [kind_of(env[n]) for n in carried]
        ftypes = [_ftype(env[n], env[n]) for n in carried]
        inits = [materialize(env[n], k, ft) for n, k, ft in zip(carried, kinds, ftypes)]
        body = Block(arg_types=[IndexType()] + [v.type for v in inits])
        body.args[0].name_hint = node.target.id
        e = dict(env)
        e[node.target.id] = Scalar(body.args[0], "int")
        for n, k, a in zip(carried, kinds, body.args[1:]):
            a.name_hint = n
            e[n] = Scalar(a, k)
        with t.at_end(body):
            try:
                self.exec_body(node.body, e)
            except (_Break, _Continue):
                raise self.err(node, "for", "`break`/`continue` are not supported in a run-time loop")
            ys = []
            for n, k, ft in zip(carried, kinds, ftypes):
                v = e.get(n, _MISSING)
                if not is_scalar_like(v):
                    raise self.err(node, "for", f"`{n}` is a scalar before the loop but not in its body")
                ys.append(materialize(v, k, ft))
            t.add(scf.YieldOp(*ys))
        op = scf.ForOp(lb, ub, step, inits, body)
        t.add(op)
        for n, k, r in zip(carried, kinds, op.results):
            env[n] = Scalar(r, k)
        for n in names:
            if n in carried:
                continue
            if n in env and e.get(n, _MISSING) is not env[n]:
                raise self.err(node, "for", f"`{n}` is bound to another object in the body of a run-time loop "
                                            f"(only scalars can change from one iteration to the next)")

    # -- with ----------------------------------------------------------------------------------
    def exec_with(self, node: ast.With, env: dict) -> None:
        if len(node.items) != 1:
            raise self.err(node, "with", "one context manager per `with` in a kernel")
        item = node.items[0]
        ctx = self.eval(item.context_expr, env)
        trace_with = getattr(ctx, "trace_with", None)
        if trace_with is None:
            raise self.err(node, "with", f"{type(ctx).__name__} cannot be used in `with` inside a kernel")
        name = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
        trace_with(self, node, name, env)

    def loop_body(self, node, name: str | None, iv: Scalar, env: dict) -> None:
        """Trace ``node.body`` as the body of a loop the caller built (``iv`` bound to ``name``)."""
        e = dict(env)
        if name is not None:
            e[name] = iv
        before = {n: env.get(n, _MISSING) for n in assigned_names(node.body)}
        self.exec_body(node.body, e)
        for n, v in before.items():
            if v is not _MISSING and e.get(n, _MISSING) is not v:
                raise self.err(node, "with", f"`{n}` is reassigned inside the loop; only names first bound in "
                                             f"the loop body can be assigned there")

    # ------------------------------------------------------------------------------- expressions
    def lookup(self, name: str, node):
        f = self.f
        for scope in (self._env, f.nonlocals, f.globals):
            if name in scope:
                return scope[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.err(node, "name", f"name '{name}' is not defined")

    def eval(self, node, env: dict):
        self._env = env
        match node:
            case ast.Constant():
                return node.value
            case ast.Name():
                if node.id in env:
                    return env[node.id]
                return self.lookup(node.id, node)
            case ast.Attribute():
                obj = self.eval(node.value, env)
                try:
                    return getattr(obj, node.attr)
                except AttributeError:
                    raise self.err(node, node.attr, f"{type(obj).__name__} has no attribute '{node.attr}'") from None
            case ast.Subscript():
                obj = self.eval(node.value, env)
                key = self.eval(node.slice, env)
                self._loc(node)
                return obj[key]
            case ast.Slice():
                lo = None if node.lower is None else self.eval(node.lower, env)
                hi = None if node.upper is None else self.eval(node.upper, env)
                st = None if node.step is None else self.eval(node.step, env)
                return slice(lo, hi, st)
            case ast.Tuple():
                return tuple(self._elts(node.elts, env))
            case ast.List():
                return list(self._elts(node.elts, env))
            case ast.Dict():
                return {self.eval(k, env): self.eval(v, env) for k, v in zip(node.keys, node.values)}
            case ast.BinOp():
                a, b = self.eval(node.left, env), self.eval(node.right, env)
                self._loc(node)
                return _binop(node.op, a, b)
            case ast.UnaryOp():
                v = self.eval(node.operand, env)
                self._loc(node)
                if isinstance(node.op, ast.Not):
                    return logical("not", v, None)
                if isinstance(node.op, ast.USub):
                    return -v
                if isinstance(node.op, ast.UAdd):
                    return +v if not isinstance(v, Scalar) else v
                if isinstance(node.op, ast.Invert):
                    return ~v if not isinstance(v, Scalar) else v ^ -1
            case ast.BoolOp():
                return self._boolop(node, env)
            case ast.Compare():
                return self._compare(node, env)
            case ast.IfExp():
                c = self.eval(node.test, env)
                if not isinstance(c, Scalar):
                    return self.eval(node.body if c else node.orelse, env)
                a, b = self.eval(node.body, env), self.eval(node.orelse, env)
                return _select(c, a, b)
            case ast.Call():
                return self._call(node, env)
            case ast.JoinedStr():
                return "".join(str(self.eval(v, env)) for v in node.values)
            case ast.FormattedValue():
                return self.eval(node.value, env)
        raise self.err(node, type(node).__name__.lower(), "this expression is not supported in a kernel")

    def _elts(self, elts, env):
        for e in elts:
            if isinstance(e, ast.Starred):
                yield from self.eval(e.value, env)
            else:
                yield self.eval(e, env)

    def _boolop(self, node: ast.BoolOp, env: dict):
        op = "and" if isinstance(node.op, ast.And) else "or"
        acc = self.eval(node.values[0], env)
        for v in node.values[1:]:
            if not isinstance(acc, Scalar):
                if (op == "and" and not acc) or (op == "or" and acc):
                    return acc
                acc = self.eval(v, env)
                continue
            rhs = self.eval(v, env)
            self._loc(node)
            acc = logical(op, acc, rhs)
        return acc

    def _compare(self, node: ast.Compare, env: dict):
        left = self.eval(node.left, env)
        result = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node, env)
            self._loc(node)
            r = _cmp(op, left, right)
            result = r if result is True else logical("and", result, r)
            if result is False:
                return False
            left = right
        return result

    def _call(self, node: ast.Call, env: dict):
        fn = self.eval(node.func, env)
        args = list(self._elts(node.args, env))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value, env))
            else:
                kwargs[kw.arg] = self.eval(kw.value, env)
        self._loc(node)
        if fn is range:
            return RangeSpec(args)
        inline = getattr(fn, "__asc_inline__", None)
        if inline is not None:
            return inline(*args, **kwargs)
        result = fn(*args, **kwargs)
        self._env = env
        return result


def inline_call(fn, args, kwargs):
    """Trace the body of ``fn`` (an ``@asc.jit`` helper) in place and return its result."""
    t = current()
    sig = inspect.signature(fn)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise KernelError(fn.__name__, f"bad arguments: {e}", location=t.loc) from None
    bound.apply_defaults()
    frame = Frame(fn, dict(bound.arguments))
    interp = Interpreter(frame, t.block)
    saved = t.loc
    try:
        return interp.run()
    finally:
        t.loc = saved


# ---------------------------------------------------------------------------------------------- helpers

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.Pow: "**"}


def _binop(op, a, b):
    sym = _BINOPS[type(op)]
    import operator

    fns = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "//": operator.floordiv, "%": operator.mod, "<<": operator.lshift, ">>": operator.rshift,
           "&": operator.and_, "|": operator.or_, "^": operator.xor, "**": operator.pow}
    return fns[sym](a, b)


def _cmp(op, a, b):
    import operator

    fns = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
           ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y}
    if isinstance(b, Scalar) and not isinstance(a, Scalar) and type(op) in (ast.Lt, ast.LtE, ast.Gt, ast.GtE):
        flipped = {ast.Lt: operator.gt, ast.LtE: operator.ge, ast.Gt: operator.lt, ast.GtE: operator.le}
        return flipped[type(op)](b, a)
    return fns[type(op)](a, b)


def _name(value, name: str) -> None:
    """Let the SSA value behind ``value`` carry the Python name (the emitted C++ uses it)."""
    namer = getattr(value, "_name", None)
    if callable(namer):
        namer(name)
    elif isinstance(value, Scalar) and value.value.name_hint is None:
        from .values import hint

        hint(value.value, name)


def _unify(a: str, b: str) -> str:
    if a == b:
        return a
    if "float" in (a, b):
        return "float"
    return "int"


def _ftype(a, b):
    for x in (a, b):
        if isinstance(x, Scalar) and x.kind == "float":
            return x.value.type
    return None


def _select(c: Scalar, a, b):
    from xdsl.dialects import arith

    t = current()
    k = _unify(kind_of(a), kind_of(b))
    ft = _ftype(a, b)
    va, vb = materialize(a, k, ft), materialize(b, k, ft)
    known = None
    if c.known is not None:
        known = trace.known_value(a if c.known else b)
    return Scalar(t.val(arith.SelectOp(trace.to_i1(c), va, vb)), k, known)


def run_kernel_body(fn, env: dict) -> Any:
    """Trace the body of the kernel ``fn`` with ``env`` bound to its parameters."""
    return Interpreter(Frame(fn, env), current().block).run()
