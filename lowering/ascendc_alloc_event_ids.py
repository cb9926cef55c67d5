"""``ascendc-alloc-event-ids``: a kernel with a TPipe takes its flags' event ids from the TPipe.

The TPipe hands out the event ids of each ``HardEvent`` (``AllocEventID``, 8 per event on arch 2201) to
its queues and to the library routines that synchronise inside (ReduceMax, Select, ... fetch a free id of
``V_S``). A literal id in such a kernel can be the one a queue or a routine holds at that moment (the
static-tensor guide: APIs off its list "depend on TPipe to allocate event IDs, which may conflict with the
developer's event IDs"); the TPipe pages ask for ``AllocEventID``/``ReleaseEventID``. So, per core with a
TPipe:

* every event id ``k`` of ``HardEvent`` ``E`` the kernel's flags use (a constant, or an index expression
  whose values are known: ``(i mod n) + base``) gets ``eIdk = pipe.AllocEventID<E>()`` right after
  the TPipe and ``pipe.ReleaseEventID<E>(eIdk)`` before the core's work ends;
* a flag on constant ``k`` uses ``eIdk``; one on a computed id ``v`` uses a select over ``v``'s
  values (``v == k0 ? eIdk0 : eIdk1``), computed where ``v`` is.

The mapping from the kernel's ids to the allocated ones is one to one per event, so every set still meets
the wait it met before. A core whose flag ids cannot all be evaluated is left as it is. Kernels without a
TPipe (static tensors) keep the fixed ids the static-tensor guide documents (the developer manages them;
not 6 and 7).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascendc as A

from .emitter import copy_loc

MAX_IDS = 64  # an id expression with more possible values than this is left alone


def _values(v: SSAValue) -> frozenset[int] | None:
    """The values index ``v`` can take, when it is built from constants, ``+``, ``-``, ``*`` and ``mod c``."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return frozenset({op.value.value.data})
    if isinstance(op, arith.RemUIOp):
        c = _values(op.rhs)
        if c is not None and len(c) == 1 and next(iter(c)) > 0:
            return frozenset(range(next(iter(c))))
        return None
    fns = {arith.AddiOp: int.__add__, arith.SubiOp: int.__sub__, arith.MuliOp: int.__mul__}
    fn = fns.get(type(op))
    if fn is None:
        return None
    a, b = _values(op.lhs), _values(op.rhs)
    if a is None or b is None or len(a) * len(b) > MAX_IDS:
        return None
    return frozenset(fn(x, y) for x in a for y in b)


def _core_blocks(kernel: func.FuncOp) -> list[Block]:
    sections = [o for o in kernel.body.block.ops if isinstance(o, A.CoreSectionOp)]
    return [s.body.block for s in sections] if sections else [kernel.body.block]


def _name(event: A.HardEvent) -> str:
    """``mte2VId`` for ``MTE2_V``."""
    camel = "".join(part.capitalize() for part in event.value.split("_"))
    return camel[0].lower() + camel[1:] + "Id"


def alloc_event_ids(block: Block) -> bool:
    """Rewrite the flags of one core's block (see the module docstring); False when left alone."""
    pipe = next((o for o in block.ops if isinstance(o, A.TPipeOp)), None)
    if pipe is None:
        return False
    flags = [o for o in block.walk() if isinstance(o, A.SetFlagOp | A.WaitFlagOp)]
    ids: dict[SSAValue, frozenset[int]] = {}
    for f in flags:
        if f.event_id not in ids:
            vals = _values(f.event_id)
            if vals is None or not all(0 <= k < 8 for k in vals):
                return False
            ids[f.event_id] = vals
    if not flags:
        return False
    used: dict[A.HardEvent, set[int]] = {}
    for f in flags:
        used.setdefault(f.event.data, set()).update(ids[f.event_id])

    # the allocations right after the TPipe, the releases where the core's work ends
    taken: dict[tuple[A.HardEvent, int], SSAValue] = {}
    point = InsertPoint.after(pipe)
    order = list(A.HardEvent)
    allocs = []
    for ev in sorted(used, key=order.index):
        for k in sorted(used[ev]):
            a = copy_loc(pipe, A.AllocEventIdOp(pipe.result, ev))
            a.result.name_hint = f"{_name(ev)}{k}"
            Rewriter.insert_op(a, point)
            point = InsertPoint.after(a)
            taken[(ev, k)] = a.result
            allocs.append((ev, a.result))
    last = block.last_op
    end = InsertPoint.before(last) if isinstance(last, func.ReturnOp) else InsertPoint.at_end(block)
    for ev, v in allocs:
        Rewriter.insert_op(A.ReleaseEventIdOp(pipe.result, ev, v), end)

    # each flag on the allocated id its own id maps to
    chosen: dict[tuple[A.HardEvent, SSAValue], SSAValue] = {}
    for f in flags:
        ev, v = f.event.data, f.event_id
        key = (ev, v)
        if key not in chosen:
            vals = sorted(ids[v])
            if len(vals) == 1:
                chosen[key] = taken[(ev, vals[0])]
            else:
                chosen[key] = _select(v, [(k, taken[(ev, k)]) for k in vals], f, _name(ev))
        f.operands[0] = chosen[key]
    return True


def _select(v: SSAValue, cases: list[tuple[int, SSAValue]], loc_from: Operation, name: str) -> SSAValue:
    """``v == k0 ? e0 : (v == k1 ? e1 : ... e_last)``, inserted right after ``v`` is computed."""
    point = InsertPoint.at_start(v.block) if isinstance(v, BlockArgument) else InsertPoint.after(v.owner)
    result = cases[-1][1]
    ops: list[Operation] = []
    for k, e in reversed(cases[:-1]):
        c = arith.ConstantOp(IntegerAttr(k, IndexType()))
        eq = arith.CmpiOp(v, c.result, "eq")
        sel = arith.SelectOp(eq.result, e, result)
        sel.result.name_hint = name
        ops += [c, eq, sel]
        result = sel.result
    for o in ops:
        Rewriter.insert_op(copy_loc(loc_from, o), point)
        point = InsertPoint.after(o)
    return result


@dataclass(frozen=True)
class AscendCAllocEventIdsPass(ModulePass):
    """Take the event ids of every kernel with a TPipe from ``AllocEventID`` (see the module docstring)."""

    name = "ascendc-alloc-event-ids"
    INPUT_LEVEL = "ascendc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and A.KERNEL_ATTR in f.attributes:
                for block in _core_blocks(f):
                    alloc_event_ids(block)
