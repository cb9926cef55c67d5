"""The cube's tile plan of a matmul, derived from the target's buffer capacities and the fractal shapes.

* ``baseM x baseN`` (one output block, whole 16 x 16 fractals, its fp32/int32 accumulator within
  L0C: at most 128 x 256 on 910B) minimises the estimated makespan: the rounds of blocks over the
  AICs times one block's cycles on its busiest unit (cube MACs, MTE2 panels through L2, MTE1,
  FIX; ``block_cycles``); among blocks within 1 % of the best, the largest, then the squarest;
* the L1 stage ``kL1`` is the shortest K (a multiple of the L0 step) whose copies of A and B each reach
  the DMA's full rate (~16 KB), within what fits L1 twice (double buffering): the cube waits for the
  whole first stage, later ones load behind the Mmads of the one before (``_full_rate_k``);
* the L0 step ``kL0`` (``l0_step``) is the longest K whose A and B slices fit L0A and L0B twice;
* output blocks are split evenly over ``min(cube cores, blocks)`` AICs.

``tile-matmul`` and ``tile-mix`` plan with ``plan_matmul``; ``bufferize-cube`` sizes its L0 buffers
with ``l0_step``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from pyasc.dialects.target import TargetSpec
from pyasc.dialects.types import element_bytes, element_type

from ..errors import CompileError


class CubeTilingError(CompileError):
    """A matmul whose tiles cannot fit the cube's buffers."""


