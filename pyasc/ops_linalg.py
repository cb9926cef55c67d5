"""Matrix products and convolution of the tensor API (PyTorch semantics), on the cube.

``matmul(a, b)`` (also ``a @ b``; 2-D, or 3-D batched with a 2-D operand shared by every batch),
``bmm(a, b)``, ``linear(x, weight, bias)`` (``x @ weight.T + bias``), ``addmm(input, mat1, mat2,
beta=1, alpha=1)`` and ``conv2d(input, weight, bias, stride, padding, dilation, groups)`` (NCHW).
float16/bfloat16/float32 inputs accumulate in float32 and give the input dtype (``out_dtype`` picks
float16, bfloat16 or float32); int8 inputs accumulate and give int32. Inside ``pyasc.jit`` each call
emits its ``asctensor`` op; eagerly it runs a cached one-op program on the simulator
(``pyasc.set_eager_backend("reference")`` runs the NumPy oracle, ``reference_*`` here).
"""

from __future__ import annotations

import numbers

import numpy as np

from pyasc.dialects import asctensor

from . import dtypes as dt
from .errors import PyascError, describe, user_location

_EAGER: dict = {}
_FLOATS = ("float16", "bfloat16", "float32")


def _tensor(op: str, x):
    from .dispatch import _normalise_operand
    from .tensor import Tensor

    x = _normalise_operand(op, x)
    if not isinstance(x, Tensor):
        raise PyascError(op, f"expected a tensor, got {describe(x)}")
    return x


def _out_dtype(op: str, tensors, out_dtype) -> dt.DType:
    a = tensors[0]
    names = [t.dtype.name for t in tensors]
    if len(set(names)) != 1:
        raise PyascError(op, f"operands must have one dtype, got {', '.join(names)} (convert with .to())",
                         shapes=[t.shape for t in tensors], dtypes=names)
    if a.dtype.name == "int8":
        res = dt.int32
    elif a.dtype.name in _FLOATS:
        res = a.dtype
    else:
        raise PyascError(op, f"does not support dtype {a.dtype.name} (supported: float16, bfloat16, float32, int8)",
                         shapes=[t.shape for t in tensors], dtypes=names)
    if out_dtype is not None:
        want = dt.get_dtype(out_dtype)
        allowed = ("int32",) if a.dtype.name == "int8" else _FLOATS
        if want.name not in allowed:
            raise PyascError(op, f"out_dtype {want.name} is not produced from {a.dtype.name} inputs "
                             f"(choose {', '.join(allowed)})", dtypes=names)
        res = want
    return res


def _bias_dtype(op: str, bias, inputs_dtype, res: dt.DType, n: int, shapes):
    if bias.ndim != 1 or bias.shape[0] != n:
        raise PyascError(op, f"bias of shape {bias.shape} does not match the {n} output features (expected ({n},))",
                         shapes=[*shapes, bias.shape])
    if inputs_dtype.name == "int8" and bias.dtype.name != "int32":
        raise PyascError(op, f"an int8 product takes an int32 bias, got {bias.dtype.name}",
                         shapes=[*shapes, bias.shape], dtypes=["int8", bias.dtype.name])
    if inputs_dtype.name != "int8" and bias.dtype.name not in _FLOATS:
        raise PyascError(op, f"a floating-point product takes a floating-point bias, got {bias.dtype.name}",
                         shapes=[*shapes, bias.shape], dtypes=[inputs_dtype.name, bias.dtype.name])


def _run(op: str, tensors: list, build, out_dtype: dt.DType, out_shape, key, reference):
    """Trace ``build(trace, *values)`` into the tensors' trace, or run the op eagerly."""
    from .eager import get_eager_backend
    from .tensor import Tensor

    traces = {id(t._trace): t._trace for t in tensors if t is not None and t._trace is not None}
    if len(traces) > 1:
        raise PyascError(op, "operands come from different traced functions")
    if traces:
        (trace,) = traces.values()
        with trace.at(user_location()):
            values = [None if t is None else (t._value if t._trace is not None else trace.constant(t._data, t.dtype))
                      for t in tensors]
            out = build(trace, *values)
        return Tensor._traced(trace, out, out_dtype, tuple(out_shape))
    if get_eager_backend() == "reference":
        arrays = [None if t is None else t.numpy() for t in tensors]
        return Tensor(np.asarray(reference(*arrays)).astype(out_dtype.np_dtype), out_dtype)
    from .jit import jit

    present = tuple(t is not None for t in tensors)
    cache_key = (op, key, present)
    fn = _EAGER.get(cache_key)
    if fn is None:
        call = _CALLS[op]

        def one_op(*ts):
            it = iter(ts)
            return call(*[next(it) if p else None for p in present], _key=key)

        one_op.__name__ = f"eager_{op}"
        fn = _EAGER[cache_key] = jit(one_op)
    return fn(*[t for t in tensors if t is not None])


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


# ------------------------------------------------------------------------------------- the ops


