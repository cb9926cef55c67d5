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
