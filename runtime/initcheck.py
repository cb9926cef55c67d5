"""Initcheck of one core's trace: a use of local memory (UB, L1, L0A, L0B, L0C) that no earlier op of the
core defined is a finding naming the op, its source line and the rule ``local-initcheck`` (memory handed
out by ``AllocTensor``, a TBuf or a static ``LocalTensor`` holds whatever was there before).

As in a memory checker that tracks definedness, undefined bytes are followed, not reported where they are
first read: an op with the ``CarriesUndefined`` trait (elementwise vector ops, casts, compares, selects,
UB copies, reductions, ``GetValue``/``SetValue``, ``Duplicate`` of a scalar) makes its results undefined where
its inputs are, per lane or as a whole; a ``Gather``, ``GatherMask`` or ``TransDataTo5HD`` follows each lane from the element
it reads; a scalar read from undefined bytes makes the ops using it write undefined results. Undefined bytes
are reported where they are used otherwise: copied to global memory, read by the cube, or used as Gather
offsets. So lanes past a tail, which a kernel computes but never stores, are not findings, while a deleted
copy-in or a missing initialisation that reaches a stored result is.

The check runs for every simulation, unless the simulator is made with ``initcheck=False`` or the default
is turned off (``set_initcheck_default(False)``).

The trace records, per op, the local regions it touches in the hazard checker's address space
(``costs.local_layout``) and ``OpInfo.writes`` says which of them it writes; a ``DataCopyPad`` or
``Gather`` record ends with a block pattern, so only the bytes of its blocks count. A shadow of one byte per local byte (a
``bytearray``: C-speed slice stores and ``find``) holds 1 for defined bytes, in program order; reads of an
op are checked before its writes (an op reading and writing the same bytes, ``Add(x, x, y)``, reads first).
An ``Mmad`` that accumulates (``cmatrixInitVal`` false; its trace ``aux`` is 1) also reads its L0C block.
Cores start with nothing defined, and a TPipe's ``Reset`` (an op that ``FORGETS_LOCAL_MEMORY``) leaves nothing
defined: the buffers handed out after it hold whatever was there before.

The check depends only on the trace, so cores with identical traces share it (it runs with the schedule).
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.traits import CarriesUndefined
from pyasc.dialects.ascendc.contract import RULES

from .errors import Finding

RULE = "local-initcheck"
_DEFAULT = [True]


def set_initcheck_default(on: bool) -> None:
    """Whether simulators made without ``initcheck=`` check reads of never-written local memory."""
    _DEFAULT[0] = bool(on)


def get_initcheck_default() -> bool:
    return _DEFAULT[0]
_ONES = memoryview(b"\x01" * (1 << 21))


def _memory(layout, addr: int) -> tuple[str, int]:
    """(memory name, base) of a byte of the checker's address space."""
    for name, base, size in layout:
        if base <= addr < base + size:
            return name, base
    return layout[-1][0], layout[-1][1]


