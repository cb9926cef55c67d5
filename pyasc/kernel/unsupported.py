"""Official APIs that have no ``ascendc`` op yet: calling one raises ``asc.<name>: not supported yet``."""

from __future__ import annotations

from .errors import unsupported

NAMES = (
    # vector
    "add_relu", "sub_relu", "bitwise_and", "bitwise_or", "bitwise_not", "fused_mul_add",
    "fused_mul_add_relu", "mul_add_dst", "add_deq_relu", "mul_cast", "add_relu_cast", "sub_relu_cast", "axpy",
    "shift_left", "shift_right", "cast_deq", "set_deq_scale", "get_cmp_mask", "set_cmp_mask",
    "whole_reduce_max", "whole_reduce_min", "whole_reduce_sum", "block_reduce_sum", "block_reduce_max",
    "block_reduce_min", "pair_reduce_sum", "repeat_reduce_sum", "gatherb", "scatter",
    "brcb", "transpose", "sort", "sort32", "mrg_sort", "mrg_sort4", "rp_sort16",
    "proposal_concat", "proposal_extract", "copy", "bilinear_interpolation",
    # masks, atomics, barriers, debugging
    "set_mask_count", "set_mask_norm", "reset_mask", "set_vector_mask", "set_atomic_add", "set_atomic_max",
    "set_atomic_min", "set_atomic_none", "set_atomic_type", "data_sync_barrier", "ib_set", "ib_wait",
    "printf", "dump_tensor", "print_time_stamp", "metrics_prof_start", "metrics_prof_stop", "trap",
    "data_cache_clean_and_invalid", "icache_preload", "set_pad_value", "load_image_to_local",
    # cube
    "load_data_with_transpose", "load_data_with_sparse", "init_const_value", "mmad_with_sparse",
    "set_load_data_boundary", "set_load_data_padding_value", "set_load_data_repeat", "set_fix_pipe_pre_quant_flag",
    "set_hf32_mode", "set_hf32_trans_mode", "set_mm_layout_transform", "set_fmatrix", "LoadData3DParamsV2Pro",
    # system
    "get_sys_workspace", "get_program_counter", "get_system_cycle", "get_arch_version", "get_task_ratio",
    "get_tpipe_ptr", "init_soc_state", "LocalTensorAuto", "LocalMemAllocator",
)

_WHY = {
    "init_soc_state": "no ascendc op for InitSocState",
    "LocalTensorAuto": "automatic UB allocation is not implemented (automatic flags: @asc.jit(insert_sync=True))",
    "printf": "no ascendc op", "dump_tensor": "no ascendc op",
    "set_fmatrix": "Load3Dv2 sets its feature map itself (fMatrixCtrl and SetFmatrix are not modelled)",
    "LoadData3DParamsV2Pro": "Load3Dv2Pro is not modelled; use LoadData3DParamsV2",
}


def _make(name: str):
    def api(*args, **kwargs):
        raise unsupported(name, _WHY.get(name, "no ascendc op"))

    api.__name__ = name
    api.__doc__ = f"``asc.{name}``: not supported yet ({_WHY.get(name, 'no ascendc op')})."
    return api


API = {name: _make(name) for name in NAMES}
