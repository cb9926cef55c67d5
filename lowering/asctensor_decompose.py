"""``asctensor-decompose``: composites to the primitives the vector unit has.

Splat ``arith.constant``s become ``asctensor.full`` (a scalar, never a GM buffer). Reductions
and row-wise composites are decomposed as described in ``rowwise_decompose``, ``topk`` as in
``topk_decompose``, a depthwise convolution as in ``depthwise_decompose``.
sigmoid, tanh, gelu (erf and tanh forms), erf, relu and pow become ``arith``/``math`` ops the
vector unit executes directly (Add, Mul, Div, Exp, Ln, Abs, Sqrt, Max...). Composites on
float16/bfloat16 are computed in float32 and rounded once at the end (as Ascend C's
high-precision activations do). A bfloat16 primitive whose vector instruction has no bfloat16 form
(the ``DTYPES`` of the ``ascendc`` op class that ``IMPLEMENTS`` it: none on A2) is legalised to
float32 compute with a cast on each side.
"""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, Float16Type, Float32Type, IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascbuf, asctensor
from pyasc.dialects.target import module_target
from pyasc.dialects.types import numpy_dtype

from .emitter import OpEmitter
from .depthwise_decompose import decompose_depthwise
from .rowwise_decompose import MAX_ROW_BYTES_PER_ELEMENT, decompose_rowwise
from .topk_decompose import decompose_topk

# Abramowitz & Stegun 7.1.26: erf(u) = 1 - t*(a1 + t*(a2 + ...)) * exp(-u^2), t = 1/(1 + p*u), u >= 0
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
GELU_TANH_K = pymath.sqrt(2.0 / pymath.pi)
ERF_SATURATES = 10.0        # erf(+-10) is +-1 in float32: larger inputs (and +-inf) are clamped to it
INT_EXACT = 8388608.0       # 2**23: float32 values at least this large are integers

# upstream op name -> the element types of the vector instruction that computes it
INSTRUCTION_DTYPES = {impl: inst.DTYPES
                      for inst in (*ascbuf.BINARY_INSTRUCTIONS.values(), *ascbuf.UNARY_INSTRUCTIONS.values())
                      for impl in inst.IMPLEMENTS}
INSTRUCTION_DTYPES[arith.NegfOp.name] = INSTRUCTION_DTYPES[arith.MulfOp.name]  # -x is Muls(x, -1)


def computes_in_f32(op: Operation) -> bool:
    """A bf16 primitive whose vector instruction has no bf16 form: computed in float32."""
    dtypes = INSTRUCTION_DTYPES.get(op.name)
    return (dtypes is not None and "bf16" not in dtypes
            and str(getattr(op.results[0].type, "element_type", "")) == "bf16")


