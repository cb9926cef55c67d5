"""The ``asctensor`` dialect: whole tensors with value semantics.

Elementwise arithmetic and math use upstream ``arith`` and ``math`` ops on builtin ``tensor``
types, and scalars are splat ``arith.constant``s (the MLIR convention). This dialect adds what
those lack: NumPy broadcasting, dtype casts and the activation functions, which the
``asctensor-decompose`` pass turns into primitives. After ``asctensor-fuse`` each kernel is a
``func.func`` carrying the unit attribute ``asctensor.kernel``, called from the host function.

The package is split by op family: ``base`` (elementwise), ``reduce``, ``linalg``, ``compare``, ``movement``, ``topk``
(``iota`` and ``topk``), ``autodiff`` (``primal`` records and ``vjp``, resolved by ``asctensor-autodiff``).
"""

from xdsl.ir import Dialect

from . import base as _base
from . import reduce as _reduce
from . import linalg as _linalg
from . import compare as _compare
from . import movement as _movement
from . import topk as _topk
from . import autodiff as _autodiff
from .base import *  # noqa: F403
from .reduce import *  # noqa: F403
from .linalg import *  # noqa: F403
from .compare import *  # noqa: F403
from .movement import *  # noqa: F403
from .topk import *  # noqa: F403
from .autodiff import *  # noqa: F403

_PARTS = (_base, _reduce, _linalg, _compare, _movement, _topk, _autodiff)
AscTensor = Dialect("asctensor", [op for p in _PARTS for op in p.OPS], [a for p in _PARTS for a in p.ATTRIBUTES])
