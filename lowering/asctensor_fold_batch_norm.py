"""``asctensor-fold-batch-norm``: a per-channel scale and shift after a convolution or a matrix
product folds into its weight and bias.

An inference batch norm is ``y * k + c`` with per-channel constants ``k`` and ``c`` (what
``pyasc.batch_norm`` and the ONNX importer produce). When ``y = conv2d(x, W, b)`` has that multiply
(add, subtract) as its only use, and ``W``, ``b``, ``k`` and ``c`` are constants (``const_eval``):

* ``conv2d(x, W, b) * k``  becomes ``conv2d(x, W * k[:, None, None, None], b * k)``;
* ``conv2d(x, W, b) + c``  becomes ``conv2d(x, W, b + c)`` (``- c``: ``b - c``);
* the same for ``matmul(x, W, b)`` with a 2-D ``W``, per column of the result (``linear``).

One op folds at a time, so ``(y * k) + c`` folds in two steps. The new weight and bias are
tensor ops on the constants, which ``asctensor-hoist-constants`` evaluates once, off the device.
``k`` and ``c`` are per-channel: a splat, or a broadcast of a constant whose dims are 1 except the
channel's. Runs before ``asctensor-decompose`` (which keeps ``conv2d``) and needs no other pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import asctensor
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from .const_eval import constant_values
from .emitter import copy_loc

# op that folds -> (how: "scale" multiplies weight and bias, "shift" adds to the bias; the operand
# positions the product may take)
FOLDS = {arith.MulfOp: ("scale", (0, 1)), arith.AddfOp: ("shift", (0, 1)), arith.SubfOp: ("shift", (0,))}


def _channel(product: Operation) -> tuple[int, int] | None:
    """(axis of the output channels in the result, their number) of a conv2d or a 2-D-weight matmul."""
    shape = product.results[0].type.get_shape()
    if isinstance(product, asctensor.Conv2dOp):
        return 1, shape[1]
    if isinstance(product, asctensor.MatmulOp) and len(product.rhs.type.get_shape()) == 2:
        return len(shape) - 1, shape[-1]
    return None


class _Builder:
    """Inserts ops before ``anchor``, each with its source location."""

    def __init__(self, rewriter: PatternRewriter, anchor: Operation):
        self.rewriter, self.anchor = rewriter, anchor

    def add(self, op: Operation) -> SSAValue:
        self.rewriter.insert(copy_loc(self.anchor, op), InsertPoint.before(self.anchor))
        return op.results[0]

    def reshape(self, v: SSAValue, shape) -> SSAValue:
        return v if tuple(v.type.get_shape()) == tuple(shape) else self.add(asctensor.ReshapeOp(v, list(shape)))

    def broadcast(self, v: SSAValue, shape) -> SSAValue:
        if tuple(v.type.get_shape()) == tuple(shape):
            return v
        return self.add(asctensor.BroadcastOp(v, TensorType(v.type.element_type, list(shape))))

    def cast(self, v: SSAValue, like: SSAValue) -> SSAValue:
        et = like.type.element_type
        return v if v.type.element_type == et else self.add(
            asctensor.CastOp(v, TensorType(et, list(v.type.get_shape()))))


def _per_channel(b: _Builder, v: SSAValue, axis: int, n: int, known: set) -> SSAValue | None:
    """``v`` (an operand of the result's shape) as a constant vector of ``n`` channels, or None when
    it is not one."""
    owner = v.owner
    if isinstance(owner, asctensor.FullOp):
        return b.add(asctensor.FullOp(owner.scalar, TensorType(v.type.element_type, [n])))
    if not isinstance(owner, asctensor.BroadcastOp) or owner.input not in known:
        return None
    src, rank = tuple(owner.input.type.get_shape()), len(v.type.get_shape())
    src = (1,) * (rank - len(src)) + src
    if any(d != 1 for i, d in enumerate(src) if i != axis) or src[axis] not in (1, n):
        return None
    return b.broadcast(b.reshape(owner.input, [src[axis]]), [n])


class FoldIntoProduct(RewritePattern):
    """``product(x, W, b) <op> per-channel constant`` -> ``product(x, W', b')`` (see the module docstring)."""

    def __init__(self, known: set):
        self.known = known

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        kind, positions = FOLDS.get(type(op), (None, ()))
        for index in positions:
            product = op.operands[index].owner
            channel = _channel(product) if isinstance(product, Operation) else None
            if channel is None or not op.operands[index].has_one_use():
                continue
            weight = product.weight if isinstance(product, asctensor.Conv2dOp) else product.rhs
            result = product.results[0]
            if (weight not in self.known or (product.bias is not None and product.bias not in self.known)
                    or not weight.type.element_type == result.type.element_type == op.results[0].type.element_type):
                continue
            b = _Builder(rewriter, op)
            vec = _per_channel(b, op.operands[1 - index], *channel, self.known)
            if vec is None:
                continue
            self._fold(b, op, product, weight, vec, kind)
            return

    def _fold(self, b: _Builder, op: Operation, product: Operation, weight: SSAValue, vec: SSAValue,
              kind: str) -> None:
        bias = None if product.bias is None else b.cast(product.bias, vec)
        if kind == "scale":
            w_shape = weight.type.get_shape()
            if isinstance(product, asctensor.Conv2dOp):
                k = b.reshape(vec, [w_shape[0], 1, 1, 1])
            else:   # W is (N, K) with transpose_b, else (K, N)
                k = b.reshape(vec, [w_shape[0], 1]) if product.tb else vec
            weight = b.add(arith.MulfOp(weight, b.broadcast(k, w_shape)))
            bias = None if bias is None else b.add(arith.MulfOp(bias, vec))
        elif bias is None:
            bias = vec if isinstance(op, arith.AddfOp) else b.add(arith.NegfOp(vec))
        else:
            bias = b.add(type(op)(bias, vec))
        for v in (weight, bias):
            if v is not None:
                self.known.add(v)
        t = op.results[0].type
        if isinstance(product, asctensor.Conv2dOp):
            stride, padding, dilation, groups = product.params()
            new = asctensor.Conv2dOp(product.input, weight, t, bias, stride, padding, dilation, groups)
        else:
            new = asctensor.MatmulOp(product.lhs, weight, t, bias, product.ta, product.tb)
        b.rewriter.replace(op, copy_loc(product, new))
        b.rewriter.erase(product)


@dataclass(frozen=True)
class AscTensorFoldBatchNormPass(ModulePass):
    """Fold per-channel scales and shifts into the convolution or matmul before them."""

    name = "asctensor-fold-batch-norm"
    INPUT_LEVEL = "asctensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and not f.is_declaration]:
            known = constant_values(fn)
            if len(known) == 0:
                continue
            PatternRewriteWalker(GreedyRewritePatternApplier([FoldIntoProduct(known)]),
                                 apply_recursively=True).rewrite_region(fn.body)