def initcheck(recs, tabs, core: int, layout) -> list[Finding]:
    """The ``local-initcheck`` findings of the trace ``recs`` (one per op)."""
    end = layout[-1][1] + layout[-1][2]
    shadow = bytearray(end)
    ones = _ONES if end <= len(_ONES) else memoryview(b"\x01" * end)
    writes_of, infos = tabs.writes, tabs.infos
    facts = tabs.initcheck_facts
    if facts is None:  # per kernel, not per trace
        facts = tabs.initcheck_facts = _kernel_facts(infos)
    accumulates, carries, users, es_of, forgets = facts
    tainted: dict[int, dict[int, int]] = {}  # sid -> {scalar read: origin} of its undefined scalar operands
    carried: list[tuple[int, int, int]] = []  # (start, end, origin sid): bytes an op left undefined
    found: dict[int, Finding] = {}
    for r in recs:
        if len(r) <= 4:
            if r[0] in forgets:  # a TPipe reset: every local byte holds whatever was there before
                shadow[:] = bytes(end)
            continue
        sid = r[0]
        w = writes_of[sid]
        tail = r[4 + 2 * len(w):]
        holes, written, lanes = [], [], None
        for j, is_w in enumerate(w):
            a = int(r[4 + 2 * j])
            b = min(a + int(r[5 + 2 * j]), end)
            if b <= a:
                continue
            if is_w:
                written.append((j, (a, b)))
                if not (r[3] == 1 and sid in accumulates):
                    continue
            pattern = tail[1:] if tail and int(tail[0]) == j else ()
            if len(pattern) == 1 or (len(pattern) == 2 and isinstance(pattern[0], bytes)):
                # a Gather's or TransDataTo5HD's source: its lanes are followed, not its span
                lanes, first = _gathered(shadow, a, pattern[0], es_of[sid])
                continue
            hole = _hole(shadow, a, b, pattern)
            if hole is not None:
                holes.append((a, b) + hole)
        if lanes is not None and not holes and len(tail) == 3:  # a transposition: each lane to its place
            _, (c, d) = written[0]
            _placed(shadow, c, tail[2], lanes, es_of[sid])
            if first >= 0:
                carried.append((c, d, _origin(carried, first, sid)))
            continue
        if lanes is not None and not holes and first >= 0:  # undefined gathered lanes: carried
            _, (c, d) = written[0]
            np.frombuffer(shadow, dtype=np.uint8)[c:d] = np.repeat(lanes, es_of[sid])[: d - c]
            carried.append((c, d, _origin(carried, first, sid)))
            continue
        scalar = next(iter(tainted[sid].values()), None) if tainted.get(sid) else None
        origin = scalar if scalar is not None else \
            _origin(carried, holes[0][2], sid) if holes else None
        if sid in users:  # a scalar read: its users see an undefined value until it reads defined bytes again
            for u in users[sid]:
                if origin is None:
                    tainted.get(u, {}).pop(sid, None)
                else:
                    tainted.setdefault(u, {})[sid] = origin
            if holes or scalar is not None:
                continue
        if origin is not None and sid in carries and written:
            _carry(shadow, holes, [ab for _, ab in written], carried, origin, carries[sid] and scalar is None)
            continue
        if origin is not None and sid not in found:
            found[sid] = _finding(infos, sid, core, layout, holes, shadow, carried, scalar)
        for j, (a, b) in written:
            if tail and int(tail[0]) == j:
                _blocks(shadow, a, b, tail[1:])[...] = 1
            else:
                shadow[a:b] = ones[: b - a]
    return list(found.values())


def _kernel_facts(infos) -> tuple:
    """(Mmads, carriers with their ``per_lane``, users of each scalar read, Gathers' element bytes, ops after which no
    local byte is defined) by sid."""
    accumulates = {i for i, info in enumerate(infos) if isinstance(info.op, asc.MmadOp)}
    carries = {i: t.per_lane for i, info in enumerate(infos) if (t := info.op.get_trait(CarriesUndefined))}
    es_of = {i: info.op.dst.type.element_type.bitwidth // 8 for i, info in enumerate(infos)
             if isinstance(info.op, asc.GatherOp | asc.GatherMaskOp | asc.TransDataTo5HDOp)}
    forgets = frozenset(i for i, info in enumerate(infos) if getattr(info.op, "FORGETS_LOCAL_MEMORY", False))
    return accumulates, carries, _scalar_users(infos, carries), es_of, forgets


def _scalar_users(infos, carries) -> dict[int, set[int]]:
    """For each traced op that carries undefined bytes into a scalar (``GetValue``), the traced ops that use
    the scalar, through any chain of untraced scalar ops."""
    sid_of = {info.op: i for i, info in enumerate(infos)}
    out = {}
    for i, info in enumerate(infos):
        if i not in carries or not info.op.results:
            continue
        seen, todo, found = set(), list(info.op.results), set()
        while todo:
            for use in todo.pop().uses:
                op = use.operation
                if op in seen:
                    continue
                seen.add(op)
                if op in sid_of:
                    found.add(sid_of[op])
                else:
                    todo.extend(op.results)
        out[i] = found
    return out


def _origin(carried, hole: int, sid: int) -> int:
    """The op that first computed from never-written bytes the undefined byte ``hole`` (``sid`` if none)."""
    return next((s for c, d, s in reversed(carried) if c <= hole < d), sid)


def _blocks(shadow: bytearray, a: int, b: int, pattern) -> np.ndarray:
    """The bytes of ``[a, b)`` that a block pattern ``(block bytes, pitch)`` touches, as a (blocks, bytes) view."""
    size, pitch = int(pattern[0]), int(pattern[1])
    count = (b - a - size) // pitch + 1 if pitch > 0 and b - a >= size else 1
    size = min(size, b - a)
    return np.ndarray((max(count, 1), size), np.uint8, shadow, a, (pitch, 1))  # within [a, b)


