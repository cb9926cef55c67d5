"""``pyasc.nn``: the functional forms of the neural-network ops (``pyasc.nn.functional``), as
``torch.nn``."""

from . import functional

__all__ = ["functional"]
