"""The user-facing compile options and the values each may take: one table, checked in one place.

``check_option(name, value, target)`` raises ``OptionError`` naming the option, the value given and
the allowed range; ``CompileOptions`` and every pass with a field of the same name (``pyasc-opt -p
'compile{cores=4}'``) are checked with it. ``bool`` is not an integer option and floats are refused,
even integral ones: ``cores=1.5`` or ``cores=True`` is an error, never 1 core.
"""

from __future__ import annotations

from pyasc.dialects.discardable import MAX_BLOCK_DIM, MAX_BUFFERS
from pyasc.dialects.target import PRESETS

from .errors import CompileError

SYNC_STYLES = ("queue", "flags")
# the CMake flow of an emitted CANN project: the devkit's current one (find_package(ASC), .asc sources,
# CANN >= 9.0.0) or the legacy ascendc_library one of CANN's ascendc_kernel_cmake (older CANN)
BUILD_FLOWS = ("asc", "ascendc_library")
# how a convolution reaches the cube: implicit GEMM (Load3Dv2) where it qualifies and is estimated faster
# ("auto"), wherever it qualifies, or always im2col (lowering/analysis/conv.py)
CONV_ALGORITHMS = ("auto", "implicit_gemm", "im2col")
# consecutive launches of vector kernels: one launch whose cores meet at SyncAll, or each on its own
# (lowering/ascendc_merge_launches.py)
LAUNCH_MODES = ("merge", "separate")


class OptionError(CompileError):
    """A compile option of the wrong type or outside its range."""


def _ub_bytes(target: str | None) -> int:
    spec = PRESETS.get(target or "")
    return spec.ub_bytes if spec is not None else max(s.ub_bytes for s in PRESETS.values())


# name -> (kind, allowed values or (low, high) with high a function of the target)
OPTIONS = {
    "target": ("choice", lambda target: tuple(PRESETS)),
    "cores": ("int", lambda target: (1, MAX_BLOCK_DIM)),
    "tile_size": ("int", lambda target: (1, _ub_bytes(target))),
    "buffers": ("int", lambda target: (1, MAX_BUFFERS)),
    "sync_style": ("choice", lambda target: SYNC_STYLES),
    "build_flow": ("choice", lambda target: BUILD_FLOWS),
    "conv": ("choice", lambda target: CONV_ALGORITHMS),
    "launches": ("choice", lambda target: LAUNCH_MODES),
}


def check_option(name: str, value, target: str | None = None) -> None:
    """Raise ``OptionError`` unless ``value`` is a valid value of option ``name`` (see ``OPTIONS``)."""
    kind, allowed = OPTIONS[name]
    allowed = allowed(target)
    if kind == "choice":
        if not isinstance(value, str) or value not in allowed:
            unknown = f"unknown target {value!r}; " if name == "target" else ""
            raise OptionError(f"{unknown}option '{name}' must be one of {', '.join(allowed)}; got {value!r}")
        return
    low, high = allowed
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"option '{name}' must be an integer in {low}..{high}; got {value!r} "
                          f"({type(value).__name__})")
    if not low <= value <= high:
        raise OptionError(f"option '{name}' must be an integer in {low}..{high}; got {value}")


def check_pass_options(p) -> None:
    """Check the fields of pass ``p`` named like a compile option (0 for cores and tile_size: derive
    from the target)."""
    target = getattr(p, "target", None)
    for name in OPTIONS:
        if not hasattr(p, name):
            continue
        value = getattr(p, name)
        if name in ("cores", "tile_size") and value == 0 and not isinstance(value, bool) and isinstance(value, int):
            continue
        check_option(name, value, target if name != "target" else None)


def check_argnums(pass_name: str, option: str, positions, count: int) -> None:
    """Raise ``OptionError`` unless ``positions`` are distinct argument positions of a function of
    ``count`` arguments (0..count-1)."""
    positions = tuple(positions)
    for p in positions:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < count:
            raise OptionError(f"{pass_name}: option '{option}' must list argument positions in 0..{count - 1}; "
                              f"got {p!r}")
    if len(set(positions)) != len(positions):
        raise OptionError(f"{pass_name}: option '{option}' names an argument twice: {list(positions)}")
