"""The error every pass raises for a program it cannot compile (a user-facing condition)."""


class CompileError(ValueError):
    """A program the compiler cannot handle as asked: the message names the kernel and the reason."""


class TilingError(CompileError):
    """A kernel that cannot be tiled as asked (named with its kernel and reason)."""