def _matmul(op: str, a, b, bias=None, transpose_a=False, transpose_b=False, out_dtype=None, _key=None):
    a, b = _tensor(op, a), _tensor(op, b)
    res = _out_dtype(op, [a, b], out_dtype)
    shapes = [a.shape, b.shape]
    dims = asctensor.matmul_shapes(a.shape, b.shape, transpose_a, transpose_b)
    if isinstance(dims, str):
        raise PyascError(op, dims, shapes=shapes, dtypes=[a.dtype.name, b.dtype.name])
    batch, m, _, n = dims
    if bias is not None:
        bias = _tensor(op, bias)
        _bias_dtype(op, bias, a.dtype, res, n, shapes)
    out_shape = (*batch, m, n)

    def build(trace, va, vb, vbias=None):
        if vbias is not None and bias.dtype is not res:
            vbias = trace.cast(vbias, res if res.name != "int32" else dt.int32)
        return trace.emit(asctensor.MatmulOp(va, vb, res.tensor_type(out_shape), vbias, transpose_a,
                                             transpose_b)).results[0]

    def ref(x, y, z=None):
        return reference_matmul(x, y, z, transpose_a, transpose_b)

    key = (a.shape, a.dtype.name, b.shape, bias.dtype.name if bias is not None else None, transpose_a,
           transpose_b, res.name)
    return _run(op, [a, b, bias], build, res, out_shape, key, ref)


def matmul(a, b, out_dtype=None):
    """``a @ b``: 2-D, or batched (3-D; a 2-D operand is shared by every batch)."""
    return _matmul("matmul", a, b, out_dtype=out_dtype)


def bmm(a, b, out_dtype=None):
    """Batched ``a @ b`` of two 3-D tensors (B, M, K) x (B, K, N)."""
    a, b = _tensor("bmm", a), _tensor("bmm", b)
    if a.ndim != 3 or b.ndim != 3:
        raise PyascError("bmm", f"expects two 3-D tensors, got {a.shape} and {b.shape}", shapes=[a.shape, b.shape])
    return _matmul("bmm", a, b, out_dtype=out_dtype)


def linear(x, weight, bias=None):
    """``x @ weight.T + bias`` with ``weight`` of shape (out_features, in_features)."""
    return _matmul("linear", x, weight, bias, transpose_b=True)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002 - PyTorch's name
    """``beta * input + alpha * (mat1 @ mat2)``; a 1-D ``input`` with beta = alpha = 1 is the matmul's bias."""
    from .dispatch import apply

    input = _tensor("addmm", input)
    mat1, mat2 = _tensor("addmm", mat1), _tensor("addmm", mat2)
    if input.ndim == 1 and beta == 1 and alpha == 1 and input.dtype.name in (_FLOATS + ("int32",)):
        return _matmul("addmm", mat1, mat2, input)
    prod = _matmul("addmm", mat1, mat2)
    if alpha != 1:
        prod = apply("mul", prod, alpha)
    scaled = input if beta == 1 else apply("mul", input, beta)
    return apply("add", scaled, prod)


def _pair(op: str, name: str, v) -> tuple[int, int]:
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return int(v), int(v)
    if isinstance(v, tuple | list) and len(v) == 2 and all(isinstance(x, numbers.Integral) for x in v):
        return int(v[0]), int(v[1])
    raise PyascError(op, f"{name} must be an int or a pair of ints, got {describe(v)}")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, _key=None):  # noqa: A002
    """NCHW 2-D convolution: ``input`` (N, C, H, W), ``weight`` (OC, C/groups, KH, KW), ``bias`` (OC,)."""
    op = "conv2d"
    x, w = _tensor(op, input), _tensor(op, weight)
    stride, padding, dilation = _pair(op, "stride", stride), _pair(op, "padding", padding), \
        _pair(op, "dilation", dilation)
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups < 1:
        raise PyascError(op, f"groups must be a positive int, got {describe(groups)}")
    if min(stride) < 1 or min(dilation) < 1 or min(padding) < 0:
        raise PyascError(op, f"stride {stride} and dilation {dilation} must be >= 1, padding {padding} >= 0")
    res = _out_dtype(op, [x, w], None)
    shapes = [x.shape, w.shape]
    shape = asctensor.conv2d_output_shape(x.shape, w.shape, stride, padding, dilation, int(groups))
    if isinstance(shape, str):
        raise PyascError(op, shape, shapes=shapes, dtypes=[x.dtype.name, w.dtype.name])
    if bias is not None:
        bias = _tensor(op, bias)
        _bias_dtype(op, bias, x.dtype, res, w.shape[0], shapes)

    def build(trace, vx, vw, vbias=None):
        if vbias is not None and bias.dtype is not res:
            vbias = trace.cast(vbias, res)
        return trace.emit(asctensor.Conv2dOp(vx, vw, res.tensor_type(shape), vbias, stride, padding, dilation,
                                             int(groups))).results[0]

    def ref(a, b, c=None):
        return reference_conv2d(a, b, c, stride, padding, dilation, int(groups))

    key = (x.shape, x.dtype.name, w.shape, bias.dtype.name if bias is not None else None, stride, padding,
           dilation, int(groups))
    return _run(op, [x, w, bias], build, res, shape, key, ref)


def _conv_call(x, w, bias=None, _key=None):
    _, _, _, _, stride, padding, dilation, groups = _key
    return conv2d(x, w, bias, stride, padding, dilation, groups)


def _matmul_call(name):
    def call(a, b, bias=None, _key=None):
        _, _, _, _, ta, tb, res = _key
        return _matmul(name, a, b, bias, ta, tb, res)
    return call


_CALLS = {"matmul": _matmul_call("matmul"), "bmm": _matmul_call("bmm"), "linear": _matmul_call("linear"),
          "addmm": _matmul_call("addmm"), "conv2d": _conv_call}
