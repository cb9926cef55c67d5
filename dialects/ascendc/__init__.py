"""The ``ascendc`` dialect: the Ascend C API, one op per call, same names and argument order.

A kernel is a ``func.func`` with the unit attribute ``ascendc.kernel`` and ``ascendc.block_dim``;
its arguments are ``!ascendc.gm_addr`` (``GM_ADDR``); scalar code inside is ``arith``/``scf``.
The emitter prints this level and the simulator executes it: what is printed is what was simulated.

Units follow the API: counts are in elements, ``DataCopyPad`` block lengths in bytes, addresses
of static ``LocalTensor``s in bytes from the start of UB.
"""


from xdsl.ir import Dialect

from .base import *  # noqa: F403
from .base import BASE_ATTRIBUTES, BASE_OPS
from .vector import *  # noqa: F403
from .vector import VECTOR_OPS

AscendC = Dialect("ascendc", [*BASE_OPS, *VECTOR_OPS], BASE_ATTRIBUTES)
