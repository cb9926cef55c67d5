"""Operand forwarding in a cube kernel's straight-line functions (``tape.straight_source``).

On a replay a straight-line function moves the same bytes on every run. When what an ``Mmad`` reads from L0A (or
L0B) is, element for element, a strided view of a kernel argument that the function does not write, the Mmad
copies that operand from the argument into its chain (``cube_mmad.mmad``'s ``src_a``/``src_b``) rather than from
L0A (L0B). A copy into L1, L0A, L0B or BiasTable whose bytes no statement left in the function reads is then left
out (one flag per byte of those memories, from the last statement back). The chain holds the same bytes as
before, so every product and every byte the kernel writes is the same.

Where the operands come from is found by running the function on labelled arguments (each 2-byte unit of the
arguments holds its index plus one, in two runs: the low part, then the high part), its Mmads recording the
labels they would read. Zero bytes are then no argument's: a fill's (``ZERO``). A's last rows may be such zeros
(a GEMV's A, one row of 16): A is then forwarded as a view of its first rows, and its chain zeros the others.
Forwarding applies only to a function made of statements this module knows (``_KEEP``, the
copies, ``LoadData``, fills, BiasTable loads and float Mmads) with no round ends; any other function stays as it
is. A forwarded function first checks that no argument it reads from shares memory with one it may write, and
otherwise runs as it was. ``PYASC_SIM_FORWARD=off`` turns forwarding off.
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np

from .cube_mmad import F32
from .kernel_ops_bias import BURST

FORWARD = os.environ.get("PYASC_SIM_FORWARD", "on") != "off"
_SENTINEL = 0xFFFF  # a unit no argument holds: a local byte no copy wrote
ZERO = -1  # the label of a unit of zero bytes (a fill of zeros), which no argument's unit has
_KEEP = re.compile(r"if not \d+: _CUBE\.poison\(\)|(\w+, )+= args|T = None|\w+ = _c\[\d+\]|\w+ = -?\d+"
                   r"|if _CUBE\.pending is not None: _cube_flush\(_CUBE\)"
                   r"|\w+, \w+ = _gm\(a\d+, \w+, \d+\)"  # an argument's typed views
                   r"|\w+ = _fixpipe\(_fail, .*\)")  # L0C to an argument
_MMAD = re.compile(r"_mr = _mmad\((.*)\)")
_PAIRS = {"_tp": "for _to, _from in _tp[0]: _to[...] = _from", "_lp": "_lp[0][...] = _lp[1]"}
_PAIRS_CONST = re.compile(r"(_tp|_lp) = _c\[(\d+)\]")
_COPY = re.compile(r"np\.copyto\((_c\[(\d+)\]|np\.ndarray\(.*\)), (_c\[(\d+)\]|np\.ndarray\(.*\))"
                   r"(, casting='unsafe')?\)")
_FILL = re.compile(r"_c\[(\d+)\]\.fill\(_c\[\d+\]\)")
_L1_TO_BT = re.compile(r"_bt = _l1_to_bt\(_fail, \d+, bid, L1, BT, (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), "
                       r"(\w+), (\w+)\)")
_RELU = re.compile(r"np\.maximum\(_c\[(\d+)\], 0, out=np\.ndarray\(.*\), dtype=_c\[\d+\], casting='unsafe'\)")
_ARG = re.compile(r"\ba(\d+)\b")
_FUNCTION = re.compile(r"^def (_tape_straight_\d+)\(args, _c\):$", re.M)


def forward(src: str, consts: list[tuple], env: dict, arg_bytes: list | None) -> tuple[str, list[tuple]]:
    """``(src, consts)`` of ``tape.straight_source`` with each function that forwarding applies to rewritten."""
    cube = env.get("_CUBE")
    if not FORWARD or cube is None or not arg_bytes or any(type(n) is not int or n % 2 for n in arg_bytes):
        return src, consts
    starts = [m.start() for m in _FUNCTION.finditer(src)] + [len(src)]
    texts, out_consts = [], []
    for i, c in enumerate(consts):
        text = src[starts[i]:starts[i + 1]]
        try:
            made = _forwarded(text, list(c), env, cube, arg_bytes)
        except (ValueError, IndexError, KeyError):  # a view this module cannot follow: the function as it is
            made = None
        texts.append(text if made is None else made[0])
        out_consts.append(c if made is None else tuple(made[1]))
    return "".join(texts), out_consts


def _forwarded(text: str, consts: list, env: dict, cube, arg_bytes: list) -> tuple[str, list] | None:
    """The function ``text`` forwarded (with its constants), or None when forwarding does not apply."""
    lines = text.rstrip("\n").split("\n")
    stmts = _statements([line.strip() for line in lines[1:]], consts, env)
    if stmts is None or not any(s[0] == "mmad" for s in stmts):
        return None
    found = _label_runs(lines, consts, env, cube, arg_bytes)
    if found is None:
        return None
    records, written = found
    if len(records) != sum(s[0] == "mmad" for s in stmts):
        return None
    for stmt in stmts:  # an argument a kept statement may write: a Fixpipe's, or one with typed views
        if stmt[0] == "keep" and "_gm(" in stmt[1] or stmt[0] == "copy" and stmt[1].startswith(("np.copyto(np.",
                                                                                                 "np.maximum(")):
            written |= {int(i) for i in _ARG.findall(stmt[1])}
    memory = _Liveness(cube)
    read: set[int] = set()
    keep: list[str] = []
    for stmt in reversed(stmts):
        kind, line = stmt[0], stmt[1]
        if kind == "mmad":
            rec = records.pop()
            call = _call_args(line)
            if rec is None or call is None:  # an empty Mmad reads nothing; one of computed operands keeps them
                if rec is not None:
                    memory.mmad_reads(call, env, (True, True))
                keep.append(line)
                continue
            views = _operand_views(rec, arg_bytes)
            texts = []
            for v in views:
                if v is None:
                    texts.append("None")
                    continue
                arg, offset, shape, strides = v
                read.add(arg)
                texts.append(f"(a{arg}, {offset}, _c[{len(consts)}])")  # a view of argument ``arg``
                consts.append((shape, np.dtype(np.float32) if rec[0] == F32 else np.dtype(np.int16), strides))
            memory.mmad_reads(call, env, (views[0] is None, views[1] is None))
            if views != [None, None]:
                line = line[:-1] + f", src_a={texts[0]}, src_b={texts[1]})"
            keep.append(line)
            continue
        writes, reads = stmt[2], stmt[3]
        flags = [memory.flags_of(w) for w in writes]
        if flags and all(f is not None and not f.any() for f in flags):
            continue  # it writes only local bytes that nothing kept reads
        for r in reads:
            memory.use(r)
        keep.append(line if kind != "pair" else stmt[4])
    if not read or read & written:
        return None
    keep.reverse()
    name = _FUNCTION.match(lines[0]).group(1)
    head = [lines[0]]
    if written:  # an argument read that is also written at run time: the function as it was
        head = [lines[0].replace("(args, _c):", f"(args, _c, _as_recorded={name}_as_recorded):"),
                f"    if _aliased(args, {sorted(read)}, {sorted(written)}):",
                "        return _as_recorded(args, _c)"]
    original = "\n".join([lines[0].replace(name, f"{name}_as_recorded")] + lines[1:]) + "\n"
    body = []
    for line in keep:
        body += ["    " + part for part in line.split("\n")]
    # the operands still to copy from this call's arguments (``Chain.settle``), before the function returns
    body.append("    if _CUBE.pending is not None: _CUBE.pending.settle()")
    return original + "\n".join(head + body) + "\n", consts


def _statements(body: list[str], consts: list, env: dict) -> list[tuple] | None:
    """The function's statements as (kind, text, arrays written, arrays read) (``pair``: two lines, the second
    kept in a fifth field; ``mmad``: its call), or None when a statement is not one this module knows (a round
    end among them)."""
    out: list[tuple] = []
    k = 0
    while k < len(body):
        line = body[k]
        pair = _PAIRS_CONST.fullmatch(line)
        if pair is not None:
            if k + 1 == len(body) or body[k + 1] != _PAIRS[pair.group(1)]:
                return None
            held = consts[int(pair.group(2))]
            pairs = held[0] if pair.group(1) == "_tp" else [held[:2]]
            out.append(("pair", line, [to for to, _ in pairs], [fr for _, fr in pairs], line + "\n" + body[k + 1]))
            k += 2
            continue
        if (m := _COPY.fullmatch(line)) is not None:
            dst = [] if m.group(2) is None else [consts[int(m.group(2))]]
            src = [] if m.group(4) is None else [consts[int(m.group(4))]]
            out.append(("copy", line, dst, src))
        elif (m := _FILL.fullmatch(line)) is not None:
            out.append(("copy", line, [consts[int(m.group(1))]], []))
        elif (m := _RELU.fullmatch(line)) is not None:
            out.append(("copy", line, [], [consts[int(m.group(1))]]))
        elif (m := _L1_TO_BT.fullmatch(line)) is not None:  # bursts of L1 into BiasTable, widened
            src, dst, count, blen, sgap, dgap = map(int, m.group(*range(1, 7)))
            length = blen * BURST
            wide = length * np.dtype(env[m.group(8)]).itemsize // np.dtype(env[m.group(7)]).itemsize
            out.append(("bias", line, [("BT", dst, count, wide, dgap * BURST)],
                        [("L1", src, count, length, sgap * 32)]))
        elif _MMAD.fullmatch(line) is not None:
            out.append(("mmad", line))
        elif _KEEP.fullmatch(line) is not None:
            out.append(("keep", line, [], []))
        else:
            return None
        k += 1
    return out


def _call_args(line: str) -> tuple | None:
    """(a, b, m, n, k, input dtype name, bias) of an Mmad call with literal operands, else None."""
    parts = [p.strip() for p in _MMAD.fullmatch(line).group(1).split(",")]
    try:
        a, b, _, m, n, k = (int(x) for x in parts[4:10])
        bias = int(parts[14]) if len(parts) > 14 else -1
    except ValueError:
        return None
    return a, b, m, n, k, parts[11], bias


class _Liveness:
    """The bytes of L1, L0A, L0B and BiasTable that a statement kept later reads, one flag per byte."""

    def __init__(self, cube):
        self.mems = {"L1": cube.l1, "L0A": cube.l0a, "L0B": cube.l0b, "BT": cube.bt}
        self.by_root = {_root(a): name for name, a in self.mems.items()}
        self.flags = {name: np.zeros(a.shape, np.uint8) for name, a in self.mems.items()}

    def flags_of(self, a):
        """The flags of array ``a``'s bytes (a view of the flags like ``a`` of the memory), or None for an
        array outside these memories."""
        if isinstance(a, tuple):  # ("L1", address, blocks, block bytes, gap bytes): a burst copy's bytes
            name, at, count, length, gap = a
            mem, flags = self.mems[name], self.flags[name]
            return np.ndarray((mem.shape[0], count, length), np.uint8, flags, at,
                              (flags.strides[0], length + gap, 1))
        name = self.by_root.get(_root(a))
        if name is None:
            return None
        mem, flags = self.mems[name], self.flags[name]
        offset = a.__array_interface__["data"][0] - mem.__array_interface__["data"][0]
        return np.ndarray(a.shape + (a.itemsize,), np.uint8, flags, offset, a.strides + (1,))

    def use(self, a) -> None:
        f = self.flags_of(a)
        if f is not None:
            f[...] = 1

    def mmad_reads(self, call, env, operands: tuple[bool, bool]) -> None:
        """Marks what an Mmad reads from L0A and L0B (``operands``: whether it reads each) and from BiasTable."""
        if call is None:  # operands not literal: all of L0A, L0B and BiasTable
            for name in ("L0A", "L0B", "BT"):
                self.flags[name][...] = 1
            return
        a, b, m, n, k, dt_name, bias = call
        es = np.dtype(env[dt_name]).itemsize
        m1, k1, n1 = -(-m // 16), -(-k // (32 // es)), -(-n // 16)
        if operands[0]:
            self.use(("L0A", a, 1, m1 * k1 * 512, 0))
        if operands[1]:
            self.use(("L0B", b, 1, k1 * n1 * 512, 0))
        if bias >= 0:
            self.use(("BT", bias, 1, n1 * 16 * 4, 0))


def aliased(args, read: list[int], written: list[int]) -> bool:
    """Whether an argument a forwarded function reads may share memory with one it writes."""
    return any(np.may_share_memory(args[r], args[w]) for r in read for w in written)


def _root(a) -> int:
    """The identity of the array whose memory ``a`` views."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return id(a)


