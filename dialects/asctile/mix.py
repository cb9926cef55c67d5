"""The ``asctile`` dialect: MIX kernels (a ``func.func`` marked ``asctile.kernel = "mix"``).

A MIX kernel runs on whole AI Cores: one AIC (cube) and its two AIVs (vector) run the same
function on the same arguments, each its own ``core_section``. The AIC part computes output
blocks and stores them to a GM workspace; the AIV parts read them back, each the half of a
block's rows picked by ``sub_block_idx``. The hand-off is a pair of cross-core channels:

* ``ready`` (AIC -> AIVs): ``cross_signal ready`` after a block is in the workspace, ``cross_wait
  ready`` before an AIV reads it;
* ``free`` (AIVs -> AIC): ``cross_signal free`` after an AIV has read its part, ``cross_wait free``
  before the AIC writes again (a credit that bounds how far the AIC runs ahead).

A kernel whose AIVs prepare the AIC's input (a convolution's NCHW input laid out as NHWC, ``tile-conv-prologue``)
hands over the other way:

* ``staged`` (AIVs -> AIC): ``cross_signal staged`` after an AIV has written its part of an input stage to the
  workspace, ``cross_wait staged`` before the AIC loads that stage;
* ``credit`` (AIC -> AIVs): ``cross_signal credit`` once the AIC has taken a stage, ``cross_wait credit`` before
  an AIV stages the next (bounding how far the AIVs run ahead).

Each signal adds one to the receiver's counter of the channel, each wait takes one (blocking at 0);
a ``free`` reaches the AIC once both AIVs have signalled it.

``repeat_rows`` broadcasts a one-row tile (a bias row of the block's columns, loaded once) over the
rows of a tile.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Region, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    prop_def,
    operand_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition

MIX_KIND = "mix"


class CoreKind(StrEnum):
    """The core type of an AI Core a section runs on."""

    AIC = "aic"
    AIV = "aiv"


class HandoffChannel(StrEnum):
    """A cross-core channel of a MIX kernel: ``ready`` and ``credit`` AIC -> AIVs, ``free`` and ``staged`` AIVs ->
    AIC."""

    READY = "ready"
    FREE = "free"
    STAGED = "staged"
    CREDIT = "credit"


# which core signals and which waits on each channel
SIGNALLER = {HandoffChannel.READY: CoreKind.AIC, HandoffChannel.FREE: CoreKind.AIV,
             HandoffChannel.STAGED: CoreKind.AIV, HandoffChannel.CREDIT: CoreKind.AIC}


@irdl_attr_definition
class CoreKindAttr(EnumAttribute[CoreKind], SpacedOpaqueSyntaxAttribute):
    name = "asctile.core"


@irdl_attr_definition
class HandoffChannelAttr(EnumAttribute[HandoffChannel], SpacedOpaqueSyntaxAttribute):
    name = "asctile.channel"


def enclosing_core(op, section: type | None = None) -> CoreKind | None:
    """The core kind of the core section (``section``, by default ``asctile.core_section``) around
    ``op``; None outside any."""
    section = section or CoreSectionOp
    p = op.parent_op()
    while p is not None:
        if isinstance(p, section):
            return p.core.data
        p = p.parent_op()
    return None


class CoreSectionBase(IRDLOperation):
    """A region of a MIX kernel that one core type runs, directly in the kernel function; a dialect's
    section op adds its ``name`` and its ``core`` property (``CORE_ATTR``)."""

    CORE_ATTR: ClassVar[type]
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    assembly_format = "$core attr-dict-with-keyword $body"

    def __init__(self, core: CoreKind, body: Region):
        super().__init__(properties={"core": self.CORE_ATTR(core)}, regions=[body])

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, func.FuncOp):
            raise VerifyException(f"{self.name}: a core section sits directly in a kernel function, "
                                  f"not in {parent.name if parent else 'nothing'}")


@irdl_op_definition
class CoreSectionOp(CoreSectionBase):
    """The code one core type of a MIX kernel runs (``if ASCEND_IS_AIC``/``if ASCEND_IS_AIV``)."""

    name = "asctile.core_section"
    core = prop_def(CoreKindAttr)
    CORE_ATTR: ClassVar[type] = CoreKindAttr


@irdl_op_definition
class SubBlockIdxOp(IRDLOperation):
    """The index (0 or 1) of this AIV inside its AI Core (``GetSubBlockIdx()``)."""

    name = "asctile.sub_block_idx"
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        if enclosing_core(self) != CoreKind.AIV:
            raise VerifyException(f"{self.name}: only an AIV section has a sub-block index")


class _HandoffOp(IRDLOperation):
    channel = prop_def(HandoffChannelAttr)
    assembly_format = "$channel attr-dict"

    def __init__(self, channel: HandoffChannel):
        super().__init__(properties={"channel": HandoffChannelAttr(channel)})

    def _check_side(self, signals: bool) -> None:
        ch = self.channel.data
        want = SIGNALLER[ch] if signals else ({CoreKind.AIC, CoreKind.AIV} - {SIGNALLER[ch]}).pop()
        got = enclosing_core(self)
        if got != want:
            where = f"an {got.value.upper()} section" if got else "no core section"
            raise VerifyException(f"{self.name} {ch.value}: belongs in an {want.value.upper()} section, found in {where}")


@irdl_op_definition
class CrossSignalOp(_HandoffOp):
    """Signal ``channel`` to the other side of the AI Core once this core's earlier GM work is done."""

    name = "asctile.cross_signal"

    def verify_(self) -> None:
        self._check_side(True)


@irdl_op_definition
class CrossWaitOp(_HandoffOp):
    """Wait until ``channel`` has been signalled (one signal per wait)."""

    name = "asctile.cross_wait"

    def verify_(self) -> None:
        self._check_side(False)


@irdl_op_definition
class RepeatRowsOp(IRDLOperation):
    """Every row of the result is the one row of ``input`` (same pitch and element type)."""

    name = "asctile.repeat_rows"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, result_type: TensorType):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        if (len(src.get_shape()) != 2 or len(dst.get_shape()) != 2 or src.get_shape()[0] != 1
                or src.get_shape()[1] != dst.get_shape()[1] or src.element_type != dst.element_type):
            raise VerifyException(f"{self.name}: repeats a 1 x P tile into an R x P tile of its element type, "
                                  f"got {src} -> {dst}")


OPS = [CoreSectionOp, SubBlockIdxOp, CrossSignalOp, CrossWaitOp, RepeatRowsOp]
ATTRIBUTES = [CoreKindAttr, HandoffChannelAttr]
