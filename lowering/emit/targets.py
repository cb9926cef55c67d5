"""xDSL targets for ``pyasc-opt -t ascendc`` (kernel source) and ``-t ascendc-host`` (main.cpp)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from .host import host_source
from .kernel import kernel_source


@dataclass(frozen=True)
class AscendCTarget(Target):
    """Every kernel of the module as one Ascend C source file: ``-t 'ascendc{indent=4}'``."""

    name = "ascendc"
    indent: int = 4

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(kernel_source(module, self.indent))


@dataclass(frozen=True)
class AscendCHostTarget(Target):
    """The AscendCL host program (``host/main.cpp``) of the module's host function."""

    name = "ascendc-host"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(host_source(module))
