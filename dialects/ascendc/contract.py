"""The documented Ascend C contract on Atlas A2 (arch 2201): one table of rules, each with its doc page.

A rule is checked where its inputs are known: from constants in an op's verifier (``violation`` builds
the ``VerifyException``), from run-time values in the simulator (``runtime/contract.py`` reports a
finding of kind ``contract`` naming the rule). Doc pages are paths in the ``docs/`` tree of the
``asc-devkit`` repository; ``B/`` abbreviates ``docs/api/SIMD-API/基础API/``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.utils.exceptions import VerifyException

from ..target import UNIT_FLAG_MODES

_B = "docs/api/SIMD-API/基础API/"
_MV = _B + "Memory矢量计算/"
_PQ = _B + "资源管理/Pipe和Que框架/"
_SYNC = _B + "同步控制/核内同步/"
_STATIC = "docs/guide/编程指南/编程模型/AI-Core-SIMD编程/基于Tensor的CPP编程/静态Tensor编程.md"
_ND2NZ = _B + "矩阵计算（ISASI）/矩阵计算的搬入/矩阵数据搬入至L1-Buffer/GMToL1随路转换-ND2NZ搬运（DataCopy）.md"
_LOAD3D = _B + "矩阵计算（ISASI）/矩阵计算的搬入/矩阵数据搬入至L0-Buffer/Load3D.md"
_UNIT_FLAG = _B + "矩阵计算（ISASI）/Mmad计算/关键特性说明/UnitFlag.md"
_SYNC_ALL = _B + "同步控制/核间同步/SyncAll.md"


@dataclass(frozen=True)
class Rule:
    """One documented requirement: its id, the doc page it comes from and what it says."""

    id: str
    doc: str
    statement: str

    def cite(self) -> str:
        return f"[{self.id}] {self.statement} (doc: {self.doc})"


RULES: dict[str, Rule] = {r.id: r for r in (
    Rule("unit-flag-values", _UNIT_FLAG,
         "the unitFlag of Mmad and Fixpipe is 2 (wait on L0C's unit flags, leave them) or 3 (wait on them and flip "
         "them); 0 leaves them off and 1 is reserved"),
    Rule("datacopy-count-32b-floor", _MV + "数据搬运/GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md",
         "DataCopy count*sizeof(T) must be a multiple of 32 B (else it is rounded down)"),
    Rule("trans5hd-block-aligned", _MV + "数据排布转换/TransDataTo5HD.md",
         "every address of dstList and srcList is a 32 B aligned UB address (a DataBlock)"),
    Rule("trans5hd-repeat-range", _MV + "数据排布转换/TransDataTo5HD.md",
         "repeatTimes lies in [0, 255] (0: no operation)"),
    Rule("trans5hd-no-overlap", _MV + "数据排布转换/TransDataTo5HD.md",
         "source and destination overlap only completely within a repeat (the general UB overlap constraint, "
         "通用说明和约束.md): a repeat's destination blocks are its own source blocks or meet no source block"),
    Rule("gathermask-pattern-range", _MV + "比较与选择/GatherMask.md",
         "a built-in src1Pattern lies in [1, 7]"),
    Rule("gathermask-field-range", _MV + "比较与选择/GatherMask.md",
         "GatherMaskParams fields fit their types (src0BlockStride uint8_t; repeatTimes, src0RepeatStride uint16_t) "
         "and in counter mode mask lies in [1, 2^32 - 1]"),
    Rule("cmp-dtypes-modes-a2", _MV + "比较与选择/Compare.md",
         "Compare/Compares on int32_t support only CMPMODE::EQ (half and float: every mode)"),
    Rule("cmp-count-256b", _MV + "比较与选择/Compare.md",
         "Compare/Compares count*sizeof(T) must be a multiple of 256 B; a partial block is not computed"),
    Rule("reducemax-tmp-size", _MV + "归约计算/ReduceMax.md",
         "ReduceMax/ReduceMin need a work buffer of ceil(2*repeats/E_blk)*E_blk elements "
         "(more with calIndex)"),
    Rule("tque-max-buffers-per-pos-8", _PQ + "TQue/TQue简介.md",
         "at most 8 queue buffers (InitBuffer num summed) per TPosition: one event id each"),
    Rule("tpipe-event-pool-8", _PQ + "TPipe/AllocEventID.md",
         "AllocEventID takes one of the 8 event ids of its HardEvent (TQue简介.md: 8 on A2, shared with the "
         "TQue buffers) until ReleaseEventID; with all 8 taken there is none to allocate"),
    Rule("release-event-id-paired", _PQ + "TPipe/ReleaseEventID.md",
         "AllocEventID and ReleaseEventID come in pairs: ReleaseEventID gives back an id AllocEventID of the "
         "same HardEvent took"),
    Rule("flag-static-ids-0-5", _SYNC + "SetFlag-WaitFlag(ISASI).md",
         "kernels use event ids 0-5; 6 is reserved and 7 belongs to TPipe's automatic synchronisation"),
    Rule("static-api-whitelist-a2", _STATIC,
         "without a TPipe only the listed APIs may be used (ReduceMax/Min/Sum, CreateVecIndex and Select "
         "take event ids from the TPipe)"),
    Rule("initsoc-static-entry", _B + "工具接口/系统初始化/InitSocState.md",
         "a kernel without a TPipe calls InitSocState() at entry"),
    Rule("kernel-end-pipe-all", _STATIC,
         "a kernel without a TPipe ends with PipeBarrier<PIPE_ALL>() (the TPipe's destructor does it otherwise)"),
    Rule("nd2nz-zero-pad-32b", _ND2NZ,
         "ND2NZ rows of dValue*sizeof(T) not a multiple of 32 B are zero-padded to 32 B in L1"),
    Rule("nd2nz-no-overlap-l1", _ND2NZ,
         "ND2NZ writes to L1 must not overlap (their order is not guaranteed)"),
    Rule("load3dv2-field-range", _LOAD3D,
         "LoadData3DParamsV2 fields lie in their ranges (table 4): padList [0, 255], l1H/l1W [0, 32767], "
         "channelSize, kExtension, mExtension, kStartPt, mStartPt [0, 65535], strideW/H [0, 63], filterW/H and "
         "dilationFilterW/H [0, 255]"),
    Rule("load3dv2-channel-size-a2", _LOAD3D,
         "on Atlas A2 channelSize is 4, 8, N*16, N*16+4 or N*16+8 for half/bfloat16 and 4, N*8 or N*8+4 for "
         "float/int32_t/uint32_t"),
    Rule("load3dv2-kstart-c0", _LOAD3D,
         "kStartPt is a multiple of 32 B / sizeof(T) (16 for b16, 8 for b32)"),
    Rule("load3dv2-extension-multiple", _LOAD3D,
         "kExtension is a multiple of 32 B / sizeof(T) and mExtension (b16) of 16 unless they cover the "
         "rightmost / bottom fractal"),
    Rule("load3dv2-inside-img2col", _LOAD3D,
         "the rows and columns loaded lie in the img2col matrix of (Ho * Wo) x (filterH * filterW * "
         "channelSize) (its last 16-row fractal whole), the dilated filter fitting the padded feature map"),
    Rule("load3dv2-address-align", _LOAD3D,
         "a destination in L0A/L0B is 512 B aligned, a source in L1 32 B aligned"),
    Rule("local-extent", _PQ + "TPipe/InitBuffer.md",
         "an access stays inside the local tensor's allocated buffer (InitBuffer len, TBuf length)"),
    Rule("local-initcheck", _PQ + "TQue/AllocTensor.md",
         "an allocated tensor's content may be random values: what is computed from local memory never "
         "written is not stored, fed to the cube or used as an address"),
    Rule("local-no-overlap", _PQ + "TPipe/InitBuffer.md",
         "two live local buffers do not share memory"),
    Rule("sync-all-kernel-type", _SYNC_ALL,
         "a vector kernel that calls the hard SyncAll (isAIVOnly = true) is declared __mix__(0, 1) "
         "(KERNEL_TYPE_MIX_AIV_1_0), not __vector__"),
    Rule("sync-all-blocks", _SYNC_ALL,
         "a kernel that synchronises its cores (SyncAll) is launched on at most as many blocks as the chip has cores "
         "to run them at once; with more, the kernel hangs"),
    Rule("cross-core-gm-sync", _SYNC_ALL,
         "when cores of a launch read what another core writes to the same GM, or write what it reads or writes "
         "(read after write, write after read, write after write), a SyncAll separates the two accesses"),
    Rule("sync-all-every-core", _SYNC_ALL,
         "SyncAll returns once every core of the launch has called it: a core that ends, or calls it fewer times, "
         "leaves the others waiting forever"),
    Rule("crosscore-gm-handoff", _B + "同步控制/核间同步/CrossCoreSetFlag(ISASI).md",
         "what one core of an AI Core writes to GM, another reads only after a CrossCoreWaitFlag on a flag the "
         "writer sets after the write (the set reports its pipe's earlier work done; the wait blocks every later "
         "instruction until it arrives)"),
)}


class ContractError(VerifyException):
    """An op whose constants break a documented rule; ``rule`` is the ``Rule``."""

    def __init__(self, rule: Rule, detail: str):
        super().__init__(f"{detail}: {rule.cite()}")
        self.rule = rule


def violation(rule_id: str, detail: str) -> ContractError:
    """The verifier error for rule ``rule_id`` (``detail`` names the values that break it)."""
    return ContractError(RULES[rule_id], detail)


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]


def unit_flag_of(op) -> int:
    """The ``unitFlag`` of an Mmad or a Fixpipe (its ``unit_flag`` property; 0: off)."""
    return op.unit_flag.value.data if op.unit_flag is not None else 0


def check_unit_flag(op) -> None:
    """Raises the ``unit-flag-values`` violation for an op whose ``unitFlag`` is not 0 (absent), 2 or 3."""
    value = unit_flag_of(op)
    if value and value not in UNIT_FLAG_MODES:
        raise violation("unit-flag-values", f"{op.name}: unitFlag {value} is not one of 2 and 3 (0, off, is written "
                        "by leaving it out; 1 is reserved)")
