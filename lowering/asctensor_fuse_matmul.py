"""``asctensor-fuse-matmul``: every matmul (and convolution) becomes a cube kernel.

Runs after ``asctensor-decompose`` and before ``asctensor-fuse``:

* ``conv2d`` becomes, per group, ``im2col`` (a gather kernel) and a batched ``matmul`` of the
  group's weights ``(OC/g, C/g*KH*KW)`` with the patches ``(N, C/g*KH*KW, OH*OW)``, which gives the
  output directly in NCHW; several groups are joined by the ``concat`` of a strided store
  (each group's kernel writes its own channel range of the output);
* a ``bias`` operand is split off into a broadcast add after the matmul (vector epilogue);
* each matmul is outlined into ``@<host>_mm<i>`` marked ``asctensor.kernel = "matmul"``, together
  with a following ReLU (``max(x, 0)``), which FixPipe applies on the way out. The remaining
  epilogue (bias, activations, residual adds) stays in the host function for ``asctensor-fuse``,
  which groups it into vector kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import asctensor

from .asctensor_fuse import host_functions
from .emitter import copy_loc

MATMUL_KIND = "matmul"
IM2COL_KIND = "im2col"


def _full_value(v: SSAValue):
    return v.owner.scalar if isinstance(v.owner, asctensor.FullOp) else None


def relu_of(v: SSAValue) -> Operation | None:
    """The ``max(v, 0)`` that is ``v``'s only use, if any."""
    if not v.has_one_use():
        return None
    user = next(iter(v.uses)).operation
    if isinstance(user, arith.MaximumfOp | arith.MaxSIOp) and user.operands[0] is v and _full_value(user.operands[1]) == 0:
        return user
    return None


def _insert(op: Operation, anchor: Operation, after: Operation | None = None) -> Operation:
    copy_loc(anchor, op)
    Rewriter.insert_op(op, InsertPoint.after(after) if after is not None else InsertPoint.before(anchor))
    return op


def _split_bias(mm: asctensor.MatmulOp) -> None:
    """``matmul(a, b, bias)`` -> ``matmul(a, b) + broadcast(bias)``."""
    rt = mm.result.type
    new = _insert(asctensor.MatmulOp(mm.lhs, mm.rhs, rt, None, mm.ta, mm.tb), mm)
    bias = mm.bias
    last = new
    if bias.type.element_type != rt.element_type:
        last = _insert(asctensor.CastOp(bias, TensorType(rt.element_type, bias.type.get_shape())), mm, last)
        bias = last.result
    last = _insert(asctensor.BroadcastOp(bias, rt), mm, last)
    add_cls = arith.AddiOp if str(rt.element_type) == "i32" else arith.AddfOp
    last = _insert(add_cls(new.result, last.result), mm, last)
    mm.result.replace_all_uses_with(last.results[0])
    Rewriter.erase_op(mm)


def _conv_to_matmul(conv: asctensor.Conv2dOp) -> None:
    """conv2d -> per group: im2col + batched matmul (NCHW out), reshaped by the kernels' GM views."""
    try:
        from .linalg_reshape import concat_channels, reshape_op
    except ImportError:
        from .errors import CompileError

        raise CompileError("asctensor.conv2d: the im2col lowering (gather kernel and the channel concat of "
                           "the groups) is not implemented yet; conv2d runs with the reference eager backend "
                           "only") from None

    stride, padding, dilation, groups = conv.params()
    x, w, r = conv.input.type, conv.weight.type, conv.result.type
    n, c, _, _ = x.get_shape()
    oc, cg, kh, kw = w.get_shape()
    _, _, oh, ow = r.get_shape()
    et = r.element_type
    ocg = oc // groups
    parts = []
    last = None
    for g in range(groups):
        col_t = TensorType(x.element_type, [n, cg * kh * kw, oh * ow])
        col = _insert(asctensor.Im2colOp(conv.input, col_t, (kh, kw), stride, padding, dilation, cg, g), conv,
                      last)
        wg = _insert(reshape_op(conv.weight, TensorType(w.element_type, [ocg, cg * kh * kw]), g * ocg * cg * kh * kw),
                     conv, col)
        mm = _insert(asctensor.MatmulOp(wg.results[0], col.result, TensorType(et, [n, ocg, oh * ow])), conv, wg)
        parts.append(mm.result)
        last = mm
    out = _insert(concat_channels(parts, TensorType(et, [n, oc, oh, ow])), conv, last)
    result = out.results[0]
    if conv.bias is not None:
        bias = conv.bias
        if bias.type.element_type != et:
            bias = _insert(asctensor.CastOp(bias, TensorType(et, bias.type.get_shape())), conv, out).result
            out = bias.owner
        b4 = _insert(reshape_op(bias, TensorType(et, [oc, 1, 1]), 0), conv, out)
        bc = _insert(asctensor.BroadcastOp(b4.results[0], r), conv, b4)
        add_cls = arith.AddiOp if str(et) == "i32" else arith.AddfOp
        result = _insert(add_cls(result, bc.result), conv, bc).results[0]
    conv.result.replace_all_uses_with(result)
    Rewriter.erase_op(conv)


def _outline(host: func.FuncOp, group: list[Operation], name: str, kind: str) -> None:
    members = set(group)
    inputs: list[SSAValue] = []
    for op in group:
        for v in op.operands:
            if v.owner in members or isinstance(v.owner, asctensor.FullOp) or v in inputs:
                continue
            inputs.append(v)
    out = group[-1].results[0]
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for v, arg in zip(inputs, block.args):
        arg.name_hint = v.name_hint
    for op in group:
        for v in op.operands:
            if v not in mapping and isinstance(v.owner, asctensor.FullOp):
                const = v.owner.clone()
                block.add_op(const)
                mapping[v] = const.result
        block.add_op(op.clone(value_mapper=mapping))
    block.add_op(func.ReturnOp(mapping[out]))
    kernel = func.FuncOp(name, ([v.type for v in inputs], [out.type]), Region(block))
    kernel.attributes[asctensor.KERNEL_ATTR] = StringAttr(kind)
    Rewriter.insert_op(kernel, InsertPoint.before(host))
    call = func.CallOp(name, inputs, [out.type])
    copy_loc(group[0], call)
    Rewriter.insert_op(call, InsertPoint.after(group[-1]))
    call.results[0].name_hint = out.name_hint
    out.replace_all_uses_with(call.results[0])
    for op in reversed(group):
        Rewriter.erase_op(op)
    for v in inputs:  # splat operands are cloned into the kernel; drop the host's copy if unused
        pass


@dataclass(frozen=True)
class AscTensorFuseMatmulPass(ModulePass):
    """Outline matmuls (with a following ReLU) and convolutions into cube kernels."""

    name = "asctensor-fuse-matmul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for host in host_functions(op):
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.Conv2dOp):
                    _conv_to_matmul(inner)
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.MatmulOp) and inner.bias is not None:
                    _split_bias(inner)
            index = 0
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.MatmulOp):
                    relu = relu_of(inner.result)
                    group = [inner] + ([relu] if relu is not None else [])
                    _outline(host, group, f"{host.sym_name.data}_mm{index}", MATMUL_KIND)
                    index += 1
                elif isinstance(inner, asctensor.Im2colOp):
                    _outline(host, [inner], f"{host.sym_name.data}_im2col{index}", IM2COL_KIND)
                    index += 1
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.FullOp) and not inner.result.uses:
                    Rewriter.erase_op(inner)
