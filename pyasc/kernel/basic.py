"""The basic API: data movement, vector compute, compare/select, reductions, synchronisation and
system queries, each one ``ascendc`` op (count forms; the mask/repeat forms have no ascendc op).

In a MIX kernel each core type is traced separately: an API call runs on the core type that has its
unit (vector and UB: AIV; cube, L1 and L0: AIC) and is dropped on the other one.
"""

from __future__ import annotations

from pyasc.dialects import ascendc as A
from pyasc.dialects.ascendc import compare as C
from pyasc.dialects.ascendc import reduce as R

from .enums import CMPMODE, HardEvent, PipeID, RoundMode, SelMode
from .errors import KernelError, unsupported
from .params import DataCopyExtParams, DataCopyPadExtParams, DataCopyPadParams, DataCopyParams, Nd2NzParams
from .trace import Scalar, current, static_int, to_index
from .values import GlobalTensor, LocalTensor, emit, scalar_value


def runs_here(core: str, kind: str = "vector") -> bool:
    """Record that the kernel uses ``kind``; whether an op of ``core`` is traced on this core."""
    t = current()
    t.used.add(kind)
    return t.mode == core


def _v(x, api: str):
    if isinstance(x, LocalTensor | GlobalTensor):
        return x.value
    raise KernelError(api, f"expects a tensor, got {type(x).__name__}", location=current().loc)


def _tensor_core(*xs) -> str:
    for x in xs:
        if isinstance(x, LocalTensor):
            return x.core
    return "aiv"


def _count(api: str, args: tuple, kwargs: dict, nfixed: int = 0):
    """The ``count`` of a count-form call; the mask/repeat forms raise."""
    extra = set(kwargs) - {"count", "is_set_mask"}
    if extra & {"mask", "repeat_times", "repeat_params", "repeat_time"} or len(args) > 1 + nfixed:
        raise unsupported(f"{api} (mask/repeat form)", "only the count form has an ascendc op")
    if "count" in kwargs:
        return kwargs["count"]
    if not args:
        raise KernelError(api, "missing the element count", location=current().loc)
    return args[0]


# ----------------------------------------------------------------------------------------------
# data movement


def data_copy(dst, src, *args, **kwargs) -> None:
    """``DataCopy``: ``(dst, src, count)``, ``(dst, src, DataCopyParams)`` (GM <-> UB) or
    ``(dst, src, Nd2NzParams)`` (GM -> L1)."""
    params = kwargs.get("repeat_params") or kwargs.get("intri_params") or (args[0] if args and not isinstance(
        args[0], int | Scalar) else None)
    if isinstance(params, Nd2NzParams):
        return _nd2nz(dst, src, params)
    if isinstance(params, DataCopyParams):
        return _copy_params(dst, src, params)
    if params is not None or "enhanced_params" in kwargs:
        raise unsupported(f"data_copy with {type(params).__name__}")
    count = _count("data_copy", args, kwargs)
    core = _tensor_core(dst, src)
    for x in (dst, src):
        if isinstance(x, LocalTensor) and x.core == "aic":
            raise unsupported("data_copy(count) to or from L1/L0", "use Nd2NzParams for GM -> L1")
    if runs_here(core):
        emit("data_copy", A.DataCopyOp(_v(dst, "data_copy"), _v(src, "data_copy"), to_index(count)))


def _copy_params(dst, src, p: DataCopyParams) -> None:
    """The strided ``DataCopy(dst, src, DataCopyParams)`` between GM and UB, as the ``DataCopyPad`` that
    moves the same bytes (lengths and gaps in 32 B blocks become bytes on the GM side)."""
    to_gm = isinstance(dst, GlobalTensor)
    if to_gm == isinstance(src, GlobalTensor):
        raise unsupported("data_copy(DataCopyParams) from UB to UB", "no ascendc op")
    if not runs_here("aiv"):
        return
    blen = to_index(p.block_len * 32)
    if to_gm:
        ss, ds = to_index(p.src_stride), to_index(p.dst_stride * 32)
    else:
        ss, ds = to_index(p.src_stride * 32), to_index(p.dst_stride)
    emit("data_copy", A.DataCopyPadOp(dst.value, src.value, to_index(p.block_count), blen, ss, ds))


