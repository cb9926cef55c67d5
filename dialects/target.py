"""The target description: every number the compiler and the simulator use, in one place.

A module names its chip with the attribute ``#asc.target<"ascend910b2">`` (MLIR's DLTI idea):
passes and the simulator both read the numbers from the module, never from globals.

Sources, with confidence: [O] official Ascend C documentation (asc-devkit docs for arch 2201),
[C] platform configuration files shipped with CANN, [D] derived from documented figures,
[E] estimate, [T] third party. See ``shared/notes/ascend-c.md`` for the page references.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class Pipe(StrEnum):
    """The AI Core's instruction queues (``PIPE_*`` in Ascend C)."""

    S = "S"
    V = "V"
    M = "M"
    MTE1 = "MTE1"
    MTE2 = "MTE2"
    MTE3 = "MTE3"
    FIX = "FIX"
    ALL = "ALL"


class VectorCost(StrEnum):
    """The cost class of a vector instruction: what one 256 B repeat costs (``TargetSpec.cycles_per_repeat``)."""

    SIMPLE = "simple"  # add, mul, max, abs, relu, ...: ``vector_simple_cycles``
    TRANSCENDENTAL = "transcendental"  # exp, ln, sqrt, div: ``vector_transcendental_cycles_f32/_f16``


# ``unitFlag`` of Mmad and Fixpipe (``UnitFlag.md``): one flag per 512 B block of L0C. An Mmad waits until its blocks'
# flags are 0 (read out) and a Fixpipe until they are 1 (written); with 3 the op flips them when it is done with a
# block (Mmad: to 1, Fixpipe: to 0), with 2 it leaves them. 0 (off) is the default; 1 is reserved.
UNIT_FLAG_MODES = (2, 3)
UNIT_FLAG_BLOCK = 512


# the local memories of a core and the TargetSpec field holding each one's size
LOCAL_MEMORIES = {"UB": "ub_bytes", "L1": "l1_bytes", "L0A": "l0a_bytes", "L0B": "l0b_bytes", "L0C": "l0c_bytes",
                  "BT": "bt_bytes"}


