"""``convert-ascbuf-to-ascendc``: buffer-level kernels to Ascend C API calls, in either synchronisation
style (``sync_style`` = ``queue`` or ``flags``; see ``to_ascendc_kernel``), and calls of kernels to launches.

The ops with a lowering of their own are dispatched by class through ``TRANSLATORS`` (reductions and
per-row ops, comparisons, gathers, the cube's data path, cross-core flags), kernels of another core
type through ``KERNEL_LOWERINGS`` (cube kernels: static L1/L0 tensors; MIX kernels: a section per core).
A ``vbinary``/``vscalar``/``vunary`` becomes the ``ascendc`` instruction its kind names. A kernel without
a TPipe gets the static-tensor frame (``kernel_frame``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from pyasc.dialects import ascbuf, ascendc, asctile
from pyasc.dialects.asctile.analysis import kernel_kind
from pyasc.dialects.asctile.matmul import CUBE_KIND
from pyasc.dialects.asctile.mix import MIX_KIND, SubBlockIdxOp

from . import compare_select, gather, to_ascendc_cube, to_ascendc_mix, to_ascendc_reduce
from .emitter import copy_loc
from .kernel_frame import add_kernel_frame
from .to_ascendc_kernel import KernelLowering

# op class -> fn(lowering, op, emitter)
TRANSLATORS: dict[type, Callable] = {
    ascbuf.VReduceOp: to_ascendc_reduce.vreduce,
    ascbuf.VRowOp: to_ascendc_reduce.vrow,
    ascbuf.VRowDupOp: to_ascendc_reduce.vrow_dup,
    ascbuf.RowIndexOp: to_ascendc_reduce.row_index,
    ascbuf.VCompareOp: compare_select.translate_compare,
    ascbuf.VCompareScalarOp: compare_select.translate_compare_scalar,
    ascbuf.VSelectOp: compare_select.translate_select,
    ascbuf.VSelectScalarOp: compare_select.translate_select_scalar,
    ascbuf.MaskToBoolOp: compare_select.translate_mask_to_bool,
    ascbuf.BoolToMaskOp: compare_select.translate_bool_to_mask,
    ascbuf.GatherOffsetsOp: gather.translate_gather_offsets,
    ascbuf.GatherOp: gather.translate_gather,
    ascbuf.GatherRowsOp: gather.translate_gather_rows,
    ascbuf.PickColumnsOp: gather.translate_pick_columns,
    ascbuf.PhaseTransposeOp: gather.translate_phase_transpose,
    ascbuf.TransposeOp: gather.translate_transpose,
    ascbuf.CopyNzOp: to_ascendc_cube.copy_nz,
    ascbuf.LoadL0Op: to_ascendc_cube.load_l0,
    ascbuf.CopyWindowOp: to_ascendc_cube.copy_window,
    ascbuf.LoadWindowL0Op: to_ascendc_cube.load_window_l0,
    ascbuf.MmadOp: to_ascendc_cube.mmad,
    ascbuf.CopyBiasOp: to_ascendc_cube.copy_bias,
    ascbuf.LoadBiasOp: to_ascendc_cube.load_bias,
    ascbuf.FixpipeOp: to_ascendc_cube.fixpipe,
    ascbuf.CrossSetFlagOp: to_ascendc_mix.cross_set,
    ascbuf.CrossWaitFlagOp: to_ascendc_mix.cross_wait,
    ascbuf.VRepeatRowsOp: to_ascendc_mix.repeat_rows,
    SubBlockIdxOp: to_ascendc_mix.sub_block_idx,
}
# asctile.kernel kind -> fn(kernel, sync_style, translators) -> ascendc kernel
KERNEL_LOWERINGS: dict[str, Callable] = {
    CUBE_KIND: to_ascendc_cube.lower_cube_kernel,
    MIX_KIND: to_ascendc_mix.lower_mix_kernel,
}


@dataclass(frozen=True)
class ToAscendCPass(ModulePass):
    """Lower ``ascbuf`` kernels to ``ascendc`` (``sync_style`` = ``queue`` or ``flags``) and calls to launches."""

    name = "convert-ascbuf-to-ascendc"
    INPUT_LEVEL = "ascbuf-planned"

    sync_style: str = "queue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.sync_style not in ("queue", "flags"):
            raise ValueError(f"to-ascendc: sync_style must be 'queue' or 'flags', got '{self.sync_style}'")
        block_dims = {}
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) is not None:
                kind = kernel_kind(f)
                custom = KERNEL_LOWERINGS.get(kind)
                new = (custom(f, self.sync_style, TRANSLATORS) if custom
                       else KernelLowering(f, self.sync_style == "queue", TRANSLATORS).run())
                add_kernel_frame(new)
                if ascendc.KERNEL_TYPE_ATTR not in new.attributes:  # only the cores that work are started
                    new.attributes[ascendc.KERNEL_TYPE_ATTR] = StringAttr(
                        ascendc.AIC_ONLY if kind == CUBE_KIND else ascendc.AIV_ONLY)
                block_dims[f.sym_name.data] = f.attributes[asctile.BLOCK_DIM_ATTR].value.data
                Rewriter.replace_op(f, new)
        for f in op.ops:
            if isinstance(f, func.FuncOp) and ascendc.KERNEL_ATTR not in f.attributes:
                for view in [v for v in f.body.walk() if isinstance(v, memref.ReinterpretCastOp)]:
                    view.result.replace_all_uses_with(view.source)  # a launch takes the buffer's GM address
                    Rewriter.erase_op(view)
                for call in [c for c in f.body.walk() if isinstance(c, func.CallOp)]:
                    name = call.callee.root_reference.data
                    launch = ascendc.LaunchOp(name, block_dims[name], call.arguments)
                    copy_loc(call, launch)
                    Rewriter.replace_op(call, launch)

