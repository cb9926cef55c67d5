"""Errors of the kernel DSL: every message starts with the official API name (``asc.add: ...``)
and ends with the line of the kernel that asked for it."""

from __future__ import annotations

from pyasc.errors import PyascError


class KernelError(PyascError):
    """A mistake in a ``@asc.jit`` kernel or its launch."""

    def _message(self) -> str:
        return f"asc.{self.op}: {self.detail} (at {self.location})"


class Unsupported(KernelError):
    """An official API that pyasc cannot express yet (usually: no ``ascendc`` op for it)."""


class NeedsStatic(KernelError):
    """A value the ``ascendc`` dialect needs as a constant is only known at run time."""


def unsupported(api: str, why: str = "no ascendc op") -> Unsupported:
    from .trace import current_loc

    return Unsupported(api, f"not supported yet ({why})", location=current_loc())


def error(api: str, detail: str) -> KernelError:
    from .trace import current_loc

    return KernelError(api, detail, location=current_loc())