def _nd2nz(dst, src, p: Nd2NzParams) -> None:
    if not isinstance(src, GlobalTensor) or not isinstance(dst, LocalTensor):
        raise unsupported("data_copy(Nd2NzParams) from a local tensor", "only GM -> L1 has an ascendc op")
    if not runs_here("aic", "cube"):
        return
    from pyasc.dialects.ascendc.cube import DataCopyNd2NzOp

    f = [to_index(getattr(p, n)) for n in ("nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_d_value",
                                           "dst_nz_c0_stride", "dst_nz_n_stride", "dst_nz_matrix_stride")]
    emit("data_copy", DataCopyNd2NzOp(dst.value, src.value, *f))


def data_copy_pad(dst, src, data_copy_params=None, pad_params=None, nd2nz_params=None, **kwargs) -> None:
    """``DataCopyPad(dst, src, DataCopyExtParams, DataCopyPadExtParams)`` (block lengths in bytes)."""
    p = data_copy_params or kwargs.get("params")
    if nd2nz_params is not None:
        raise unsupported("data_copy_pad with Nd2NzParams")
    if not isinstance(p, DataCopyExtParams | DataCopyParams):
        raise KernelError("data_copy_pad", "expects DataCopyExtParams", location=current().loc)
    if isinstance(pad_params, DataCopyPadExtParams | DataCopyPadParams) and pad_params.is_pad:
        raise unsupported("data_copy_pad with is_pad=True", "the ascendc op pads with nothing")
    if not runs_here("aiv"):
        return
    emit("data_copy_pad", A.DataCopyPadOp(_v(dst, "data_copy_pad"), _v(src, "data_copy_pad"),
                                          to_index(p.block_count), to_index(p.block_len),
                                          to_index(p.src_stride), to_index(p.dst_stride)))


# ----------------------------------------------------------------------------------------------
# vector compute


def _binary(api: str, cls):
    def op(dst, src0, src1, *args, **kwargs):
        count = _count(api, args, kwargs)
        if runs_here("aiv"):
            emit(api, cls(_v(dst, api), _v(src0, api), _v(src1, api), to_index(count)))

    op.__name__ = api
    op.__doc__ = f"``{cls.API}(dst, src0, src1, count)``"
    return op


def _unary(api: str, cls):
    def op(dst, src, *args, **kwargs):
        count = _count(api, args, kwargs)
        if runs_here("aiv"):
            emit(api, cls(_v(dst, api), _v(src, api), to_index(count)))

    op.__name__ = api
    op.__doc__ = f"``{cls.API}(dst, src, count)``"
    return op


def _with_scalar(api: str, cls):
    def op(dst, src, scalar, *args, **kwargs):
        count = _count(api, args, kwargs)
        if runs_here("aiv"):
            emit(api, cls(_v(dst, api), _v(src, api), scalar_value(scalar, dst.dtype), to_index(count)))

    op.__name__ = api
    op.__doc__ = f"``{cls.API}(dst, src, scalar, count)``: the scalar is converted to the tensor's type"
    return op


add = _binary("add", A.AddOp)
sub = _binary("sub", A.SubOp)
mul = _binary("mul", A.MulOp)
div = _binary("div", A.DivOp)
max = _binary("max", A.MaxOp)  # noqa: A001 - official name
min = _binary("min", A.MinOp)  # noqa: A001
exp = _unary("exp", A.ExpOp)
ln = _unary("ln", A.LnOp)
abs = _unary("abs", A.AbsOp)  # noqa: A001
sqrt = _unary("sqrt", A.SqrtOp)
rsqrt = _unary("rsqrt", A.RsqrtOp)
reciprocal = _unary("reciprocal", A.ReciprocalOp)
relu = _unary("relu", A.ReluOp)
adds = _with_scalar("adds", A.AddsOp)
muls = _with_scalar("muls", A.MulsOp)
maxs = _with_scalar("maxs", A.MaxsOp)
mins = _with_scalar("mins", A.MinsOp)
leaky_relu = _with_scalar("leaky_relu", A.LeakyReluOp)


def duplicate(dst, scalar, *args, **kwargs) -> None:
    """``Duplicate(dst, scalar, count)``."""
    count = _count("duplicate", args, kwargs)
    if runs_here("aiv"):
        emit("duplicate", A.DuplicateOp(_v(dst, "duplicate"), scalar_value(scalar, dst.dtype), to_index(count)))


