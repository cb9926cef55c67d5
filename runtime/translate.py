"""Translation of an ``ascendc`` kernel (a ``func.func`` marked ``ascendc.kernel``) into Python source.

The kernel becomes one Python function ``_kernel(bid, bnum, args, T)`` that runs one core: SSA values are
local variables (integers for scalars and tensor addresses, NumPy scalars for float scalars), ``scf.for``
is a Python ``for`` over ``range``, every ascendc op is a few lines calling NumPy on views of the
preallocated memories, and every op that occupies a pipe appends one record to the trace ``T`` (see
``opinfo``). The scalar unit's issue clock ``s`` is advanced by the number of scalar instructions between
traced ops, computed at translation time.

Value representations: a global tensor is an element offset into a typed view of its GM buffer (the view
is known statically from the ``ascendc.global_tensor`` op the value derives from); a local tensor is a
byte address in UB; a queue, buffer or pipe is a small state object (``queues``).

Which code generator an op gets: upstream ops by name (``scalar_ops.SCALAR_HANDLERS``); ``ascendc`` ops by
their class, or else by the family (base class) they derive from (:data:`ASCENDC_HANDLERS`), so a new
op of an existing family (say a vector unary op) needs nothing here: its class carries its semantics.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation

from pyasc.dialects import ascendc as asc
from pyasc.dialects.target import TargetSpec

from . import kernel_ops as ops
from . import kernel_ops_bias as bias
from . import kernel_ops_compare as compare
from . import kernel_ops_cube as cube
from . import kernel_ops_load3d as load3d
from . import kernel_ops_mix as mix
from . import kernel_ops_movement as movement
from . import sync_all
from . import kernel_ops_reduce as reduce
from .codegen import CompiledKernel, Handler, KernelTranslator
from .scalar_ops import SCALAR_HANDLERS

# ascendc op class or family -> code generator (the first match along the class's MRO wins)
ASCENDC_HANDLERS: dict[type[Operation], Handler] = {
    # tensors, cores, TPipe / TQue / TBuf
    asc.GlobalTensorOp: ops.global_tensor,
    asc.SubviewOp: ops.subview,
    asc.GetBlockIdxOp: ops.get_block_idx,
    asc.GetBlockNumOp: ops.get_block_num,
    asc.LocalTensorOp: ops.local_tensor,
    asc.TPipeOp: ops.tpipe,
    asc.TPipeResetOp: ops.tpipe_reset,
    asc.TQueOp: ops.tque,
    asc.TBufOp: ops.tbuf,
    asc.InitBufferOp: ops.init_buffer,
    asc.AllocTensorOp: ops.alloc_tensor,
    asc.EnQueOp: ops.enque,
    asc.DeQueOp: ops.deque,
    asc.FreeTensorOp: ops.free_tensor,
    asc.TBufGetOp: ops.tbuf_get,
    # data movement
    asc.DataCopyOp: ops.data_copy,
    asc.DataCopyPadOp: ops.data_copy_pad,
    asc.GetValueOp: ops.get_value,
    # vector families
    asc.VectorBinaryOp: ops.vector_binary,
    asc.VectorUnaryOp: ops.vector_unary,
    asc.VectorUnaryScratchOp: ops.vector_unary_scratch,
    asc.VectorScalarOp: ops.vector_scalar,
    asc.DuplicateOp: ops.duplicate,
    asc.CastOp: ops.cast,
    # synchronisation
    asc.SetFlagOp: ops.set_flag,
    asc.WaitFlagOp: ops.wait_flag,
    asc.PipeBarrierOp: ops.pipe_barrier,
    asc.InitSocStateOp: ops.init_soc_state,
    asc.AllocEventIdOp: ops.alloc_event_id,
    asc.ReleaseEventIdOp: ops.release_event_id,
    # reductions and scalar access to local tensors
    asc.ReduceCountOp: reduce.reduce_count,
    asc.ReinterpretCastOp: reduce.reinterpret_cast,
    asc.SetValueOp: reduce.set_value,
    # masks
    asc.CompareOp: compare.compare,
    asc.ComparesOp: compare.compare,
    asc.SelectOp: compare.select,
    asc.SelectScalarOp: compare.select,
    # index vectors and gathers
    asc.CreateVecIndexOp: movement.create_vec_index,
    asc.GatherOp: movement.gather,
    asc.GatherbOp: movement.gatherb,
    asc.GatherMaskOp: movement.gather_mask,
    asc.TransDataTo5HDOp: movement.trans_data_to_5hd,
    # the cube
    asc.DataCopyNd2NzOp: cube.data_copy_nd2nz,
    asc.InitConstValueOp: cube.init_const_value,
    asc.LoadDataOp: cube.load_data,
    asc.LoadDataWithTransposeOp: cube.load_data_with_transpose,
    asc.LoadData3DV2Op: load3d.load_data_3dv2,
    asc.MmadOp: cube.mmad,
    asc.DataCopyL1ToBtOp: bias.data_copy_l1_bt,
    asc.FixpipeOp: cube.fixpipe,
    asc.SetMMMajorOp: cube.set_mm_major,
    # MIX kernels
    asc.CoreSectionOp: mix.core_section,
    asc.GetSubBlockIdxOp: mix.get_sub_block_idx,
    asc.CrossCoreSetFlagOp: mix.cross_core_set_flag,
    asc.CrossCoreWaitFlagOp: mix.cross_core_wait_flag,
    asc.SyncAllOp: sync_all.sync_all,
}

_RESOLVED: dict[type[Operation], Handler | None] = {}  # op class -> its handler, found once


def ascendc_handler(cls: type[Operation]) -> Handler | None:
    """The code generator of an ``ascendc`` op class: its own, else its nearest family's."""
    try:
        return _RESOLVED[cls]
    except KeyError:
        pass
    handler = _RESOLVED[cls] = next((ASCENDC_HANDLERS[c] for c in cls.__mro__ if c in ASCENDC_HANDLERS), None)
    return handler


def handler_for(op: Operation) -> Handler | None:
    """The code generator of ``op``, or None when the simulator does not support it."""
    return SCALAR_HANDLERS.get(op.name) or ascendc_handler(type(op))


def translate_kernel(func_op: func.FuncOp, spec: TargetSpec, env: dict, run_ctx) -> CompiledKernel:
    """Translate one kernel into Python and compile it (``env``: the globals its code shares)."""
    return KernelTranslator(func_op, spec, env, run_ctx, handler_for).translate()
