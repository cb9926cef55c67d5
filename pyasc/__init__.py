"""pyasc: a PyTorch-like tensor API for Huawei Ascend NPUs, compiled by a multi-level xDSL
compiler and run on a cycle-approximate simulator.

::

    import pyasc
    x = pyasc.randn(4096, 1024, dtype=pyasc.float16)

    @pyasc.jit
    def f(x, y):
        return pyasc.gelu(x * y + 1.5)

The public names are resolved when first used: importing the compiler (``pyasc.dialects``,
``pyasc.lowering``, ``pyasc.runtime``) loads none of the tensor API. ``pyasc.<op>`` is the op of
the op table (``pyasc.ops.OPS``) of that name.
"""

import functools as _functools
import sys as _sys
import types as _types

__version__ = "0.1.0"

# public name -> (module of the package, its name there); ops come from the op table
_NAMES = {
    "Tensor": ("tensor", "Tensor"),
    "DType": ("dtypes", "DType"), "get_dtype": ("dtypes", "get_dtype"),
    "promote_types": ("dtypes", "promote_types"), "result_type": ("dtypes", "result_type"),
    "tolerance": ("dtypes", "tolerance"),
    "float32": ("dtypes", "float32"), "float16": ("dtypes", "float16"), "bfloat16": ("dtypes", "bfloat16"),
    "int32": ("dtypes", "int32"), "int8": ("dtypes", "int8"), "bool_": ("dtypes", "bool_"),
    # PyTorch's spellings
    "float": ("dtypes", "float32"), "half": ("dtypes", "float16"), "int": ("dtypes", "int32"),
    "bool": ("dtypes", "bool_"),
    "PyascError": ("errors", "PyascError"),
    "Format": ("formats", "Format"), "ND": ("formats", "ND"), "NCHW": ("formats", "NCHW"),
    "NHWC": ("formats", "NHWC"), "FRACTAL_NZ": ("formats", "FRACTAL_NZ"), "FRACTAL_Z": ("formats", "FRACTAL_Z"),
    "cann_version": ("device", "cann_version"),
    "set_debug_level": ("logs", "set_debug_level"), "get_debug_level": ("logs", "get_debug_level"),
    **{n: ("creation", n) for n in (
        "tensor", "as_tensor", "array", "from_numpy", "zeros", "ones", "full", "empty", "eye", "rand", "randn",
        "arange", "linspace", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like", "manual_seed",
        "to_numpy", "copy_to_device")},
    **{n: ("device", n) for n in (
        "Device", "device", "set_device", "current_device", "get_device_count", "set_target", "get_target")},
    "Compiled": ("jit", "Compiled"), "JitFunction": ("jit", "JitFunction"), "Lowered": ("jit", "Lowered"),
    "jit": ("jit", "jit"),
    "autotune": ("autotune", "autotune"),
    "set_eager_backend": ("eager", "set_eager_backend"), "get_eager_backend": ("eager", "get_eager_backend"),
    "OPS": ("ops", "OPS"), "reference": ("ops", "reference"),
    "register_op": ("custom", "register_op"), "get_custom_op": ("custom", "get_custom_op"),
    "CUSTOM_OPS": ("custom", "CUSTOM_OPS"),
    "precision_scope": ("amp", "precision_scope"),
    **{n: ("autograd.functional", n) for n in ("grad", "value_and_grad", "vjp")},
    **{n: ("autograd.tape", n) for n in ("no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled")},
    "mse_loss": ("autograd.losses", "mse_loss"),
    **{n: ("model", n) for n in ("OMModel", "load_model", "shape_inference")},
    **{n: ("runtime_api", n) for n in (
        "Stream", "Event", "stream", "current_stream", "default_stream", "synchronize", "memory_stats",
        "reset_peak_memory_stats", "empty_cache", "profiler", "MemoryPool", "memory_allocator",
        "memory_release", "memory_allocated", "max_memory_allocated", "memory_reserved")},
}
_MODULES = ("amp", "autograd", "optim", "nn")     # public submodules
# functions named like the module that defines them: the package attribute stays the function
_SHADOWED = frozenset({"jit", "tensor", "device", "autotune"})


@_functools.cache
def _op_names() -> frozenset[str]:
    from .ops import ALIASES, OPS

    return frozenset([n for n, op in OPS.items() if op.function] + list(ALIASES))


@_functools.cache
def _submodules() -> frozenset[str]:
    import pkgutil

    return frozenset(m.name for m in pkgutil.iter_modules(__path__))


def __getattr__(name: str):
    import importlib

    if name in _NAMES:
        module, attr = _NAMES[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    elif name in _MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    elif name == "__all__":
        return sorted({"__version__", *_NAMES, *_MODULES, *_op_names()})
    elif name.startswith("_") or name in _submodules():   # ``from . import x`` asks before importing x
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    elif name in _op_names():
        from .ops import get_op

        value = get_op(name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES, *_MODULES, *_op_names()})


class _Package(_types.ModuleType):
    """Keeps ``pyasc.jit``, ``pyasc.tensor``, ``pyasc.device`` and ``pyasc.autotune`` the functions when
    the import system binds the submodules of those names to the package."""

    def __setattr__(self, name: str, value) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)

    def __reduce__(self):
        """Pickled by name, as plain modules are (a function shipped to a worker refers to pyasc)."""
        import importlib

        return importlib.import_module, (self.__name__,)


_sys.modules[__name__].__class__ = _Package
