"""The ``asctile`` dialect: kernels over on-chip tiles.

A kernel is a ``func.func`` with the unit attribute ``asctile.kernel``, its core count in
``asctile.block_dim`` and its buffer count in ``asctile.buffers``; its arguments are the GM
tensors as ``memref``s (inputs, then outputs). Inside, ``scf.for`` walks this core's tiles;
``asctile.load`` brings a 2-D window of GM into a tile value, compute uses ``arith``/``math`` on
the tile values (builtin ``tensor``s of the tile shape: tiles have value semantics), and
``asctile.store`` writes a tile back. A tile is ``rows x pitch`` elements with the pitch padded
to 32 B; the valid extent of a partial tile at an edge is carried by ``rows``/``cols``.

The window of a load is ``element(i, j) = src[offset + i * row_stride + j * col_stride]``
with ``col_stride`` 1 (contiguous rows) or 0 (one value per row, broadcast along the row);
``row_stride`` 0 repeats one row (NumPy broadcasting of the leading dims). ``dense`` promises
that the window is one contiguous run of whole 32 B blocks (a plain ``DataCopy`` suffices).

The package is split by op family: ``base``, ``reduce``, ``matmul``, ``movement``, ``mix``.
"""

from xdsl.ir import Dialect

from . import base as _base
from . import reduce as _reduce
from . import matmul as _matmul
from . import movement as _movement
from . import mix as _mix
from .base import *  # noqa: F403
from .reduce import *  # noqa: F403
from .matmul import *  # noqa: F403
from .movement import *  # noqa: F403
from .mix import *  # noqa: F403

_PARTS = (_base, _reduce, _matmul, _movement, _mix)
AscTile = Dialect("asctile", [op for p in _PARTS for op in p.OPS], [a for p in _PARTS for a in p.ATTRIBUTES])
