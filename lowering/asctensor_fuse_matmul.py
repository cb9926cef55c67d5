"""``asctensor-fuse-matmul``: every matmul (and convolution) becomes a cube kernel.

Runs after ``asctensor-decompose`` and before ``asctensor-fuse``:

* a ``conv2d`` of 2- or 4-byte elements and one group becomes an implicit GEMM (``lowering/analysis/conv.py``:
  every output row reads the input, Load3Dv2's ranges, L1): the input transposed to NHWC, ``im2col_nhwc``
  outlined with its matmul (the cube kernel forms the patches in L0B with Load3Dv2; they never reach GM) as
  B^T (``transpose_b``), the weights, as ``(OC, K)`` in Load3Dv2's K order, the A of every image: the product
  is NCHW, and its elementwise epilogue joins it as through im2col (``_conv_to_implicit_gemm``);
* any other ``conv2d`` becomes ``im2col`` (a gather kernel, ``tile-im2col``; none for a 1x1 kernel at stride 1 without
  padding, whose patches are the input itself) and one batched ``matmul`` of
  the weights ``(OC/G, KH*KW*C/G)`` of each group (transposed from ``OIHW``; a constant folds away)
  with the patches ``(KH*KW*C/G, OH*OW)`` of each image and group, which gives the output directly in NCHW (see ``_conv_to_matmul``); the views
  of the weight, the patches and the result are outlined with the matmul and read in place; with one group, the
  elementwise epilogue after it (a batch norm's affine, a residual add, a ReLU) is rewritten onto the product's
  ``(N, OC, OH*OW)`` shape and joins it in a MIX kernel (``_conv_epilogue``);
* a ``bias`` operand is split off into a broadcast add after the matmul (vector epilogue);
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

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import IM2COL_KIND, VIEW_OPS, host_functions, is_view_of_input
from pyasc.dialects.asctile.mix import MIX_KIND
from pyasc.dialects.target import module_target
from pyasc.dialects.types import element_bytes
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float16Type, Float32Type, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from .analysis.conv import ConvGeometry, implicit_geometry, implicit_is_faster, implicit_plan
from .analysis.matmul import CubeTilingError, plan_matmul
from .emitter import copy_loc, exact_copy
from .outline import free_symbol, outline_group

MATMUL_KIND = "matmul"


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


def _add_bias(anchor: Operation, last: Operation, product: SSAValue, bias: SSAValue, shape,
              rt: TensorType | None = None) -> Operation:
    """``product + broadcast(bias)`` inserted after ``last``, of type ``rt`` (``anchor``'s result type by default);
    a bf16 product adds in f32 (the accumulator's precision; the vector unit has no bf16 add) and rounds once
    at the end."""
    rt = rt or anchor.results[0].type
    et = rt.element_type
    wide = Float32Type() if str(et) == "bf16" else et
    if product.type.element_type != wide:
        last = _insert(asctensor.CastOp(product, TensorType(wide, rt.get_shape())), anchor, last)
        product = last.result
    if isinstance(bias.owner, asctensor.FullOp):  # a splat bias: a splat of the product's shape
        last = _insert(asctensor.FullOp(bias.owner.scalar, TensorType(wide, rt.get_shape())), anchor, last)
    else:
        if bias.type.element_type != wide:
            last = _insert(asctensor.CastOp(bias, TensorType(wide, bias.type.get_shape())), anchor, last)
            bias = last.result
        if tuple(bias.type.get_shape()) != tuple(shape):
            last = _insert(asctensor.ReshapeOp(bias, list(shape)), anchor, last)
            bias = last.result
        last = _insert(asctensor.BroadcastOp(bias, TensorType(wide, rt.get_shape())), anchor, last)
    add_cls = arith.AddiOp if str(wide) == "i32" else arith.AddfOp
    last = _insert(add_cls(product, last.results[0]), anchor, last)
    if wide != et:
        last = _insert(asctensor.CastOp(last.results[0], rt), anchor, last)
    return last


def _split_bias(mm: asctensor.MatmulOp) -> None:
    """``matmul(a, b, bias)`` -> ``matmul(a, b) + broadcast(bias)``."""
    rt = mm.result.type
    bf16 = str(rt.element_type) == "bf16"
    new = _insert(asctensor.MatmulOp(mm.lhs, mm.rhs, TensorType(Float32Type(), rt.get_shape()) if bf16 else rt,
                                     None, mm.ta, mm.tb), mm)
    last = _add_bias(mm, new, new.result, mm.bias, mm.bias.type.get_shape())
    mm.result.replace_all_uses_with(last.results[0])
    Rewriter.erase_op(mm)


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
                _insert(op, mm)
            mm.operands[i] = copies[-1].results[0]
        elif chain:
            src = root
            for op in reversed(chain):
                src = _insert(asctensor.ReshapeOp(src, list(op.result.type.get_shape())), mm).result
            mm.operands[i] = src


def _swap_last(v: SSAValue, anchor: Operation) -> SSAValue:
    """``v`` with its last two dims swapped; int8 through float16 (exact), as gathers move no bytes."""
    shape = list(v.type.get_shape())
    rank = len(shape)
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    et = v.type.element_type
    if element_bytes(et) == 1:
        wide = _insert(asctensor.CastOp(v, TensorType(Float16Type(), shape)), anchor).result
        moved = _insert(asctensor.TransposeOp(wide, perm), anchor).result
        return _insert(asctensor.CastOp(moved, TensorType(et, moved.type.get_shape())), anchor).result
    return _insert(asctensor.TransposeOp(v, perm), anchor).result


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
    if reshape is None:
        return op.input
    shape = [*v.type.get_shape()[:-2], *op.input.type.get_shape()[-2:]]
    return _insert(asctensor.ReshapeOp(op.input, shape), anchor).result


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
    new = _insert(asctensor.MatmulOp(lhs or mm.lhs, rhs or mm.rhs, mm.result.type, mm.bias, mm.ta or lhs is not None,
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
    new = _insert(asctensor.MatmulOp(lhs, rhs, mm.result.type, mm.bias, False, mm.tb or not keep_b), mm)
    mm.result.replace_all_uses_with(new.result)
    Rewriter.erase_op(mm)
    return new


def _conv_to_implicit_gemm(conv: asctensor.Conv2dOp, geo: ConvGeometry) -> list[Operation]:
    """conv2d -> the input made NHWC (a transpose), then per image the weights as ``(OC, K)`` in Load3Dv2's K
    order (channels zero-padded to whole 16-channel groups; a constant folds away), broadcast over the batch and
    read in place, times the patches ``(OH*OW, K)`` (``im2col_nhwc``, formed in L0B by the cube kernel, never
    written) as B^T (``transpose_b``): the product ``(N, OC, OH*OW)`` is the output in NCHW, as through im2col
    (so a bias and an elementwise epilogue follow it alike); returns the matmul's group (see
    ``lowering/analysis/conv.py``)."""
    stride, padding, dilation, _ = conv.params()
    n, c, _, _ = conv.input.type.get_shape()
    oc, _, kh, kw = conv.weight.type.get_shape()
    _, _, oh, ow = conv.result.type.get_shape()
    et, it = conv.result.type.element_type, conv.input.type.element_type
    xt = _insert(asctensor.TransposeOp(conv.input, [0, 2, 3, 1]), conv)
    col = _insert(asctensor.Im2colNhwcOp(xt.result, TensorType(it, [n, oh * ow, geo.k_total]), (kh, kw), stride,
                                         padding, dilation), conv, xt)
    weight, prev = conv.weight, col
    if geo.c1 * geo.c0 != c:  # zero weights for the channels past C of the last 16-channel group, written out
        prev = _insert(asctensor.FullOp(0, TensorType(it, [oc, geo.c1 * geo.c0 - c, kh, kw])), conv, prev)
        for copy in exact_copy(prev.result):  # (a concat joins values in memory)
            prev = _insert(copy, conv, prev)
        prev = _insert(asctensor.ConcatOp([weight, prev.results[0]], 1), conv, prev)
        weight = prev.result
    w5 = _insert(asctensor.ReshapeOp(weight, [oc, geo.c1, geo.c0, kh, kw]), conv, prev)
    wt = _insert(asctensor.TransposeOp(w5.result, [0, 1, 3, 4, 2]), conv, w5)
    w4 = _insert(asctensor.ReshapeOp(wt.result, [1, 1, oc, geo.k_total]), conv, wt)
    wb = _insert(asctensor.BroadcastOp(w4.result, TensorType(it, [n, 1, oc, geo.k_total])), conv, w4)
    lhs = _insert(asctensor.ReshapeOp(wb.result, [n, oc, geo.k_total]), conv, wb)
    pt = Float32Type() if conv.bias is not None and str(et) == "bf16" else et
    mm = _insert(asctensor.MatmulOp(lhs.result, col.result, TensorType(pt, [n, oc, oh * ow]), None, False, True),
                 conv, lhs)
    out = _insert(asctensor.ReshapeOp(mm.result, [n, oc, oh, ow]), conv, mm)
    result = out.result
    if conv.bias is not None:
        result = _add_bias(conv, out, result, conv.bias, [oc, 1, 1]).results[0]
    conv.result.replace_all_uses_with(result)
    Rewriter.erase_op(conv)
    return [w4, wb, lhs, col, mm, out]


def _implicit_geometry(conv: asctensor.Conv2dOp, spec, algorithm: str) -> ConvGeometry | None:
    """The geometry of ``conv`` when it runs as an implicit GEMM, else None: with ``algorithm`` "auto" where it
    qualifies and is estimated faster, with "implicit_gemm" wherever it qualifies, with "im2col" never."""
    if algorithm == "im2col":
        return None
    stride, padding, dilation, groups = conv.params()
    x, w, es = conv.input.type.get_shape(), conv.weight.type.get_shape(), element_bytes(conv.input.type.element_type)
    geo = implicit_geometry(x, w, stride, padding, dilation, groups, es, spec.l1_bytes)
    if geo is None or not _plans_in_l1(conv, geo, spec):
        return None
    if algorithm == "implicit_gemm":
        return geo
    return geo if implicit_is_faster(spec, x, w, conv.result.type.get_shape(), es) else None


def _plans_in_l1(conv: asctensor.Conv2dOp, geo: ConvGeometry, spec) -> bool:
    """Whether ``tile-matmul`` finds the implicit GEMM of ``conv`` an L1 stage (``implicit_plan`` on the default
    tile plan): a float32 stage of a wide image's rows and its weight panel may not fit."""
    n, oc, oh, ow = conv.result.type.get_shape()
    in_type = str(conv.input.type.element_type)
    try:
        implicit_plan("conv", spec, plan_matmul("conv", spec, n, oc, oh * ow, geo.k_total, in_type), geo)
    except CubeTilingError:
        return False
    return True


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
        rhs = _insert(asctensor.ReshapeOp(conv.input, [n * groups, kg, oh * ow]), conv)
    else:
        col = _insert(asctensor.Im2colOp(conv.input, TensorType(it, [n, c * kh * kw, oh * ow]), (kh, kw), stride,
                                         padding, dilation, groups), conv)
        rhs = _insert(asctensor.ReshapeOp(col.result, [n * groups, kg, oh * ow]), conv, col)
    weight, prev = conv.weight, rhs
    if cg > 1 and kh * kw > 1:  # the patches' rows are (kh, kw, c): the weight's columns follow
        prev = _insert(asctensor.TransposeOp(weight, [0, 2, 3, 1]), conv, rhs)
        weight = prev.result
    w3 = _insert(asctensor.ReshapeOp(weight, [1, groups, ocg, kg]), conv, prev)
    wb = _insert(asctensor.BroadcastOp(w3.result, TensorType(it, [n, groups, ocg, kg])), conv, w3)
    lhs = _insert(asctensor.ReshapeOp(wb.result, [n * groups, ocg, kg]), conv, wb)
    # a bf16 product with a bias stays f32 (the accumulator) until the bias is added: one rounding
    pt = Float32Type() if conv.bias is not None and str(et) == "bf16" else et
    mm = _insert(asctensor.MatmulOp(lhs.result, rhs.result, TensorType(pt, [n * groups, ocg, oh * ow])), conv, lhs)
    out = _insert(asctensor.ReshapeOp(mm.result, [n, oc, oh, ow]), conv, mm)
    result = out.result
    last = out
    if conv.bias is not None:
        result = _add_bias(conv, last, result, conv.bias, [oc, 1, 1]).results[0]
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
    out.replace_all_uses_with(call.results[0])
    for op in reversed(group):
        Rewriter.erase_op(op)
    for v in inputs:  # splat operands are cloned into the kernel; drop the host's copy if unused
        pass


_UNREAD = (asctensor.FullOp, asctensor.TransposeOp)  # erased with the views when nothing reads them
_ELEMENTWISE_DIALECTS = ("arith.", "math.")
_ELEMENTWISE_OPS = (asctensor.CastOp, asctensor.CompareOp, asctensor.SelectOp)


def _elementwise(op: Operation, shape) -> bool:
    """An op the vector epilogue computes: elementwise, every result of the matmul's shape."""
    if not (op.name.startswith(_ELEMENTWISE_DIALECTS) or isinstance(op, _ELEMENTWISE_OPS)):
        return False
    return bool(op.results) and all(isinstance(r.type, TensorType) and r.type.get_shape() == shape
                                    for r in op.results)


def _epilogue(mm: Operation, host: func.FuncOp) -> list[Operation]:
    """The ops after ``mm`` (or its fused ReLU) that form its vector epilogue, in program order.

    An op joins when it is elementwise over the product's shape and reads the product or an earlier
    member; its other operands are values of that shape, splats or broadcasts of values from outside.
    The first other op that reads a member ends the epilogue, so every use outside comes later.
    """
    shape = mm.results[0].type.get_shape()
    produced = {mm.results[0]}
    members: list[Operation] = []
    ops = list(host.body.block.ops)
    for op in ops[ops.index(mm) + 1:]:
        reads = [v for v in op.operands if v in produced]
        if not reads:
            continue
        others_ok = all(v in produced or is_view_of_input(v, set(members)) or
                        (isinstance(v.type, TensorType) and v.type.get_shape() == shape)
                        for v in op.operands)
        if not (_elementwise(op, shape) and others_ok):
            break
        members.append(op)
        produced.update(op.results)
    return members


def _as_4d(v: SSAValue) -> list[int]:
    """``v``'s shape with leading 1s up to rank 4 (as a broadcast to NCHW aligns it)."""
    shape = list(v.type.get_shape())
    return [1] * (4 - len(shape)) + shape


def _on_product(v: SSAValue) -> str | None:
    """How an operand of a convolution's NCHW epilogue reads on the product's ``(N, OC, OH*OW)`` shape: "splat",
    "broadcast" (of a source whose two last dims are both 1 or both whole), "view" (a whole tensor of the NCHW
    shape, an argument or a computed value, read reshaped), or None (another view)."""
    src = v.owner
    if isinstance(src, asctensor.FullOp):
        return "splat"
    if isinstance(src, asctensor.BroadcastOp):
        s = _as_4d(src.input)
        if len(s) == 4 and (s[2:] == [1, 1] or s[2:] == list(v.type.get_shape()[2:])):
            return "broadcast"
        return None
    return "view" if len(v.type.get_shape()) == 4 and not isinstance(src, VIEW_OPS) else None


def _conv_epilogue(group: list[Operation], host: func.FuncOp) -> list[Operation]:
    """The elementwise epilogue of a convolution's matmul (``_conv_to_matmul``: the product ``(N, OC, OH*OW)``,
    then its NCHW reshape), rewritten onto the product's shape so that it runs in the cube kernel's MIX epilogue:
    splats and per-channel broadcasts are remade in that shape, other NCHW operands read reshaped, and the values
    used after it reshaped back to NCHW; it ends before a value the host returns. [] (nothing changed) when there is
    none or an operand does not fit."""
    out, mm = group[-1], group[-2]
    if not (isinstance(out, asctensor.ReshapeOp) and isinstance(mm, asctensor.MatmulOp)):
        return []
    shape = list(mm.result.type.get_shape())
    nchw = list(out.result.type.get_shape())
    if len(shape) != 3 or len(nchw) != 4 or shape[:2] != nchw[:2]:
        return []
    ops = _epilogue(out, host)
    for i, op in enumerate(ops):  # a value the host returns stays after the kernel: returning the kernel's result
        if any(isinstance(u.operation, func.ReturnOp) for r in op.results for u in r.uses):  # reshaped would
            ops = ops[:i]                                                                   # need a copy kernel
            break
    produced = {out.result, *(r for op in ops for r in op.results)}
    how = {v: _on_product(v) for op in ops for v in op.operands if v not in produced}
    if not ops or None in how.values():
        return []
    mapping: dict[SSAValue, SSAValue] = {out.result: mm.result}
    new_ops: list[Operation] = []
    for op in ops:
        operands = []
        for v in op.operands:
            if v not in mapping:
                et = v.type.element_type
                if how[v] == "splat":
                    made = [asctensor.FullOp(v.owner.scalar, TensorType(et, shape))]
                elif how[v] == "broadcast":
                    src = v.owner.input
                    s = _as_4d(src)
                    made = [asctensor.ReshapeOp(src, [*s[:2], s[2] * s[3]])]
                    made.append(asctensor.BroadcastOp(made[0].result, TensorType(et, shape)))
                else:
                    made = [asctensor.ReshapeOp(v, shape)]
                for m in made:
                    _insert(m, op)
                mapping[v] = made[-1].results[0]
            operands.append(mapping[v])
        moved = _insert(type(op).create(operands=operands, properties=dict(op.properties),
                                        attributes=dict(op.attributes),
                                        result_types=[TensorType(r.type.element_type, shape) for r in op.results]), op)
        mapping.update(zip(op.results, moved.results))
        new_ops.append(moved)
    members = set(ops)
    for op in ops:
        for r in op.results:
            if any(u.operation not in members for u in r.uses):
                back = _insert(asctensor.ReshapeOp(mapping[r], nchw), ops[-1], after=ops[-1])
                r.replace_all_uses_with(back.result)
    for op in reversed(ops):
        Rewriter.erase_op(op)
    if not out.result.uses:
        Rewriter.erase_op(out)
    return new_ops


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
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.Conv2dOp):
                    geo = _implicit_geometry(inner, spec, self.conv)
                    group = _conv_to_implicit_gemm(inner, geo) if geo is not None else _conv_to_matmul(inner)
                    conv_groups[group[-2]] = group
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.MatmulOp) and inner.bias is not None:
                    _split_bias(inner)
            for inner in list(host.body.block.ops):
                if isinstance(inner, asctensor.MatmulOp) and inner not in conv_groups:
                    _in_memory(inner)
                    _cube_operands(inner)
            index = 0
            for inner in list(host.body.block.ops):
                if inner in conv_groups:
                    group = conv_groups[inner]
                    epilogue = _conv_epilogue(group, host)
                    if epilogue:
                        _outline_mix(host, group[:-1], epilogue, f"{host.sym_name.data}_mm{index}")
                    else:
                        _outline(host, group, f"{host.sym_name.data}_mm{index}", MATMUL_KIND)
                    index += 1
                elif isinstance(inner, asctensor.MatmulOp):
                    relu = relu_of(inner.result)
                    views = [v.owner for v in (inner.lhs, inner.rhs) if isinstance(v.owner, asctensor.ReshapeOp)]
                    group = _reshape_chains(views) + [inner] + ([relu] if relu is not None else [])
                    epilogue = _epilogue(group[-1], host)
                    if epilogue:
                        _outline_mix(host, group, epilogue, f"{host.sym_name.data}_mm{index}")
                    else:
                        _outline(host, group, f"{host.sym_name.data}_mm{index}", MATMUL_KIND)
                    index += 1
                elif isinstance(inner, asctensor.Im2colOp):
                    _outline(host, [inner], f"{host.sym_name.data}_im2col{index}", IM2COL_KIND)
                    index += 1
            for inner in reversed(list(host.body.block.ops)):  # splats, views and transposes no longer read
                if isinstance(inner, _UNREAD + VIEW_OPS) and not inner.results[0].uses:
                    Rewriter.erase_op(inner)
