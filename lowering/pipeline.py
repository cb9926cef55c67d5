"""The pipeline from a traced ``asctensor`` program down to ``ascendc``: the one driver.

The program goes through four stages, one per level; each takes the level before it to its own:

* ``asctensor``: asctensor-autodiff, inline-custom-ops, asctensor-fold-batch-norm, asctensor-decompose, cse, dce,
  asctensor-fuse-matmul, cse (the cube's layout changes of one operand, made once), asctensor-sink-transposes,
  asctensor-hoist-constants (after the cube's weight layouts), asctensor-fuse, asctensor-merge-kernels,
  asctensor-fuse-conv-prologue, asctensor-fuse-conv-weights;
* ``asctile``: tile-movement, tile-elementwise, tile-matmul, tile-mix, tile-im2col, tile-pool, host-to-gm;
* ``ascbuf``: bufferize, bufferize-cube, plan-memory, insert-sync;
* ``ascendc``: convert-ascbuf-to-ascendc, ascendc-alloc-event-ids, ascendc-merge-launches (unless
  ``launches="separate"``).

The functions of constants ``asctensor-hoist-constants`` makes leave the module before the
``asctile`` stage: the caller evaluates them on the host (``pyasc.jit`` does, once per set of
weights: ``const_eval.take_constants``). A compile with no such caller (``pyasc-opt -p compile``,
``CompileOptions.hoist_constants`` false) does not hoist, and one left at that stage is an error.

``run_stage(module, level, options, ctx)`` runs one stage in place; ``passes_to(level, options)`` lists
the passes from a traced program to ``level``. ``pyasc.jit``, ``pyasc-opt -p compile`` (and
``to-tile``, ``to-buf``, ``to-ascendc``: ``stages.py``) and the ``pyasc`` CLI all run these stages.
``make_context()`` is the context with every upstream and pyasc dialect.

Limits: a compilation stops with a ``CompileError`` once it has run longer than
``LIMITS.seconds`` (checked between passes) or the program has more than ``LIMITS.ops`` operations;
set them with ``set_compile_limits`` or ``PYASC_COMPILE_SECONDS`` / ``PYASC_COMPILE_MAX_OPS``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from pyasc.dialects import make_context
from pyasc.dialects.target import DEFAULT_TARGET

from .const_eval import refuse_constants_functions
from .errors import CompileError
from .levels import apply_pass
from .options import SYNC_STYLES, OptionError, check_option

__all__ = ["LEVELS", "LIMITS", "SYNC_STYLES", "CompileBudget", "CompileOptions", "make_context", "passes_to",
           "run_stage", "set_compile_limits", "stage_passes"]

LEVELS = ("asctensor", "asctile", "ascbuf", "ascendc")


USER_OPTIONS = ("target", "cores", "tile_size", "buffers", "sync_style", "conv", "launches")


@dataclass(frozen=True)
class CompileOptions:
    """Codegen decisions a user may override; ``None`` means "derive from the target"."""

    target: str = DEFAULT_TARGET
    cores: int | None = None
    tile_size: int | None = None
    buffers: int = 2
    sync_style: str = "queue"
    conv: str = "auto"  # how convolutions reach the cube (options.CONV_ALGORITHMS)
    launches: str = "merge"  # consecutive vector kernels in one launch (options.LAUNCH_MODES)
    # computations on weights leave the program for a function the caller evaluates once per set of
    # weights (``pyasc.jit`` does); a compile with no such caller (``pyasc-opt -p compile``) keeps them
    hoist_constants: bool = True

    def __post_init__(self):
        """Every option checked by ``options.check_option`` (type and range); ``OptionError`` otherwise."""
        check_option("target", self.target)
        for name in ("cores", "tile_size", "buffers", "sync_style", "conv", "launches"):
            value = getattr(self, name)
            if value is not None or name in ("buffers", "sync_style", "conv", "launches"):
                check_option(name, value, self.target)

    def user_options(self) -> dict:
        """The options a user may give (``from_dict`` takes them back)."""
        return {name: getattr(self, name) for name in USER_OPTIONS}

    @staticmethod
    def from_dict(options: dict | None) -> CompileOptions:
        known = set(USER_OPTIONS)
        options = dict(options or {})
        unknown = set(options) - known
        if unknown:
            raise OptionError(f"unknown compile option(s) {sorted(unknown)}; known options: {sorted(known)}")
        return CompileOptions(**options)


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass
class CompileLimits:
    """How long a compilation may run (seconds) and how many operations the program may have."""

    seconds: float = _env_number("PYASC_COMPILE_SECONDS", 600.0)
    ops: int = int(_env_number("PYASC_COMPILE_MAX_OPS", 2_000_000))


LIMITS = CompileLimits()


def set_compile_limits(seconds: float | None = None, ops: int | None = None) -> None:
    """Change the compile limits of this process (None: keep the current value)."""
    for name, value in (("seconds", seconds), ("ops", ops)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise OptionError(f"compile limit '{name}' must be a positive number; got {value!r}")
        setattr(LIMITS, name, type(getattr(LIMITS, name))(value))


class CompileBudget:
    """The limits of one compilation: its time, checked after every pass, and its operations, counted before and
    after every stage (``run_stage``)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def check_time(self, where: str) -> None:
        seconds = time.perf_counter() - self.start
        if seconds > LIMITS.seconds:
            raise CompileError(f"compilation stopped {where}: it ran {seconds:.1f} s, more than the limit of "
                               f"{LIMITS.seconds:g} s (set_compile_limits / PYASC_COMPILE_SECONDS)")

    def check(self, module: ModuleOp, where: str) -> None:
        self.check_time(where)
        n = 0
        for _ in module.walk():
            n += 1
            if n > LIMITS.ops:
                raise CompileError(f"compilation stopped {where}: the program has more than {LIMITS.ops} "
                                   "operations, the limit (set_compile_limits / PYASC_COMPILE_MAX_OPS)")


