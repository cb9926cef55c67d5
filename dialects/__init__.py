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


def make_context() -> Context:
    """A context with every upstream xDSL dialect and every pyasc dialect registered lazily (and the
    lexer's string-literal pattern made linear-time: ``lexer_fix``)."""
    from xdsl.dialects import get_all_dialects as upstream_dialects

    from .lexer_fix import install

    install()

    ctx = Context()
    for name, factory in {**upstream_dialects(), **get_all_dialects()}.items():
        ctx.register_dialect(name, factory)
    return ctx