def _up(x: int, a: int) -> int:
    return -(-x // a) * a


@dataclass(frozen=True)
class CubePlan:
    batch: int
    M: int
    N: int
    K: int
    base_m: int
    base_n: int
    k_l1: int
    k_l0: int
    blocks_m: int
    blocks_n: int
    block_dim: int
    m_fastest: bool = False  # blocks run along M first (then N, then the batch); by default along N first

    @property
    def blocks(self) -> int:
        return self.batch * self.blocks_m * self.blocks_n

    @property
    def k_stages(self) -> int:
        return ceil(self.K / self.k_l1)


def l0_step(spec: TargetSpec, base_m: int, base_n: int, es: int, c0: int, buffers: int = 2) -> int:
    """The longest K slice (a multiple of c0) whose A and B parts fit L0A and L0B ``buffers`` times."""
    ka = spec.l0a_bytes // (buffers * base_m * es)
    kb = spec.l0b_bytes // (buffers * base_n * es)
    kq = max(c0, 16)  # whole fractals both ways: c0 columns of A, 16 rows of a transposed tile
    return (min(ka, kb) // kq) * kq


def divided_step(spec: TargetSpec, base_m: int, base_n: int, es: int, c0: int, k_l1: int) -> int:
    """The K step of an L1 stage of ``k_l1`` columns that ``bufferize-cube`` takes: the longest that fits L0
    (``l0_step``) and divides the stage."""
    k = min(l0_step(spec, base_m, base_n, es, c0), k_l1)
    while k_l1 % k:
        k -= max(c0, 16)  # whole 16-row fractals (a 4-byte B: whole 16 x 16 squares)
    return k


BLOCK_STEP = 16  # block sides are whole fractals
NEAR_BEST = 1.01  # blocks within 1 % of the shortest estimate compete on traffic


def block_cycles(spec: TargetSpec, bm: int, bn: int, K: int, in_type: str) -> float:
    """Estimated cycles of one ``bm x bn`` output block over ``K``: the busiest of the cube (MACs),
    MTE2 (its A and B panels, read through L2), MTE1 (L1 -> L0A/L0B) and FIX (the result)."""
    es = element_bytes(element_type(in_type))
    k = _up(K, BLOCK_STEP)
    cube = bm * bn * k / spec.cube_macs_per_cycle[in_type]
    mte2 = (bm + bn) * k * es / spec.mte2_l2_bytes_per_cycle
    mte1 = bm * k * es / spec.mte1_l0a_bytes_per_cycle + bn * k * es / spec.mte1_l0b_bytes_per_cycle
    fix = bm * bn * 4 / spec.fix_bytes_per_cycle
    return max(cube, mte2, mte1, fix)


def _best_block(spec: TargetSpec, batch: int, M: int, N: int, K: int, in_type: str, cores: int,
                fixed_m: int = 0, fixed_n: int = 0) -> tuple[int, int]:
    """The output block whose estimated makespan (rounds of blocks over the cube cores x one
    block's cycles) is shortest; its fp32/int32 accumulator fits L0C (at most 128 x 256 on 910B)."""
    es = element_bytes(element_type(in_type))
    c0 = 32 // es
    ms = [fixed_m] if fixed_m else range(BLOCK_STEP, min(_up(M, BLOCK_STEP), 256) + 1, BLOCK_STEP)
    scored = []
    for bm in ms:
        top = min(_up(N, BLOCK_STEP), spec.l0c_bytes // (4 * bm) // BLOCK_STEP * BLOCK_STEP)
        for bn in ([fixed_n] if fixed_n else range(BLOCK_STEP, top + 1, BLOCK_STEP)):
            if bm * bn * 4 > spec.l0c_bytes or l0_step(spec, bm, bn, es, c0) < c0:
                continue
            rounds = ceil(batch * ceil(M / bm) * ceil(N / bn) / cores)
            scored.append((rounds * block_cycles(spec, bm, bn, K, in_type), bm, bn))
    if not scored:
        return fixed_m or min(128, _up(M, BLOCK_STEP)), fixed_n or BLOCK_STEP
    best = min(t for t, _, _ in scored)
    # near the best: the largest block, then the least panel traffic (the squarest), then the widest
    _, _, bn, bm = max((bm * bn, -(bm + bn), bn, bm) for t, bm, bn in scored if t <= best * NEAR_BEST)
    return bm, bn


def _full_rate_k(spec: TargetSpec, rows: int, cols: int, es: int) -> int:
    """The K of an L1 stage whose copies of A (``rows`` of it) and B (``cols``) each reach the DMA's full
    rate (``dma_full_efficiency_bytes``, ~16 KB [O]). A longer stage only delays the first Mmad: the cube
    waits for the whole first stage, while later stages are loaded behind the Mmads of the one before."""
    return _up(ceil(spec.dma_full_efficiency_bytes / (min(rows, cols) * es)), BLOCK_STEP)


def plan_matmul(name: str, spec: TargetSpec, batch: int, M: int, N: int, K: int, in_type: str,
                cores: int = 0, base_m: int = 0, base_n: int = 0, k_l1: int = 0) -> CubePlan:
    es = element_bytes(element_type(in_type))
    c0 = 32 // es
    acc_bytes = 4
    cores = cores or spec.cube_cores
    if not base_m or not base_n:
        base_m, base_n = _best_block(spec, batch, M, N, K, in_type, cores, base_m, base_n)
    if base_m * base_n * acc_bytes > spec.l0c_bytes:
        raise CubeTilingError(f"kernel @{name}: the accumulator of a {base_m}x{base_n} block needs "
                              f"{base_m * base_n * acc_bytes} B but L0C has {spec.l0c_bytes} B")
    k_l0 = l0_step(spec, base_m, base_n, es, c0)
    if k_l0 < c0:
        raise CubeTilingError(f"kernel @{name}: a {base_m}x{c0} slice of A and a {c0}x{base_n} slice of B do "
                              f"not fit L0A ({spec.l0a_bytes} B) and L0B ({spec.l0b_bytes} B) twice")
    k_l0 = min(k_l0, _up(K, max(c0, 16)))
    if not k_l1:
        fit = spec.l1_bytes // (2 * (base_m + base_n) * es)
        want = _up(_full_rate_k(spec, min(base_m, M), min(base_n, N), es), k_l0)
        k_l1 = min(want, max(k_l0, fit // k_l0 * k_l0), _up(K, k_l0))
    k_l1 = _up(k_l1, k_l0)
    blocks = batch * ceil(M / base_m) * ceil(N / base_n)
    return CubePlan(batch, M, N, K, base_m, base_n, k_l1, k_l0, ceil(M / base_m), ceil(N / base_n),
                    max(1, min(cores, blocks)))
