"""``ascendc-merge-launches``: consecutive launches of vector kernels become one launch whose cores meet at ``SyncAll``.

Every launch costs ``launch_overhead_us`` on the device; a ``SyncAll`` of the cores of one launch costs less
(``sync_all_cycles``). So a run of launches in a host function, one right after the other (allocations between
them move before the run), whose kernels

* run on the vector cores alone (``aiv_only``, or ``mix_aiv_1_0``: merged before) and take their local memory
  from a TPipe alone (no static ``LocalTensor``: the next part would find its bytes as this one left them),
* are launched on at most as many blocks as the chip has vector cores (SyncAll.md: more would hang),

becomes one kernel ``k0; SyncAll; k1; SyncAll; ...`` launched once on the most blocks of any of them (a kernel
launched elsewhere too is copied in). A part launched on fewer blocks runs under ``if (GetBlockIdx() < n)`` and
sees ``GetBlockNum() == n``. Before each ``SyncAll`` (which drains the core's pipes) the TPipe gives its buffers
and event ids back (``TPipe::Reset``, Reset.md): a kernel has one TPipe, made first, which every part uses in
turn; a kernel with none starts with ``InitSocState()``.

SyncAll.md asks for a ``SyncAll`` between accesses of different cores to the same GM with a read-after-write,
write-after-read or write-after-write dependency. So the parts run by levels: a part one level above the highest
earlier part it depends on (by its ops' ``BufferEffects``, on the host buffers its launch passed: an allocation,
or any argument of the host function, which may share memory with another), a ``SyncAll`` between two levels,
and within a level the parts in their order, each after a ``PipeBarrier<PIPE_ALL>`` (the core's own pipes drained
before the TPipe is reset). The merged kernel is ``KERNEL_TYPE_MIX_AIV_1_0`` (the kernel
type SyncAll.md asks of a vector kernel that synchronises its cores) when it calls ``SyncAll``, else
``aiv_only``, and takes the first kernel's name (``<name>_merged`` while that kernel is launched elsewhere too).
The launches' arguments are merged, each host value once.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, Region
from xdsl.passes import ModulePass

from pyasc.dialects import ascendc as A
from pyasc.dialects.ascendc.attributes import PipeKind
from pyasc.dialects.ascendc.gm_access import gm_effects
from pyasc.dialects.ascendc.mix import AIV_ONLY, KERNEL_TYPE_ATTR, MIX_AIV_1_0
from pyasc.dialects.target import module_target

MERGEABLE_TYPES = (AIV_ONLY, MIX_AIV_1_0)
MOVABLE = (memref.AllocOp, arith.ConstantOp)  # host ops a run of launches may step over (they move before it)


def _kernels(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in module.body.block.ops
            if isinstance(op, func.FuncOp) and A.KERNEL_ATTR in op.attributes}


def _launch_counts(module: ModuleOp) -> dict[str, int]:
    counts: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, A.LaunchOp):
            name = op.kernel.root_reference.data
            counts[name] = counts.get(name, 0) + 1
    return counts


def _mergeable(launch: A.LaunchOp, kernels: dict, cores: int) -> bool:
    name = launch.kernel.root_reference.data
    kernel = kernels.get(name)
    if kernel is None or not 1 <= launch.block_dim.value.data <= cores:
        return False
    kind = kernel.attributes.get(KERNEL_TYPE_ATTR)
    if not isinstance(kind, StringAttr) or kind.data not in MERGEABLE_TYPES:
        return False
    # local memory only from the TPipe, whose Reset ends the part's buffers (no static LocalTensor, whose bytes
    # the next part would find as this one left them)
    return not any(isinstance(op, A.LocalTensorOp) for op in kernel.walk())


def _runs(block: Block, kernels: dict, cores: int) -> list[list[A.LaunchOp]]:
    """The runs of two or more mergeable launches of a host block, the movable ops between them moved before
    each run."""
    runs, run, between = [], [], []
    for op in list(block.ops):
        if isinstance(op, A.LaunchOp) and _mergeable(op, kernels, cores):
            run.append(op)
            for moved in between:
                moved.detach()
                block.insert_op_before(moved, run[0])
            between = []
        elif run and isinstance(op, MOVABLE):
            between.append(op)
        else:
            if len(run) > 1:
                runs.append(run)
            run, between = [], []
    if len(run) > 1:
        runs.append(run)
    return runs


HOST_ARGUMENTS = "host arguments"  # the buffer every argument of the host function may be


def _buffer(value):
    """The host buffer a launch argument is: the allocation it views (through host views of one memref),
    ``HOST_ARGUMENTS`` for an argument of the host function (which may share memory with another), or None when
    its memory comes from elsewhere."""
    while not isinstance(value, BlockArgument) and not isinstance(value.owner, memref.AllocOp):
        sources = [o for o in value.owner.operands if isinstance(o.type, MemRefType)]
        if len(sources) != 1:
            return None
        value = sources[0]
    return HOST_ARGUMENTS if isinstance(value, BlockArgument) else value


def _gm_buffers(launch: A.LaunchOp, kernel: func.FuncOp) -> tuple[set, set] | None:
    """The host buffers (``_buffer``) a launch of ``kernel`` reads and writes as GM; None when one of them is not
    known, or an op of it touches a global tensor of unknown origin."""
    args = list(kernel.body.block.args)
    reads, writes = set(), set()
    for op in kernel.walk():
        r, w, known = gm_effects(op)
        if not known:
            return None
        reads |= {_buffer(launch.args[args.index(a)]) for a in r if a in args}
        writes |= {_buffer(launch.args[args.index(a)]) for a in w if a in args}
    return None if None in reads | writes else (reads, writes)


def _depends(part: tuple | None, before: tuple | None) -> bool:
    """Whether a part with GM buffers ``part`` (reads, writes) has a RAW, WAR or WAW dependency on ``before``."""
    if part is None or before is None:
        return True
    return bool(part[0] & before[1] or part[1] & (before[0] | before[1]))


def _levels(buffers: list) -> list[int]:
    """Each part's level: 0, or one more than the highest level of an earlier part it depends on (``_depends``).
    The parts run level by level, in their order within one, with a ``SyncAll`` between two levels: the parts of
    one level touch no GM another of them writes, and every dependency crosses a ``SyncAll``."""
    levels: list[int] = []
    for i, part in enumerate(buffers):
        levels.append(max((levels[j] + 1 for j in range(i) if _depends(part, buffers[j])), default=0))
    return levels


def _take_body(kernel: func.FuncOp, args: list, block_dim: int, merged_dim: int, into: Block) -> list[A.TPipeOp]:
    """Moves ``kernel``'s body into ``into`` (under ``if (GetBlockIdx() < block_dim)`` when the merged launch has
    more blocks), its arguments replaced by ``args``; returns its TPipes (still in place)."""
    body = kernel.body.block
    for old, new in zip(body.args, args):
        old.replace_all_uses_with(new)
    ops = [op for op in body.ops if not isinstance(op, func.ReturnOp)]
    for op in ops:
        op.detach()
    pipes = [op for op in ops if isinstance(op, A.TPipeOp)]
    if block_dim < merged_dim:
        bid = A.GetBlockIdxOp()
        n = arith.ConstantOp(IntegerAttr(block_dim, IndexType()))
        cond = arith.CmpiOp(bid.result, n.result, "ult")
        inner = Block()
        for op in pipes:  # the TPipe stays outside the guard: every part uses it
            into.add_op(op)
        for op in ops:
            if op not in pipes:
                inner.add_op(op)
        inner.add_op(scf.YieldOp())
        into.add_ops([bid, n, cond, scf.IfOp(cond.result, [], Region(inner))])
        for op in [o for o in inner.walk() if isinstance(o, A.GetBlockNumOp)]:  # the part's own block count
            const = arith.ConstantOp(IntegerAttr(block_dim, IndexType()))
            op.parent_block().insert_op_before(const, op)
            op.result.replace_all_uses_with(const.result)
            const.result.name_hint = op.result.name_hint
            op.detach()
            op.erase()
    else:
        into.add_ops(ops)
    return pipes


def merge_run(module: ModuleOp, run: list[A.LaunchOp], kernels: dict, counts: dict) -> func.FuncOp:
    """One kernel for the launches of ``run`` (see the module docstring), launched in their place; ``counts``: the
    launches of each kernel left (one launched elsewhere too is copied in; the others are moved in and erased)."""
    names = [launch.kernel.root_reference.data for launch in run]
    parts = []
    for part in names:
        counts[part] -= 1
        parts.append(kernels[part].clone() if counts[part] else kernels[part])
    merged_dim = max(launch.block_dim.value.data for launch in run)
    sources: dict = {}  # host value -> the kernel argument it first came in as
    for launch, kernel in zip(run, parts):
        for v, arg in zip(launch.args, kernel.body.block.args):
            sources.setdefault(v, arg)
    host_args = list(sources)
    symbols = {op.sym_name.data for op in module.body.block.ops if isinstance(op, func.FuncOp)}
    name = names[0]
    if counts[name]:  # the first kernel stays: a name of its own
        name = next(f"{names[0]}_merged{k or ''}" for k in range(len(symbols) + 1)
                    if f"{names[0]}_merged{k or ''}" not in symbols)
    merged = func.FuncOp(name, ([arg.type for arg in sources.values()], []))
    block = merged.body.block
    for new, arg in zip(block.args, sources.values()):
        new.name_hint = arg.name_hint
    levels = _levels([_gm_buffers(launch, kernel) for launch, kernel in zip(run, parts)])
    pipe, level = None, 0
    for k, i in enumerate(sorted(range(len(run)), key=lambda i: (levels[i], i))):
        launch, kernel = run[i], parts[i]
        if levels[i] > level:  # SyncAll drains the core's pipes before it waits
            if pipe is not None:
                block.add_op(A.TPipeResetOp(pipe.result))
            block.add_op(A.SyncAllOp())
            level = levels[i]
        elif k:  # no other core's part of this level touches what this one does: the core's own pipes drained
            block.add_op(A.PipeBarrierOp(PipeKind.PIPE_ALL))
            if pipe is not None:
                block.add_op(A.TPipeResetOp(pipe.result))
        args = [block.args[host_args.index(v)] for v in launch.args]
        for p in _take_body(kernel, args, launch.block_dim.value.data, merged_dim, block):
            if pipe is None:
                pipe = p
                p.detach()
                block.insert_op_before(p, block.first_op) if block.first_op is not None else block.add_op(p)
            else:
                p.result.replace_all_uses_with(pipe.result)
                p.detach()
                p.erase()
    if pipe is None and not isinstance(block.first_op, A.InitSocStateOp):  # a kernel without a TPipe starts so
        block.insert_op_before(A.InitSocStateOp(), block.first_op)
    block.add_op(func.ReturnOp())
    first = kernels[names[0]]
    merged.attributes[A.KERNEL_ATTR] = first.attributes[A.KERNEL_ATTR]
    merged.attributes[A.BLOCK_DIM_ATTR] = IntegerAttr(merged_dim, 64)
    merged.attributes[KERNEL_TYPE_ATTR] = StringAttr(MIX_AIV_1_0 if level else AIV_ONLY)
    module.body.block.insert_op_before(merged, first)
    for kernel_name, kernel in zip(names, parts):
        if kernel.parent is not None and not counts[kernel_name]:  # moved in and launched nowhere else
            del kernels[kernel_name]
            kernel.detach()
            kernel.erase()
    new_launch = A.LaunchOp(merged.sym_name.data, merged_dim, host_args)
    if "asc.loc" in run[0].attributes:
        new_launch.attributes["asc.loc"] = run[0].attributes["asc.loc"]
    run[0].parent_block().insert_op_before(new_launch, run[0])
    for launch in run:
        launch.detach()
        launch.erase()
    kernels[merged.sym_name.data] = merged
    counts[merged.sym_name.data] = 1
    return merged


def merge_launches(module: ModuleOp) -> int:
    """Merges every run of consecutive vector-kernel launches of ``module``; how many launches were saved."""
    cores = module_target(module).vector_cores
    kernels = _kernels(module)
    counts = _launch_counts(module)
    saved = 0
    hosts = [op for op in module.body.block.ops if isinstance(op, func.FuncOp) and A.KERNEL_ATTR not in op.attributes]
    for host in hosts:
        if not host.body.blocks:
            continue
        for run in _runs(host.body.block, kernels, cores):
            merge_run(module, run, kernels, counts)
            saved += len(run) - 1
    return saved


@dataclass(frozen=True)
class AscendCMergeLaunchesPass(ModulePass):
    """Merge consecutive launches of vector kernels into one launch whose cores meet at SyncAll."""

    name = "ascendc-merge-launches"
    INPUT_LEVEL = "ascendc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        merge_launches(op)
