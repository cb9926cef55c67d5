"""``np`` for a dialect module whose op semantics use NumPy but whose parsing and printing must not load it.

``np = LazyNumPy(globals())`` at module level: the first attribute read imports NumPy and rebinds the module's
``np`` to it, so every later use is a plain global lookup (an import statement inside each semantic function
would cost an import lookup per simulated instruction).
"""

from __future__ import annotations


class LazyNumPy:
    """Stands for NumPy in the module namespace ``namespace`` until first used."""

    __slots__ = ("_namespace",)

    def __init__(self, namespace: dict) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str):
        import numpy

        self._namespace["np"] = numpy
        return getattr(numpy, name)
