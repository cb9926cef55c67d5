"""The tracing state of one kernel (where ops go, the current source line, what the kernel used)
and ``Scalar``, a run-time scalar of a kernel (an SSA value plus, when the launch tells it, the
value it has in this launch).

Integers are ``index`` values (``int64_t`` in the emitted code), booleans ``i1``, floats their
float type (``float`` by default). Integer ``/`` and ``//`` divide as C does (``arith.divsi``), like
the official DSL. A value the ``ascendc`` dialect needs as a constant (a static tensor's address, a
buffer length) may come from a kernel argument: its value in the launch is used and the compiled
kernel is keyed on it (``Tracer.pinned``).
"""

from __future__ import annotations

import contextlib
import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from .errors import KernelError, NeedsStatic

LOC_ATTR = "asc.loc"
I1 = IntegerType(1)
I64 = IntegerType(64)

_TRACER: Tracer | None = None


def current() -> Tracer:
    """The tracer of the kernel being traced (an error outside ``@asc.jit``)."""
    if _TRACER is None:
        import inspect

        caller = inspect.stack()[1].function
        raise KernelError(caller, "can only be called inside an @asc.jit kernel that is being launched")
    return _TRACER


def current_loc() -> str | None:
    return _TRACER.loc if _TRACER is not None else None


def tracing() -> bool:
    return _TRACER is not None


@contextlib.contextmanager
def activate(tracer: Tracer):
    global _TRACER
    saved, _TRACER = _TRACER, tracer
    try:
        yield tracer
    finally:
        _TRACER = saved


class Tracer:
    """Where the ops of a kernel go. ``mode`` is the core type traced ("aiv" or "aic"); in a MIX
    kernel each is traced once and API calls of the other core type are dropped."""

    def __init__(self, mode: str, kernel: str, block: Block, options: dict, launch: dict):
        self.mode = mode
        self.kernel = kernel
        self.options = options
        self.launch = launch  # block_dim, arrays' sizes, ... of the launch being compiled
        self.blocks: list[Block] = [block]
        self.loc: str | None = None
        self.used: set[str] = set()  # "vector", "cube", "matmul", "core_query", "tpipe", "static_ub", ...
        self.pinned = False
        self._consts: dict = {}
        self.pre_block = block
        self.pre_last: Operation | None = None
        self.body_block = block  # the top level of the kernel's body (inside the AIC's sub-block loop)
        self.block_idx: Scalar | None = None  # GetBlockIdx() override (the AIC of a MIX Matmul kernel)
        self.cache: dict = {}  # per-kernel state of API objects (e.g. the matmul hand-off)
        self.if_path: list = []  # the run-time ``if`` branches being traced around the current statement (a token each)

    # -- insertion ---------------------------------------------------------------------------
    @property
    def block(self) -> Block:
        return self.blocks[-1]

    def add(self, op: Operation) -> Operation:
        if self.loc is not None:
            op.attributes[LOC_ATTR] = StringAttr(self.loc)
        self.block.add_op(op)
        return op

    def val(self, op: Operation) -> SSAValue:
        return self.add(op).results[0]

    def preamble(self, op: Operation) -> SSAValue | None:
        """Insert ``op`` in the kernel's entry code, after the earlier preamble ops."""
        if self.loc is not None:
            op.attributes[LOC_ATTR] = StringAttr(self.loc)
        if self.pre_last is None:
            first = self.pre_block.first_op
            point = InsertPoint.before(first) if first is not None else InsertPoint.at_end(self.pre_block)
        else:
            point = InsertPoint.after(self.pre_last)
        Rewriter.insert_op(op, point)
        self.pre_last = op
        return op.results[0] if op.results else None

    @contextlib.contextmanager
    def at_end(self, block: Block):
        self.blocks.append(block)
        try:
            yield block
        finally:
            self.blocks.pop()

    def add_top(self, op: Operation) -> Operation:
        """Put ``op`` in the kernel body's top-level block just before the statement being traced: before the
        top-level op that holds the current block (a loop already in place), else at the end (the statement's
        own op is added once it has been traced)."""
        if self.loc is not None:
            op.attributes[LOC_ATTR] = StringAttr(self.loc)
        holder = self.block.parent_op()
        while holder is not None and holder.parent_block() is not self.body_block:
            outer = holder.parent_block()
            holder = outer.parent_op() if outer is not None else None
        if holder is not None:
            Rewriter.insert_op(op, InsertPoint.before(holder))
        else:
            self.body_block.add_op(op)
        return op

    # -- constants ---------------------------------------------------------------------------
    def const(self, value, type_) -> SSAValue:
        key = (self.block, str(type_), repr(value))
        v = self._consts.get(key)
        if v is None:
            if isinstance(type_, IndexType | IntegerType):
                attr = IntegerAttr(int(value), type_)
            else:
                attr = FloatAttr(float(value), type_)
            op = arith.ConstantOp(attr)
            self.add(op)
            v = self._consts[key] = op.result
        return v

    def index(self, value: int) -> SSAValue:
        return self.const(int(value), IndexType())

    def pin(self) -> None:
        self.pinned = True