class TensorBuilder:
    """Builds tensor-level primitives of one shape in front of an op."""

    def __init__(self, anchor: Operation):
        self.e = OpEmitter(InsertPoint.before(anchor), anchor)

    def full(self, value: float, like: SSAValue) -> SSAValue:
        return self.e.value(asctensor.FullOp(value, like.type))

    def _scalar(self, v, like: SSAValue) -> SSAValue:
        return self.full(v, like) if isinstance(v, int | float) else v

    def add(self, a, b):
        a, b = self._pair(a, b)
        return self.e.value(arith.AddfOp(a, b))

    def sub(self, a, b):
        a, b = self._pair(a, b)
        return self.e.value(arith.SubfOp(a, b))

    def mul(self, a, b):
        a, b = self._pair(a, b)
        return self.e.value(arith.MulfOp(a, b))

    def div(self, a, b):
        a, b = self._pair(a, b)
        return self.e.value(arith.DivfOp(a, b))

    def max(self, a, b):
        a, b = self._pair(a, b)
        return self.e.value(arith.MaximumfOp(a, b))

    def min(self, a, b):
        a, b = self._pair(a, b)
        return self.e.value(arith.MinimumfOp(a, b))

    def compare(self, pred: str, a, b) -> SSAValue:
        a, b = self._pair(a, b)
        return self.e.value(asctensor.CompareOp(pred, a, b))

    def select(self, mask: SSAValue, a, b) -> SSAValue:
        a, b = self._pair(a, b)
        return self.e.value(asctensor.SelectOp(mask, a, b))

    def addi(self, a: SSAValue, c: int) -> SSAValue:
        """``a + c`` for an integer tensor ``a``."""
        return self.e.value(arith.AddiOp(a, self.full(c, a)))

    def neg(self, a):
        return self.e.value(arith.NegfOp(a))

    def exp(self, a):
        return self.e.value(math.ExpOp(a))

    def log(self, a):
        return self.e.value(math.LogOp(a))

    def abs(self, a):
        return self.e.value(math.AbsFOp(a))

    def sqrt(self, a):
        return self.e.value(math.SqrtOp(a))

    def rsqrt(self, a):
        return self.e.value(math.RsqrtOp(a))

    def cast(self, a: SSAValue, element_type) -> SSAValue:
        if a.type.element_type == element_type:
            return a
        if isinstance(a.owner, asctensor.FullOp):  # fold: a splat is rounded to its own dtype first
            v = numpy_dtype(a.type.element_type).type(a.owner.scalar)
            return self.e.value(asctensor.FullOp(float(v), TensorType(element_type, a.type.get_shape())))
        return self.e.value(asctensor.CastOp(a, TensorType(element_type, a.type.get_shape())))

    def _pair(self, a, b):
        if isinstance(a, int | float):
            a = self.full(a, b)
        if isinstance(b, int | float):
            b = self.full(b, a)
        return a, b

    # composites, each on a float32 (or float16) tensor
    def erf_positive(self, u):
        """erf(u) for u >= 0."""
        t = self.div(1.0, self.add(self.mul(u, ERF_P), 1.0))
        q = self.mul(t, ERF_A[4])
        for a in reversed(ERF_A[:4]):
            q = self.mul(self.add(q, a), t)
        return self.sub(1.0, self.mul(q, self.exp(self.neg(self.mul(u, u)))))

    def erf(self, x):
        x = self.min(self.max(x, -ERF_SATURATES), ERF_SATURATES)   # +-inf -> +-1 (NaN stays NaN)
        ax = self.abs(x)
        return self.mul(self.erf_positive(ax), self.div(x, self.max(ax, 1e-30)))

    def trunc(self, x):
        """trunc of a float32 tensor: a conversion to int32 and back where ``|x| < 2**23`` (larger
        values, inf and NaN are their own trunc)."""
        t = self.cast(self.cast(x, IntegerType(32)), Float32Type())
        return self.select(self.compare("lt", self.abs(x), INT_EXACT), t, x)

    def sigmoid(self, x):
        return self.div(1.0, self.add(self.exp(self.neg(x)), 1.0))

    def tanh(self, x):
        return self.sub(self.div(2.0, self.add(self.exp(self.mul(x, -2.0)), 1.0)), 1.0)

    def gelu(self, x, approximate: str):
        if approximate == "tanh":
            inner = self.mul(self.add(self.mul(self.mul(self.mul(x, x), x), 0.044715), x), -2.0 * GELU_TANH_K)
            return self.div(x, self.add(self.exp(inner), 1.0))
        ax = self.abs(x)
        return self.mul(self.add(self.mul(ax, self.erf_positive(self.mul(ax, 1.0 / pymath.sqrt(2.0)))), x), 0.5)


def _full_value(v: SSAValue) -> float | None:
    return v.owner.scalar if isinstance(v.owner, asctensor.FullOp) else None


