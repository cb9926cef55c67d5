"""Emitters: ``ascendc``-level modules as Ascend C kernels, an AscendCL host program and a CANN project.

- :mod:`.kernel`: kernel source (one Ascend C call per ``ascendc`` op, which prints itself);
- :mod:`.host`: ``host/main.cpp`` and the tiling header;
- :mod:`.project`: :func:`write_project`, the whole CMake project with data files;
- :mod:`.syntax`: :func:`syntax_check` with ``g++ -fsyntax-only`` against the stubs in ``include/``;
- :mod:`.targets`: the ``-t ascendc``, ``-t ascendc-host`` and ``-t ascendc-project{out=DIR}`` targets;
- :mod:`.cpu`: CPU mode, :func:`cpu_run` builds a project with g++ and runs it on the host;
- :mod:`.data`: random inputs and the simulator's goldens for a project.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.utils.target import Target


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Lazy factories of the emitter targets, keyed by ``-t`` name."""

    def get_ascendc():
        from .targets import AscendCTarget

        return AscendCTarget

    def get_ascendc_host():
        from .targets import AscendCHostTarget

        return AscendCHostTarget

    def get_ascendc_project():
        from .targets import AscendCProjectTarget

        return AscendCProjectTarget

    return {"ascendc": get_ascendc, "ascendc-host": get_ascendc_host, "ascendc-project": get_ascendc_project}


def __getattr__(name: str):
    # convenience re-exports, imported on first use so that importing the package stays cheap
    exports = {
        "EmitError": ".common",
        "kernel_source": ".kernel",
        "kernel_files": ".kernel",
        "emit_kernel": ".kernel",
        "host_source": ".host",
        "host_plan": ".host",
        "tiling_header": ".host",
        "write_project": ".project",
        "syntax_check": ".syntax",
        "check_project": ".syntax",
        "cpu_run": ".cpu",
        "CpuRunError": ".cpu",
    }
    if name in exports:
        import importlib

        return getattr(importlib.import_module(exports[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["get_all_targets", "EmitError", "kernel_source", "kernel_files", "emit_kernel", "host_source",
           "host_plan", "tiling_header", "write_project", "syntax_check", "check_project", "cpu_run", "CpuRunError"]
