"""Matrix products and convolution of the tensor API (PyTorch semantics), on the cube (``OpDef``s of
kind ``matrix``).

``matmul(a, b)`` (also ``a @ b``; NumPy's semantics: 1-D operands, batch dims that broadcast, folded
onto the 2-D and 3-D products of the cube),
``bmm(a, b)``, ``linear(x, weight, bias)`` (``x @ weight.T + bias``), ``addmm(input, mat1, mat2,
beta=1, alpha=1)`` and ``conv2d(input, weight, bias, stride, padding, dilation, groups)`` (NCHW).
The precision policy (``pyasc.amp``) casts the floating operands first. float16/bfloat16/float32
inputs accumulate in float32 and give the input dtype (``out_dtype`` picks
float16, bfloat16 or float32); int8 inputs accumulate and give int32; int32 inputs give int32, exact
modulo 2**32 as in PyTorch, through int8 digits (see "int32 products" below). Inside ``pyasc.jit`` each call
emits its ``asctensor`` op; eagerly it runs a cached one-op program on the simulator
(``pyasc.set_eager_backend("reference")`` runs the NumPy reference, ``reference_*`` here).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pyasc.dialects import asctensor

from . import amp
from . import dtypes as dt
from .autograd import tape
from .args import tensor_operand
from .creation import to_pyasc
from .errors import PyascError, describe, user_location
from .opdef import MATRIX, OpDef, Types
from .fused import fused_op
from .ops_elementwise import ADD, CAST, MUL
from .ops_elementwise import BY_NAME as _EW
from .tensor import Tensor
from .views import OPS as _VIEWS

_FLOATS = tuple(d.name for d in dt.FLOAT_DTYPES)
SUB, DIV, AND = _EW["sub"], _EW["div"], _EW["bitwise_and"]


def _out_dtype(op: str, tensors, out_dtype, ints=(dt.int8, dt.int32)) -> dt.DType:
    """The result dtype of a product of ``tensors`` (integer inputs ``ints`` give int32)."""
    a = tensors[0]
    names = [t.dtype.name for t in tensors]
    if len(set(names)) != 1:
        raise PyascError(op, f"operands must have one dtype, got {', '.join(names)} (convert with .to())",
                         shapes=[t.shape for t in tensors], dtypes=names)
    if a.dtype in ints:
        res = dt.int32
    elif a.dtype.is_floating_point:
        res = a.dtype
    else:
        raise PyascError(op, f"does not support dtype {a.dtype.name} (supported: "
                         f"{', '.join(_FLOATS + tuple(d.name for d in ints))})",
                         shapes=[t.shape for t in tensors], dtypes=names)
    if out_dtype is not None:
        want = dt.get_dtype(out_dtype)
        allowed = ("int32",) if not a.dtype.is_floating_point else _FLOATS
        if want.name not in allowed:
            raise PyascError(op, f"out_dtype {want.name} is not produced from {a.dtype.name} inputs "
                             f"(choose {', '.join(allowed)})", dtypes=names)
        res = want
    return res


def _check_bias(op: str, bias, inputs_dtype, n: int, shapes) -> None:
    if bias.ndim != 1 or bias.shape[0] != n:
        raise PyascError(op, f"bias of shape {bias.shape} does not match the {n} output features (expected ({n},))",
                         shapes=[*shapes, bias.shape])
    if not inputs_dtype.is_floating_point and bias.dtype is not dt.int32:
        raise PyascError(op, f"an {inputs_dtype.name} product takes an int32 bias, got {bias.dtype.name}",
                         shapes=[*shapes, bias.shape], dtypes=[inputs_dtype.name, bias.dtype.name])
    if inputs_dtype.is_floating_point and not bias.dtype.is_floating_point:
        raise PyascError(op, f"a floating-point product takes a floating-point bias, got {bias.dtype.name}",
                         shapes=[*shapes, bias.shape], dtypes=[inputs_dtype.name, bias.dtype.name])


def _cast_bias(tr, vbias, res: dt.DType):
    return None if vbias is None else tr.cast(vbias, res)


# ------------------------------------------------------------------------------------- references


def reference_matmul(a, b, bias=None, transpose_a=False, transpose_b=False):
    """float64 (int64 for int8) product of the operands, as the cube computes before the output cast."""
    wide = np.int64 if a.dtype == np.int8 else np.float64
    a, b = a.astype(wide), b.astype(wide)
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    r = np.matmul(a, b)
    if bias is not None:
        r = r + bias.astype(wide)
    return r


def reference_conv2d(x, w, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    """NCHW convolution in float64 (int64 for int8) through im2col."""
    wide = np.int64 if x.dtype == np.int8 else np.float64
    x, w = x.astype(wide), w.astype(wide)
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow), wide)
    ocg = oc // groups
    for g in range(groups):
        cols = np.empty((n, cg, kh, kw, oh, ow), wide)
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dilation[0], j * dilation[1]
                cols[:, :, i, j] = xp[:, g * cg:(g + 1) * cg, r0:r0 + stride[0] * oh:stride[0],
                                      c0:c0 + stride[1] * ow:stride[1]]
        wg = w[g * ocg:(g + 1) * ocg].reshape(ocg, -1)
        out[:, g * ocg:(g + 1) * ocg] = np.matmul(wg, cols.reshape(n, cg * kh * kw, oh * ow)).reshape(n, ocg, oh, ow)
    if bias is not None:
        out = out + bias.astype(wide)[None, :, None, None]
    return out


# ------------------------------------------------------------------------------------- products

def _bound(op: str, a, b, bias=None, transpose_a=False, transpose_b=False, out_dtype=None):
    a, b = tensor_operand(op, a), tensor_operand(op, b)
    bias = None if bias is None else tensor_operand(op, bias)
    a, b, bias = _autocast(op, [a, b, bias])
    return [a, b, bias], {"transpose_a": transpose_a, "transpose_b": transpose_b, "out_dtype": out_dtype}


def _product_infer(op: str):
    def infer(operands, attrs) -> Types:
        a, b, bias = operands
        res = _out_dtype(op, [a, b], attrs["out_dtype"])
        shapes = [a.shape, b.shape]
        dims = asctensor.matmul_shapes(a.shape, b.shape, attrs["transpose_a"], attrs["transpose_b"])
        if isinstance(dims, str):
            raise PyascError(op, dims, shapes=shapes, dtypes=[a.dtype.name, b.dtype.name])
        batch, m, _, n = dims
        if bias is not None:
            _check_bias(op, bias, a.dtype, n, shapes)
        return Types(None, ((res, (*batch, m, n)),))
    return infer


def _build_product(tr, values, types, attrs):
    va, vb, vbias = values
    res, shape = types.results[0]
    return asctensor.MatmulOp(va, vb, res.tensor_type(shape), _cast_bias(tr, vbias, res), attrs["transpose_a"],
                              attrs["transpose_b"])


def _product_ref(a, b, bias, transpose_a, transpose_b, out_dtype):
    return reference_matmul(a, b, bias, transpose_a, transpose_b)


def _product_vjp(ctx, g):
    """``C = op(A) @ op(B) + bias``: dA = g @ op(B)^T and dB = op(A)^T @ g, transposed back for a
    transposed operand; an operand shared by a batch gets the sum over it."""
    a, b, bias = ctx.inputs
    ta, tb = ctx.attrs["transpose_a"], ctx.attrs["transpose_b"]
    if ta:
        ga = _matmul("matmul", b, g, transpose_a=tb, transpose_b=True)
    else:
        ga = _matmul("matmul", g, b, transpose_b=not tb)
    if tb:
        gb = _matmul("matmul", g, a, transpose_a=True, transpose_b=ta)
    else:
        gb = _matmul("matmul", a, g, transpose_a=not ta)
    return ga, gb, (_bias_gradient(g, bias) if bias is not None else None)


def _bias_gradient(g, bias):
    """The gradient of a bias of shape (N,) added to rows of g (..., N): one product on the cube,
    ones(1, M) @ g, rather than a cast and a two-stage column reduction; other biases get g (summed
    back over the broadcast dimensions by autograd)."""
    if bias.ndim != 1 or g.ndim < 2 or g.shape[-1] != bias.shape[0]:
        return g
    from .creation import ones

    rows = math.prod(g.shape[:-1])
    flat = g.reshape(rows, g.shape[-1]) if g.ndim != 2 else g
    return _matmul("matmul", ones(1, rows, dtype=g.dtype), flat).reshape(bias.shape[0])


def _product(name: str, signature, doc: str, decompose=None) -> OpDef:
    return OpDef(name, _build_product, _product_ref, signature=signature, infer=_product_infer(name),
                 decompose=decompose, kind=MATRIX, method=False, vjp=_product_vjp, doc=doc)


def _expand(t, shape):
    """``t`` broadcast to ``shape``, materialised (on the host eagerly, by a copy kernel traced); differentiated
    as ``expand``."""
    shape = tuple(shape)
    if t.shape == shape:
        return t
    with tape.set_grad_enabled(False):
        if t._trace is not None:   # written out (an exact ``* 1``), so that reshapes of it are views
            with t._trace.at(user_location()):
                v = t._trace.broadcast(t._value, shape)
            out = MUL(Tensor._traced(t._trace, v, t.dtype, shape), 1)
        else:
            out = Tensor(np.ascontiguousarray(np.broadcast_to(t._concrete("matmul"), shape)), t.dtype,
                         device=t._device)
    return tape.record_expand(t, out)


def _nd_product(op: str, a, b, bias=None, transpose_a=False, transpose_b=False, out_dtype=None):
    """A product with NumPy's matmul semantics, folded onto the 2-D/3-D products the cube computes:
    a 1-D operand gets a unit dim (dropped from the result), batch dims broadcast, a batch that
    only one operand has folds into the rows of a 2-D product (or shares the other operand), and
    an empty result or an empty K gives zeros without a launch. NotImplemented when the operands
    are already 2-D/3-D products the op takes as they are."""
    a, b = tensor_operand(op, a), tensor_operand(op, b)
    bias = None if bias is None else tensor_operand(op, bias)
    a, b, bias = _autocast(op, [a, b, bias])
    native = a.ndim in (2, 3) and b.ndim in (2, 3) and not isinstance(
        asctensor.matmul_shapes(a.shape, b.shape, transpose_a, transpose_b), str)
    if native and 0 not in a.shape + b.shape:
        return _matmul(op, a, b, bias, transpose_a, transpose_b, out_dtype)
    shapes, names = [a.shape, b.shape], [a.dtype.name, b.dtype.name]
    if a.ndim == 0 or b.ndim == 0:
        raise PyascError(op, f"both operands need at least one dimension, got shapes {a.shape} and {b.shape}",
                         shapes=shapes, dtypes=names)
    res = _out_dtype(op, [a, b], out_dtype)
    drop_m, drop_n = a.ndim == 1, b.ndim == 1
    if drop_m:
        a, transpose_a = a.reshape(1, a.shape[0]), False
    if drop_n:
        b, transpose_b = b.reshape(b.shape[0], 1), False
    m, ka = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
    kb, n = (b.shape[-1], b.shape[-2]) if transpose_b else (b.shape[-2], b.shape[-1])
    if ka != kb:
        raise PyascError(op, f"inner dimensions do not match: {list(shapes[0])} x {list(shapes[1])} "
                         f"(K = {ka} vs {kb})", shapes=shapes, dtypes=names)
    batch = asctensor.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if batch is None:
        raise PyascError(op, f"batch dimensions do not broadcast: {list(shapes[0])} x {list(shapes[1])}",
                         shapes=shapes, dtypes=names)
    if bias is not None:
        _check_bias(op, bias, a.dtype, n, shapes)
    out_shape = (*batch, m, n)
    final = tuple(d for i, d in enumerate(out_shape)
                  if not (drop_m and i == len(out_shape) - 2) and not (drop_n and i == len(out_shape) - 1))
    if math.prod(out_shape) == 0 or ka == 0:
        return _empty_product(op, a, res, out_shape, bias).reshape(*final)
    nb_a, nb_b = math.prod(a.shape[:-2]), math.prod(b.shape[:-2])
    if nb_b == 1 and not transpose_a:      # the batch folds into the rows of one 2-D product
        a2 = _expand(a, (*batch, *a.shape[-2:])).reshape(-1, ka)
        r = _matmul(op, a2, b.reshape(*b.shape[-2:]), bias, False, transpose_b, out_dtype)
    elif nb_a == 1:                         # a 2-D left operand shared by every batch
        b3 = _expand(b, (*batch, *b.shape[-2:])).reshape(-1, *b.shape[-2:])
        r = _matmul(op, a.reshape(*a.shape[-2:]), b3, bias, transpose_a, transpose_b, out_dtype)
    else:
        a3 = _expand(a, (*batch, *a.shape[-2:])).reshape(-1, *a.shape[-2:])
        b3 = _expand(b, (*batch, *b.shape[-2:])).reshape(-1, *b.shape[-2:])
        r = _matmul(op, a3, b3, bias, transpose_a, transpose_b, out_dtype)
    return r.reshape(*final)


def _empty_product(op: str, like, res: dt.DType, shape, bias):
    """The result of a product with no terms: zeros (plus the bias) of ``shape``."""
    if math.prod(shape) == 0:        # known from the shapes, traced or not
        return Tensor(np.zeros(shape, res.np_dtype), res, device=like._device)
    z = Tensor(np.zeros(shape, res.np_dtype), res, device=like._device) if like._trace is None else None
    if z is None:
        with like._trace.at(user_location()):
            v = like._trace.splat(0, res, shape)
        z = Tensor._traced(like._trace, v, res, shape)
    return z if bias is None else ADD(z, bias.to(res))


def _autocast(op: str, tensors: list) -> list:
    """The floating operands cast to the dtype the active precision policy gives op ``op``."""
    if not amp.active():
        return tensors
    want = amp.target_dtype(op)
    if want is None:
        return tensors
    return [t.to(want) if t is not None and t.dtype.is_floating_point and t.dtype is not want else t
            for t in tensors]


def _bmm_signature(a, b, out_dtype=None):
    a, b = tensor_operand("bmm", a), tensor_operand("bmm", b)
    if a.ndim != 3 or b.ndim != 3:
        raise PyascError("bmm", f"expects two 3-D tensors, got {a.shape} and {b.shape}", shapes=[a.shape, b.shape])
    return _bound("bmm", a, b, out_dtype=out_dtype)


def _addmm_signature(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002 - PyTorch's name
    return _bound("addmm", mat1, mat2, input)


def _int32_bmm(a, b, out_dtype):
    """bmm of int32 operands through int8 digits; NotImplemented for the others."""
    operands, _ = _bmm_signature(a, b, out_dtype)
    if operands[0].dtype is not dt.int32 or out_dtype is not None:
        return NotImplemented
    return _matmul("bmm", *operands[:2])


def _addmm_composite(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (mat1 @ mat2)`` unless ``input`` is a 1-D bias of the product."""
    input, mat1, mat2 = _autocast("addmm", [tensor_operand("addmm", t) for t in (input, mat1, mat2)])
    if input.ndim == 1 and beta == 1 and alpha == 1 and (input.dtype.is_floating_point or input.dtype is dt.int32):
        if 0 in mat1.shape + mat2.shape:          # no terms: the bias (broadcast) or an empty result
            return _nd_product("addmm", mat1, mat2, input)
        if mat1.dtype is dt.int32:
            return _matmul("addmm", mat1, mat2, input)
        return NotImplemented
    if not mat1.dtype.is_floating_point:      # PyTorch truncates the scalars to the integer dtype
        beta, alpha = int(beta), int(alpha)
    prod = _matmul("addmm", mat1, mat2)
    if alpha != 1:
        prod = MUL(prod, alpha)
    return ADD(input if beta == 1 else MUL(input, beta), prod)


