"""xDSL targets for ``pyasc-opt -t ascendc`` (kernel source), ``-t ascendc-host`` (the host program) and
``-t ascendc-project`` (the CANN project)."""

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
    """The AscendCL host program of the module's host function: ``host/main.asc`` (``build_flow=asc``, the
    default) or ``host/main.cpp`` (``-t 'ascendc-host{build_flow=ascendc_library}'``)."""

    name = "ascendc-host"
    build_flow: str = "asc"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(host_source(module, flow=self.build_flow))


@dataclass(frozen=True)
class AscendCProjectTarget(Target):
    """The whole CANN project written to a folder: ``-t 'ascendc-project{out=DIR force=true}'``.

    Options: ``out`` (the folder, required), ``force`` (overwrite a non-empty folder), ``data``
    (default true: write random inputs to ``input/`` and the simulator's outputs for them to
    ``golden/``), ``seed`` (of the inputs), ``host`` (the host function, when there are several),
    ``build_flow`` (``asc``, the default: find_package(ASC) and ``.asc`` sources; ``ascendc_library``:
    the legacy flow). The list of written files is printed to the output.
    """

    name = "ascendc-project"
    out: str = ""
    force: bool = False
    data: bool = True
    seed: int = 0
    host: str = ""
    build_flow: str = "asc"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from pathlib import Path

        from .common import EmitError
        from .data import simulated_data
        from .project import write_project

        if not self.out:
            raise EmitError("target ascendc-project needs an output folder: -t 'ascendc-project{out=DIR}'")
        host = self.host or None
        inputs = goldens = None
        if self.data:
            inputs, goldens = simulated_data(module, host, seed=self.seed)
        written = write_project(module, self.out, inputs=inputs, goldens=goldens, force=self.force, host=host,
                                flow=self.build_flow)
        root = Path(self.out)
        output.write(f"// wrote {len(written)} files to {root}\n")
        for p in written:
            output.write(f"//   {p.relative_to(root)}\n")
