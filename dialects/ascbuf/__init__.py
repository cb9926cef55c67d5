"""The ``ascbuf`` dialect: explicit on-chip buffers, pipes and synchronisation.

Tile values have become buffers: ``ascbuf.alloc`` reserves ``slots`` rotating copies of a UB
``memref`` (``plan-memory`` gives it a byte ``offset``); ``ascbuf.slot`` picks the copy used by
loop iteration ``i`` (``i mod slots``). Data movement names its engine (``copy_in``: GM->UB on
MTE2, or the scalar unit plus ``Duplicate`` on V for a column broadcast; ``load_scalar``: one GM
element read by the scalar unit, the scalar of ``vscalar`` ops; ``copy_out``: UB->GM on MTE3) and
compute writes into destination buffers (``vbinary``, ``vscalar``, ``vunary``, ``vdup``, ``vcast``,
all on V). ``set_flag``/``wait_flag`` order two pipes on an event id,
``barrier`` drains one pipe: ``insert-sync`` places them.

The package is split by op family: ``base``, ``reduce``, ``cube``, ``compare``, ``movement``, ``mix``.
"""

from xdsl.ir import Dialect

from . import base as _base
from . import reduce as _reduce
from . import cube as _cube
from . import compare as _compare
from . import movement as _movement
from . import mix as _mix
from .base import *  # noqa: F403
from .reduce import *  # noqa: F403
from .cube import *  # noqa: F403
from .compare import *  # noqa: F403
from .movement import *  # noqa: F403
from .mix import *  # noqa: F403

_PARTS = (_base, _reduce, _cube, _compare, _movement, _mix)
AscBuf = Dialect("ascbuf", [op for p in _PARTS for op in p.OPS], [a for p in _PARTS for a in p.ATTRIBUTES])
