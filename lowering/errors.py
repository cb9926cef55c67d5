"""The error every pass raises for a program it cannot compile (a user-facing condition), and the
error of a pass that fails on an input at its level (a compiler bug)."""


class CompileError(ValueError):
    """A program the compiler cannot handle as asked: the message names the kernel and the reason."""


class TilingError(CompileError):
    """A kernel that cannot be tiled as asked (named with its kernel and reason)."""


class InternalPassError(Exception):
    """A pass failed on an input at its level: a compiler bug, reported with the pass's name."""

    def __init__(self, pass_name: str, error: BaseException):
        self.pass_name = pass_name
        self.error = error
        super().__init__(f"internal error in pass {pass_name}: {type(error).__name__}: {error}")
