"""A convolution as an implicit GEMM (``asctensor-fuse-matmul``; ``lowering/analysis/conv.py`` for the cube side),
and the elementwise epilogues that join a matmul's kernel.

The patches ``im2col_nhwc`` of the input made NHWC are formed on the cube (Load3Dv2) and never written. The
weights, as ``(OC, K)`` in Load3Dv2's K order (channels zero-padded to whole 16-channel groups), multiply them in
one of two orientations:

* **NCHW product** (``_conv_to_nchw_gemm``): per image the weights times the patches^T (patches in L0B): the
  product ``(N, OC, OH*OW)`` is the output in NCHW, and only the input is transposed;
* **NHWC product** (``_conv_to_nhwc_gemm``): the patches times the weights^T (patches in L0A): the product
  ``(N, OH*OW, OC)`` is NHWC, transposed back to NCHW for its users. Between convolutions
  (``channels_last_convs``: the output reaches another convolution through elementwise ops, or a max pool that
  runs channels-last) that transpose and
  the next convolution's input transpose cancel (``asctensor-sink-transposes``), so the activations stay NHWC.

The elementwise epilogue of either product (a bias, a batch norm's affine, a residual add, a ReLU) is rewritten
onto the product's shape so that it joins the cube kernel in a MIX kernel (``conv_epilogue``,
``conv_epilogue_nhwc``).
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor.analysis import VIEW_OPS, is_view_of_input
from pyasc.dialects.types import element_bytes

from .analysis.conv import ConvGeometry, implicit_geometry, implicit_is_faster, implicit_plan
from .analysis.phases import phases_of
from .analysis.matmul import CubeTilingError, plan_matmul
from .analysis.pool import nhwc_pool_fits
from .emitter import copy_loc, exact_copy
from .errors import TilingError
from .tile_body import view_source
from .tiling import element_strides, row_major


def insert(op: Operation, anchor: Operation, after: Operation | None = None) -> Operation:
    copy_loc(anchor, op)
    Rewriter.insert_op(op, InsertPoint.after(after) if after is not None else InsertPoint.before(anchor))
    return op


def add_bias(anchor: Operation, last: Operation, product: SSAValue, bias: SSAValue, shape,
              rt: TensorType | None = None) -> Operation:
    """``product + broadcast(bias)`` inserted after ``last``, of type ``rt`` (``anchor``'s result type by default);
    a bf16 product adds in f32 (the accumulator's precision; the vector unit has no bf16 add) and rounds once
    at the end."""
    rt = rt or anchor.results[0].type
    et = rt.element_type
    wide = Float32Type() if str(et) == "bf16" else et
    if product.type.element_type != wide:
        last = insert(asctensor.CastOp(product, TensorType(wide, rt.get_shape())), anchor, last)
        product = last.result
    if isinstance(bias.owner, asctensor.FullOp):  # a splat bias: a splat of the product's shape
        last = insert(asctensor.FullOp(bias.owner.scalar, TensorType(wide, rt.get_shape())), anchor, last)
    else:
        if bias.type.element_type != wide:
            last = insert(asctensor.CastOp(bias, TensorType(wide, bias.type.get_shape())), anchor, last)
            bias = last.result
        if tuple(bias.type.get_shape()) != tuple(shape):
            last = insert(asctensor.ReshapeOp(bias, list(shape)), anchor, last)
            bias = last.result
        last = insert(asctensor.BroadcastOp(bias, TensorType(wide, rt.get_shape())), anchor, last)
    add_cls = arith.AddiOp if str(wide) == "i32" else arith.AddfOp
    last = insert(add_cls(product, last.results[0]), anchor, last)
    if wide != et:
        last = insert(asctensor.CastOp(last.results[0], rt), anchor, last)
    return last



def _laid_weights(conv: asctensor.Conv2dOp, geo: ConvGeometry, prev: Operation) -> tuple[Operation, Operation]:
    """The weights as ``(OC, C1, KH, KW, C0)`` (Load3Dv2's K order; channels past C of the last 16-channel group
    zero, written out; a constant folds away), inserted after ``prev``: (the transpose, the last op before it)."""
    c = conv.input.type.get_shape()[1]
    oc, _, kh, kw = conv.weight.type.get_shape()
    it = conv.input.type.element_type
    weight = conv.weight
    if geo.c1 * geo.c0 != c:  # zero weights for the channels past C of the last 16-channel group, written out
        prev = insert(asctensor.FullOp(0, TensorType(it, [oc, geo.c1 * geo.c0 - c, kh, kw])), conv, prev)
        for copy in exact_copy(prev.result):  # (a concat joins values in memory)
            prev = insert(copy, conv, prev)
        prev = insert(asctensor.ConcatOp([weight, prev.results[0]], 1), conv, prev)
        weight = prev.result
    w5 = insert(asctensor.ReshapeOp(weight, [oc, geo.c1, geo.c0, kh, kw]), conv, prev)
    return insert(asctensor.TransposeOp(w5.result, [0, 1, 3, 4, 2]), conv, w5), w5


def _patches(conv: asctensor.Conv2dOp, geo: ConvGeometry) -> Operation:
    """The input made NHWC (a transpose) and its patches ``(N, OH*OW, K)`` (``im2col_nhwc``), before ``conv``."""
    stride, padding, dilation, _ = conv.params()
    n = conv.input.type.get_shape()[0]
    _, _, kh, kw = conv.weight.type.get_shape()
    _, _, oh, ow = conv.result.type.get_shape()
    it = conv.input.type.element_type
    xt = insert(asctensor.TransposeOp(conv.input, [0, 2, 3, 1]), conv)
    return insert(asctensor.Im2colNhwcOp(xt.result, TensorType(it, [n, oh * ow, geo.k_total]), (kh, kw), stride,
                                         padding, dilation), conv, xt)


def _product_type(conv: asctensor.Conv2dOp):
    """A bf16 product with a bias stays f32 (the accumulator) until the bias is added: one rounding."""
    et = conv.result.type.element_type
    return Float32Type() if conv.bias is not None and str(et) == "bf16" else et


def _finish(conv: asctensor.Conv2dOp, last: Operation, result: SSAValue) -> None:
    """The bias added to the NCHW ``result`` (after ``last``), which replaces ``conv``."""
    if conv.bias is not None:
        result = add_bias(conv, last, result, conv.bias, [conv.weight.type.get_shape()[0], 1, 1]).results[0]
    conv.result.replace_all_uses_with(result)
    Rewriter.erase_op(conv)


def _nchw_product(conv: asctensor.Conv2dOp, weights: SSAValue, patches: SSAValue, prev: Operation) -> list[Operation]:
    """Per image the ``(OC, K)`` weights (any shape of them), broadcast over the batch and read in place, times
    ``patches`` ``(N, OH*OW, K)`` as B^T: the NCHW product and its 4-D reshape, inserted after ``prev``, replace
    ``conv``; returns (weights' views, matmul, reshape)."""
    n = conv.input.type.get_shape()[0]
    oc = conv.weight.type.get_shape()[0]
    _, _, oh, ow = conv.result.type.get_shape()
    k = patches.type.get_shape()[-1]
    it = conv.input.type.element_type
    w4 = insert(asctensor.ReshapeOp(weights, [1, 1, oc, k]), conv, prev)
    wb = insert(asctensor.BroadcastOp(w4.result, TensorType(it, [n, 1, oc, k])), conv, w4)
    lhs = insert(asctensor.ReshapeOp(wb.result, [n, oc, k]), conv, wb)
    mm = insert(asctensor.MatmulOp(lhs.result, patches, TensorType(_product_type(conv), [n, oc, oh * ow]), None,
                                   False, True), conv, lhs)
    out = insert(asctensor.ReshapeOp(mm.result, [n, oc, oh, ow]), conv, mm)
    _finish(conv, out, out.result)
    return [w4, wb, lhs, mm, out]


def _nhwc_product(conv: asctensor.Conv2dOp, patches: SSAValue, weights: Operation) -> list[Operation]:
    """``patches`` ``(N, OH*OW, K)`` times the ``(OC, K)`` ``weights`` (inserted last) as B^T, one matrix for every
    image: the NHWC product, its 4-D reshape and the transpose to NCHW replace ``conv``; returns (matmul,
    reshape)."""
    n = conv.input.type.get_shape()[0]
    oc = conv.weight.type.get_shape()[0]
    _, _, oh, ow = conv.result.type.get_shape()
    mm = insert(asctensor.MatmulOp(patches, weights.results[0], TensorType(_product_type(conv), [n, oh * ow, oc]),
                                   None, False, True), conv, weights)
    out = insert(asctensor.ReshapeOp(mm.result, [n, oh, ow, oc]), conv, mm)
    back = insert(asctensor.TransposeOp(out.result, [0, 3, 1, 2]), conv, out)
    _finish(conv, back, back.result)
    return [mm, out]


def _conv_to_nchw_gemm(conv: asctensor.Conv2dOp, geo: ConvGeometry) -> list[Operation]:
    """conv2d -> per image the laid-out weights, broadcast over the batch and read in place, times the patches as
    B^T (``transpose_b``; formed in L0B): the product ``(N, OC, OH*OW)`` is the output in NCHW, as through im2col
    (so a bias and an elementwise epilogue follow it alike); returns the matmul's group."""
    col = _patches(conv, geo)
    wt, _ = _laid_weights(conv, geo, col)
    w4, wb, lhs, mm, out = _nchw_product(conv, wt.result, col.result, wt)
    return [w4, wb, lhs, col, mm, out]


def _conv_to_nhwc_gemm(conv: asctensor.Conv2dOp, geo: ConvGeometry) -> list[Operation]:
    """conv2d -> the patches (formed in L0A) times the laid-out weights as B^T (``transpose_b``, one matrix for
    every image): the product ``(N, OH*OW, OC)`` is the output in NHWC, transposed to NCHW after the kernel (a
    transpose that cancels against the next convolution's); returns the matmul's group."""
    col = _patches(conv, geo)
    wt, _ = _laid_weights(conv, geo, col)
    rhs = insert(asctensor.ReshapeOp(wt.result, [conv.weight.type.get_shape()[0], geo.k_total]), conv, wt)
    return [rhs, col, *_nhwc_product(conv, col.result, rhs)]


def conv_to_implicit_gemm(conv: asctensor.Conv2dOp, geo: ConvGeometry, channels_last: bool) -> list[Operation]:
    """``conv`` as an implicit GEMM with an NHWC (``channels_last``) or an NCHW product; returns the matmul's group
    (its last two ops: the matmul and its reshape to 4-D)."""
    return (_conv_to_nhwc_gemm if channels_last else _conv_to_nchw_gemm)(conv, geo)


def channels_last_convs(block, geometries: dict, spec=None) -> set:
    """The convolutions of ``geometries`` (those that can give or take an NHWC product: implicit GEMMs, pointwise ones)
    whose output reaches another of them, through elementwise ops of its shape (and max pools that run
    channels-last, ``nhwc_pool_fits``, with ``spec``): their products are NHWC, so the transposes between them
    cancel."""
    chosen = set()
    for conv in geometries:
        seen, todo = set(), [conv.result]
        while todo and conv not in chosen:
            v = todo.pop()
            for u in v.uses:
                user = u.operation
                if user in geometries and u.index == 0:
                    chosen.add(conv)
                elif user not in seen and _passes_layout(user, v, spec):
                    seen.add(user)
                    todo.extend(user.results)
    return chosen


def _passes_layout(op: Operation, v: SSAValue, spec) -> bool:
    """Whether an NHWC ``v`` stays NHWC through ``op``: an elementwise op of its shape, or a max pool that runs
    channels-last and is the only reader of its input (``asctensor-sink-transposes`` then moves the input's
    transpose below it)."""
    if isinstance(op, asctensor.MaxPool2dOp):
        return spec is not None and op.input.has_one_use() and nhwc_pool_fits(op, spec)
    return _elementwise(op, v.type.get_shape())


def _fed_by(conv: asctensor.Conv2dOp, producers: set, spec=None) -> bool:
    """Whether ``conv``'s input comes from one of ``producers`` (convolutions), through elementwise ops (and max
    pools that run channels-last, with ``spec``)."""
    seen, todo = set(), [conv.input]
    while todo:
        v = todo.pop()
        owner = v.owner
        if owner in producers:
            return True
        if isinstance(owner, Operation) and owner not in seen and _passes_layout(owner, v, spec):
            seen.add(owner)
            todo.extend(owner.operands)
    return False


def _pointwise(conv: asctensor.Conv2dOp) -> bool:
    """A 1x1 convolution of stride 1 without padding, one group, 2- or 4-byte elements: its input is its patches."""
    stride, padding, _, groups = conv.params()
    kh, kw = conv.weight.type.get_shape()[2:]
    return (kh, kw, *stride, *padding, groups) == (1, 1, 1, 1, 0, 0, 1) and element_bytes(
        conv.input.type.element_type) in (2, 4)


def plan_convs(block, spec, algorithm: str) -> tuple[dict, set, set]:
    """(the geometry of each convolution of ``block`` that runs as an implicit GEMM, those with an NHWC product, the
    pointwise ones with an NHWC product). With "auto", a convolution that qualifies also runs as an implicit GEMM
    when its input comes from an NHWC product: its input transpose then cancels, which ``implicit_is_faster``
    counts against it. A pointwise convolution whose input comes from an NHWC product reads it as it is
    (``pointwise_from_nhwc``), with an NHWC product of its own when its output reaches another convolution with
    one; so do those whose input, transposed once, moves less than their products would
    (``_cheaper_input_transposes``)."""
    convs = [o for o in block.ops if isinstance(o, asctensor.Conv2dOp)]
    eligible = {c: implicit_geometry_of(c, spec, "im2col" if algorithm == "im2col" else "implicit_gemm") for c in convs}
    eligible = {c: g for c, g in eligible.items() if g is not None}
    chosen = {c: g for c, g in eligible.items() if algorithm != "auto" or implicit_geometry_of(c, spec, "auto")}
    points = {c for c in convs if algorithm != "im2col" and _pointwise(c)}
    while True:
        capable = {**chosen, **dict.fromkeys(points)}
        last = {c for c in channels_last_convs(block, capable, spec)
                if c in points or plans_in_l1(c, chosen[c], spec, True)}
        while True:  # a pointwise product is NHWC only when its input is, or when its input's transpose is cheaper
            unfed = {c for c in last & points if not _fed_by(c, last, spec)}
            unfed -= _cheaper_input_transposes(unfed, last, chosen, spec)
            if not unfed:
                break
            last -= unfed
        fed = [c for c in eligible if c not in chosen and _fed_by(c, last, spec)]
        if not fed:
            return chosen, last, {c for c in points if _fed_by(c, last, spec) or c in last}
        chosen.update((c, eligible[c]) for c in fed)


def _cheaper_input_transposes(convs: set, last: set, implicit: dict, spec) -> set:
    """The pointwise convolutions of ``convs`` (unfed, in ``last``) grouped by their input, of the groups whose one
    input transpose to NHWC moves fewer elements than the transposes to NHWC their NCHW products would need: a
    ResNet's first bottleneck reads the pool's 64 channels into products of 64 and 256 channels, which reach an
    implicit GEMM and a residual sum with an NHWC product."""
    groups: dict = {}
    for c in convs:
        groups.setdefault(c.input, []).append(c)
    keep = set()
    for x, users in groups.items():
        others = last - set(users)
        moved = sum(prod(c.result.type.get_shape()) for c in users if _read_as_nhwc(c, others, implicit, spec))
        if prod(x.type.get_shape()) < moved:
            keep.update(users)
    return keep


def _read_as_nhwc(conv: asctensor.Conv2dOp, others: set, implicit: dict, spec) -> bool:
    """Whether ``conv``'s output reaches, through elementwise ops, a convolution that reads its input as NHWC
    whatever ``conv``'s product: an implicit GEMM, or one fed by a convolution of ``others``."""
    shape = conv.result.type.get_shape()
    seen, todo = set(), [conv.result]
    while todo:
        for u in todo.pop().uses:
            user = u.operation
            if isinstance(user, asctensor.Conv2dOp) and u.index == 0:
                if user in implicit or _fed_by(user, others, spec):
                    return True
            elif user not in seen and _elementwise(user, shape):
                seen.add(user)
                todo.extend(user.results)
    return False


def pointwise_from_nhwc(conv: asctensor.Conv2dOp, nhwc_product: bool) -> list[Operation]:
    """A pointwise conv2d on its input made NHWC, ``(N, H*W, C)``: with ``nhwc_product`` that times the weights
    ``(OC, C)`` as B^T, one matrix for every image (the batch folds into M), a product ``(N, H*W, OC)`` transposed
    to NCHW after the kernel like an implicit GEMM's; else per image the weights, broadcast over the batch, times
    it as B^T, an NCHW product ``(N, OC, H*W)``. Returns the matmul's group."""
    n, c, h, w = conv.input.type.get_shape()
    xt = _earlier_nhwc(conv) or insert(asctensor.TransposeOp(conv.input, [0, 2, 3, 1]), conv)
    x3 = insert(asctensor.ReshapeOp(xt.result, [n, h * w, c]), conv, xt)
    if nhwc_product:
        rhs = insert(asctensor.ReshapeOp(conv.weight, [conv.weight.type.get_shape()[0], c]), conv, x3)
        return [x3, rhs, *_nhwc_product(conv, x3.result, rhs)]
    w4, wb, lhs, mm, out = _nchw_product(conv, conv.weight, x3.result, x3)
    return [w4, wb, lhs, x3, mm, out]


def _earlier_nhwc(conv: asctensor.Conv2dOp) -> Operation | None:
    """A transpose of ``conv``'s input to NHWC before it in its block (another pointwise convolution's), if any."""
    for u in conv.input.uses:
        t = u.operation
        if (isinstance(t, asctensor.TransposeOp) and tuple(t.perm) == (0, 2, 3, 1) and t.parent is conv.parent
                and t.is_before_in_block(conv)):
            return t
    return None


def _laid_by_aivs(conv: asctensor.Conv2dOp) -> bool:
    """Whether the vector cores of ``conv``'s own kernel can lay out its input: the phase image of a convolution
    rewritten space to depth (``analysis/phases.py``)."""
    v = conv.input
    kept = v.type.get_shape()[2:]
    if isinstance(v.owner, asctensor.SliceOp) and not any(v.owner.offsets.get_values()):
        v = v.owner.input
    if not (isinstance(v.owner, asctensor.ReshapeOp) and isinstance(v.owner.input.owner, asctensor.Im2colOp)):
        return False
    return phases_of(v.owner.input.owner, v.type.get_shape(), kept) is not None


def implicit_geometry_of(conv: asctensor.Conv2dOp, spec, algorithm: str) -> ConvGeometry | None:
    """The geometry of ``conv`` when it runs as an implicit GEMM, else None: with ``algorithm`` "auto" where it
    qualifies and is estimated faster (``implicit_is_faster``; for an input its own vector cores lay out,
    ``_laid_by_aivs``), with "implicit_gemm" wherever it qualifies, with "im2col" never."""
    if algorithm == "im2col":
        return None
    stride, padding, dilation, groups = conv.params()
    x, w, es = conv.input.type.get_shape(), conv.weight.type.get_shape(), element_bytes(conv.input.type.element_type)
    geo = implicit_geometry(x, w, stride, padding, dilation, groups, es, spec.l1_bytes)
    if geo is None or not plans_in_l1(conv, geo, spec):
        return None
    if algorithm == "implicit_gemm":
        return geo
    return geo if implicit_is_faster(spec, x, w, conv.result.type.get_shape(), es, _laid_by_aivs(conv)) else None


def plans_in_l1(conv: asctensor.Conv2dOp, geo: ConvGeometry, spec, channels_last: bool = False) -> bool:
    """Whether ``tile-matmul`` finds the implicit GEMM of ``conv`` (with an NHWC product when ``channels_last``) an
    L1 stage (``implicit_plan`` on the default tile plan): a float32 stage of a wide image's rows and its weight
    panel may not fit."""
    n, oc, oh, ow = conv.result.type.get_shape()
    in_type = str(conv.input.type.element_type)
    m, nn = (oh * ow, oc) if channels_last else (oc, oh * ow)
    try:
        implicit_plan("conv", spec, plan_matmul("conv", spec, n, m, nn, geo.k_total, in_type), geo, channels_last)
    except CubeTilingError:
        return False
    return True



_ELEMENTWISE_DIALECTS = ("arith.", "math.")
_ELEMENTWISE_OPS = (asctensor.CastOp, asctensor.CompareOp, asctensor.SelectOp)


def _elementwise(op: Operation, shape) -> bool:
    """An op the vector epilogue computes: elementwise, every result of the matmul's shape."""
    if not (op.name.startswith(_ELEMENTWISE_DIALECTS) or isinstance(op, _ELEMENTWISE_OPS)):
        return False
    return bool(op.results) and all(isinstance(r.type, TensorType) and r.type.get_shape() == shape
                                    for r in op.results)


def _read_by_rows(v: SSAValue, shape) -> bool:
    """Whether the epilogue's vector cores can load ``v`` (a view of a value from outside) on the product's
    ``shape`` a row at a time: its element stride along the last dim is 0 or 1 (``b[:, 0]`` broadcast over the
    rows is not: ``tile-mix`` loads rows of contiguous columns)."""
    chain, root = [], v
    while isinstance(root.owner, VIEW_OPS):
        chain.append(root)
        root = root.owner.input
    if not chain or isinstance(root.owner, asctensor.FullOp):
        return True
    root_shape = tuple(root.type.get_shape())
    views = {root: (root, root_shape, row_major(root_shape), 0)}
    try:
        for w in reversed(chain):
            views[w] = view_source(w, (), views)
    except TilingError:
        return False
    _, view_shape, strides, _ = views[v]
    return element_strides(tuple(view_shape), tuple(shape), strides)[-1] in (0, 1)


def epilogue(mm: Operation, host: func.FuncOp) -> list[Operation]:
    """The ops after ``mm`` (or its fused ReLU) that form its vector epilogue, in program order.

    An op joins when it is elementwise over the product's shape and reads the product or an earlier
    member; its other operands are values of that shape, splats, or views of values from outside that the
    vector cores load by rows (``_read_by_rows``).
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
        others_ok = all(v in produced or (is_view_of_input(v, set(members)) and _read_by_rows(v, shape)) or
                        (isinstance(v.type, TensorType) and v.type.get_shape() == shape
                         and not isinstance(v.owner, VIEW_OPS))
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


def _on_product(v: SSAValue, nhwc: bool) -> str | None:
    """How an operand of a convolution's NCHW epilogue reads on the product's shape (``(N, OC, OH*OW)``, or
    ``(N, OH*OW, OC)`` when ``nhwc``): "splat", "broadcast" (of a source whose two last dims are both 1, or, for
    an NCHW product, both whole), "view" (a whole tensor of the NCHW shape, an argument or a computed value, read
    reshaped; for an NHWC product transposed first), or None (another view)."""
    src = v.owner
    if isinstance(src, asctensor.FullOp):
        return "splat"
    if isinstance(src, asctensor.BroadcastOp):
        s = _as_4d(src.input)
        if len(s) == 4 and (s[2:] == [1, 1] or (not nhwc and s[2:] == list(v.type.get_shape()[2:]))):
            return "broadcast"
        return None
    return "view" if len(v.type.get_shape()) == 4 and not isinstance(src, VIEW_OPS) else None


def _transposed_before(v: SSAValue, op: Operation) -> SSAValue | None:
    """``v`` made NHWC by a transpose already in ``op``'s block before ``op`` (a convolution's input transpose),
    so that the epilogue reads that one rather than a copy."""
    block = op.parent_block()
    for u in v.uses:
        t = u.operation
        if isinstance(t, asctensor.TransposeOp) and list(t.perm) == [0, 2, 3, 1] and t.parent_block() is block:
            x = t
            while x is not None and x is not op:
                x = x.next_op
            if x is op:
                return t.result
    return None


def _nhwc_transpose(out: Operation) -> Operation | None:
    """The transpose to NCHW that is the only use of an NHWC product's 4-D reshape ``out``, if it is one."""
    if not out.result.has_one_use():
        return None
    t = next(iter(out.result.uses)).operation
    return t if isinstance(t, asctensor.TransposeOp) and list(t.perm) == [0, 3, 1, 2] else None


def conv_epilogue(group: list[Operation], host: func.FuncOp) -> list[Operation]:
    """The elementwise epilogue of a convolution's matmul (its product, then the product's 4-D reshape: NCHW, or
    NHWC and a transpose to NCHW), rewritten onto the product's shape so that it runs in the cube kernel's MIX
    epilogue: splats and per-channel broadcasts are remade in that shape, other NCHW operands read reshaped
    (transposed to NHWC first for an NHWC product: a transpose that cancels where they come from NHWC), and the
    values used after it taken back to NCHW; it ends before a value the host returns where that value would need
    a copy or stand alone (below). [] (nothing changed) when there is none or an operand does not fit."""
    out, mm = group[-1], group[-2]
    if not (isinstance(out, asctensor.ReshapeOp) and isinstance(mm, asctensor.MatmulOp)):
        return []
    shape = list(mm.result.type.get_shape())
    four = list(out.result.type.get_shape())
    t = _nhwc_transpose(out)
    nhwc = t is not None
    if len(shape) != 3 or len(four) != 4 or shape[0] != four[0] or shape[1] != (four[1] * four[2] if nhwc
                                                                                  else four[1]):
        return []
    head = t if nhwc else out
    ops = epilogue(head, host)
    # a value the host returns ends the epilogue of an NHWC product (returned transposed, it would need a copy
    # kernel), and of an NCHW one when it would be the epilogue's only op (it would make a kernel that can lay out
    # its own input, tile-conv-prologue, a MIX epilogue kernel); else the host returns the kernel's result reshaped
    for i, op in enumerate(ops):
        if (nhwc or i == 0) and any(isinstance(u.operation, func.ReturnOp) for r in op.results for u in r.uses):
            ops = ops[:i]
            break
    produced = {head.results[0], *(r for op in ops for r in op.results)}
    how = {v: _on_product(v, nhwc) for op in ops for v in op.operands if v not in produced}
    if not ops or None in how.values():
        return []
    mapping: dict[SSAValue, SSAValue] = {head.results[0]: mm.result}
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
                    made = [asctensor.ReshapeOp(src, [s[0], 1, s[1]] if nhwc else [*s[:2], s[2] * s[3]])]
                    made.append(asctensor.BroadcastOp(made[0].result, TensorType(et, shape)))
                elif nhwc:
                    tv = _transposed_before(v, op)
                    made = [] if tv is not None else [asctensor.TransposeOp(v, [0, 2, 3, 1])]
                    made.append(asctensor.ReshapeOp(tv if tv is not None else made[0].result, shape))
                else:
                    made = [asctensor.ReshapeOp(v, shape)]
                for m in made:
                    insert(m, op)
                mapping[v] = made[-1].results[0]
            operands.append(mapping[v])
        moved = insert(type(op).create(operands=operands, properties=dict(op.properties),
                                        attributes=dict(op.attributes),
                                        result_types=[TensorType(r.type.element_type, shape) for r in op.results]), op)
        mapping.update(zip(op.results, moved.results))
        new_ops.append(moved)
    members = set(ops)
    for op in ops:
        for r in op.results:
            if any(u.operation not in members for u in r.uses):
                back = insert(asctensor.ReshapeOp(mapping[r], four), ops[-1], after=ops[-1])
                if nhwc:
                    back = insert(asctensor.TransposeOp(back.result, [0, 3, 1, 2]), ops[-1], after=back)
                r.replace_all_uses_with(back.results[0])
    for op in reversed(ops):
        Rewriter.erase_op(op)
    for op in (t, out):
        if op is not None and not op.results[0].uses:
            Rewriter.erase_op(op)
    return new_ops
