"""IRDL definitions of pyasc's dialects: asctensor, asctile, ascbuf, ascendc and the target.

``get_all_dialects()`` gives lazy factories keyed by name; ``make_context()`` a context with them and
every upstream xDSL dialect (what ``pyasc-opt``, ``pyasc.jit`` and the cache parse with)."""

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Lazy factories for pyasc's dialects, keyed by dialect name."""

    def get_asc():
        from .target import Asc

        return Asc

    def get_asctensor():
        from .asctensor import AscTensor

        return AscTensor

    def get_asctile():
        from .asctile import AscTile

        return AscTile

    def get_ascbuf():
        from .ascbuf import AscBuf

        return AscBuf

    def get_ascendc():
        from .ascendc import AscendC

        return AscendC

    return {
        "asc": get_asc,
        "asctensor": get_asctensor,
        "asctile": get_asctile,
        "ascbuf": get_ascbuf,
        "ascendc": get_ascendc,
    }


def register_dialects(ctx: Context) -> None:
    """Register every upstream xDSL dialect and every pyasc dialect in ``ctx``, lazily (and make the
    lexer's string-literal pattern linear-time: ``lexer_fix``)."""
    from xdsl.dialects import get_all_dialects as upstream_dialects

    from .lexer_fix import install

    install()
    for name, factory in {**upstream_dialects(), **get_all_dialects()}.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)


def make_context() -> Context:
    """A context with every upstream xDSL dialect and every pyasc dialect (``register_dialects``)."""
    ctx = Context()
    register_dialects(ctx)
    return ctx