def _power(b: TensorBuilder, x: SSAValue, y: SSAValue, f16: bool = False) -> SSAValue:
    """``x ** y`` on float32 tensors with C's ``pow`` at every NaN, inf, zero and negative base.
    Small constant exponents are products, square roots or reciprocals, as PyTorch's CPU kernel
    computes them (except float16, which PyTorch computes with ``pow`` for 0.5 and -0.5)."""
    c = _full_value(y)
    if c == 1.0:
        return b.mul(x, 1.0)
    if c == 2.0:
        return b.mul(x, x)
    if c == 3.0:
        return b.mul(b.mul(x, x), x)
    if c == 0.5 and not f16:
        return b.sqrt(x)
    if c == -0.5 and not f16:
        return b.rsqrt(x)
    if c == -1.0:
        return b.div(1.0, x)
    if c == 0.0:
        return b.full(1.0, x)
    if c is not None:
        return _power_by_constant(b, x, c)
    return _power_general(b, x, y)


def _magnitude(b: TensorBuilder, x: SSAValue, y) -> SSAValue:
    """``|x| ** y`` = exp(y * log|x|), and 1 where that is 0 * inf or NaN but C's pow is 1:
    ``y == 0``, ``x == 1`` (y NaN) and ``|x| == 1`` (y infinite)."""
    ax = b.abs(x)
    r = b.exp(b.mul(b.log(ax), y))
    if isinstance(y, float):                                        # a constant exponent
        if y != y:
            return b.select(b.compare("eq", x, 1.0), 1.0, r)
        return b.select(b.compare("eq", ax, 1.0), 1.0, r) if pymath.isinf(y) else r
    r = b.select(b.compare("eq", y, 0.0), 1.0, r)
    r = b.select(b.compare("eq", x, 1.0), 1.0, r)
    unit = b.compare("eq", ax, 1.0)
    return b.select(unit, b.select(b.compare("eq", b.abs(y), pymath.inf), 1.0, r), r)


def _power_by_constant(b: TensorBuilder, x: SSAValue, c: float) -> SSAValue:
    r = _magnitude(b, x, c)
    if c != c:
        return r
    negative = b.compare("lt", x, 0.0)
    if pymath.isinf(c) or c == int(c):
        if pymath.isinf(c) or int(c) % 2 == 0:
            return r
        return b.select(negative, b.neg(r), r)                     # odd integer: the base's sign
    finite = b.compare("gt", x, -pymath.inf)
    return b.select(negative, b.select(finite, pymath.nan, r), r)  # pow(-inf, y) = |.|**y


