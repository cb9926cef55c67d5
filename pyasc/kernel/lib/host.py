"""``asc.lib.host``: host-side matmul tiling, computed by pyasc's own tiler (no CANN).

``MultiCoreMatmulTiling(platform)`` takes the calls of ``matmul_tiling::MultiCoreMatmulTiling``
(``set_a_type``, ``set_dim``, ``set_shape``, ``set_fix_split``, ...) and ``get_tiling(tiling)`` fills an
``asc.adv.TCubeTiling``:

* the cores: ``single_core_m x single_core_n`` pieces of C (multiples of 16, of the base block when
  ``set_fix_split`` fixes it), the split that gives each core the least work within ``set_dim``
  cores (``used_core_num`` = the pieces), M first;
* the block of one cube step, ``base_m x base_n x base_k``: ``set_fix_split`` or the largest that fits
  the target's L0A/L0B (single-buffered), L0C (fp32 accumulators) and L1;
* ``iterate_order``: 0 (M first) unless ``set_traverse(FIRSTN)``.
"""

from __future__ import annotations

from enum import IntEnum

from pyasc.dialects.target import get_target

from ..runtime import config


class TPosition(IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 12
    SPM = 13
    SHM = 14
    TSCM = 15
    MAX = 16


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    ROW_MAJOR = 8
    COLUMN_MAJOR = 9


class DataType(IntEnum):
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_BOOL = 12
    DT_BF16 = 27
    DT_BFLOAT16 = 27


class MatrixTraverse(IntEnum):
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(IntEnum):
    NORMAL = 0
    HF32 = 1


_SIZE = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2, DataType.DT_INT8: 1,
         DataType.DT_INT32: 4}


class PlatformAscendC:
    """The platform a tiling is computed for (``host.get_ascendc_platform()``)."""

    def __init__(self, target: str | None = None):
        self.spec = get_target(target or config.target_name())

    def get_core_num_aic(self) -> int:
        return self.spec.cube_cores

    def get_core_num_aiv(self) -> int:
        return self.spec.vector_cores

    def get_core_num(self) -> int:
        return self.spec.vector_cores


def get_ascendc_platform() -> PlatformAscendC:
    return PlatformAscendC()


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _up(a: int, b: int) -> int:
    return _ceil(a, b) * b