MATMUL = _product("matmul", lambda a, b, out_dtype=None: _bound("matmul", a, b, out_dtype=out_dtype),
                  "a @ b with NumPy's semantics: 1-D operands, batch dims that broadcast.",
                  decompose=lambda a, b, out_dtype=None: _nd_product("matmul", a, b, out_dtype=out_dtype))
BMM = _product("bmm", _bmm_signature, "Batched a @ b of two 3-D tensors (B, M, K) x (B, K, N).",
               decompose=lambda a, b, out_dtype=None: _int32_bmm(a, b, out_dtype))
LINEAR = _product("linear", lambda x, weight, bias=None: _bound("linear", x, weight, bias, transpose_b=True),
                  "x @ weight.T + bias with weight of shape (out_features, in_features); x of any rank.",
                  decompose=lambda x, weight, bias=None: _nd_product("linear", x, weight, bias, transpose_b=True))
ADDMM = _product("addmm", _addmm_signature, "beta * input + alpha * (mat1 @ mat2); a 1-D input with "
                 "beta = alpha = 1 is the product's bias.", decompose=_addmm_composite)
_PRODUCTS = {op.name: op for op in (MATMUL, BMM, LINEAR, ADDMM)}
_VIEW = {op.name: op for op in _VIEWS}


def _matmul(op: str, a, b, bias=None, transpose_a=False, transpose_b=False, out_dtype=None):
    """The product ``op`` (matmul, bmm, linear or addmm) with every option spelled out; int32
    operands go through int8 digits (``INT32_PRODUCT``)."""
    operands, attrs = _bound(op, a, b, bias, transpose_a, transpose_b, out_dtype)
    if operands[0].dtype is dt.int32 and operands[1].dtype is dt.int32:
        _PRODUCTS[op].types(operands, attrs)          # the shape and bias checks, named after op
        return INT32_PRODUCT(*operands[:2], operands[2], transpose_a=transpose_a, transpose_b=transpose_b)
    return _PRODUCTS[op].apply(operands, attrs)