def cast(dst, src, round_mode=RoundMode.CAST_NONE, *args, **kwargs) -> None:
    """``Cast(dst, src, RoundMode, count)``."""
    count = _count("cast", args, kwargs)
    if runs_here("aiv"):
        emit("cast", A.CastOp(_v(dst, "cast"), _v(src, "cast"), to_index(count),
                              A.RoundMode(RoundMode(round_mode).name)))


def compare(dst, src0, src1, cmp_mode, *args, **kwargs) -> None:
    """``Compare(dst, src0, src1, CMPMODE, count)``: a uint8 bit mask."""
    count = _count("compare", args, kwargs)
    if runs_here("aiv"):
        emit("compare", C.CompareOp(_v(dst, "compare"), _v(src0, "compare"), _v(src1, "compare"),
                                    C.CmpMode(CMPMODE(cmp_mode).name), to_index(count)))


def compare_scalar(dst, src0, scalar, cmp_mode, *args, **kwargs) -> None:
    """``Compares(dst, src0, scalar, CMPMODE, count)``."""
    count = _count("compare_scalar", args, kwargs)
    if runs_here("aiv"):
        emit("compare_scalar", C.ComparesOp(_v(dst, "compare_scalar"), _v(src0, "compare_scalar"),
                                            scalar_value(scalar, src0.dtype), C.CmpMode(CMPMODE(cmp_mode).name),
                                            to_index(count)))


def select(dst, sel_mask, src0, src1, sel_mode=SelMode.VSEL_TENSOR_TENSOR_MODE, *args, **kwargs) -> None:
    """``Select(dst, selMask, src0, src1 or scalar, SELMODE, count)``."""
    count = _count("select", args, kwargs)
    mode = SelMode(sel_mode)
    if mode == SelMode.VSEL_CMPMASK_SPR:
        raise unsupported("select(VSEL_CMPMASK_SPR)")
    if not runs_here("aiv"):
        return
    if isinstance(src1, LocalTensor):
        emit("select", C.SelectOp(dst.value, sel_mask.value, src0.value, src1.value, to_index(count)))
    else:
        emit("select", C.SelectScalarOp(dst.value, sel_mask.value, src0.value, scalar_value(src1, dst.dtype),
                                        to_index(count)))


def _reduce(api: str, cls, with_index: bool):
    def op(dst, src, shared_tmp_buffer, *args, cal_index=False, **kwargs):
        if args and len(args) > 1 + with_index:
            raise unsupported(f"{api} (mask/repeat form)", "only the count form has an ascendc op")
        count = kwargs.get("count", args[0] if args else None)
        if with_index and len(args) > 1:
            cal_index = args[1]
        if runs_here("aiv"):
            extra = (bool(cal_index),) if with_index else ()
            emit(api, cls(_v(dst, api), _v(src, api), _v(shared_tmp_buffer, api), to_index(count), *extra))

    op.__name__ = api
    return op


reduce_sum = _reduce("reduce_sum", R.ReduceSumOp, False)
reduce_max = _reduce("reduce_max", R.ReduceMaxOp, True)
reduce_min = _reduce("reduce_min", R.ReduceMinOp, True)


def gather(dst, src, src_offset, src_base_addr, *args, **kwargs) -> None:
    """``Gather(dst, src, srcOffset, srcBaseAddr, count)``: byte offsets in a uint32 tensor."""
    from pyasc.dialects.ascendc.movement import GatherOp

    count = _count("gather", args, kwargs)
    if runs_here("aiv"):
        emit("gather", GatherOp(_v(dst, "gather"), _v(src, "gather"), _v(src_offset, "gather"),
                                to_index(src_base_addr), to_index(count)))


def gather_mask(dst, src0, src1_pattern, reduce_mode, mask, params, rsvd_cnt=0, gather_mask_mode=None) -> None:
    """``GatherMask(dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt)`` with a built-in
    ``src1_pattern`` (1-7). ``rsvd_cnt`` is an output in C++; here the count is not returned (it is the pattern's
    lanes times the repeats)."""
    from pyasc.dialects.ascendc.movement import GatherMaskOp

    api = "gather_mask"
    if isinstance(src1_pattern, LocalTensor):
        raise unsupported(f"{api} with a pattern tensor", "give a built-in src1_pattern (1-7)")
    pattern = static_int(src1_pattern, api, "src1_pattern")
    mode = static_int(reduce_mode, api, "reduce_mode")
    if runs_here("aiv"):
        emit(api, GatherMaskOp(_v(dst, api), _v(src0, api), pattern, bool(mode), to_index(mask),
                               to_index(params.src0_block_stride), to_index(params.repeat_times),
                               to_index(params.src0_repeat_stride)))


