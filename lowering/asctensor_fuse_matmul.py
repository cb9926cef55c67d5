"""``asctensor-fuse-matmul``: every matmul (and convolution) becomes a cube kernel.

Runs after ``asctensor-decompose`` and before ``asctensor-fuse``:

* a ``conv2d`` of 2- or 4-byte elements and one group becomes an implicit GEMM (``lowering/conv_gemm.py``,
  ``lowering/analysis/conv.py``: every output row reads the input, Load3Dv2's ranges, L1): the input transposed to
  NHWC, ``im2col_nhwc`` outlined with its matmul (the cube kernel forms the patches with Load3Dv2; they never reach
  GM), times the weights as ``(OC, K)`` in Load3Dv2's K order; the product is NCHW, or NHWC for a convolution whose
  output reaches another one (transposed back for its users, a transpose that cancels against the next
  convolution's), and its elementwise epilogue joins it in a MIX kernel (``conv_gemm.conv_epilogue``);
* any other ``conv2d`` becomes ``im2col`` (a gather kernel, ``tile-im2col``; none for a 1x1 kernel at stride 1 without
  padding, whose patches are the input itself) and one batched ``matmul`` of
  the weights ``(OC/G, KH*KW*C/G)`` of each group (transposed from ``OIHW``; a constant folds away)
  with the patches ``(KH*KW*C/G, OH*OW)`` of each image and group, which gives the output directly in NCHW (see ``_conv_to_matmul``); the views
  of the weight, the patches and the result are outlined with the matmul and read in place; with one group, the
  elementwise epilogue after it (a batch norm's affine, a residual add, a ReLU) is rewritten onto the product's
  ``(N, OC, OH*OW)`` shape and joins it in a MIX kernel (``_conv_epilogue``);
* a ``bias`` operand is split off into a broadcast add after the matmul; a float16/float32 matmul's add of a row
  (``N`` elements of its type, broadcast over the rows: ``linear``'s bias, ``a @ b + c``) becomes the matmul's bias
  again (``_bias_on_cube``): the cube's first Mmad of each block starts from it in BiasTable, so a matmul with a
  bias (and a ReLU) stays a cube kernel; any other bias is a vector epilogue;
* a matmul of 1-byte elements takes A as M x K and B as N x K; one of 2-byte elements takes either layout of
  each (LoadData transposes 2-byte fractals; when K is not whole fractals, the rows past K of a K x N B's or a
  K x M A^T's last fractal are zeroed in L1, ``to_ascendc_cube._zero_unwritten``); one of 4-byte elements takes
  B either way and A either way next to a K x N B (LoadDataWithTranspose moves a K x N B and a K x M A^T into
  L0). For 2- and 4-byte elements a transpose of the last two dims in front of the matmul, also under a
  reshape that flattens the batch, folds into ``transpose_a``/``transpose_b``; other layouts are transposed
  first (``_cube_operands``);
* each matmul is outlined into ``@<host>_mm<i>`` marked ``asctensor.kernel = "matmul"``, together
  with a following ReLU (``max(x, 0)``), which FixPipe applies on the way out;
* a matmul followed by an elementwise epilogue FixPipe cannot do (bias add, activations, residual
  adds, casts: ops of the matmul's shape that read its result, directly or through each other) is
  outlined with that epilogue into one ``"mix"`` kernel: it returns the matmul's result (the GM
  workspace the cube hands over to the vector cores, also what the host reads where it needs the
  product itself) and the epilogue's results. ``tile-mix`` splits it over the AI Core's cores.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import IM2COL_KIND, MATMUL_KIND, VIEW_OPS, host_functions, view_root
from pyasc.dialects.asctile.mix import MIX_KIND
from pyasc.dialects.target import module_target
from pyasc.dialects.types import element_bytes
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float16Type, Float32Type, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from .conv_fold import fold_few_channels
from .conv_gemm import add_bias, conv_epilogue, conv_to_implicit_gemm, epilogue, insert, plan_convs, pointwise_from_nhwc
from .emitter import copy_loc, exact_copy
from .outline import free_symbol, outline_group, reads_outputs_reshaped



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


def _split_bias(mm: asctensor.MatmulOp) -> None:
    """``matmul(a, b, bias)`` -> ``matmul(a, b) + broadcast(bias)``."""
    rt = mm.result.type
    bf16 = str(rt.element_type) == "bf16"
    new = insert(asctensor.MatmulOp(mm.lhs, mm.rhs, TensorType(Float32Type(), rt.get_shape()) if bf16 else rt,
                                     None, mm.ta, mm.tb), mm)
    last = add_bias(mm, new, new.result, mm.bias, mm.bias.type.get_shape())
    mm.result.replace_all_uses_with(last.results[0])
    Rewriter.erase_op(mm)


BIAS_TYPES = ("f16", "f32")  # what BiasTable takes from L1 on 910B (float16 widened); bfloat16 and int8 do not fit


def _bias_on_cube(mm: asctensor.MatmulOp) -> None:
    """``mm + broadcast(row)`` -> ``matmul(a, b, bias = row)`` (one ``matmul`` at the add), when ``mm`` is read only
    by the add, its operands and result are float16 or float32 of one type and ``row`` holds ``N`` elements of it
    (shaped ``[N]`` or with leading 1s) that the cube can read from GM: an argument or a kernel's result (reshaped
    or not), not a splat or another view."""
    rt = mm.result.type
    et = str(rt.element_type)
    if (mm.bias is not None or not mm.result.has_one_use() or et not in BIAS_TYPES
            or str(mm.lhs.type.element_type) != et):
        return
    add = next(iter(mm.result.uses)).operation
    if not isinstance(add, arith.AddfOp) or add.result.type != rt:
        return
    other = add.rhs if add.lhs is mm.result else add.lhs
    bcast = other.owner
    n = rt.get_shape()[-1]
    if other is mm.result or not isinstance(bcast, asctensor.BroadcastOp):
        return
    row = bcast.input
    shape = row.type.get_shape()
    if row.type.element_type != rt.element_type or not shape or shape[-1] != n or prod(shape) != n:
        return
    root = row
    while isinstance(root.owner, asctensor.ReshapeOp):
        root = root.owner.input
    if isinstance(root.owner, VIEW_OPS + (asctensor.FullOp,)):  # a splat or a view: not in GM as it is; the vector
        return                                                  # epilogue reads it
    if len(shape) != 1:
        row = insert(asctensor.ReshapeOp(row, [n]), add).result
    new = insert(asctensor.MatmulOp(mm.lhs, mm.rhs, rt, row, mm.ta, mm.tb), add)
    copy_loc(add, new)
    add.result.replace_all_uses_with(new.result)
    Rewriter.erase_op(add)
    Rewriter.erase_op(mm)
    if not bcast.result.uses:
        Rewriter.erase_op(bcast)


def _in_memory(mm: asctensor.MatmulOp) -> None:
    """Each operand of ``mm`` as the cube reads it: a kernel argument or reshapes of one (cloned in
    front of ``mm``, outlined with it and read in place); a constant, slice or broadcast is first
    written out by an exact copy (an elementwise kernel that reads through the view)."""
    for i, v in enumerate((mm.lhs, mm.rhs)):
        chain = []
        root = v
        while isinstance(root.owner, asctensor.ReshapeOp):
            chain.append(root.owner)
            root = root.owner.input
        if isinstance(root.owner, VIEW_OPS + (asctensor.FullOp,)):
            copies = exact_copy(v)
            for op in copies:
                insert(op, mm)
            mm.operands[i] = copies[-1].results[0]
        elif chain:
            src = root
            for op in reversed(chain):
                src = insert(asctensor.ReshapeOp(src, list(op.result.type.get_shape())), mm).result
            mm.operands[i] = src


def _conv_operands_in_memory(conv: asctensor.Conv2dOp) -> None:
    """A convolution's input or weights that are a splat (a uniform constant, such as a 1x1x1x1 weight, or views of one)
    written out
    by an exact copy, as ``_in_memory`` does for a matmul: the cube reads its operands from GM."""
    for i, v in enumerate((conv.input, conv.weight)):
        if isinstance(view_root(v).owner, asctensor.FullOp):  # a broadcast or reshape of a splat is one too
            copies = exact_copy(v)
            for op in copies:
                insert(op, conv)
            conv.operands[i] = copies[-1].results[0]


def _swap_last(v: SSAValue, anchor: Operation) -> SSAValue:
    """``v`` with its last two dims swapped; int8 through float16 (exact), as gathers move no bytes."""
    shape = list(v.type.get_shape())
    rank = len(shape)
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    et = v.type.element_type
    if element_bytes(et) == 1:
        wide = insert(asctensor.CastOp(v, TensorType(Float16Type(), shape)), anchor).result
        moved = insert(asctensor.TransposeOp(wide, perm), anchor).result
        return insert(asctensor.CastOp(moved, TensorType(et, moved.type.get_shape())), anchor).result
    return insert(asctensor.TransposeOp(v, perm), anchor).result


def _swapped_last(v: SSAValue, anchor: Operation) -> SSAValue | None:
    """The input of the transpose that swaps ``v``'s last two dims, if ``v`` is one; if ``v`` is a reshape of
    one that only merges or splits the leading dims (a batch flattened), that input reshaped alike (inserted
    before ``anchor``)."""
    op = v.owner
    reshape = None
    if isinstance(op, asctensor.ReshapeOp) and op.input.type.get_shape()[-2:] == v.type.get_shape()[-2:]:
        reshape, op = op, op.input.owner
    if not isinstance(op, asctensor.TransposeOp):
        return None
    rank = len(op.result.type.get_shape())
    perm = [int(p) for p in op.permutation.get_values()]
    if perm != list(range(rank - 2)) + [rank - 1, rank - 2]:
        return None
    if isinstance(view_root(op.input, asctensor.ReshapeOp).owner, VIEW_OPS + (asctensor.FullOp,)):
        # not in GM as it is: the transpose writes it out
        return None
    if reshape is None:
        return op.input
    shape = [*v.type.get_shape()[:-2], *op.input.type.get_shape()[-2:]]
    return insert(asctensor.ReshapeOp(op.input, shape), anchor).result


def _read_in_place(mm: asctensor.MatmulOp) -> asctensor.MatmulOp:
    """``a @ y^T`` (a transpose swapping the last two dims of ``y``) -> ``matmul(a, y) transpose_b``: the
    cube reads ``y`` as B^T in place; likewise ``x^T @ b`` -> ``matmul(x, b) transpose_a`` when B is
    K x N (2-byte types: LoadData transposes A^T's fractals; 4-byte ones: LoadDataWithTranspose moves A^T
    and B, see ``_cube_operands``)."""
    rhs = None if mm.tb else _swapped_last(mm.rhs, mm)
    tb = mm.tb or rhs is not None
    lhs = None if mm.ta or tb else _swapped_last(mm.lhs, mm)
    if lhs is None and rhs is None:
        return mm
    dead = [v.owner for v in (mm.lhs, mm.rhs)]
    new = insert(asctensor.MatmulOp(lhs or mm.lhs, rhs or mm.rhs, mm.result.type, mm.bias, mm.ta or lhs is not None,
                                     tb), mm)
    mm.result.replace_all_uses_with(new.result)
    Rewriter.erase_op(mm)
    for op in dict.fromkeys(dead):  # a reshape of a transpose, then the transpose
        while isinstance(op, asctensor.TransposeOp | asctensor.ReshapeOp) and not op.result.uses:
            op, _ = op.input.owner, Rewriter.erase_op(op)
    return new


def _cube_operands(mm: asctensor.MatmulOp) -> asctensor.MatmulOp:
    """A matmul with A as M x K and B as N x K (``transpose_b``), transposed before the matmul
    (movement kernels) when they are not, for 4- and 1-byte elements (LoadData transposes only 2-byte
    fractals, and an ND2NZ transpose, one-element rows, pads each row to 32 B over its neighbours); 2-byte
    operands stay as they are (a transpose in front read in place, ``_read_in_place``). A 4-byte B stays as
    it is, and so does a 4-byte A^T next to it: LoadDataWithTranspose transposes their 16 x 16 squares on the way
    into L0 (with B^T, A^T is transposed first: Mmad then reads K in whole 16-row blocks, and B^T's
    columns past K are zeros only to the next 8)."""
    shape = mm.lhs.type.get_shape()
    k = shape[-2] if mm.ta else shape[-1]
    es = element_bytes(mm.lhs.type.element_type)
    if es in (2, 4):
        mm = _read_in_place(mm)
    if es == 2 or (mm.tb and not mm.ta) or (es == 4 and not mm.tb):
        return mm
    keep_b = es == 4
    lhs = _swap_last(mm.lhs, mm) if mm.ta else mm.lhs
    rhs = mm.rhs if mm.tb or keep_b else _swap_last(mm.rhs, mm)
    new = insert(asctensor.MatmulOp(lhs, rhs, mm.result.type, mm.bias, False, mm.tb or not keep_b), mm)
    mm.result.replace_all_uses_with(new.result)
    Rewriter.erase_op(mm)
    return new


def _conv_to_matmul(conv: asctensor.Conv2dOp) -> list[Operation]:
    """conv2d -> im2col (a gather kernel) + one batched matmul giving NCHW; returns the matmul's group.

    With G groups the patches ``(N, G*KH*KW*C/G, OH*OW)`` are viewed as ``(N*G, KH*KW*C/G, OH*OW)``
    and the weight ``(OC, C/G, KH, KW)``, transposed to ``(OC, KH, KW, C/G)``, as ``(G, OC/G, KH*KW*C/G)``
    broadcast over the batch:
    batch ``b`` multiplies the weights of group ``b % G`` (the matmul kernel reads them in place)
    and its ``(OC/G, OH*OW)`` result lands at channels ``(b % G) * OC/G`` of image ``b // G``.
    """
    stride, padding, dilation, groups = conv.params()
    x, w, r = conv.input.type, conv.weight.type, conv.result.type
    n, c, _, _ = x.get_shape()
    oc, cg, kh, kw = w.get_shape()
    _, _, oh, ow = r.get_shape()
    et, it = r.element_type, x.element_type
    ocg, kg = oc // groups, cg * kh * kw
    if (kh, kw, *stride, *padding) == (1, 1, 1, 1, 0, 0):  # a pointwise convolution: the patches are the input
        rhs = insert(asctensor.ReshapeOp(conv.input, [n * groups, kg, oh * ow]), conv)
    else:
        col = insert(asctensor.Im2colOp(conv.input, TensorType(it, [n, c * kh * kw, oh * ow]), (kh, kw), stride,
                                         padding, dilation, groups), conv)
        rhs = insert(asctensor.ReshapeOp(col.result, [n * groups, kg, oh * ow]), conv, col)
    weight, prev = conv.weight, rhs
    if cg > 1 and kh * kw > 1:  # the patches' rows are (kh, kw, c): the weight's columns follow
        prev = insert(asctensor.TransposeOp(weight, [0, 2, 3, 1]), conv, rhs)
        weight = prev.result
    w3 = insert(asctensor.ReshapeOp(weight, [1, groups, ocg, kg]), conv, prev)
    wb = insert(asctensor.BroadcastOp(w3.result, TensorType(it, [n, groups, ocg, kg])), conv, w3)
    lhs = insert(asctensor.ReshapeOp(wb.result, [n * groups, ocg, kg]), conv, wb)
    # a bf16 product with a bias stays f32 (the accumulator) until the bias is added: one rounding
    pt = Float32Type() if conv.bias is not None and str(et) == "bf16" else et
    mm = insert(asctensor.MatmulOp(lhs.result, rhs.result, TensorType(pt, [n * groups, ocg, oh * ow])), conv, lhs)
    out = insert(asctensor.ReshapeOp(mm.result, [n, oc, oh, ow]), conv, mm)
    result = out.result
    last = out
    if conv.bias is not None:
        result = add_bias(conv, last, result, conv.bias, [oc, 1, 1]).results[0]
    conv.result.replace_all_uses_with(result)
    Rewriter.erase_op(conv)
    cube_mm = _cube_operands(mm)
    if cube_mm is not mm:  # the patches are transposed by a kernel of their own
        return [w3, wb, lhs, cube_mm, out]
    return [w3, wb, lhs, rhs, mm, out]


def _reshape_chains(ops: list[Operation]) -> list[Operation]:
    """The reshapes ``ops`` and the reshapes they read, in program order."""
    out: list[Operation] = []
    for op in ops:
        chain = []
        while isinstance(op, asctensor.ReshapeOp):
            chain.append(op)
            op = op.input.owner
        out.extend(o for o in reversed(chain) if o not in out)
    return out


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
    name = free_symbol(host, name)
    kernel = func.FuncOp(name, ([v.type for v in inputs], [out.type]), Region(block))
    kernel.attributes[asctensor.KERNEL_ATTR] = StringAttr(kind)
    Rewriter.insert_op(kernel, InsertPoint.before(host))
    call = func.CallOp(name, inputs, [out.type])
    copy_loc(group[0], call)
    Rewriter.insert_op(call, InsertPoint.after(group[-1]))
    call.results[0].name_hint = out.name_hint
    reads_outputs_reshaped(members, [out], call.results, call)
    out.replace_all_uses_with(call.results[0])
    for op in reversed(group):  # a reshape of an operand that is also read outside stays for those reads
        if not any(r.uses for r in op.results):
            Rewriter.erase_op(op)


_UNREAD = (asctensor.FullOp, asctensor.TransposeOp)  # erased with the views when nothing reads them
def _outline_mix(host: func.FuncOp, head: list[Operation], epilogue: list[Operation], name: str) -> None:
    """Outline ``head`` (matmul [+ relu]) and its ``epilogue`` into one ``mix`` kernel whose results
    are the product (the workspace) and the epilogue's values used outside."""
    group = head + epilogue
    members = set(group)
    product = head[-1].results[0]
    outputs = [product] + [r for op in epilogue for r in op.results
                           if any(u.operation not in members for u in r.uses)]
    call = outline_group(host, name, MIX_KIND, group, outputs)
    call.results[0].name_hint = "workspace"
    for op in reversed(list(host.body.block.ops)):
        if isinstance(op, VIEW_OPS + (asctensor.FullOp,)) and not op.results[0].uses:
            Rewriter.erase_op(op)