def _power_general(b: TensorBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    r = _magnitude(b, x, y)
    is_int = b.compare("eq", b.trunc(y), y)                          # +-inf counts as even
    half = b.mul(y, 0.5)
    odd = b.compare("ne", b.trunc(half), half)
    signed = b.select(odd, b.neg(r), r)
    non_int = b.select(b.compare("gt", x, -pymath.inf), pymath.nan, r)
    return b.select(b.compare("lt", x, 0.0), b.select(is_int, signed, non_int), r)


def _bool_not(b: TensorBuilder, m: SSAValue) -> SSAValue:
    """``not m``: a half select of 0 or 1, compared with 1 (no bit inversion on the vector unit)."""
    t = TensorType(Float16Type(), m.type.get_shape())
    one, zero = (b.e.value(asctensor.FullOp(c, t)) for c in (1.0, 0.0))
    return b.e.value(asctensor.CompareOp("eq", b.e.value(asctensor.SelectOp(m, zero, one)), one))


def _int32_compare(b: TensorBuilder, op: asctensor.CompareOp) -> SSAValue:
    """An int32 comparison with EQ only, as A2's Compare has (Compare.md): ``a <= b`` is
    ``max(a, b) == b``, ``a >= b`` is ``max(a, b) == a``; ``<``, ``>`` and ``!=`` are complements."""
    x, y, pred = op.lhs, op.rhs, op.pred.value
    if pred == "ne":
        return _bool_not(b, b.e.value(asctensor.CompareOp("eq", x, y)))
    top = b.e.value(arith.MaxSIOp(x, y))
    m = b.e.value(asctensor.CompareOp("eq", top, y if pred in ("le", "gt") else x))
    return m if pred in ("le", "ge") else _bool_not(b, m)


def _decompose(op: Operation, max_row: int = 1 << 62) -> SSAValue | None:
    """The primitive replacement of a composite op, or None if ``op`` is a primitive."""
    if len(op.results) != 1 or not isinstance(op.results[0].type, TensorType):
        return None
    b = TensorBuilder(op)
    if isinstance(op, arith.ConstantOp):
        if not isinstance(op.value, DenseIntOrFPElementsAttr) or len(op.value) == 0:
            return None
        values = op.value.get_values()
        if any(v != values[0] for v in values[1:]):
            return None  # a constant with distinct elements stays a constant
        return b.full(values[0], op.result)
    if isinstance(op, asctensor.Conv2dOp):
        return decompose_depthwise(b, op)
    rowwise = decompose_rowwise(b, op, max_row)
    if rowwise is not None:
        return rowwise
    if isinstance(op, asctensor.CompareOp) and str(op.lhs.type.element_type) == "i32" and op.pred.value != "eq":
        return _int32_compare(b, op)
    if isinstance(op, asctensor.ReluOp):
        if str(op.result.type.element_type) == "i32":
            return b.e.value(arith.MaxSIOp(op.input, b.full(0, op.input)))
        return b.max(op.input, 0.0)
    composite = {
        asctensor.SigmoidOp: lambda x: b.sigmoid(x),
        asctensor.GeluOp: lambda x: b.gelu(x, op.approximate.data.value if isinstance(op, asctensor.GeluOp) else ""),
        math.TanhOp: lambda x: b.tanh(x),
        math.ErfOp: lambda x: b.erf(x),
    }.get(type(op))
    if composite is not None:
        x = op.operands[0]
        out_type = op.results[0].type.element_type
        wide = b.cast(x, Float32Type()) if str(out_type) in ("f16", "bf16") else x
        return b.cast(composite(wide), out_type)
    if isinstance(op, math.PowFOp):
        if str(op.result.type.element_type) in ("f16", "bf16"):
            r = _power(b, b.cast(op.lhs, Float32Type()), b.cast(op.rhs, Float32Type()),
                       f16=str(op.result.type.element_type) == "f16")
            return b.cast(r, op.result.type.element_type)
        return _power(b, op.lhs, op.rhs)
    if computes_in_f32(op):
        wide = [b.cast(v, Float32Type()) for v in op.operands]
        return b.cast(b.e.value(type(op)(*wide)), op.results[0].type.element_type)
    return None


MAX_ROUNDS = 64  # each round decomposes one level of nesting (a handful at most): more is a decomposition loop


@dataclass(frozen=True)
class AscTensorDecomposePass(ModulePass):
    """Decompose composite tensor ops into vector-unit primitives (see the module docstring)."""

    name = "asctensor-decompose"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        max_row = module_target(op).ub_usable_bytes // MAX_ROW_BYTES_PER_ELEMENT
        changed, rounds = True, 0
        while changed:  # decompositions may produce ops that need legalising (bf16)
            rounds += 1
            if rounds > MAX_ROUNDS:
                raise RuntimeError(f"the decompositions did not settle after {MAX_ROUNDS} rounds")
            changed = False
            for inner in list(op.walk()):
                if inner.parent is None:
                    continue
                if isinstance(inner, asctensor.TopKOp):
                    results = decompose_topk(TensorBuilder(inner), inner, max_row)
                    for old, value in zip(inner.results, results):
                        old.replace_all_uses_with(value)
                    Rewriter.erase_op(inner)
                    changed = True
                    continue
                new = _decompose(inner, max_row)
                if new is not None:
                    inner.results[0].replace_all_uses_with(new)
                    Rewriter.erase_op(inner)
                    changed = True
        _erase_dead_fulls(op)


def _erase_dead_fulls(module: ModuleOp) -> None:
    for inner in list(module.walk()):
        if isinstance(inner, asctensor.FullOp) and not inner.result.uses:
            Rewriter.erase_op(inner)
