"""Modules for a dialect module whose op semantics use NumPy but whose parsing and printing must not load it.

``np = LazyNumPy(globals())`` at module level: the first attribute read imports NumPy and rebinds the module's
``np`` to it, so every later use is a plain global lookup (an import statement inside each semantic function
would cost an import lookup per simulated instruction). ``LazyModule(globals(), "numerics", ".numerics")`` does
the same for any module, relative names resolved against the dialect module's package.
"""

from __future__ import annotations

import importlib


class LazyModule:
    """Stands for the module ``module`` (bound to ``name`` in the module namespace ``namespace``) until first
    used."""

    __slots__ = ("_namespace", "_name", "_module")

    def __init__(self, namespace: dict, name: str, module: str) -> None:
        self._namespace, self._name, self._module = namespace, name, module

    def __getattr__(self, attr: str):
        module = importlib.import_module(self._module, self._namespace.get("__package__"))
        self._namespace[self._name] = module
        return getattr(module, attr)


class LazyNumPy(LazyModule):
    """Stands for NumPy in the module namespace ``namespace`` until first used."""

    __slots__ = ()

    def __init__(self, namespace: dict) -> None:
        super().__init__(namespace, "np", "numpy")
