"""The ``ascendc`` dialect: the Ascend C API, one op per call, same names and argument order.

A kernel is a ``func.func`` with the unit attribute ``ascendc.kernel`` and ``ascendc.block_dim``;
its arguments are ``!ascendc.gm_addr`` (``GM_ADDR``); scalar code inside is ``arith``/``scf``.
The emitter prints this level and the simulator executes it: what is printed is what was simulated.

Units follow the API: counts are in elements, ``DataCopyPad`` block lengths in bytes, addresses
of static ``LocalTensor``s in bytes from the start of UB.

Every op class derives from ``AscendCOperation`` (``base.py``) and is the one definition of the op:
its pipe and buffer effects (traits), its Ascend C name and printing, its simulator semantics and cost
class (vector ops, ``vector.py``) and whether the simulator may run it for a group of cores at once.
"""


from xdsl.ir import Dialect

from . import attributes as _attributes
from . import base as _base
from . import sync as _sync
from . import cube as _cube
from . import cube_load3d as _cube_load3d
from . import reduce as _reduce
from . import vector as _vector
from . import compare as _compare
from . import movement as _movement
from . import mix as _mix
from .attributes import *  # noqa: F403
from .base import *  # noqa: F403
from .sync import *  # noqa: F403
from .cube import *  # noqa: F403
from .cube_load3d import *  # noqa: F403
from .reduce import *  # noqa: F403
from .vector import *  # noqa: F403
from .compare import *  # noqa: F403
from .movement import *  # noqa: F403
from .mix import *  # noqa: F403

_PARTS = ((_base.BASE_OPS, _attributes.ATTRIBUTES), (_sync.OPS, []), (_vector.VECTOR_OPS, []), (_reduce.OPS, _reduce.ATTRIBUTES),
          (_cube.OPS, _cube.ATTRIBUTES), (_cube_load3d.OPS, _cube_load3d.ATTRIBUTES),
          (_compare.OPS, _compare.ATTRIBUTES),
          (_movement.OPS, _movement.ATTRIBUTES), (_mix.OPS, _mix.ATTRIBUTES))
AscendC = Dialect("ascendc", [op for ops, _ in _PARTS for op in ops], [a for _, attrs in _PARTS for a in attrs])
