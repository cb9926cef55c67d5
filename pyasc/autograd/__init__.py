"""Automatic differentiation.

* The **tape** (``tape.py``): while a tensor that requires a gradient takes part in an op, the op is
  recorded as a node of the backward graph (eagerly and inside ``pyasc.jit`` alike).
* The **engine** (``engine.py``): ``y.backward()`` and ``pyasc.autograd.grad`` take the graph the
  roots depend on. Inside ``pyasc.jit`` it is written into the program as an ``asctensor.vjp`` op
  holding a record of each call (``program.py``); eagerly such a program of the recorded tensors
  is compiled once per graph signature and run on the simulated device. The ``asctensor-autodiff``
  pass builds the backward: it walks the records in reverse and applies each op's VJP rule (the
  ``vjp`` of its ``OpDef``), and the pipeline fuses the result like any program.
* The **functional transforms** (``functional.py``): ``pyasc.grad``, ``pyasc.value_and_grad`` and
  ``pyasc.vjp``; called with concrete tensors, forward and backward compile into one program.
* The **losses** (``losses.py``): ``cross_entropy`` and ``mse_loss``.

The public names are resolved when first used, so the op definitions can import the tape without
importing the engine.
"""

import importlib as _importlib

_NAMES = {
    "no_grad": "tape", "enable_grad": "tape", "set_grad_enabled": "tape", "is_grad_enabled": "tape",
    "VJPContext": "tape", "backward": "engine", "grad": "engine",
    "vjp": "functional", "value_and_grad": "functional",
    "cross_entropy": "losses", "mse_loss": "losses",
}


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