def stage_passes(level: str, options: CompileOptions) -> list[ModulePass]:
    """The passes that take the previous level to ``level``."""
    if level == "asctensor":
        from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
        from xdsl.transforms.dead_code_elimination import DeadCodeElimination

        from .asctensor_autodiff import AscTensorAutodiffPass
        from .asctensor_conv_prologue import AscTensorFuseConvProloguePass
        from .asctensor_conv_weights import AscTensorFuseConvWeightsPass
        from .asctensor_decompose import AscTensorDecomposePass
        from .asctensor_fold_batch_norm import AscTensorFoldBatchNormPass
        from .asctensor_fuse import AscTensorFusePass
        from .asctensor_fuse_matmul import AscTensorFuseMatmulPass
        from .asctensor_hoist_constants import AscTensorHoistConstantsPass
        from .asctensor_merge_kernels import AscTensorMergeKernelsPass
        from .asctensor_sink_transposes import AscTensorSinkTransposesPass
        from .inline_custom_ops import InlineCustomOpsPass

        hoist = [AscTensorHoistConstantsPass()] if options.hoist_constants else []
        return [AscTensorAutodiffPass(), InlineCustomOpsPass(), AscTensorFoldBatchNormPass(), AscTensorDecomposePass(),
                CommonSubexpressionElimination(), DeadCodeElimination(), AscTensorFuseMatmulPass(conv=options.conv),
                CommonSubexpressionElimination(), AscTensorSinkTransposesPass(),
                *hoist, AscTensorFusePass(), AscTensorMergeKernelsPass(), AscTensorFuseConvProloguePass(),
                AscTensorFuseConvWeightsPass()]
    if level == "asctile":
        from .host_to_gm import HostToGmPass
        from .tile_conv_prologue import TileConvProloguePass
        from .tile_elementwise import TileElementwisePass
        from .tile_im2col import TileIm2colPass
        from .tile_matmul import TileMatmulPass
        from .tile_mix import TileMixPass
        from .tile_movement import TileMovementPass
        from .tile_pool import TilePoolPass

        return [TileMovementPass(target=options.target, cores=options.cores or 0, buffers=options.buffers),
                TileElementwisePass(target=options.target, cores=options.cores or 0,
                                    tile_size=options.tile_size or 0, buffers=options.buffers),
                TileMatmulPass(target=options.target), TileMixPass(target=options.target),
                TileConvProloguePass(target=options.target),
                TileIm2colPass(target=options.target), TilePoolPass(target=options.target), HostToGmPass()]
    if level == "ascbuf":
        from .bufferize import BufferizePass
        from .bufferize_cube import BufferizeCubePass
        from .insert_sync import InsertSyncPass
        from .plan_memory import PlanMemoryPass

        return [BufferizePass(), BufferizeCubePass(), PlanMemoryPass(), InsertSyncPass(sync_style=options.sync_style)]
    if level == "ascendc":
        from .ascendc_alloc_event_ids import AscendCAllocEventIdsPass
        from .ascendc_merge_launches import AscendCMergeLaunchesPass
        from .to_ascendc import ToAscendCPass

        merge = [AscendCMergeLaunchesPass()] if options.launches == "merge" else []
        return [ToAscendCPass(sync_style=options.sync_style), AscendCAllocEventIdsPass(), *merge]
    raise ValueError(f"unknown level '{level}'; levels: {', '.join(LEVELS)}")


def passes_to(level: str, options: CompileOptions) -> list[ModulePass]:
    """The passes that take a traced ``asctensor`` module to ``level``."""
    if level not in LEVELS:
        raise ValueError(f"unknown level '{level}'; levels: {', '.join(LEVELS)}")
    return [p for stage in LEVELS[: LEVELS.index(level) + 1] for p in stage_passes(stage, options)]


def run_stage(module: ModuleOp, level: str, options: CompileOptions | None = None,
              ctx: Context | None = None, budget: CompileBudget | None = None) -> ModuleOp:
    """Run the stage that takes ``module`` (at the level before ``level``) to ``level``, in place;
    returns ``module``. ``budget``: the limits of the whole compilation (default: of this stage)."""
    options = options or CompileOptions()
    ctx = ctx or make_context()
    budget = budget or CompileBudget()
    budget.check(module, f"before the {level} stage")
    if level == "asctile":      # the caller evaluates them (``const_eval.take_constants``) before this stage
        refuse_constants_functions(module)
    passes = stage_passes(level, options)
    for i, p in enumerate(passes):
        # a stage's first pass checks the stage's input level; each later one takes what the one before made
        apply_pass(p, ctx, module, check_level=i == 0)
        if i + 1 < len(passes):
            budget.check_time(f"after pass {p.name}")
        else:
            budget.check(module, f"after pass {p.name}")
    return module
