"""Constants of a program: which values are known before it runs, and their host evaluation.

A parameter of a function marked with ``asctensor.constant`` (``CONSTANT_ATTR``) is a weight: the
caller passes the same value on every run. A value is *constant* when it is such a parameter, a
splat (``asctensor.full``, a splat ``arith.constant``) or the result of an op of ``HOST_EVAL`` on
constants. ``HOST_EVAL`` gives those ops' semantics in NumPy (the same rounding as the device:
one op at a time in its element type); ``asctensor-fold-batch-norm`` builds new weights from
constants and ``asctensor-hoist-constants`` moves them into a function of the constants only,
which ``evaluate`` runs on the host once per set of weights (``take_constants``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from pyasc.dialects import asctensor
from pyasc.dialects.types import numpy_dtype

from .errors import CompileError


def np_type(t) -> np.dtype | None:
    """The NumPy element type of tensor type ``t`` (None when the host has none)."""
    try:
        return numpy_dtype(t.element_type)
    except ValueError:
        return None


def _full(op: asctensor.FullOp, _args):
    t = op.result.type
    return np.full(t.get_shape(), op.scalar, dtype=np_type(t))


def _arith_constant(op: arith.ConstantOp, _args):
    t, attr = op.result.type, op.value
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    values = np.asarray(attr.get_values(), dtype=np_type(t))
    return np.broadcast_to(values, t.get_shape()).copy() if values.size == 1 else values.reshape(t.get_shape())


def _cast(op, args):
    with np.errstate(all="ignore"):     # float to int truncates toward zero, as the device
        return args[0].astype(np_type(op.result.type))


def _slice(op: asctensor.SliceOp, args):
    sizes = op.result.type.get_shape()
    return args[0][tuple(slice(o, o + s) for o, s in zip(op.offset_list, sizes))].copy()


def _im2col(op: asctensor.Im2colOp, args):
    """``result[n, (g, kh, kw, c), (oh, ow)] = x_pad[n, g * C / G + c, oh * sh + kh * dh, ow * sw + kw * dw]``, the
    padding ``pad_value``."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), groups = op.params()
    x = args[0]
    n, c, h, w = x.shape
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    xp = np.full((n, c, h + 2 * ph, w + 2 * pw), op.padding_value(), dtype=x.dtype)
    xp[:, :, ph:ph + h, pw:pw + w] = x
    out = np.empty((n, groups, kh, kw, c // groups, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            window = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
            out[:, :, i, j] = window.reshape(n, groups, c // groups, oh, ow)
    return out.reshape(op.result.type.get_shape())


def _row_gather(op: asctensor.RowGatherOp, args):
    x, table = args
    m, f = x.shape
    h, k = table.shape
    padded = np.zeros((m, op.pitch.value.data), dtype=x.dtype)
    padded[:, :f] = x
    groups = padded.reshape(m // h, -1)
    return groups[:, table.reshape(-1)].reshape(m, k)


def _elementwise(fn: Callable) -> Callable:
    def run(op, args):
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args)).astype(np_type(op.results[0].type))
    return run


def _rsqrt(x):
    return 1 / np.sqrt(x)


# ``asctensor.compare``'s predicates: false on a NaN but for ``ne`` (IEEE), as NumPy's comparisons
_COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
                "ge": np.greater_equal}


def _compare(op, args):
    with np.errstate(all="ignore"):
        return _COMPARISONS[op.pred.value](args[0], args[1])


# op name -> NumPy semantics ``(op, operand arrays) -> result array`` (None: not evaluable)
HOST_EVAL: dict[str, Callable] = {
    "asctensor.full": _full,
    "arith.constant": _arith_constant,
    "asctensor.cast": _cast,
    "asctensor.broadcast": lambda op, a: np.broadcast_to(a[0], op.result.type.get_shape()),   # a view
    "asctensor.reshape": lambda op, a: a[0].reshape(op.result.type.get_shape()),
    "asctensor.transpose": lambda op, a: a[0].transpose(op.perm),
    "asctensor.slice": _slice,
    "asctensor.concat": lambda op, a: np.concatenate(a, axis=op.axis),
    "asctensor.im2col": _im2col,
    "asctensor.row_gather": _row_gather,
    "asctensor.compare": _compare,
    "asctensor.select": lambda op, a: np.where(a[0], a[1], a[2]),
    "arith.addf": _elementwise(np.add), "arith.subf": _elementwise(np.subtract), "arith.mulf": _elementwise(np.multiply),
    "arith.divf": _elementwise(np.divide), "arith.maximumf": _elementwise(np.maximum), "arith.minimumf": _elementwise(np.minimum),
    "arith.negf": _elementwise(np.negative), "arith.addi": _elementwise(np.add), "arith.subi": _elementwise(np.subtract),
    "arith.muli": _elementwise(np.multiply), "math.sqrt": _elementwise(np.sqrt), "math.rsqrt": _elementwise(_rsqrt),
    "math.exp": _elementwise(np.exp), "math.log": _elementwise(np.log), "math.absf": _elementwise(np.abs),
}


def evaluable(op: Operation) -> bool:
    """Whether the host can evaluate ``op`` (its name is in ``HOST_EVAL``, its types have NumPy ones)."""
    return (op.name in HOST_EVAL and len(op.results) == 1
            and all(hasattr(v.type, "element_type") and np_type(v.type) is not None
                    for v in (*op.operands, *op.results)))


def constant_args(fn: func.FuncOp) -> list[BlockArgument]:
    """The parameters of ``fn`` marked ``asctensor.constant``."""
    if fn.arg_attrs is None:
        return []
    return [a for a, attr in zip(fn.body.block.args, fn.arg_attrs.data) if asctensor.CONSTANT_ATTR in attr.data]


def constant_values(fn: func.FuncOp) -> set[SSAValue]:
    """The values of ``fn``'s body known before it runs (see the module docstring)."""
    known: set[SSAValue] = set(constant_args(fn))
    for op in fn.body.block.ops:
        if evaluable(op) and all(v in known for v in op.operands):
            known.add(op.results[0])
    return known


def evaluate(fn: func.FuncOp, args: list[np.ndarray]) -> list[np.ndarray]:
    """Run ``fn`` (ops of ``HOST_EVAL`` only) on the host; the arrays it returns."""
    env: dict[SSAValue, np.ndarray] = dict(zip(fn.body.block.args, args))
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            # (np.ascontiguousarray would make a 0-d array 1-d)
            return [a if a.flags.c_contiguous else a.copy() for a in (env[v] for v in op.arguments)]
        value = HOST_EVAL[op.name](op, [env[v] for v in op.operands]) if evaluable(op) else None
        if value is None:
            raise ValueError(f"{op.name} in @{fn.sym_name.data} cannot be evaluated on the host")
        env[op.results[0]] = value
    raise ValueError(f"@{fn.sym_name.data} has no func.return")


def constants_functions(module: ModuleOp, name: str) -> list[func.FuncOp]:
    """The functions computing constant parameters of ``@name``, in the order they apply."""
    return [op for op in module.ops if isinstance(op, func.FuncOp)
            and op.attributes.get(asctensor.CONSTANTS_OF_ATTR) == StringAttr(name)]


def take_constants(module: ModuleOp, name: str, values: list[np.ndarray]) -> tuple[list[np.ndarray], str]:
    """The constant arguments of ``@name`` once its constants functions ran on ``values`` (the values
    of its parameters marked constant when traced), and the functions' text (a module, "" when there
    are none: what a cached program keeps); the functions leave ``module``."""
    values, fns = list(values), constants_functions(module, name)
    for fn in fns:
        values = evaluate(fn, values)
        fn.detach()
    return values, str(ModuleOp(fns)) if fns else ""


def refuse_constants_functions(module: ModuleOp) -> None:
    """Raise ``CompileError`` when a constants function is left: the device runs none, and a program whose
    constants nobody evaluated would read parameters no caller can give."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and asctensor.CONSTANTS_OF_ATTR in op.attributes:
            owner = op.attributes[asctensor.CONSTANTS_OF_ATTR].data
            raise CompileError(f"@{op.sym_name.data} computes the constants of @{owner}, which pyasc.jit evaluates "
                               "on the host once per set of weights; a compile without that caller runs without "
                               "asctensor-hoist-constants (pyasc-opt -p compile keeps the computations in the program)")
