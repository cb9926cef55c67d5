"""Simulated devices and the compilation target.

pyasc runs on a simulator, so a device is a logical place a tensor lives on: ``npu:0`` ...
``npu:{get_device_count() - 1}`` (eight by default, as on one Atlas 800T A2 server;
``PYASC_DEVICE_COUNT`` changes it). Every tensor remembers its device; an op on tensors of two
devices raises ``PyascError`` as in PyTorch, and ``copy_to_device`` / ``Tensor.to(device)`` move
data. ``with pyasc.device(1):`` makes device 1 the one new tensors are created on.

``set_target(name)`` chooses the chip every ``pyasc.jit`` function without an explicit
``target`` option (and every eager op) compiles for.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

from pyasc.dialects.target import DEFAULT_TARGET, PRESETS

from .environ import getenv
from .errors import PyascError, describe


class Device:
    """A simulated NPU: ``Device(0)``, ``str(d) == "npu:0"``; equal devices are the same object."""

    __slots__ = ("index",)
    type = "npu"
    _instances: dict[int, Device] = {}

    def __new__(cls, index: int = 0):
        d = cls._instances.get(index)
        if d is None:
            d = super().__new__(cls)
            d.index = index
            cls._instances[index] = d
        return d

    def __repr__(self) -> str:
        return f"device(type='npu', index={self.index})"

    def __str__(self) -> str:
        return f"npu:{self.index}"

    def __reduce__(self):
        return (Device, (self.index,))


def get_device_count() -> int:
    """Number of simulated devices (``PYASC_DEVICE_COUNT``, default 8)."""
    try:
        n = int(getenv("PYASC_DEVICE_COUNT", "8"))
    except ValueError:
        n = 8
    return max(1, n)


def as_device(spec, op: str = "device") -> Device:
    """A Device from an index, ``"npu"``, ``"npu:1"``, ``"cpu"`` (pyasc tensors stay on the
    current device), or a Device; PyascError for anything else or an index out of range."""
    if isinstance(spec, Device):
        index = spec.index
    elif isinstance(spec, int) and not isinstance(spec, bool):
        index = spec
    elif isinstance(spec, str) and (m := re.fullmatch(r"\s*(npu|cpu)(?::(\d+))?\s*", spec)):
        index = int(m.group(2)) if m.group(2) else current_device().index
    elif spec is not None and type(spec).__name__ == "device" and hasattr(spec, "index"):  # torch.device
        index = spec.index if spec.index is not None else current_device().index
    else:
        raise PyascError(op, f"expected a device index or 'npu:N', got {describe(spec)}")
    n = get_device_count()
    if not 0 <= index < n:
        raise PyascError(op, f"device index {index} out of range: {n} simulated device(s) "
                         "(set PYASC_DEVICE_COUNT for more)")
    return Device(index)


_current: list[Device] = [Device(0)]


def current_device() -> Device:
    """The device new tensors are created on."""
    return _current[-1]


def set_device(spec) -> None:
    """Make ``spec`` the current device (as ``torch.npu.set_device``)."""
    _current[-1] = as_device(spec, "set_device")


def device(spec):
    """``with pyasc.device(1): ...``: tensors created inside live on device 1."""
    return _use_device(as_device(spec, "device"))   # checked here: errors name the caller's line


@contextmanager
def _use_device(d: Device):
    _current.append(d)
    try:
        yield d
    finally:
        _current.pop()


# ----------------------------------------------------------------------------- target

# The CANN release whose Ascend C API the emitted kernels and AscendCL host programs follow: the
# one the user documentation's environment names (CANN 8.0.RC1, tag v8.0.rc1); the API used
# (TPipe/TQue, DataCopy, the vector and cube intrinsics of Atlas A2) is that release's.
ASCEND_C_API_VERSION = "8.0.RC1"


def cann_version() -> str:
    """The CANN (Ascend C API) version the emitter targets."""
    return ASCEND_C_API_VERSION


_target: list[str] = []


def default_target() -> str:
    """The target chosen by ``set_target`` (``PYASC_TARGET``, else the dialects' ``DEFAULT_TARGET``)."""
    if _target:
        return _target[0]
    return getenv("PYASC_TARGET", DEFAULT_TARGET)


def set_target(name: str) -> None:
    """Compile for chip ``name`` (one of ``pyasc.dialects.target.PRESETS``) from now on."""
    if not isinstance(name, str) or name not in PRESETS:
        raise PyascError("set_target", f"unknown target {name!r}; known targets: {', '.join(PRESETS)}")
    _target[:] = [name]


def get_target() -> str:
    return default_target()