@dataclass(frozen=True)
class AscTensorFuseMatmulPass(ModulePass):
    """Outline matmuls (with a following ReLU) and convolutions into cube kernels."""

    name = "asctensor-fuse-matmul"
    INPUT_LEVEL = "asctensor"
    conv: str = "auto"  # options.CONV_ALGORITHMS (checked with the other passes' options)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op)
        for host in host_functions(op):
            conv_groups = {}
            for conv in [o for o in host.body.block.ops if isinstance(o, asctensor.Conv2dOp)]:
                _conv_operands_in_memory(conv)
            fold_few_channels(host.body.block, spec, self.conv)
            convs = [o for o in host.body.block.ops if isinstance(o, asctensor.Conv2dOp)]
            geometries, last, points = plan_convs(host.body.block, spec, self.conv)
            for inner in convs:
                geo = geometries.get(inner)
                if geo is not None:
                    group = conv_to_implicit_gemm(inner, geo, inner in last)
                else:
                    group = (pointwise_from_nhwc(inner, inner in last) if inner in points
                             else _conv_to_matmul(inner))
                conv_groups[group[-2]] = group
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.MatmulOp) and inner.bias is not None:
                    _split_bias(inner)
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.MatmulOp) and inner not in conv_groups:
                    _bias_on_cube(inner)
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.MatmulOp) and inner not in conv_groups:
                    _in_memory(inner)
                    _cube_operands(inner)
            index = 0
            for inner in list(host.body.block.ops):
                if inner in conv_groups:
                    group = conv_groups[inner]
                    tail = conv_epilogue(group, host)
                    if tail:
                        _outline_mix(host, group[:-1], tail, f"{host.sym_name.data}_mm{index}")
                    else:
                        _outline(host, group, f"{host.sym_name.data}_mm{index}", MATMUL_KIND)
                    index += 1
                elif isinstance(inner, asctensor.MatmulOp):
                    relu = relu_of(inner.result)
                    views = [v.owner for v in (inner.lhs, inner.rhs) if isinstance(v.owner, asctensor.ReshapeOp)]
                    group = _reshape_chains(views) + [inner] + ([relu] if relu is not None else [])
                    tail = epilogue(group[-1], host)
                    if tail:
                        _outline_mix(host, group, tail, f"{host.sym_name.data}_mm{index}")
                    else:
                        _outline(host, group, f"{host.sym_name.data}_mm{index}", MATMUL_KIND)
                    index += 1
                elif isinstance(inner, asctensor.Im2colOp):
                    _outline(host, [inner], f"{host.sym_name.data}_im2col{index}", IM2COL_KIND)
                    index += 1
            for inner in reversed(list(host.body.block.ops)):  # splats, views and transposes no longer read
                if isinstance(inner, _UNREAD + VIEW_OPS) and not inner.results[0].uses:
                    Rewriter.erase_op(inner)
