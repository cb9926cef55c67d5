"""The level each pass takes as input, checked before the pass runs, and how a pass's failure is told.

Every pass class declares ``INPUT_LEVEL``, one of ``INPUT_LEVELS``:

* ``asctensor``: traced, decomposed or fused ``asctensor`` programs (no kernels yet);
* ``tiling``: ``asctensor`` programs being tiled: the tiling passes also see the ``asctile`` kernels
  the tiling passes before them made;
* ``asctile``: tiled kernels (bufferize-cube also sees what bufferize made of the vector kernels);
* ``ascbuf``: bufferized kernels, no ``asctensor`` or ``asctile`` op on tiles left in them;
* ``ascbuf-planned``: the same with every ``ascbuf.alloc`` at a planned offset;
* ``ascendc``: ``ascendc`` kernels only (hand-written or traced by the kernel DSL).

``apply_pass(p, ctx, module)`` (run by ``pyasc-opt`` for every pass, and by ``pipeline.run_stage`` for the
first pass of each stage: the others take what the fixed pipeline made before them) checks the input and
raises ``LevelError`` naming the pass, the first offending op and the level expected; a pass that fails with
anything but a compile error or a diagnostic raises ``InternalPassError`` ("internal error in pass X"): a bug
of the compiler, not of the input.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import DiagnosticException

from pyasc.dialects.discardable import MAX_BUFFERS
from pyasc.dialects.target import module_target

from .errors import CompileError, InternalPassError
from .options import check_pass_options

INPUT_LEVELS = ("asctensor", "tiling", "asctile", "ascbuf", "ascbuf-planned", "ascendc")

# rank of each pyasc dialect in the pipeline (upstream dialects are allowed at every level)
DIALECT_RANK = {"asctensor": 0, "asctile": 1, "ascbuf": 2, "ascendc": 3}

# per input level: (lowest rank an op of a kernel may have, highest rank an op anywhere may have)
RANKS = {"asctensor": (0, 0), "tiling": (0, 1), "asctile": (0, 2), "ascbuf": (2, 2), "ascbuf-planned": (2, 2),
         "ascendc": (3, 3)}

KERNEL_ATTRS = ("asctile.kernel", "asctensor.kernel")
BLOCK_DIM_ATTR = "asctile.block_dim"
BUFFERS_ATTR = "asctile.buffers"


class LevelError(CompileError):
    """A pass given a program that is not at its input level."""


def _describe(op: Operation) -> str:
    if op.regions:
        sym = op.attributes.get("sym_name") or op.properties.get("sym_name")
        return f"{op.name} @{sym.data}" if sym is not None else op.name
    try:
        text = str(op).splitlines()[0]
    except Exception:  # noqa: BLE001 - an op the printer cannot print: its name
        return op.name
    return text if len(text) <= 160 else text[:157] + "..."


def _fail(pass_name: str, level: str, op: Operation, why: str) -> None:
    raise LevelError(f"pass {pass_name} expects its input at the {level} level, but `{_describe(op)}` {why}")


def _on_tensors(op: Operation) -> bool:
    """Whether ``op`` works on tensors (tiles): scalar queries such as ``asctile.block_idx`` stay
    in bufferized kernels."""
    return any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))


def _is_kernel(op: Operation) -> bool:
    return isinstance(op, func.FuncOp) and any(a in op.attributes for a in KERNEL_ATTRS)


def _check_kernel_attrs(pass_name: str, level: str, fn: func.FuncOp) -> None:
    name = fn.sym_name.data
    if "asctile.kernel" not in fn.attributes:
        return
    bd = fn.attributes.get(BLOCK_DIM_ATTR)
    if bd is None:
        _fail(pass_name, level, fn, f"(kernel @{name}) has no {BLOCK_DIM_ATTR} attribute")
    if not isinstance(bd, IntegerAttr) or bd.value.data < 1:
        _fail(pass_name, level, fn, f"(kernel @{name}) has {BLOCK_DIM_ATTR} = {bd}; it must be an integer >= 1")
    buffers = fn.attributes.get(BUFFERS_ATTR)
    if buffers is not None and (not isinstance(buffers, IntegerAttr) or not 1 <= buffers.value.data <= MAX_BUFFERS):
        _fail(pass_name, level, fn, f"(kernel @{name}) has {BUFFERS_ATTR} = {buffers}; it must be an integer "
              f"in 1..{MAX_BUFFERS}")


def _check_calls(pass_name: str, level: str, module: Operation, host: func.FuncOp) -> None:
    """A bufferized host calls kernels of the module only (what becomes a launch)."""
    for op in host.walk():
        if isinstance(op, func.CallOp):
            callee = SymbolTable.lookup_symbol(module, op.callee) if isinstance(module, ModuleOp) else None
            if not isinstance(callee, func.FuncOp) or not _is_kernel(callee):
                _fail(pass_name, level, op, f"calls @{op.callee.root_reference.data}, which is not a kernel "
                      "of the module")


_RANK_OF_OP: dict[str, int | None] = {}


def _rank(op_name: str) -> int | None:
    """The ``DIALECT_RANK`` of an op's dialect (None: an upstream dialect), by op name."""
    rank = _RANK_OF_OP.get(op_name, -1)
    if rank == -1:
        rank = _RANK_OF_OP[op_name] = DIALECT_RANK.get(op_name.split(".", 1)[0])
    return rank