def trans_data_to_5hd(dst_list, src_list, params) -> None:
    """``TransDataTo5HD(dstList, srcList, params)``: ``dst_list`` and ``src_list`` are 16 LocalTensors each,
    views of one tensor at offsets known when the kernel is compiled (``x[k * 16]``)."""
    from pyasc.dialects.ascendc.movement import ADDR_LIST_SIZE, TransDataTo5HDOp

    api = "trans_data_to_5hd"
    if not isinstance(dst_list, list | tuple) or not isinstance(src_list, list | tuple):
        raise unsupported(f"{api}(dst, src, params) with tensors of addresses", "give lists of 16 LocalTensors")
    if params.dst_high_half or params.src_high_half:
        raise unsupported(f"{api} with dst_high_half/src_high_half", "the 8-bit forms are not modelled")
    if len(dst_list) != ADDR_LIST_SIZE or len(src_list) != ADDR_LIST_SIZE:
        raise KernelError(api, f"dst_list and src_list hold {ADDR_LIST_SIZE} LocalTensors each, got "
                               f"{len(dst_list)} and {len(src_list)}", location=current().loc)
    if runs_here("aiv"):
        dst, dst_offsets = _one_base(dst_list, api, "dst_list")
        src, src_offsets = _one_base(src_list, api, "src_list")
        fields = [static_int(getattr(params, f), api, f) for f in ("repeat_times", "dst_rep_stride", "src_rep_stride")]
        emit(api, TransDataTo5HDOp(dst, src, dst_offsets, src_offsets, *fields))


def _one_base(tensors, api: str, what: str):
    """(the tensor every one of ``tensors`` views, their element offsets into it)."""
    from pyasc.dialects.ascendc.base import const_int

    bases, offsets = [], []
    for i, x in enumerate(tensors):
        v, off = _v(x, api), 0
        while isinstance(v.owner, A.SubviewOp):
            step = const_int(v.owner.offset)
            if step is None:
                raise KernelError(api, f"{what}[{i}] is at an offset that is not known when the kernel is compiled",
                                  location=current().loc)
            off, v = off + step, v.owner.source
        bases.append(v)
        offsets.append(off)
    if any(b is not bases[0] for b in bases):
        raise KernelError(api, f"the LocalTensors of {what} view different tensors; give views of one tensor",
                          location=current().loc)
    return bases[0], offsets


def create_vec_index(dst, first_value, *args, **kwargs) -> None:
    """``CreateVecIndex(dst, firstValue, count)``: dst[i] = firstValue + i."""
    from pyasc.dialects.ascendc.movement import CreateVecIndexOp

    count = _count("create_vec_index", args, kwargs)
    if runs_here("aiv"):
        emit("create_vec_index", CreateVecIndexOp(_v(dst, "create_vec_index"), scalar_value(first_value, dst.dtype),
                                                  to_index(count)))


# ----------------------------------------------------------------------------------------------
# synchronisation


def _event_core(event: HardEvent) -> str | None:
    src, dst = event.name.split("_")
    if "V" in (src, dst):
        return "aiv"
    if {"M", "MTE1", "FIX"} & {src, dst}:
        return "aic"
    return None  # MTE2/MTE3/S: either core


def _flag(api: str, cls, event, event_id) -> None:
    t = current()
    ev = HardEvent(event)
    core = _event_core(ev)
    if core is not None and not runs_here(core, "sync"):
        return
    t.used.add("sync")
    emit(api, cls(A.HardEvent(ev.name), to_index(event_id)))


def set_flag(event, event_id=0) -> None:
    """``SetFlag<HardEvent::SRC_DST>(id)``."""
    _flag("set_flag", A.SetFlagOp, event, event_id)


def wait_flag(event, event_id=0) -> None:
    """``WaitFlag<HardEvent::SRC_DST>(id)``."""
    _flag("wait_flag", A.WaitFlagOp, event, event_id)


