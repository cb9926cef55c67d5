"""The named pipelines as passes: ``to-tile``, ``to-buf``, ``to-ascendc`` and ``compile``.

Each runs stages of ``pipeline.run_stage`` (what ``pyasc.jit`` runs), so ``pyasc-opt`` can start
and stop anywhere (``-p to-tile``, ``-p to-buf,to-ascendc``); ``compile`` runs them all. The
options are the user-facing codegen decisions of ``CompileOptions``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from pyasc.dialects.target import DEFAULT_TARGET

from .pipeline import LEVELS, CompileBudget, CompileOptions, run_stage


@dataclass(frozen=True)
class _Stage(ModulePass):
    target: str = DEFAULT_TARGET
    cores: int = 0
    tile_size: int = 0
    buffers: int = 2
    sync_style: str = "queue"
    conv: str = "auto"
    launches: str = "merge"

    def options(self) -> CompileOptions:
        return CompileOptions(self.target, self.cores or None, self.tile_size or None, self.buffers,
                              self.sync_style, self.conv, self.launches,
                              hoist_constants=False)  # no caller evaluates the constants

    def levels(self) -> tuple[str, ...]:
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        options = self.options()
        budget = CompileBudget()
        for level in self.levels():
            run_stage(op, level, options, ctx, budget)


@dataclass(frozen=True)
class ToTile(_Stage):
    """asctensor (traced) -> decomposed, fused, tiled asctile kernels."""

    name = "to-tile"
    INPUT_LEVEL = "asctensor"

    def levels(self):
        return ("asctensor", "asctile")


@dataclass(frozen=True)
class ToBuf(_Stage):
    """asctile -> ascbuf: bufferize, plan-memory, insert-sync."""

    name = "to-buf"
    INPUT_LEVEL = "asctile"

    def levels(self):
        return ("ascbuf",)


@dataclass(frozen=True)
class ToAscendC(_Stage):
    """ascbuf -> ascendc."""

    name = "to-ascendc"
    INPUT_LEVEL = "ascbuf-planned"

    def levels(self):
        return ("ascendc",)


@dataclass(frozen=True)
class Compile(_Stage):
    """asctensor (traced) -> ascendc: every stage."""

    name = "compile"
    INPUT_LEVEL = "asctensor"

    def levels(self):
        return LEVELS