# ------------------------------------------------------------------------------------- int32 products
# The cube multiplies int8 x int8 into int32 (Mmad's data type table; there is no int32 x int32).
# An int32 matrix is the sum of four int8 matrices of balanced base-256 digits, X = sum 256^i X_i
# with X_i in [-128, 127] (the top digit taken modulo 256: products are modulo 2**32 anyway, as
# PyTorch's int32 products wrap around), so A @ B = sum over i + j <= 3 of 256^(i+j) A_i @ B_j:
# ten int8 products accumulated in int32 on the cube, combined with int32 vector arithmetic.


def _next_digit(x):
    """``(d, rest)`` with ``x = d + 256 * rest`` (modulo 2**32) and ``d`` in [-128, 127]: ``d`` is the low
    byte ``x & 255`` less 256 when it is 128 or more (``(low + 128) & 256``), and ``x - d`` is a multiple
    of 256 below 2**31 in magnitude, so float32 holds it and its quotient by 256 exactly."""
    low = AND(x, 255)
    d = SUB(low, AND(ADD(low, 128), 256))
    rest = CAST(DIV(CAST(SUB(x, d), dtype=dt.float32), 256.0), dtype=dt.int32)
    return d, rest


def _int8_digits(x, dtype=dt.int8) -> list:
    """The four balanced base-256 digits of int32 ``x`` (as ``dtype``, which holds them exactly)."""
    digits = []
    for _ in range(3):
        d, x = _next_digit(x)
        digits.append(CAST(d, dtype=dtype))
    d, _ = _next_digit(x)          # the top digit: x modulo 256
    digits.append(CAST(d, dtype=dtype))
    return digits