class _LabelCube:
    """The cube as a labelled run sees it: no pending Mmads, and ``poison`` filling L1, L0A, L0B and BT with
    ``_SENTINEL``."""

    def __init__(self, cube):
        self.cube, self.pending = cube, None

    def __getattr__(self, name):
        return getattr(self.cube, name)

    def poison(self) -> None:
        for mem in (self.cube.l1, self.cube.l0a, self.cube.l0b, self.cube.bt):
            mem.fill(0xFF)


def _label_runs(lines: list[str], consts: list, env: dict, cube, arg_bytes: list):
    """([per Mmad: None for an empty one, else (kind: F32 or not, A's units, B^T's units) as label values],
    the arguments the function writes), or None when an Mmad is not of a chain (int8) or an argument is read
    before it is labelled. A unit of zero bytes in both runs is ``ZERO`` when it is zero again with every argument
    unit 0x3C00 (a constant: a fill, say), and -2 (no argument's) otherwise."""
    ns = dict(env)
    label_cube = _LabelCube(cube)
    sizes = [n // 2 for n in arg_bytes]
    bases = np.cumsum([0] + sizes[:-1]).tolist()
    code = compile("\n".join(lines) + "\n", "<labelled straight tape>", "exec")

    def run(labels: list) -> list | None:
        records: list = []

        def record(fail, sid, bid, c, a, b, acc, m, n, k, init, in_dt, acc_dt, rc, bias=-1):
            if m <= 0 or n <= 0 or k <= 0:
                records.append(None)
                return None
            if acc_dt != F32 or in_dt.name not in ("float16", "bfloat16", "float32"):
                records.append(False)
                return None
            es = in_dt.itemsize
            m1, k1, n1 = -(-m // 16), -(-k // (32 // es)), -(-n // 16)
            ua = np.ndarray((c.cores, m1, 16, k1, 16), np.uint16, c.l0a, a,
                            (c.l0a.strides[0], k1 * 512, 32, 512, 2)).copy()
            ub = np.ndarray((c.cores, n1, 16, k1, 16), np.uint16, c.l0b, b,
                            (c.l0b.strides[0], 512, 32, n1 * 512, 2)).copy()
            records.append((in_dt, ua, ub))
            return None

        ns.update(_mmad=record, _cube_flush=lambda c: None, _CUBE=label_cube)
        exec(code, ns)
        fn = ns[_FUNCTION.match(lines[0]).group(1)]
        args = [lab.copy().view(np.uint8) for lab in labels]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                fn(args, tuple(consts))
            except Exception:  # (a helper that fails on labels) the function stays as it is
                return None
        written.update(i for i, (a, lab) in enumerate(zip(args, labels)) if not np.array_equal(a.view(np.uint16), lab))
        return None if any(r is False for r in records) else records

    parts, written = [], set()
    for part in (0, 1):
        labels = []
        for n, base in zip(sizes, bases):
            units = np.arange(base + 1, base + n + 1, dtype=np.int64)  # from 1: a unit of zero bytes is no argument's
            labels.append((units % _SENTINEL if part == 0 else units // _SENTINEL).astype(np.uint16))
        records = run(labels)
        if records is None:
            return None
        parts.append(records)
    merged = []
    for lo, hi in zip(*parts):
        if lo is None:
            merged.append(None)
            continue
        units = []
        for a, b in zip(lo[1:], hi[1:]):
            if (a == _SENTINEL).any() or (b == _SENTINEL).any():
                return None  # a byte no argument copy wrote (a padding zero, say)
            units.append(b.astype(np.int64) * _SENTINEL + a - 1)  # -1: zero bytes (``ZERO``)
        merged.append((F32 if lo[0] == F32 else lo[0], *units))
    if any(rec is not None and (rec[1] == ZERO).any() for rec in merged):
        probe = run([np.full(n, 0x3C00, np.uint16) for n in sizes])
        if probe is None or len(probe) != len(merged):
            return None
        for rec, again in zip(merged, probe):
            if (rec is None) != (again is None):
                return None
            if rec is not None:
                rec[1][(rec[1] == ZERO) & (again[1] != 0)] = -2  # zero bytes that an argument made
    return merged, written


def _operand_views(rec: tuple, arg_bytes: list) -> list:
    """Per operand of an Mmad's labels ``rec`` (A, then B^T), its view of an argument (``_view_of``) for the first
    grid of the cores that has one, or None."""
    views = []
    for side, units in enumerate(rec[1:]):
        kc = units.shape[0]
        if side == 0:
            units = _rows_from_arguments(units)
        grids = (g for g in range(1, kc + 1) if kc % g == 0)
        views.append(next((v for g2 in grids if (v := _view_of(units, rec[0], arg_bytes, g2)) is not None), None))
    return views


def _rows_from_arguments(units: np.ndarray) -> np.ndarray:
    """A's labelled ``units`` (cores, m1, 16, k1, 16) without its last rows when A is one block of rows (m1 = 1) whose
    rows after the first few hold zero bytes on every core (``ZERO``: a GEMV's A, one row and 15 of padding);
    ``units`` as they are otherwise. ``Chain.move`` zeros the rows left out."""
    if units.shape[1] != 1:
        return units
    zero = (units == ZERO).all(axis=(0, 1, 3, 4))
    rows = 16 - int(np.argmin(zero[::-1])) if not zero.all() else 0
    return units[:, :, :rows] if 0 < rows < 16 and zero[rows:].all() else units


def _view_of(units: np.ndarray, in_dt, arg_bytes: list, g2: int):
    """(argument, byte offset, shape, byte strides) of the view of one argument whose elements are the labelled
    ``units`` (cores, blocks, 16, k1, 16 units), its cores as a (cores / ``g2``, ``g2``) grid, or None when they
    are no such view."""
    es = np.dtype(in_dt).itemsize
    per = es // 2
    kc = units.shape[0]
    shape = (kc // g2, g2) + units.shape[1:4] + (16 // per,)
    el = units.reshape(shape + (per,))
    if per > 1 and not (el[..., 1:] == el[..., :1] + np.arange(1, per)).all():
        return None
    first = el[..., 0]
    lo, hi = int(first.min()), int(first.max())
    base = 0
    for arg, n in enumerate(arg_bytes):
        if base <= lo and hi < base + n // 2:
            break
        base += n // 2
    else:
        return None
    offsets = (first - base) * 2
    start = int(offsets[(0,) * 6])
    strides = []
    for d, size in enumerate(shape):
        idx = [0] * 6
        idx[d] = 1 if size > 1 else 0
        strides.append(int(offsets[tuple(idx)]) - start if size > 1 else 0)
    grid = start + sum(np.arange(n).reshape([-1 if i == d else 1 for i in range(6)]) * st
                       for d, (n, st) in enumerate(zip(shape, strides)))
    if not np.array_equal(grid, offsets):
        return None
    return arg, start, tuple(shape), tuple(strides)