def _gathered(shadow: bytearray, a: int, offsets: bytes, es: int) -> tuple[np.ndarray, int]:
    """Whether each lane of a Gather reads defined bytes (lane ``i`` reads ``es`` bytes at ``a + offsets[i]``),
    and the first undefined byte read (-1 if none)."""
    off = np.frombuffer(offsets, dtype=np.int64)
    if not off.size:
        return np.ones(0, dtype=np.uint8), -1
    sh = np.frombuffer(shadow, dtype=np.uint8)
    lanes = sh[a + off[:, None] + np.arange(es)].min(axis=1)
    bad = np.flatnonzero(lanes == 0)
    return lanes, (a + int(off[bad[0]]) if bad.size else -1)


def _placed(shadow: bytearray, c: int, places: bytes, lanes: np.ndarray, es: int) -> None:
    """Lane ``i`` of a transposition (``lanes[i]``: whether it read defined bytes) written at ``c + places[i]``."""
    at = np.frombuffer(places, dtype=np.int64)
    sh = np.frombuffer(shadow, dtype=np.uint8)
    sh[c + at[:, None] + np.arange(es)] = lanes[:, None]


def _hole(shadow: bytearray, a: int, b: int, pattern) -> tuple[int, int] | None:
    """The first run ``[start, stop)`` of undefined bytes the op reads in ``[a, b)``, or None."""
    hole = shadow.find(0, a, b)
    if hole < 0:
        return None
    stop = b
    if pattern and int(pattern[1]) > int(pattern[0]):
        view = _blocks(shadow, a, b, pattern)
        bad = np.flatnonzero(view == 0)
        if not bad.size:
            return None
        size, pitch = view.shape[1], int(pattern[1])
        hole = a + int(bad[0]) // size * pitch + int(bad[0]) % size
        stop = hole - (hole - a) % pitch + size
    end = shadow.find(1, hole, stop)
    return hole, stop if end < 0 else end


def _carry(shadow: bytearray, holes, written, carried: list, origin: int, per_lane: bool) -> None:
    """Write the definedness of an op's inputs to its outputs. Per lane: lane ``i`` of an output is defined
    when lane ``i`` of every input is (regions map onto each other in proportion to their sizes, so
    element sizes and mask bits scale; a written byte fed by several input bytes is defined if any is).
    Otherwise (a reduction, an undefined scalar operand) every output byte is undefined."""
    sh = np.frombuffer(shadow, dtype=np.uint8)
    reads = [(a, b) for a, b, _, _ in holes]
    for c, d in written:
        if d <= c:
            continue
        out = np.ones(d - c, dtype=np.uint8) if per_lane else np.zeros(d - c, dtype=np.uint8)
        for a, b in reads if per_lane else ():
            src = sh[a:b]
            if b - a == d - c:
                out &= src
            elif b - a > d - c:
                starts = (np.arange(d - c, dtype=np.int64) * (b - a)) // (d - c)
                out &= np.maximum.reduceat(src, starts)
            else:
                out &= src[(np.arange(d - c, dtype=np.int64) * (b - a)) // (d - c)]
        sh[c:d] = out
        if not out.all():
            carried.append((c, d, origin))
    del sh


def _finding(infos, sid: int, core: int, layout, holes, shadow: bytearray, carried, scalar) -> Finding:
    info = infos[sid]
    r = RULES[RULE]
    api = getattr(info.op, "API", info.name)
    if holes:
        a, b, hole, stop = holes[0]
        mem, base = _memory(layout, a)
        via = [s for c, d, s in carried if c <= hole < d]
        detail = f"{api} reads {mem} bytes [{a - base}, {b - base}), of which [{hole - base}, {stop - base}) "
        if via:
            first = infos[via[-1]]
            detail += (f"hold values {_name(first)} computed from local memory never written on this core")
        else:
            detail += "were never written on this core"
    else:
        detail = (f"{api} uses a scalar derived from values {_name(infos[scalar])} computed from local memory never "
                  f"written on this core")
    return Finding("contract", f"{detail}: {r.statement} (doc: {r.doc})", info.kernel, info.text, core,
                   key=(RULE,), loc=info.loc, rule=RULE)


def _name(info) -> str:
    return f"{getattr(info.op, 'API', info.name)}" + (f" ({info.loc})" if info.loc else "")