def _int32_product(a, b, bias, transpose_a=False, transpose_b=False):
    """``op(a) @ op(b) + bias`` of int32 operands, exact modulo 2**32 (see above)."""
    da, db = _int8_digits(a), _int8_digits(b)
    out = None
    for s in (3, 2, 1, 0):           # Horner: ((P3 * 256 + P2) * 256 + P1) * 256 + P0
        p = None
        for i in range(s + 1):
            term = _PRODUCTS["matmul"].apply(*_bound("matmul", da[i], db[s - i], None, transpose_a, transpose_b))
            p = term if p is None else ADD(p, term)
        out = p if out is None else ADD(MUL(out, 256), p)
    return out if bias is None else ADD(out, bias)


def _int32_signature(a, b, bias=None, transpose_a=False, transpose_b=False):
    return [a, b, bias], {"transpose_a": transpose_a, "transpose_b": transpose_b}


INT32_PRODUCT = fused_op("int32_matmul", _int32_product, _int32_signature, kind=MATRIX, method=False,
                         function=False)


# ------------------------------------------------------------------------------------- convolution

def _pair(op: str, name: str, v) -> tuple[int, int]:
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return int(v), int(v)
    if isinstance(v, tuple | list) and len(v) == 2 and all(isinstance(x, numbers.Integral) for x in v):
        return int(v[0]), int(v[1])
    raise PyascError(op, f"{name} must be an int or a pair of ints, got {describe(v)}")