def _functions(op: Operation):
    """The ``func.func`` ops in ``op`` (itself included), not looking inside a function: a function
    lives in a symbol table, never in another function's body."""
    if isinstance(op, func.FuncOp):
        yield op
        return
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from _functions(inner)


def check_input_level(pass_name: str, level: str, module: Operation) -> None:
    """Raise ``LevelError`` unless ``module`` is a valid input of a pass taking ``level``."""
    if level not in RANKS:
        raise ValueError(f"unknown input level '{level}' of pass {pass_name}; levels: {', '.join(INPUT_LEVELS)}")
    low, high = RANKS[level]
    if isinstance(module, ModuleOp):
        try:
            module_target(module)
        except ValueError as e:
            raise LevelError(f"pass {pass_name}: {e}") from None
    for fn in _functions(module):
        kernel = _is_kernel(fn)
        if kernel:
            _check_kernel_attrs(pass_name, level, fn)
        for op in fn.walk():
            rank = _rank(op.name)
            if rank is None:
                continue
            if rank > high:
                _fail(pass_name, level, op, f"is a {op.name.split('.')[0]} op, of a later level")
            # bufferized programs keep scalar queries of the tile level in kernels, and no tensor op at all
            if rank < low and (_on_tensors(op) if kernel else rank == 0):
                _fail(pass_name, level, op, f"is a {op.name.split('.')[0]} op, of an earlier level "
                      f"(in @{fn.sym_name.data}): run the passes before {pass_name} first")
            if level == "ascbuf-planned" and op.name == "ascbuf.alloc" and op.offset is None:
                _fail(pass_name, level, op, "has no planned offset: run plan-memory first")
        if level == "ascbuf-planned" and not kernel:
            _check_calls(pass_name, level, module, fn)
        for attr in fn.attributes:
            rank = DIALECT_RANK.get(attr.split(".", 1)[0])
            if rank is not None and rank > high:
                _fail(pass_name, level, fn, f"has the {attr} attribute, of a later level")


USER_ERRORS = (CompileError, DiagnosticException)


def apply_pass(p, ctx: Context, module: ModuleOp, check_level: bool = True) -> None:
    """Run pass ``p`` on ``module`` after checking its input level (see the module docstring); without
    ``check_level`` the caller vouches for it (a pass of a fixed pipeline after the first)."""
    check_pass_options(p)
    level = getattr(p, "INPUT_LEVEL", None)
    if level is not None and check_level:
        check_input_level(p.name, level, module)
    try:
        p.apply(ctx, module)
    except (InternalPassError, *USER_ERRORS):
        raise
    except RecursionError as e:
        raise CompileError(f"pass {p.name}: the program is nested too deeply ({e})") from None
    except Exception as e:  # noqa: BLE001 - anything else is a bug of the pass, reported as one
        raise InternalPassError(p.name, e) from e