@dataclass(frozen=True)
class TargetSpec:
    """The numbers of one chip. Cycle figures are per core at ``clock_ghz``."""

    name: str
    # 910B1/B2: 24 AIC + 48 AIV; B3/B4: 20 + 40 [O] (NPU架构版本2201.md)
    cube_cores: int
    vector_cores: int
    # 1.85 GHz (B1), 1.80 (B2, B3), 1.50 (B4) [T]
    clock_ghz: float
    # aggregate HBM bandwidth in bytes/s: ~1.6 TB/s (0.8 on B4) [T]
    hbm_bytes_per_s: float
    # device memory: 64 GB HBM on 910B1/B2/B3, 32 GB on 910B4 [T] (Atlas 800T A2 / 300I A2 data sheets)
    hbm_capacity_bytes: int = 64 * 2**30
    # UB 192 KB per AIV [O][C]; 184 KB usable (TOTAL_VEC_LOCAL_SIZE in the headers) [O]
    ub_bytes: int = 192 * 1024
    ub_usable_bytes: int = 184 * 1024
    # L1 512 KB, L0A/L0B 64 KB, L0C 128 KB per AIC [O]
    l1_bytes: int = 512 * 1024
    l0a_bytes: int = 64 * 1024
    l0b_bytes: int = 64 * 1024
    l0c_bytes: int = 128 * 1024
    # UB DataBlock, DataCopy granule and local-address alignment: 32 B [O]
    ub_block_bytes: int = 32
    # one vector repeat = 8 blocks = 256 B [O]
    repeat_bytes: int = 256
    max_repeats: int = 255
    # fixed cost per vector instruction [D]
    vector_fixed_cycles: int = 20
    # cycles per 256 B repeat for simple ops; exp/ln/sqrt/div: 2 (fp32) / 4 (fp16) [O]
    vector_simple_cycles: int = 1
    vector_transcendental_cycles_f32: int = 2
    vector_transcendental_cycles_f16: int = 4
    # fp16<->fp32 casts run at 64 elements per cycle [O]
    cast_elems_per_cycle: int = 64
    # whole-repeat reductions: 7 cycles per repeat [O]
    reduce_repeat_cycles: int = 7
    # Gather (element-wise, uint32 byte offsets) collects 5 elements per cycle [O]
    gather_elems_per_cycle: int = 5
    # Gatherb (32 B DataBlocks by uint32 byte offsets): 42 uint16 / 21 uint32 elements, 84 B, per cycle [O]
    gatherb_bytes_per_cycle: int = 84
    # GatherMask: 2 cycles per 256 B repeat of its source (64 half / 32 float elements per cycle) [O]
    gather_mask_repeat_cycles: int = 2
    # Transpose / TransDataTo5HD move 256 B per cycle [O] (a TransDataTo5HD repeat is 512 B)
    transpose_bytes_per_cycle: int = 256
    # MTE2 (GM->UB/L1) ~32 B/cycle per core, MTE3 (UB->GM) ~64 B/cycle [C]
    mte2_bytes_per_cycle: float = 32.0
    mte3_bytes_per_cycle: float = 64.0
    # about 100 cycles fixed cost per copy [E]; full efficiency from ~16 KB transfers [O]
    dma_fixed_cycles: int = 100
    dma_full_efficiency_bytes: int = 16 * 1024
    # L1->L0A 256 B/cycle, L1->L0B 128 B/cycle, FIX L0C->GM ~128 B/cycle [O]
    mte1_l0a_bytes_per_cycle: float = 256.0
    mte1_l0b_bytes_per_cycle: float = 128.0
    fix_bytes_per_cycle: float = 128.0
    # head overhead of one Mmad: not published, 16-64 cycles [E]; of one Fixpipe [E]
    mmad_fixed_cycles: int = 32
    fix_fixed_cycles: int = 32
    # L2 cache: 192 MB on 910B (96 MB on B4) [O]; an MTE2 read that hits L2 runs at ~110 B/cycle per core
    # (l2_read_rate in the .ini) instead of the HBM rate [C]
    l2_bytes: int = 192 * 2**20
    mte2_l2_bytes_per_cycle: float = 110.0
    # BiasTable 1 KB per AIC [O]
    bt_bytes: int = 1024
    # cube MACs per cycle: fp16/bf16 16x16x16, int8 16x16x32, fp32 16x16x4 [O]
    cube_macs_per_cycle: dict[str, int] = field(
        default_factory=lambda: {"f16": 4096, "bf16": 4096, "i8": 8192, "f32": 1024}
    )
    # scalar unit: one instruction issued per cycle; a scalar GM read through DCache [E]
    scalar_issue_cycles: int = 1
    scalar_gm_read_cycles: int = 50
    scalar_ub_read_cycles: int = 10
    # event ids 0-7 per (src, dst) pair; 6 and 7 reserved (TPipe auto-sync, system) [O]
    event_ids: int = 8
    usable_event_ids: int = 6
    # kernel launch overhead as seen on the device timeline [E]
    launch_overhead_us: float = 3.0
    # one hard SyncAll across the cores of a launch, from the last core's arrival (pipes drained) to every core
    # going on: not published; of the order of a microsecond [E]
    sync_all_cycles: int = 2000

    @property
    def clock_hz(self) -> float:
        return self.clock_ghz * 1e9

    @property
    def hbm_bytes_per_cycle(self) -> float:
        return self.hbm_bytes_per_s / self.clock_hz

    def memory_bytes(self, memory: str) -> int:
        """The size of a local memory (``UB``, ``L1``, ``L0A``, ``L0B``, ``L0C``)."""
        return getattr(self, LOCAL_MEMORIES[memory])

    def cycles_per_repeat(self, cost: VectorCost, elem_bytes: int) -> int:
        """Cycles of one 256 B repeat of a vector instruction of cost class ``cost`` on ``elem_bytes`` elements."""
        if cost == VectorCost.TRANSCENDENTAL:
            return self.vector_transcendental_cycles_f16 if elem_bytes <= 2 else self.vector_transcendental_cycles_f32
        return self.vector_simple_cycles

    def with_overrides(self, **kw) -> TargetSpec:
        return replace(self, **kw)


PRESETS: dict[str, TargetSpec] = {
    "ascend910b1": TargetSpec("ascend910b1", 24, 48, 1.85, 1.6e12),
    "ascend910b2": TargetSpec("ascend910b2", 24, 48, 1.80, 1.6e12),
    "ascend910b3": TargetSpec("ascend910b3", 20, 40, 1.80, 1.6e12),
    "ascend910b4": TargetSpec("ascend910b4", 20, 40, 1.50, 0.8e12, hbm_capacity_bytes=32 * 2**30,
                              l2_bytes=96 * 2**20),
}
DEFAULT_TARGET = "ascend910b2"


def get_target(name: str) -> TargetSpec:
    """The preset called ``name``; a clear error naming the known presets otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown target '{name}'; known targets: {', '.join(PRESETS)}") from None


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    """The chip a module is compiled for: ``#asc.target<"ascend910b2">``."""

    name = "asc.target"

    chip: StringAttr

    def __init__(self, chip: str):
        super().__init__(StringAttr(chip))

    @property
    def spec(self) -> TargetSpec:
        return get_target(self.chip.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_str_literal()),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.chip.data)

    def verify(self) -> None:
        if self.chip.data not in PRESETS:
            raise VerifyException(
                f"unknown target '{self.chip.data}'; known targets: {', '.join(PRESETS)}"
            )


TARGET_KEY = "asc.target"


def module_target(module, default: str = DEFAULT_TARGET) -> TargetSpec:
    """The target of a module: its ``asc.target`` attribute, or the chip named ``default``."""
    attr = module.attributes.get(TARGET_KEY)
    if isinstance(attr, TargetAttr):
        return attr.spec
    return get_target(default)


Asc = Dialect("asc", [], [TargetAttr])