# ----------------------------------------------------------------------------------------------
# scalars


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _c_rem(a: int, b: int) -> int:
    return a - b * _c_div(a, b)


_CMPI = {"==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5}
_CMPF = {"==": 1, ">": 2, ">=": 3, "<": 4, "<=": 5, "!=": 6}
_PYCMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
          "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


class Scalar:
    """A run-time scalar of a kernel: ``value`` (SSA), ``kind`` ("int", "bool" or "float") and
    ``known``, its value in the launch being compiled when that is known (else None)."""

    __slots__ = ("value", "kind", "known")

    def __init__(self, value: SSAValue, kind: str, known=None):
        self.value = value
        self.kind = kind
        self.known = known

    def __repr__(self) -> str:
        return f"Scalar({self.kind}, {self.value.type}, known={self.known})"

    @property
    def dtype(self):
        from . import dtypes

        if self.kind == "float":
            return dtypes.float16 if isinstance(self.value.type, Float16Type) else dtypes.float32
        return dtypes.bool_ if self.kind == "bool" else dtypes.int32

    def __bool__(self):
        raise KernelError("if", "a run-time value cannot be used as a Python truth value here (use it in an "
                                "`if` of the kernel, which becomes scf.if)", location=current_loc())

    def __index__(self):
        raise NeedsStatic("value", "a compile-time integer is needed here, but this is a run-time value",
                          location=current_loc())

    # -- arithmetic --------------------------------------------------------------------------
    def _bin(self, other, op: str, reverse: bool = False):
        a, b = (other, self) if reverse else (self, other)
        return binary(op, a, b)

    def __add__(self, o): return self._bin(o, "+")
    def __radd__(self, o): return self._bin(o, "+", True)
    def __sub__(self, o): return self._bin(o, "-")
    def __rsub__(self, o): return self._bin(o, "-", True)
    def __mul__(self, o): return self._bin(o, "*")
    def __rmul__(self, o): return self._bin(o, "*", True)
    def __floordiv__(self, o): return self._bin(o, "//")
    def __rfloordiv__(self, o): return self._bin(o, "//", True)
    def __truediv__(self, o): return self._bin(o, "/")
    def __rtruediv__(self, o): return self._bin(o, "/", True)
    def __mod__(self, o): return self._bin(o, "%")
    def __rmod__(self, o): return self._bin(o, "%", True)
    def __lshift__(self, o): return self._bin(o, "<<")
    def __rlshift__(self, o): return self._bin(o, "<<", True)
    def __rshift__(self, o): return self._bin(o, ">>")
    def __rrshift__(self, o): return self._bin(o, ">>", True)
    def __and__(self, o): return self._bin(o, "&")
    def __rand__(self, o): return self._bin(o, "&", True)
    def __or__(self, o): return self._bin(o, "|")
    def __ror__(self, o): return self._bin(o, "|", True)
    def __xor__(self, o): return self._bin(o, "^")
    def __rxor__(self, o): return self._bin(o, "^", True)
    def __lt__(self, o): return compare("<", self, o)
    def __le__(self, o): return compare("<=", self, o)
    def __gt__(self, o): return compare(">", self, o)
    def __ge__(self, o): return compare(">=", self, o)
    def __eq__(self, o): return compare("==", self, o)  # type: ignore[override]
    def __ne__(self, o): return compare("!=", self, o)  # type: ignore[override]
    __hash__ = object.__hash__

    def __neg__(self):
        return binary("-", 0.0 if self.kind == "float" else 0, self)

    def __pow__(self, o):
        raise KernelError("pow", "`**` is not supported on run-time scalars", location=current_loc())

    def ceildiv(self, other):
        """``ceil(self / other)`` on integers (``arith.ceildivsi``)."""
        t = current()
        b = as_scalar(other, "int")
        known = None
        if self.known is not None and b.known is not None and b.known != 0:
            known = -_c_div(-self.known, b.known) if (self.known < 0) == (b.known < 0) else _c_div(self.known, b.known)
        return Scalar(t.val(arith.CeilDivSIOp(to_index(self), b.value)), "int", known)

    def cast(self, dtype):
        """This value converted to ``dtype`` (an ``asc`` data type)."""
        if dtype.is_float:
            return Scalar(to_float(self, dtype.attr), "float", None if self.known is None else float(self.known))
        if dtype.ir == "i1":
            return Scalar(to_i1(self), "bool", None if self.known is None else bool(self.known))
        return Scalar(to_index(self), "int", None if self.known is None else int(self.known))


def is_scalar_like(x) -> bool:
    """A run-time scalar or a Python number (enums are ints, but not numbers of the kernel)."""
    from enum import Enum

    return isinstance(x, Scalar | bool | int | float) and not isinstance(x, Enum)


def kind_of(x) -> str:
    if isinstance(x, Scalar):
        return x.kind
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int"
    if isinstance(x, float):
        return "float"
    raise TypeError(x)


def as_scalar(x, kind: str | None = None) -> Scalar:
    """``x`` (a Scalar or a Python number) as a Scalar of ``kind`` (default: its own)."""
    kind = kind or kind_of(x)
    if kind == "int":
        return Scalar(to_index(x), "int", _known(x, int))
    if kind == "bool":
        return Scalar(to_i1(x), "bool", _known(x, bool))
    ft = x.value.type if isinstance(x, Scalar) and x.kind == "float" else Float32Type()
    return Scalar(to_float(x, ft), "float", _known(x, float))


def _known(x, conv):
    if isinstance(x, Scalar):
        return None if x.known is None else conv(x.known)
    return conv(x)


def to_index(x) -> SSAValue:
    t = current()
    if isinstance(x, Scalar):
        if x.kind == "int":
            return x.value
        if x.kind == "bool":
            ext = t.val(arith.ExtUIOp(x.value, I64))
            return t.val(arith.IndexCastOp(ext, IndexType()))
        raise KernelError("value", "a float is used where an integer is needed", location=t.loc)
    if isinstance(x, float) and not float(x).is_integer():
        raise KernelError("value", f"the float {x} is used where an integer is needed", location=t.loc)
    return t.index(int(x))


def to_i1(x) -> SSAValue:
    t = current()
    if isinstance(x, Scalar):
        if x.kind == "bool":
            return x.value
        if x.kind == "int":
            return t.val(arith.CmpiOp(x.value, t.index(0), 1))
        return t.val(arith.CmpfOp(x.value, t.const(0.0, x.value.type), 6))
    return t.const(1 if x else 0, I1)


def to_float(x, ftype) -> SSAValue:
    t = current()
    if isinstance(x, Scalar):
        v = x.value
        if x.kind == "float":
            if v.type == ftype:
                return v
            w_from = 16 if isinstance(v.type, Float16Type) else 32
            w_to = 16 if isinstance(ftype, Float16Type) else 32
            return t.val(arith.ExtFOp(v, ftype) if w_to > w_from else arith.TruncFOp(v, ftype))
        i = t.val(arith.IndexCastOp(to_index(x), I64))
        return t.val(arith.SIToFPOp(i, ftype))
    return t.const(float(x), ftype)


def _fold(op: str, a, b):
    """``a op b`` when a Python operand makes it trivial (x + 0, x * 1, 0 * x, ...), else None."""
    if op in ("+", "-", "|", "^", "<<", ">>") and not isinstance(b, Scalar) and b == 0 and not isinstance(b, float):
        return a
    if op == "+" and not isinstance(a, Scalar) and a == 0 and not isinstance(a, float):
        return b
    if op in ("*", "//", "/") and not isinstance(b, Scalar) and b == 1 and not isinstance(b, float):
        return a
    if op == "*" and not isinstance(a, Scalar) and a == 1 and not isinstance(a, float):
        return b
    if op == "*" and isinstance(a, int) and a == 0 and kind_of(b) == "int":
        return 0
    if op == "*" and isinstance(b, int) and b == 0 and kind_of(a) == "int":
        return 0
    return None


def binary(op: str, a, b):
    """``a op b`` on scalars (at least one a Scalar)."""
    folded = _fold(op, a, b)
    if folded is not None:
        return folded
    t = current()
    ka, kb = kind_of(a), kind_of(b)
    if "float" in (ka, kb):
        fa = a.value.type if isinstance(a, Scalar) and ka == "float" else None
        fb = b.value.type if isinstance(b, Scalar) and kb == "float" else None
        ft = fa or fb or Float32Type()
        if fa is not None and fb is not None and fa != fb:
            ft = Float32Type()
        x, y = to_float(a, ft), to_float(b, ft)
        cls = {"+": arith.AddfOp, "-": arith.SubfOp, "*": arith.MulfOp, "/": arith.DivfOp}.get(op)
        if cls is None:
            raise KernelError("value", f"operator {op} is not supported on float scalars", location=t.loc)
        known = None
        ak, bk = _known(a, float), _known(b, float)
        if ak is not None and bk is not None and not (op == "/" and bk == 0):
            known = {"+": ak + bk, "-": ak - bk, "*": ak * bk, "/": ak / bk if bk else math.nan}[op]
        return Scalar(t.val(cls(x, y)), "float", known)
    if ka == kb == "bool" and op in "&|^":
        cls = {"&": arith.AndIOp, "|": arith.OrIOp, "^": arith.XOrIOp}[op]
        ak, bk = _known(a, bool), _known(b, bool)
        known = None if ak is None or bk is None else {"&": ak and bk, "|": ak or bk, "^": ak != bk}[op]
        return Scalar(t.val(cls(to_i1(a), to_i1(b))), "bool", known)
    x, y = to_index(a), to_index(b)
    cls = {"+": arith.AddiOp, "-": arith.SubiOp, "*": arith.MuliOp, "//": arith.DivSIOp, "/": arith.DivSIOp,
           "%": arith.RemSIOp, "<<": arith.ShLIOp, ">>": arith.ShRSIOp, "&": arith.AndIOp, "|": arith.OrIOp,
           "^": arith.XOrIOp}[op]
    ak, bk = _known(a, int), _known(b, int)
    known = None
    if ak is not None and bk is not None:
        if op in ("//", "/", "%"):
            known = None if bk == 0 else (_c_rem(ak, bk) if op == "%" else _c_div(ak, bk))
        else:
            known = {"+": ak + bk, "-": ak - bk, "*": ak * bk, "<<": ak << bk if bk >= 0 else None,
                     ">>": ak >> bk if bk >= 0 else None, "&": ak & bk, "|": ak | bk, "^": ak ^ bk}[op]
    return Scalar(t.val(cls(x, y)), "int", known)


def compare(op: str, a, b) -> Scalar:
    t = current()
    ka, kb = kind_of(a), kind_of(b)
    if "float" in (ka, kb):
        ft = a.value.type if isinstance(a, Scalar) and ka == "float" else (
            b.value.type if isinstance(b, Scalar) and kb == "float" else Float32Type())
        v = t.val(arith.CmpfOp(to_float(a, ft), to_float(b, ft), _CMPF[op]))
        ak, bk = _known(a, float), _known(b, float)
    else:
        v = t.val(arith.CmpiOp(to_index(a), to_index(b), _CMPI[op]))
        ak, bk = _known(a, int), _known(b, int)
    known = None if ak is None or bk is None else _PYCMP[op](ak, bk)
    return Scalar(v, "bool", known)


def logical(op: str, a, b):
    """``a and b`` / ``a or b`` / (op == "not") ``not a`` on booleans (run-time or Python)."""
    if op == "not":
        if not isinstance(a, Scalar):
            return not a
        t = current()
        known = None if a.known is None else not a.known
        return Scalar(t.val(arith.XOrIOp(to_i1(a), t.const(1, I1))), "bool", known)
    x, y = as_scalar(a, "bool"), as_scalar(b, "bool")
    return binary("&" if op == "and" else "|", x, y)


def static_int(x, api: str, what: str) -> int:
    """A compile-time integer for ``what`` of ``api``: a Python int, or a run-time value whose value in
    this launch is known (the kernel is then specialised on it)."""
    if isinstance(x, Scalar):
        if x.known is None:
            raise NeedsStatic(api, f"{what} must be known when the kernel is compiled (the ascendc dialect "
                                   f"takes it as a constant), but it depends on a run-time value such as the "
                                   f"block index, a loop variable or data", location=current_loc())
        current().pin()
        return int(x.known)
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise KernelError(api, f"{what} must be an integer, got {x!r}", location=current_loc())


def known_value(x):
    """The value of a Python number or a Scalar whose launch value is known (else None)."""
    if isinstance(x, Scalar):
        return x.known
    return x


def materialize(x, kind: str, ftype=None) -> SSAValue:
    """``x`` as an SSA value of ``kind`` (for yields)."""
    if kind == "int":
        return to_index(x)
    if kind == "bool":
        return to_i1(x)
    return to_float(x, ftype or Float32Type())