class MatmulApiTilingBase:
    def __init__(self, platform: PlatformAscendC | None = None):
        self.platform = platform or get_ascendc_platform()
        self.a_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False)
        self.b_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False)
        self.c_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT)
        self.bias_type = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT)
        self.dim = 1
        self.shape = None
        self.org_shape = None
        self.bias = False
        self.traverse = MatrixTraverse.NOSET
        self.fix = (-1, -1, -1)
        self.single = (-1, -1, -1)
        self.buffers = (-1, -1, -1, -1)

    def set_a_type(self, pos, fmt, data_type, is_trans=False) -> int:
        self.a_type = (TPosition(pos), CubeFormat(fmt), DataType(data_type), bool(is_trans))
        return 0

    def set_b_type(self, pos, fmt, data_type, is_trans=False) -> int:
        self.b_type = (TPosition(pos), CubeFormat(fmt), DataType(data_type), bool(is_trans))
        return 0

    def set_c_type(self, pos, fmt, data_type) -> int:
        self.c_type = (TPosition(pos), CubeFormat(fmt), DataType(data_type))
        return 0

    def set_bias_type(self, pos, fmt, data_type) -> int:
        self.bias_type = (TPosition(pos), CubeFormat(fmt), DataType(data_type))
        return 0

    def set_shape(self, m: int, n: int, k: int) -> int:
        self.shape = (m, n, k)
        return 0

    def set_org_shape(self, m: int, n: int, ka: int, kb: int | None = None) -> int:
        self.org_shape = (m, n, ka, ka if kb is None else kb)
        return 0

    def enable_bias(self, is_bias_in: bool = False) -> int:
        self.bias = bool(is_bias_in)
        return 0

    set_bias = enable_bias

    def set_buffer_space(self, l1_size=-1, l0_c_size=-1, ub_size=-1, bt_size=-1) -> int:
        self.buffers = (l1_size, l0_c_size, ub_size, bt_size)
        return 0

    def set_traverse(self, traverse) -> int:
        self.traverse = MatrixTraverse(traverse)
        return 0

    def set_fix_split(self, base_m_in=-1, base_n_in=-1, base_k_in=-1) -> int:
        self.fix = (base_m_in, base_n_in, base_k_in)
        return 0

    def set_single_shape(self, single_m_in=-1, single_n_in=-1, single_k_in=-1) -> int:
        self.single = (single_m_in, single_n_in, single_k_in)
        return 0

    def set_dim(self, dim: int) -> int:
        self.dim = int(dim)
        return 0

    def set_double_buffer(self, *args) -> int:
        return 0

    def set_mad_type(self, mad_type) -> int:
        return 0 if MatrixMadType(mad_type) == MatrixMadType.NORMAL else -1

    # ---------------------------------------------------------------------------------------------
    def _base(self, sm: int, sn: int, k: int, es: int) -> tuple[int, int, int] | None:
        spec = self.platform.spec
        fm, fn, fk = self.fix
        bm = fm if fm > 0 else min(128, _up(sm, 16))
        bn = fn if fn > 0 else min(256, _up(sn, 16))
        if bm % 16 or bn % 16 or bm * bn * 4 > spec.l0c_bytes:
            return None
        if fk > 0:
            bk = fk
        else:
            bk = min(_up(k, 16), 256)
            while bk > 16 and (bm * bk * es > spec.l0a_bytes or bk * bn * es > spec.l0b_bytes
                               or (bm + bn) * bk * es > spec.l1_bytes):
                bk -= 16
        if bk % 16 or bm * bk * es > spec.l0a_bytes or bk * bn * es > spec.l0b_bytes:
            return None
        return bm, bn, bk

    def _fill(self, tiling, m: int, n: int, ka: int, kb: int, split: tuple[int, int, int, int], base) -> None:
        sm, sn, used, _ = split
        bm, bn, bk = base
        values = dict(used_core_num=used, m=m, n=n, k_a=ka, k_b=kb, single_core_m=sm, single_core_n=sn,
                      single_core_k=ka, base_m=bm, base_n=bn, base_k=bk, depth_a1=1, depth_b1=1, step_m=1,
                      step_n=1, step_k_a=1, step_k_b=1, is_bias=int(self.bias), db_l0a=1, db_l0b=1, db_l0c=1,
                      iterate_order=1 if self.traverse == MatrixTraverse.FIRSTN else 0, batch_m=1, batch_n=1,
                      single_batch_m=1, single_batch_n=1, batch_num=1)
        for k_, v in values.items():
            setattr(tiling, k_, v)

    def _splits(self, m: int, n: int, dim: int, align_m: int, align_n: int):
        sm_fix, sn_fix, _ = self.single
        for md in range(1, dim + 1):
            for nd in range(1, dim // md + 1):
                sm = sm_fix if sm_fix > 0 else _up(_ceil(m, md), align_m)
                sn = sn_fix if sn_fix > 0 else _up(_ceil(n, nd), align_n)
                used = _ceil(m, sm) * _ceil(n, sn)
                if used <= dim:
                    # least work per core, then least traffic (sm + sn), then fewest cores
                    yield (sm * sn, sm + sn, used), (sm, sn, used, (md, nd))

    def get_tiling(self, tiling) -> int:
        """Fill ``tiling`` (an ``asc.adv.TCubeTiling``); -1 when the problem has no tiling."""
        shape = self.shape or (self.org_shape[:3] if self.org_shape else None)
        if shape is None:
            return -1
        m, n, k = shape
        org = self.org_shape or (m, n, k, k)
        es = _SIZE.get(self.a_type[2], 2)
        fm, fn, _ = self.fix
        align_m, align_n = (fm if fm > 0 else 16), (fn if fn > 0 else 16)
        cands = sorted(self._splits(m, n, max(1, self.dim), align_m, align_n))
        for _, split in cands:
            base = self._base(split[0], split[1], k, es)
            if base is not None:
                self._fill(tiling, org[0], org[1], org[2], org[3], split, base)
                return 0
        return -1

    def get_base_m(self) -> int:
        return self.fix[0]


class MultiCoreMatmulTiling(MatmulApiTilingBase):
    """``matmul_tiling::MultiCoreMatmulTiling``: C split across ``set_dim`` cores."""

    def get_core_num(self):
        return self.dim, None, None


class MatmulApiTiling(MatmulApiTilingBase):
    """``matmul_tiling::MatmulApiTiling``: one core."""

    def set_dim(self, dim: int) -> int:
        self.dim = 1
        return 0


__all__ = ["TPosition", "CubeFormat", "DataType", "MatrixTraverse", "MatrixMadType", "PlatformAscendC",
           "get_ascendc_platform", "MultiCoreMatmulTiling", "MatmulApiTiling"]
