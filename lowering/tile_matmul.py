"""``tile-matmul``: each ``matmul`` kernel becomes an ``asctile`` cube kernel.

The tile plan comes from the target's buffer capacities and the fractal shapes:

* ``baseM x baseN`` (one output block, whole 16 x 16 fractals, its fp32/int32 accumulator within
  L0C: at most 128 x 256 on 910B) minimises the estimated makespan: the rounds of blocks over the
  AICs times one block's cycles on its busiest unit (cube MACs, MTE2 panels through L2, MTE1,
  FIX; ``block_cycles``); among blocks within 1 % of the best, the largest, then the squarest;
* the L1 stage ``kL1`` is the shortest K (a multiple of the L0 step) whose copies of A and B each reach
  the DMA's full rate (~16 KB), within what fits L1 twice (double buffering): the cube waits for the
  whole first stage, later ones load behind the Mmads of the one before;
* the L0 step ``kL0`` (chosen by ``bufferize-cube``) is the longest K whose A and B slices fit L0A and
  L0B twice;
* output blocks are split evenly over ``min(cube cores, blocks)`` AICs; tails are handled by the
  valid extents (``rows``/``cols``/``k``) of the loads, the mmad and the store.

The kernel walks its blocks; for each, an ``scf.for`` over the L1 stages carries the accumulator
(``matmul_tiler``; the plan is ``analysis.matmul.plan_matmul``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects.asctensor.analysis import kernel_kind
from pyasc.dialects.target import DEFAULT_TARGET, module_target
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from .kernel_calls import replace_kernel
from .matmul_tiler import MatmulTiler


@dataclass(frozen=True)
class TileMatmulPass(ModulePass):
    """Tile every ``matmul`` kernel onto the cube cores (see the module docstring)."""

    name = "tile-matmul"
    INPUT_LEVEL = "tiling"

    target: str = DEFAULT_TARGET
    cores: int = 0  # 0: every cube core of the target
    base_m: int = 0  # output block rows; 0: the plan's choice
    base_n: int = 0  # output block columns; 0: the plan's choice

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) == "matmul":
                replace_kernel(f, MatmulTiler(f, spec, self.cores, self.base_m, self.base_n).run())
