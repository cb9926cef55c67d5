"""pyasc: a PyTorch-like tensor API for Huawei Ascend NPUs, compiled by a multi-level xDSL
compiler and run on a cycle-approximate simulator.

::

    import pyasc
    x = pyasc.randn(4096, 1024, dtype=pyasc.float16)

    @pyasc.jit
    def f(x, y):
        return pyasc.gelu(x * y + 1.5)
"""

from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import (
    DType,
    bfloat16,
    float16,
    float32,
    get_dtype,
    int32,
    promote_types,
    result_type,
    tolerance,
)
from .eager import get_eager_backend, set_eager_backend
from .errors import PyascError
from .functional import (
    abs,
    add,
    cast,
    div,
    erf,
    exp,
    gelu,
    log,
    maximum,
    minimum,
    mul,
    neg,
    pow,
    relu,
    rsqrt,
    sigmoid,
    sqrt,
    sub,
    tanh,
)
from .jit import Compiled, JitFunction, Lowered, jit
from .ops import OPS, reference
from .tensor import Tensor
# the tensor API: storage dtypes, formats, devices, views, comparisons, composites
from . import ops_compare as _ops_compare  # noqa: F401,E402 - registers comparisons into OPS
from . import amp  # noqa: E402
from .amp import precision_scope  # noqa: E402
from .composite import (  # noqa: E402
    batch_norm, clamp, clip, dropout, eq, ge, gt, isfinite, isinf, isnan, le, leaky_relu, logical_and,
    logical_not, logical_or, logical_xor, lt, ne, norm, where,
)
from .creation import array  # noqa: E402
from .custom import CUSTOM_OPS, get_custom_op, register_op  # noqa: E402
from .device import (  # noqa: E402
    Device, copy_to_device, current_device, device, get_device_count, get_target, set_device, set_target,
)
from .dtypes import bool_, int8  # noqa: E402
from .formats import FRACTAL_NZ, NCHW, ND, NHWC, Format  # noqa: E402
from .interop import to_numpy  # noqa: E402
from .views import (  # noqa: E402
    cat, chunk, concat, flatten, permute, reshape, split, squeeze, stack, topk, transpose, unsqueeze,
)

__version__ = "0.1.0"

float = float32  # noqa: A001 - PyTorch aliases
half = float16
int = int32  # noqa: A001

__all__ = [
    "__version__", "Tensor", "DType", "PyascError", "Compiled", "JitFunction", "Lowered", "OPS",
    "float32", "float16", "bfloat16", "int32", "float", "half", "int",
    "get_dtype", "promote_types", "result_type", "tolerance",
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "eye", "rand", "randn",
    "arange", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
    "manual_seed",
    "add", "sub", "mul", "div", "pow", "neg", "maximum", "minimum", "exp", "log", "sqrt", "rsqrt",
    "abs", "tanh", "erf", "relu", "sigmoid", "gelu", "cast",
    "jit", "reference", "set_eager_backend", "get_eager_backend",
]
from .runtime_api import (  # noqa: E402 - streams, events, device memory, profiler
    Event, Stream, current_stream, default_stream, empty_cache, memory_stats, profiler, reset_peak_memory_stats,
    stream, synchronize,
)
__all__ += ["Stream", "Event", "stream", "current_stream", "default_stream", "synchronize", "memory_stats",
            "reset_peak_memory_stats", "empty_cache", "profiler"]
bool = bool_  # noqa: A001 - pyasc.bool, as torch.bool
__all__ += [
    "int8", "bool", "Format", "ND", "NCHW", "NHWC", "FRACTAL_NZ", "array", "to_numpy",
    "Device", "device", "set_device", "current_device", "get_device_count", "copy_to_device",
    "set_target", "get_target", "amp", "precision_scope", "register_op", "get_custom_op", "CUSTOM_OPS",
    "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "logical_not", "logical_and",
    "logical_or", "logical_xor", "where", "clamp", "clip", "leaky_relu", "norm", "dropout", "batch_norm",
    "cat", "concat", "stack", "split", "chunk", "topk", "reshape", "flatten", "squeeze", "unsqueeze",
    "transpose", "permute",
]
from .ops_reduce import (  # noqa: E402 - reductions and row-wise composites
    amax, amin, argmax, argmin, layer_norm, log_softmax, max, mean, min, prod, rms_norm, softmax, sum,
)
__all__ += ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "softmax", "log_softmax",
            "layer_norm", "rms_norm"]
from .ops_linalg import addmm, bmm, conv2d, linear, matmul  # noqa: E402 - matrix products on the cube
__all__ += ["matmul", "bmm", "linear", "addmm", "conv2d"]
