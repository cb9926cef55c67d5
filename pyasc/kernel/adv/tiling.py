"""``asc.adv.TCubeTiling``: the matmul tiling struct (int32 fields, official names)."""

from __future__ import annotations

from ..structs import Struct

_LAYOUT = [f"a_layout_info_{x}" for x in "bsngd"] + [f"b_layout_info_{x}" for x in "bsngd"] + \
    ["c_layout_info_b", "c_layout_info_s1", "c_layout_info_n", "c_layout_info_g", "c_layout_info_s2"]


class TCubeTiling(Struct):
    """``TCubeTiling``: shapes, the split across cores (``single_core_*``), the block of one cube step
    (``base_*``) and the L1 depths; filled on the host by ``asc.lib.host.MultiCoreMatmulTiling``."""

    FIELDS = ("used_core_num", "m", "n", "k_a", "k_b", "single_core_m", "single_core_n", "single_core_k",
              "base_m", "base_n", "base_k", "depth_a1", "depth_b1", "step_m", "step_n", "is_bias", "trans_length",
              "iterate_order", "share_mode", "share_l1_size", "share_l0c_size", "share_ub_size", "batch_m",
              "batch_n", "single_batch_m", "single_batch_n", "step_k_a", "step_k_b", "depth_a_l1_cache_ub",
              "depth_b_l1_cache_ub", "db_l0a", "db_l0b", "db_l0c", *_LAYOUT, "batch_num")
