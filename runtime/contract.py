"""The simulator's side of the documented Ascend C contract (the rules: ``ascendc.contract.RULES``).

Rules that depend on run-time values (counts, addresses, what memory was written) are checked by the
code the op handlers generate: they call ``_rule(rule_id, sid, bid, detail)``, which adds a finding of
kind ``contract`` naming the op, its source line, the rule and its doc page. Under the hazard policy
``"error"`` (the test suite's) a run with such a finding fails.

Rules about a kernel's structure (a kernel without a TPipe: the APIs it may call, ``InitSocState`` at
entry and ``PipeBarrier<PIPE_ALL>`` at the end) are checked once per kernel by ``kernel_findings`` and
reported on every run.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.contract import RULES
from pyasc.dialects.types import numpy_dtype

def make_rule(infos, ctx):
    """``_rule(rule_id, sid, bid, detail)`` for the generated code of one kernel; ``detail``: the finding's text, or
    (API, first byte, bytes, the buffer's first byte, its length) of an access outside its buffer
    (``check_extents``: the text is made only when the rule is broken)."""

    def _rule(rule_id: str, sid: int, bid: int, detail) -> None:
        if isinstance(detail, tuple):
            api, at, n, base, length = detail
            detail = f"{api} accesses bytes [{at}, {at + n}) of a buffer at [{base}, {base + length})"
        r = RULES[rule_id]
        i = infos[sid]
        ctx.log.add("contract", f"{detail}: {r.statement} (doc: {r.doc})", i.kernel, i.text, bid, key=(rule_id,),
                    loc=i.loc, rule=rule_id)

    return _rule


def _walk(op: Operation):
    for region in op.regions:
        for block in region.blocks:
            for o in block.ops:
                yield o
                yield from _walk(o)


def core_bodies(kernel: func.FuncOp) -> list[list[Operation]]:
    """The ops each core runs at the top level: the kernel's, or each core section's (MIX)."""
    body = list(kernel.body.block.ops)
    sections = [o for o in body if isinstance(o, asc.CoreSectionOp)]
    return [list(s.body.block.ops) for s in sections] if sections else [body]


def kernel_findings(kernel: func.FuncOp) -> list[tuple[str, Operation, str]]:
    """(rule id, op, detail) for each structural rule the kernel breaks."""
    ops = list(_walk(kernel))
    out = overlap_findings(kernel)
    if any(isinstance(o, asc.TPipeOp) for o in ops):
        return out
    for o in ops:
        if getattr(o, "NEEDS_TPIPE", False):
            out.append(("static-api-whitelist-a2", o, f"{o.API} in a kernel without a TPipe"))
    for ops_ in core_bodies(kernel):
        ops_ = [o for o in ops_ if not isinstance(o, func.ReturnOp)]
        if not ops_:
            continue
        first = ops_[0]
        if not isinstance(first, asc.InitSocStateOp):
            out.append(("initsoc-static-entry", first, "the kernel does not start with InitSocState()"))
        last = ops_[-1]
        if not (isinstance(last, asc.PipeBarrierOp) and last.pipe.data == asc.PipeKind.PIPE_ALL):
            out.append(("kernel-end-pipe-all", last, "the kernel does not end with PipeBarrier<PIPE_ALL>()"))
    return out


@lru_cache(maxsize=256)
def nd2nz_overlap(nd: int, n: int, d: int, es: int, c0_stride: int, n_stride: int, mat_stride: int) -> bool:
    """Whether an ND2NZ copy writes some 32 B block of L1 twice: each row of each matrix writes
    ``ceil(d * es / 32)`` blocks (zero-padded), block ``j`` of row ``r`` of matrix ``i`` at byte
    ``i * mat_stride * es + (j * c0_stride + r * n_stride) * 32``."""
    if nd <= 0 or n <= 0 or d <= 0:
        return False
    blocks = -(-d * es // 32)
    starts = (np.arange(nd, dtype=np.int64)[:, None, None] * (mat_stride * es)
              + np.arange(blocks, dtype=np.int64)[None, :, None] * (c0_stride * 32)
              + np.arange(n, dtype=np.int64)[None, None, :] * (n_stride * 32)).ravel()
    starts.sort()
    return bool(np.any(np.diff(starts) < 32))


def _root(value):
    """The op that allocated the local tensor ``value`` (through subviews and reinterpret casts)."""
    owner = value.owner
    while isinstance(owner, asc.SubviewOp | asc.ReinterpretCastOp):
        owner = owner.operands[0].owner
    return owner


def extent_of(t, value) -> tuple[str, str] | None:
    """(base address, length in bytes) expressions of the buffer a local tensor value lies in: a static
    tensor's, a queue buffer's (InitBuffer len) or a TBuf's; None when it is not known."""
    root = _root(value)
    if isinstance(root, asc.LocalTensorOp):
        es = numpy_dtype(root.result.type.element_type).itemsize
        return str(root.address.value.data), str(root.size.value.data * es)
    if isinstance(root, asc.AllocTensorOp | asc.DeQueOp):
        return t.v(root.result), f"{t.v(root.queue)}.length"
    if isinstance(root, asc.TBufGetOp):
        return t.v(root.result), f"{t.v(root.buffer)}.length"
    return None


def check_extents(t, sid: int, api: str, operands: list[tuple]) -> None:
    """Emit the extent check of each (local tensor value, address expression, bytes expression[, rule id];
    the rule: ``local-extent`` unless given)."""
    for value, addr, nbytes, *rule in operands:
        rule_id = rule[0] if rule else "local-extent"
        ext = extent_of(t, value)
        if ext is None:
            continue
        base, length = ext
        cond = f"{nbytes} > {length}" if addr == base else \
            f"{addr} < {base} or {addr} + {nbytes} > {base} + {length}"
        t.emit(f"if {cond}: _rule('{rule_id}', {sid}, bid, ('{api}', {addr}, {nbytes}, {base}, {length}))")



def _live_range(value, index: dict) -> tuple[int, int] | None:
    """(first, last) walk index of the ops using a local tensor, through subviews and casts."""
    lo = hi = None
    work = [value]
    while work:
        v = work.pop()
        for use in v.uses:
            op = use.operation
            if isinstance(op, asc.SubviewOp | asc.ReinterpretCastOp):
                work.append(op.results[0])
                continue
            i = index.get(op)
            if i is not None:
                lo = i if lo is None else min(lo, i)
                hi = i if hi is None else max(hi, i)
    return None if lo is None else (lo, hi)


def overlap_findings(kernel: func.FuncOp) -> list[tuple[str, Operation, str]]:
    """``local-no-overlap``: static local tensors of one memory whose bytes and live ranges (first to
    last use in program order) both overlap."""
    ops = list(_walk(kernel))
    index = {o: i for i, o in enumerate(ops)}
    tensors = []
    for o in ops:
        if isinstance(o, asc.LocalTensorOp):
            live = _live_range(o.result, index)
            if live is not None:
                es = numpy_dtype(o.result.type.element_type).itemsize
                mem = asc.POSITION_MEMORY.get(o.position.data, "UB")
                tensors.append((o, mem, o.address.value.data, o.address.value.data + o.size.value.data * es, live))
    out = []
    for i, (a, ma, a0, a1, la) in enumerate(tensors):
        for b, mb, b0, b1, lb in tensors[i + 1:]:
            if ma == mb and a0 < b1 and b0 < a1 and la[0] <= lb[1] and lb[0] <= la[1]:
                out.append(("local-no-overlap", b, f"{mb} bytes [{b0}, {b1}) overlap [{a0}, {a1}) of another "
                                                   f"local tensor live at the same time"))
    return out
