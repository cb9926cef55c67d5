"""Row loops executed with one NumPy call per op over all iterations.

Row-wise kernels lower to ``scf.for`` loops whose iterations touch one row each
(``v = GetValue(rows, r*8); Adds(dst[r*P], src[r*P], -v, P)``, per-row ``ReduceSum``/``ReduceMax``).
In the generated Python every iteration pays NumPy's dispatch on a small view. A loop qualifies when
its body is straight-line code of

* 64-bit integer ``addi``/``subi``/``muli`` and local ``subview`` whose values are affine in the
  induction variable (``base + coef * k``, ``coef`` known at translation time),
* ``GetValue`` of a float local tensor, ``negf``/``addf``/``subf``/``mulf``/``divf`` on those values and
  float constants (NumPy's scalar promotion rules are reproduced on the arrays, see ``_arith``),
* vector ops (binary, unary, scalar, ``Duplicate``, ``ReduceSum/Max/Min``) on float16/float32 with
  a constant positive count.

A loop of a single iteration is left alone. Otherwise the loop is emitted twice; the fast path (taken for
more than one iteration) runs the body once per iteration for its scalar clock
and trace records only (the same emitted code minus the data lines and the UB checks), then every
data op once over the 2-D strided views of all its rows. It is taken only when, at run time, (1) every
op's UB check passes in every iteration (the addresses being affine, checking the first and the last
iteration and the stride's alignment is exact) and (2) no region written in one iteration overlaps a
region read or written in another iteration, so executing op by op instead of iteration by iteration
computes the same bytes. Otherwise the original loop runs, with its checks and error messages.
The trace records are those of the original loop, so the schedule, the timing and the hazard
analysis are unchanged.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType

from pyasc.dialects import ascendc as asc
from pyasc.dialects.types import numpy_dtype

from .codegen import KernelTranslator

_INT_OPS = {"arith.addi", "arith.subi", "arith.muli"}
FLOAT_OPS = frozenset({"arith.negf", "arith.addf", "arith.subf", "arith.mulf", "arith.divf"})
_PYOP = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
_DTYPES = (np.dtype(np.float16), np.dtype(np.float32))


class _No(Exception):
    pass


def _is_wide_int(t) -> bool:
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data >= 64)


class _Plan:
    def __init__(self, t: KernelTranslator, op):
        self.t = t
        self.op = op
        self.block = op.body.block
        self.aff: dict = {}  # SSA value -> (base expression or int, coef)
        self.fl: dict = {}  # SSA value -> (kind: 'py' or np.dtype, array name)
        self.bases: list[tuple[str, str]] = []  # (name, expression) computed before the loop
        self.lines: list[str] = []  # the vectorised data block
        self.acc: list[tuple[bool, str, int, int]] = []  # (write, base name, coef, nbytes)
        self.checks: list[tuple[str, int, int, int]] = []  # (base name, coef, nbytes, alignment)
        self._n = 0
        self.body_vals = {r for o in self.block.ops for r in o.results}

    # ----------------------------------------------------------------------- affine integers
    def affine(self, v):
        f = self.aff.get(v)
        if f is not None:
            return f
        c = self.t.consts.get(v)
        if isinstance(c, int):
            return (c, 0)
        if v in self.body_vals:
            raise _No  # a value of the body that is not affine
        if not _is_wide_int(v.type) and not isinstance(v.type, asc.LocalTensorType):
            raise _No
        return (self.t.v(v), 0)

    @staticmethod
    def _add(a, b, sign=1):
        (x, cx), (y, cy) = a, b
        if isinstance(x, int) and isinstance(y, int):
            return (x + sign * y, cx + sign * cy)
        return (f"({x} {'+' if sign > 0 else '-'} {y})", cx + sign * cy)

    @staticmethod
    def _mul(a, b):
        (x, cx), (y, cy) = a, b
        if cx and cy:
            raise _No
        if cx or cy:
            (x, cx), (y, cy) = ((x, cx), (y, cy)) if cx else ((y, cy), (x, cx))
            if not isinstance(y, int):
                raise _No
            return (x * y if isinstance(x, int) else f"({x} * {y})", cx * y)
        if isinstance(x, int) and isinstance(y, int):
            return (x * y, 0)
        return (f"({x} * {y})", 0)

    def base(self, form) -> str:
        x, _ = form
        if isinstance(x, int):
            return repr(x)
        name = f"_vb{len(self.bases)}"
        self.bases.append((name, x))
        return name

    # ----------------------------------------------------------------------- float scalars
    def fresh(self) -> str:
        self._n += 1
        return f"_vf{self._n}"

    def scalar(self, v):
        """(kind, expression, is_array) of a float operand."""
        f = self.fl.get(v)
        if f is not None:
            return f[0], f[1], True
        o = v.owner
        if o is not None and o.name == "arith.constant":
            dt = numpy_dtype(v.type)
            if dt.kind != "f":
                raise _No
            # the global ``translate._constant`` binds it to (deduplicated by type and value)
            return dt, self.t.const(dt.type(o.value.value.data), "F"), False
        raise _No

    def region(self, write: bool | None, form, nbytes: int, es: int, align: int = 32) -> str:
        """A UB region of every iteration (``write`` None: only checked, not accessed by the data work).

        The op's own check (alignment, not negative, within UB) holds for all iterations exactly when
        it holds for the first and the last one and the stride keeps the alignment."""
        if form[1] < 0 or form[1] % es or form[1] % align:
            raise _No
        b = self.base(form)
        if write is not None:
            self.acc.append((write, b, form[1], nbytes))
        self.checks.append((b, form[1], nbytes, align))
        return b

    def view(self, dt, form_base: str, coef: int, n: int) -> str:
        return f"_V2({self.t.const(dt, 'DT')}, {form_base}, {coef}, _N, {n})"

    # ----------------------------------------------------------------------- analysis
    def analyse(self) -> None:
        t, op = self.t, self.op
        step = t.consts.get(op.step)
        if not isinstance(step, int) or step <= 0 or op.iter_args:
            raise _No
        lb, ub = t.consts.get(op.lb), t.consts.get(op.ub)
        if isinstance(lb, int) and isinstance(ub, int) and len(range(lb, ub, step)) < 2:
            raise _No  # a single row: nothing to gain
        self.aff[self.block.args[0]] = (lb if isinstance(lb, int) else t.v(op.lb), step)
        vec = 0
        for o in self.block.ops:
            name = o.name
            if name == "scf.yield":
                if o.operands:
                    raise _No
            elif name == "arith.constant":
                if isinstance(o.value, IntegerAttr) and _is_wide_int(o.result.type):
                    self.aff[o.result] = (o.value.value.data, 0)
            elif name in _INT_OPS:
                if not _is_wide_int(o.results[0].type):
                    raise _No
                a, b = self.affine(o.operands[0]), self.affine(o.operands[1])
                self.aff[o.results[0]] = self._mul(a, b) if name == "arith.muli" else \
                    self._add(a, b, -1 if name == "arith.subi" else 1)
            elif name == "ascendc.subview":
                if not isinstance(o.result.type, asc.LocalTensorType):
                    raise _No
                scale = numpy_dtype(o.result.type.element_type).itemsize
                self.aff[o.result] = self._add(self.affine(o.source), self._mul(self.affine(o.offset), (scale, 0)))
            elif name in FLOAT_OPS:
                self._arith(o)
            elif name == "ascendc.get_value":
                self._get_value(o)
            else:
                self._vector(o)
                vec += 1
        if not vec:
            raise _No

    def _dt(self, value):
        dt = numpy_dtype(value.type.element_type)
        if dt not in _DTYPES:
            raise _No
        return dt

    def _count(self, o) -> int:
        c, coef = self.affine(o.count)
        if coef or not isinstance(c, int) or c <= 0:
            raise _No
        return c

    def _get_value(self, o) -> None:
        if not isinstance(o.source.type, asc.LocalTensorType):
            raise _No
        dt = self._dt(o.source)
        es = dt.itemsize
        form = self._add(self.affine(o.source), self._mul(self.affine(o.index), (es, 0)))
        b = self.region(False, form, es, es, es)
        name = self.fresh()
        self.lines.append(f"{name} = {self.view(dt, b, form[1], 1)}[..., 0].astype(np.float64)")
        self.fl[o.result] = ("py", name)

    def _operand(self, v, kind_to=None) -> str:
        """The expression of a float operand, cast to ``kind_to`` when it is a Python-float array."""
        kind, name, is_array = self.scalar(v)
        if not is_array:
            return name
        if kind == "py" and kind_to is not None:
            return f"{name}.astype({self.t.const(kind_to, 'DT')})"
        return name

    def _arith(self, o) -> None:
        ops = list(o.operands)
        kinds = [self.scalar(x) for x in ops]
        if not any(k[2] for k in kinds):
            raise _No
        name = self.fresh()
        if o.name == "arith.negf":
            self.lines.append(f"{name} = -{kinds[0][1]}")
            self.fl[o.result] = (kinds[0][0], name)
            return
        (ka, _, _), (kb, _, _) = kinds
        if ka == "py" and kb == "py":
            if o.name == "arith.divf":
                raise _No  # Python raises on division by zero, NumPy does not
            self.lines.append(f"{name} = {kinds[0][1]} {_PYOP[o.name]} {kinds[1][1]}")
            self.fl[o.result] = ("py", name)
            return
        # a Python float meets a NumPy value: it is converted to that value's dtype (NEP 50)
        strong = [k for k in (ka, kb) if k != "py"]
        res = np.result_type(*strong)
        a = self._operand(ops[0], kb if ka == "py" else None)
        b = self._operand(ops[1], ka if kb == "py" else None)
        self.lines.append(f"{name} = {a} {_PYOP[o.name]} {b}")
        self.fl[o.result] = (res, name)

    def _vector(self, o) -> None:
        t = self.t
        if isinstance(o, asc.ReduceCountOp):
            if o.cal_index is not None:
                raise _No
            dt = self._dt(o.dst)
            es = dt.itemsize
            n = self._count(o)
            fd, fa = self.affine(o.dst), self.affine(o.src)
            self.region(None, self.affine(o.work), n * es, es)
            a = self.region(False, fa, n * es, es)
            d = self.region(True, fd, es, es)
            x = self.view(dt, a, fa[1], n)
            self.lines.append(f"{self.view(dt, d, fd[1], 1)}[..., 0] = {t.const(o.numpy_reduce, 'F')}({x})")
            return
        if isinstance(o, asc.VectorUnaryScratchOp):
            raise _No  # its scratch is rewritten by every row
        if isinstance(o, asc.VectorBinaryOp):
            operands, scalar = [o.dst, o.src0, o.src1], None
        elif isinstance(o, asc.VectorUnaryOp):
            operands, scalar = [o.dst, o.src], None
        elif isinstance(o, asc.VectorScalarOp):
            operands, scalar = [o.dst, o.src], o.scalar
        elif isinstance(o, asc.DuplicateOp):
            operands, scalar = [o.dst], o.scalar
        else:
            raise _No
        dt = self._dt(o.dst)
        for x in operands[1:]:
            if self._dt(x) != dt:
                raise _No
        es = dt.itemsize
        n = self._count(o)
        forms = [self.affine(x) for x in operands]
        args = []
        if scalar is not None:
            kind, _, is_array = self.scalar(scalar)
            scal = self._operand(scalar, dt if isinstance(o, asc.VectorScalarOp) else None)
            args.append(scal + "[..., None]" if is_array else scal)
        bases = [self.region(i == 0, f, n * es, es) for i, f in enumerate(forms)]
        views = [self.view(dt, b, f[1], n) for b, f in zip(bases, forms)]
        self.lines.append(f"{t.const(o.numpy_operation, 'F')}({', '.join(views + args)})")

    # ----------------------------------------------------------------------- run-time guard
    def guard(self) -> str:
        """True when every op's UB check passes in every iteration and no write of one iteration
        overlaps an access of another."""
        conds = []
        for b, coef, nb, align in dict.fromkeys(self.checks):
            if b.isdigit():
                if int(b) % align:
                    conds.append("False")
            else:
                conds.append(f"not {b} & {align - 1}" if b.startswith("_") else f"not ({b}) & {align - 1}")
                conds.append(f"{b} >= 0")
            conds.append(f"{b} + (_N - 1) * {coef} + {nb} <= UBN")
        for i, (w, wb, sw, nw) in enumerate(self.acc):
            if not w:
                continue
            for j, (_, ab, sa, na) in enumerate(self.acc):
                if i == j:
                    if sw < nw:
                        conds.append("_N <= 1")
                    continue
                alts = [f"{wb} + (_N - 1) * {sw} + {nw} <= {ab}", f"{ab} + (_N - 1) * {sa} + {na} <= {wb}"]
                if sw == sa and sw > 0 and nw + na <= 2 * sw:
                    alts.append(f"{nw - sw} <= {ab} - {wb} <= {sw - na}")
                conds.append("(" + " or ".join(alts) + ")")
        return " and ".join(dict.fromkeys(conds)) or "True"


def plan_loop(t: KernelTranslator, op) -> _Plan | None:
    if getattr(t, "no_data", False):
        return None
    p = _Plan(t, op)
    try:
        p.analyse()
    except (_No, ValueError, AttributeError):
        return None
    return p


def emit_loop(t: KernelTranslator, op, p: _Plan) -> None:
    """Emit the guarded fast path and the original loop (see the module docstring)."""
    lb, ub, step = t.v(op.lb), t.v(op.ub), t.v(op.step)
    block = op.body.block
    iv = t.v(block.args[0])
    t.flush()
    saved_memo = t.sid_memo
    t.sid_memo = {}
    sid = t.info(op)
    t.emit(f"if {step} <= 0: _fail({sid}, bid, 'scf.for step must be positive')")
    t.emit(f"_N = len(range({lb}, {ub}, {step}))")
    for name, expr in p.bases:
        t.emit(f"{name} = {expr}")
    t.emit(f"if _N > 1 and {p.guard()}:")
    t.depth += 1
    t.emit(f"for {iv} in range({lb}, {ub}, {step}):")
    t.no_data, t.skip_in_trace_only = True, FLOAT_OPS
    try:
        t.emit_region_block(block, pending=1)
    finally:
        t.no_data, t.skip_in_trace_only = False, frozenset()
    for line in p.lines:
        t.emit(line)
    t.depth -= 1
    t.emit("else:")
    t.depth += 1
    t.emit(f"for {iv} in range({lb}, {ub}, {step}):")
    t.emit_region_block(block, pending=1)
    t.depth -= 1
    t.sid_memo = saved_memo
