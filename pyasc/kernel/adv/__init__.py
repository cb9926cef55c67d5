"""``asc.adv``: the high-level Matmul API (``Matmul``, ``MatmulType``, ``register_matmul``, ``TCubeTiling``)."""

from .matmul import Matmul, MatmulType, register_matmul  # noqa: F401
from .tiling import TCubeTiling  # noqa: F401