_PIPE_CORE = {PipeID.PIPE_V: "aiv", PipeID.PIPE_M: "aic", PipeID.PIPE_MTE1: "aic", PipeID.PIPE_FIX: "aic"}


def pipe_barrier(pipe) -> None:
    """``PipeBarrier<PIPE_X>()``."""
    p = PipeID(pipe)
    if p in (PipeID.PIPE_MTE4, PipeID.PIPE_MTE5, PipeID.PIPE_V2):
        raise unsupported(f"pipe_barrier({p.name})", "no such pipe on arch 2201")
    core = _PIPE_CORE.get(p)
    if core is not None and not runs_here(core, "sync"):
        return
    emit("pipe_barrier", A.PipeBarrierOp(A.PipeKind(p.name)))


def cross_core_set_flag(flag_id, mode_id: int = 2, pipe=PipeID.PIPE_S) -> None:
    """``CrossCoreSetFlag<mode, pipe>(flagId)`` (MIX kernels)."""
    from pyasc.dialects.ascendc.mix import CrossCoreSetFlagOp

    t = current()
    t.used.add("cross_core")
    emit("cross_core_set_flag", CrossCoreSetFlagOp(static_int(mode_id, "cross_core_set_flag", "the mode"),
                                                   A.PipeKind(PipeID(pipe).name), to_index(flag_id)))


def cross_core_wait_flag(flag_id, mode_id: int = 2, pipe=PipeID.PIPE_S) -> None:
    """``CrossCoreWaitFlag(flagId)`` (MIX kernels)."""
    from pyasc.dialects.ascendc.mix import CrossCoreWaitFlagOp

    current().used.add("cross_core")
    emit("cross_core_wait_flag", CrossCoreWaitFlagOp(to_index(flag_id)))


def sync_all(gm_workspace=None, ub_workspace=None, used_cores=0, is_aiv_only: bool = True) -> None:
    """``SyncAll()``: every core of the launch waits here until all have arrived (the hard sync of a vector
    kernel, which makes it ``KERNEL_TYPE_MIX_AIV_1_0``). The soft sync (with workspaces) and the MIX form
    (``is_aiv_only=False``) are not supported yet."""
    t = current()
    if gm_workspace is not None or ub_workspace is not None:
        raise unsupported("sync_all(gm_workspace, ub_workspace, ...)", "only the hard sync (no workspaces) is "
                          "supported")
    if not is_aiv_only:
        raise unsupported("sync_all(is_aiv_only=False)", "only the vector kernels' hard sync is supported")
    t.used.add("sync_all")
    emit("sync_all", A.SyncAllOp())


# ----------------------------------------------------------------------------------------------
# system queries


def get_block_idx() -> Scalar:
    """``GetBlockIdx()``: the index of this core's instance of the kernel."""
    t = current()
    if t.block_idx is not None:
        return t.block_idx
    return Scalar(t.val(A.GetBlockIdxOp()), "int")


def get_block_num() -> Scalar:
    """``GetBlockNum()``: the launch's block count (known when the kernel is compiled)."""
    t = current()
    return Scalar(t.val(A.GetBlockNumOp()), "int", t.launch.get("block_dim"))


def get_sub_block_idx() -> Scalar:
    """``GetSubBlockIdx()``: which AIV of its AI Core this is (MIX kernels)."""
    t = current()
    if t.mode == "aic":
        sub = t.cache.get("aic_sub")
        return sub if sub is not None else Scalar(t.index(0), "int", 0)
    from pyasc.dialects.ascendc.mix import GetSubBlockIdxOp

    return Scalar(t.val(GetSubBlockIdxOp()), "int")


def get_sub_block_num() -> int:
    return 2


def ascend_is_aic() -> bool:
    """``ASCEND_IS_AIC``: decided while tracing (each core type is traced on its own)."""
    t = current()
    t.used.add("core_query")
    return t.mode == "aic"


def ascend_is_aiv() -> bool:
    """``ASCEND_IS_AIV``."""
    t = current()
    t.used.add("core_query")
    return t.mode == "aiv"


def scalar_cast(value, dtype, round_mode=None):
    if isinstance(value, Scalar):
        return value.cast(dtype)
    return float(value) if dtype.is_float else int(value)

