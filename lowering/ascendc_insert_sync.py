"""``ascendc-insert-sync``: the flags and barriers an ``ascendc`` kernel is missing, added where needed.

For kernels written against the ``ascendc`` dialect directly (the kernel DSL ``pyasc.kernel`` traces
into it), the synchronisation written by hand is kept, and every dependency it leaves unordered
(``pyasc.lowering.analysis.kernel_sync``) gets, right before the op that must wait:

* between two pipes, ``SetFlag<SRC_DST>(id); WaitFlag<SRC_DST>(id)`` (all earlier work of SRC is done
  before DST goes on; ``id`` is the lowest of the ids 0..5 hand-written code may use that no other flag of
  that event uses; pairs whose wait is on the scalar unit share one, since the scalar issues nothing after
  the wait until it has passed, so the next set of the id finds it clear);
* inside an overlapping pipe (RAW or WAW on V, MTE2, MTE3, FIX), ``PipeBarrier<PIPE_X>``;
* a pipe pair without a ``HardEvent`` (or no free event id), ``PipeBarrier<PIPE_ALL>``.

Each core section of a MIX kernel is handled on its own. Ops added carry the location of the op that
waits, so findings and the emitted source name the user's line.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascendc as A
from pyasc.dialects.target import Pipe

from .analysis.kernel_sync import Need, analyse, bodies, used_flag_ids

MAX_ROUNDS = 64
EVENT_IDS = range(6)  # ids 6 and 7 are the system's and TPipe's (rule ``flag-static-ids-0-5``)


def _event(src: Pipe, dst: Pipe) -> A.HardEvent | None:
    try:
        return A.HardEvent(f"{src.value}_{dst.value}")
    except ValueError:
        return None


def _free_id(used: set) -> int | None:
    if None in used:
        return None
    return next((i for i in EVENT_IDS if i not in used), None)


def _sync_ops(need: Need, used: dict) -> list:
    if need.src == need.dst:
        return [A.PipeBarrierOp(A.PipeKind(f"PIPE_{need.dst.value}"))]
    ev = _event(need.src, need.dst)
    eid = None if ev is None else _free_id(used.get(ev, set()))
    if eid is None:
        return [A.PipeBarrierOp(A.PipeKind.PIPE_ALL)]
    if need.dst != Pipe.S:
        used.setdefault(ev, set()).add(eid)
    c = arith.ConstantOp.from_int_and_width(eid, IndexType())
    return [c, A.SetFlagOp(ev, c.result), A.WaitFlagOp(ev, c.result)]


def insert_sync(body: Block, args: dict | None = None) -> int:
    """Add the missing synchronisation to one core's body; how many ops that wait were added. The
    earliest unordered op in the trace is synchronised first (flags from other pipes before a barrier of
    its own, which they often make unnecessary), then the kernel is analysed again, so a wait added for
    one op also serves the ops after it; at the end, an added wait that another one made unnecessary is
    removed again. ``args``: kernel argument index -> the integer scalar it holds, for a kernel compiled
    for those values only (see ``kernel_sync.walk``)."""
    added: list[list] = []
    used = used_flag_ids(body, args)  # the kernel's own flags, and the ids of the pairs added that no other takes
    rounds = max(MAX_ROUNDS, sum(1 for _ in body.walk()))  # each round orders at least one more op
    for _ in range(rounds):
        needs = analyse(body, args=args)
        if not needs:
            break
        first = needs[0].consumer
        mine = [n for n in needs if n.consumer is first]
        cross = [n for n in mine if n.src != n.dst]
        for src in dict.fromkeys(n.src for n in (cross or mine)):
            need = next(n for n in mine if n.src == src)
            ops = _sync_ops(need, used)
            loc = first.attributes.get("asc.loc")
            for op in ops:
                if loc is not None:
                    op.attributes["asc.loc"] = loc
            Rewriter.insert_op(ops, InsertPoint.before(first))
            added.append(ops)
    else:
        raise RuntimeError(f"ascendc-insert-sync: still unordered after {rounds} rounds: "
                           f"{analyse(body, args=args)[0].describe()}")
    for ops in list(added):
        if not analyse(body, skip=frozenset(ops), args=args):
            for op in reversed(ops):
                op.detach()
                op.erase()
            added.remove(ops)
    return len(added)


@dataclass(frozen=True)
class AscendCInsertSyncPass(ModulePass):
    """Complete the synchronisation of every ``ascendc`` kernel (``ascendc.kernel`` functions)."""

    name = "ascendc-insert-sync"
    INPUT_LEVEL = "ascendc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and A.KERNEL_ATTR in f.attributes:
                for body in bodies(f):
                    insert_sync(body)