def _conv2d_signature(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    op = "conv2d"
    x, w = tensor_operand(op, input), tensor_operand(op, weight)
    stride, padding, dilation = _pair(op, "stride", stride), _pair(op, "padding", padding), \
        _pair(op, "dilation", dilation)
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups < 1:
        raise PyascError(op, f"groups must be a positive int, got {describe(groups)}")
    if min(stride) < 1 or min(dilation) < 1 or min(padding) < 0:
        raise PyascError(op, f"stride {stride} and dilation {dilation} must be >= 1, padding {padding} >= 0")
    bias = None if bias is None else tensor_operand(op, bias)
    x, w, bias = _autocast(op, [x, w, bias])
    return [x, w, bias], {"stride": stride, "padding": padding, "dilation": dilation, "groups": int(groups)}


def _conv2d_infer(operands, attrs) -> Types:
    x, w, bias = operands
    res = _out_dtype("conv2d", [x, w], None, ints=(dt.int8,))
    shapes = [x.shape, w.shape]
    shape = asctensor.conv2d_output_shape(x.shape, w.shape, attrs["stride"], attrs["padding"], attrs["dilation"],
                                          attrs["groups"])
    if isinstance(shape, str):
        raise PyascError("conv2d", shape, shapes=shapes, dtypes=[x.dtype.name, w.dtype.name])
    if bias is not None:
        _check_bias("conv2d", bias, x.dtype, w.shape[0], shapes)
    return Types(None, ((res, shape),))


def _build_conv2d(tr, values, types, attrs):
    vx, vw, vbias = values
    res, shape = types.results[0]
    return asctensor.Conv2dOp(vx, vw, res.tensor_type(shape), _cast_bias(tr, vbias, res), attrs["stride"],
                              attrs["padding"], attrs["dilation"], attrs["groups"])


def _interleave_zeros(g, axis: int, stride: int, keep: int):
    """``g`` with ``stride - 1`` zeros after each element along ``axis`` (2 or 3), cut to ``keep``
    elements: the output gradient of a strided convolution spread over the input grid, a product
    with the 0/1 matrix of the positions."""
    n = g.shape[axis]
    spread = np.zeros((n, keep), np.float32)
    spread[range(n), [i * stride for i in range(n)]] = 1.0
    moved = g.transpose(axis, 3) if axis != 3 else g
    out = moved @ to_pyasc(spread.astype(g.dtype.np_dtype), "conv2d")
    return out.transpose(axis, 3) if axis != 3 else out


def _conv2d_grads(x, w, g, stride, padding, dilation, groups):
    """(dx, dw) of ``y = conv2d(x, w, groups)``. dw correlates the input with the output gradient (a
    convolution of the batch-transposed tensors, the stride and dilation exchanged; with groups the
    blocks of each group's channels of the all-pairs result); dx convolves the output gradient,
    spread over the input grid with zeros between its elements (stride > 1), with the flipped kernel
    whose channels are transposed within each group (a convolution with the same groups)."""
    kernel = tuple(w.shape[2:])
    gw = CONV2D(x.transpose(0, 1), g.transpose(0, 1), None, stride=dilation, padding=padding,
                dilation=stride).transpose(0, 1)
    if tuple(gw.shape[2:]) != kernel:
        gw = gw[:, :, :kernel[0], :kernel[1]]
    cin, cout = x.shape[1] // groups, w.shape[0] // groups
    if groups > 1:
        gw = _VIEW["cat"]([gw[i * cout:(i + 1) * cout, i * cin:(i + 1) * cin] for i in range(groups)], dim=0)
    for axis in (2, 3):
        s = stride[axis - 2]
        if s > 1:  # the rows (columns) of x after the last window get no gradient: kept as zeros
            keep = x.shape[axis] + 2 * padding[axis - 2] - dilation[axis - 2] * (kernel[axis - 2] - 1)
            g = _interleave_zeros(g, axis, s, keep)
    back = tuple(d * (k - 1) - p for d, k, p in zip(dilation, kernel, padding))
    pad = tuple(max(b, 0) for b in back)
    if groups > 1:
        wt = w.reshape(groups, cout, cin, *kernel).transpose(1, 2).reshape(x.shape[1], cout, *kernel)
    else:
        wt = w.transpose(0, 1)
    gx = CONV2D(g, wt[:, :, ::-1, ::-1], None, padding=pad, dilation=dilation, groups=groups)
    if pad != back:  # padding beyond the kernel's reach: the border of the full correlation is cut
        top, left = pad[0] - back[0], pad[1] - back[1]
        gx = gx[:, :, top:top + x.shape[2], left:left + x.shape[3]]
    return gx, gw


def _conv2d_vjp(ctx, g):
    """``y = conv2d(x, w) + bias``: (dx, dw) from ``_conv2d_grads``, dbias sums g."""
    x, w, bias = ctx.inputs
    gx, gw = _conv2d_grads(x, w, g, ctx.attrs["stride"], ctx.attrs["padding"], ctx.attrs["dilation"],
                           ctx.attrs["groups"])
    return gx, gw, (g.sum(dim=(0, 2, 3)) if bias is not None else None)


_EXACT_TERMS = 2 ** 24 // 2 ** 14      # products of digits (< 2**14) float32 sums exactly


def _int32_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """A convolution of int32 operands, exact modulo 2**32 as PyTorch's: like the int32 products,
    the sum over i + j <= 3 of 256^(i+j) conv2d(X_i, W_j) of the base-256 digits, here float32
    convolutions on the cube, exact while each output sums at most ``_EXACT_TERMS`` products of
    digits (more: the sum over slices of the input channels, ``_int32_conv2d_by_channels``);
    NotImplemented for the other dtypes."""
    (x, w, b), attrs = _conv2d_signature(input, weight, bias, stride, padding, dilation, groups)
    if x.dtype is not dt.int32 or w.dtype is not dt.int32:
        return NotImplemented
    shapes = [x.shape, w.shape]
    shape = asctensor.conv2d_output_shape(x.shape, w.shape, attrs["stride"], attrs["padding"], attrs["dilation"],
                                          attrs["groups"])
    if isinstance(shape, str):
        raise PyascError("conv2d", shape, shapes=shapes, dtypes=[x.dtype.name, w.dtype.name])
    if b is not None:
        _check_bias("conv2d", b, x.dtype, w.shape[0], shapes)
    if attrs["dilation"] != (1, 1):
        raise PyascError("conv2d", f"a dilated convolution (dilation {attrs['dilation']}) of int32 tensors is not "
                         "supported (nor is it by PyTorch)", shapes=shapes, dtypes=["int32", "int32"])
    x, w = _traced_alike(x, w), _traced_alike(w, x)
    if w.shape[1] * w.shape[2] * w.shape[3] > _EXACT_TERMS:
        out = _int32_conv2d_by_channels(x, w, attrs)
    else:
        dx, dw = _int8_digits(x, dt.float32), _int8_digits(w, dt.float32)
        out = None
        for s in (3, 2, 1, 0):           # Horner, as in _int32_product
            p = None
            for i in range(s + 1):
                term = CAST(CONV2D(dx[i], dw[s - i], None, **attrs), dtype=dt.int32)
                p = term if p is None else ADD(p, term)
            out = p if out is None else ADD(MUL(out, 256), p)
    return out if b is None else ADD(out, b.reshape(-1, 1, 1))


def _traced_alike(t, other):
    """``t`` as a traced constant when ``other`` is traced and ``t`` is not, so that its digits
    are computed in the kernels rather than folded into constants (the cube takes no splat)."""
    trace = other._trace
    if t._trace is not None or trace is None:
        return t
    return Tensor._traced(trace, trace.constant(t.numpy(), t.dtype), t.dtype, t.shape)


def _int32_conv2d_by_channels(x, w, attrs):
    """An int32 convolution summing more than ``_EXACT_TERMS`` products per output: one group at a
    time, the sum of the convolutions of slices of the input channels."""
    cin, window, groups = w.shape[1], w.shape[2] * w.shape[3], attrs["groups"]
    if groups > 1:
        cout, one = w.shape[0] // groups, dict(attrs, groups=1)
        return _VIEW["cat"]([_int32_conv2d(x[:, g * cin:(g + 1) * cin], w[g * cout:(g + 1) * cout], **one)
                             for g in range(groups)], dim=1)
    step = _EXACT_TERMS // window
    if step == 0:
        raise PyascError("conv2d", f"an int32 kernel window of {window} elements is not supported (at most "
                         f"{_EXACT_TERMS})", shapes=[x.shape, w.shape], dtypes=["int32", "int32"])
    out = None
    for c in range(0, cin, step):
        part = _int32_conv2d(x[:, c:c + step], w[:, c:c + step], **attrs)
        out = part if out is None else ADD(out, part)
    return out


CONV2D = OpDef("conv2d", _build_conv2d, reference_conv2d, signature=_conv2d_signature, infer=_conv2d_infer,
               kind=MATRIX, method=False, vjp=_conv2d_vjp, decompose=_int32_conv2d,
               doc="NCHW 2-D convolution: input (N, C, H, W), weight (OC, C/groups, KH, KW), bias (OC,).")

OPS = [MATMUL, BMM, LINEAR, ADDMM, CONV2D]
