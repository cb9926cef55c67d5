"""How a tape's straight-line function (``tape.straight_source``) takes the global tensors it reads and writes.

The views of a kernel argument that no line reads are not made; a global tensor read only through bytes takes its
byte view alone; one that spans its whole argument is the argument; a group's view read only as an array is that
array, not a ``batched.BatchedGM``; and a group's GM rows at evenly spaced per-core starts, or its element reads at
fixed indices, are one view or one index made when the function is compiled. The recorded scalars of a statement
(``scope``) fix its expressions (``values_of``).
"""

from __future__ import annotations

import re

import numpy as np

BINDS = re.compile(r"    (\w+(?:, \w+)*,?) = (.*)")  # a statement binding names, and what it assigns
GM_VIEW = re.compile(r"(\w+), (\w+) = _gm\((\w+, \w+, \d+)\)")  # a global tensor's views of a kernel argument


def values_of(exprs, scope: dict) -> list | None:
    """The expressions ``exprs`` evaluated on the recorded scalars ``scope``, or None when one reads anything
    else."""
    try:
        return [eval(e, {"__builtins__": {}}, scope) for e in exprs]  # noqa: S307
    except Exception:  # noqa: BLE001 - an expression of anything but these scalars
        return None


def ints_of(exprs, scope: dict) -> list | None:
    """``values_of`` when every one is an int (a bound, an offset), else None."""
    values = values_of(exprs, scope)
    return values if values is not None and all(type(v) is int for v in values) else None


_GM_ELEMENT = re.compile(r"\b(G\d+)\[(\w+)\](?![\[\s]*=(?!=))")  # a global tensor's element read


def gm_elements(text: str, scope: dict, cores: int, consts: list) -> str:
    """For a group's tape: ``text`` with each element read of a global tensor at an index these scalars fix, common
    or one per core (``GetValue``), read from its array by that index (as ``BatchedGM`` reads it: a (cores, 1)
    column for per-core indices), the index array made once."""
    def indexed(m) -> str:
        i = values_of((m.group(2),), scope)
        if i is None:
            return m.group(0)
        i = i[0]
        if type(i) is int:
            return f"{m.group(1)}.a[{i}]"
        if not (isinstance(i, np.ndarray) and i.dtype.kind in "iu" and i.size == cores):
            return m.group(0)
        consts.append(i.view(np.ndarray).reshape(-1, 1).astype(np.intp))
        return f"{m.group(1)}.a[_c[{len(consts) - 1}]]"

    return _GM_ELEMENT.sub(indexed, text)


_GM_ROWS = re.compile(r"\b([GB]\d+)\[(\w+):\2\+(\w+)\](\s*=(?!=))?")  # a group's GM slice, one row per core


def strided_gm_rows(text: str, scope: dict, cores: int) -> str:
    """``text`` (a statement of a group's tape) with each slice of a global tensor from per-core starts that these
    scalars fix as evenly spaced (``G0[v27:v27+_n]``) as one strided view of its array: what ``BatchedGM`` makes of
    it, without finding the spacing every run. A slice assigned to must have rows that do not overlap."""
    def strided(m) -> str:
        start, n = values_of(m.group(2, 3), scope) or (None, None)
        if not (isinstance(start, np.ndarray) and start.dtype.kind in "iu" and start.size == cores
                and type(n) is int and n > 0):
            return m.group(0)
        starts = start.reshape(-1).tolist()
        d = starts[1] - starts[0] if cores > 1 else 0
        written = bool(m.group(4))
        if (d <= 0 and (written or d < 0)) or (written and d < n) or starts[0] < 0 or any(
                b - a != d for a, b in zip(starts, starts[1:])):
            return m.group(0)
        g = m.group(1)
        view = (f"np.ndarray(({cores}, {n}), {g}.a.dtype, {g}.a, {starts[0]} * {g}.a.itemsize, "
                f"({d} * {g}.a.itemsize, {g}.a.itemsize))")
        return view + ("[...] =" if written else "")

    return _GM_ROWS.sub(strided, text)


_ROWS_INTO = re.compile(r"(_c\[\d+\])\[\.\.\.\] = ([GB]\d+)\[(\w+):\3\+(\w+)\]")  # GM rows read into UB
LONG_ROW = 1024  # elements from which a group's rows at uneven starts move core by core (``batched.SMALL_ROW``)


def gm_rows_per_core(text: str, scope: dict, cores: int, consts: list) -> str:
    """``text`` (a statement of a group's tape) that reads long rows of a global tensor at uneven per-core starts
    into a UB view (``_c[0][...] = G0[v27:v27+_n]``) as one copy per core, in core order, into that core's row:
    ``BatchedGM`` gathers the rows into a new array first, which is then copied again."""
    m = _ROWS_INTO.fullmatch(text)
    if m is None:
        return text
    start, n = values_of(m.group(3, 4), scope) or (None, None)
    if not (isinstance(start, np.ndarray) and start.dtype.kind in "iu" and start.size == cores
            and type(n) is int and n >= LONG_ROW):
        return text
    starts = start.reshape(-1).tolist()
    if min(starts) < 0:
        return text
    consts.append(tuple(enumerate(starts)))
    return f"for _r, _s in _c[{len(consts) - 1}]: {m.group(1)}[_r] = {m.group(2)}.a[_s:_s + {n}]"


_GM_VIEWS = re.compile(r"    (\w+), (\w+) = _gm(c?)\((\w+, \w+, \d+)\)")  # ``GM_VIEW`` in a body, or shared


def _read_elsewhere(name: str, lines: list[str], i: int) -> bool:
    """Whether a line of ``lines`` other than the ``i``-th names ``name``."""
    named = re.compile(rf"\b{name}\b")
    return any(named.search(other) for j, other in enumerate(lines) if j != i)


def byte_views_only(lines: list[str], group: bool) -> list[str]:
    """``lines`` (one straight function's body) without the views of a global tensor that no other line reads, and
    with each one whose typed view no other line reads taking only its byte view (``memory.gm_bytes``); in a
    group's, as a plain array where the lines read only that (``plain_group_views``)."""
    out = []
    for i, line in enumerate(lines):
        m = _GM_VIEWS.fullmatch(line)
        if m is not None and not _read_elsewhere(m.group(1), lines, i):
            if not _read_elsewhere(m.group(2), lines, i):
                continue
            if not m.group(3):
                line = f"    {m.group(2)} = _gm_bytes({m.group(4)})"
        out.append(line)
    return plain_group_views(out) if group else out


_ARG_VIEWS = re.compile(r"    (\w+(?:, \w+)?) = (_gm_bytes|_gm_array|_gm|_gmc|_gm_arrays)\(a(\d+), (\w+), (\d+)\)")
_WHOLE = {"_gm_bytes": "{a}", "_gm_array": "{a}", "_gm": "{a}.view({dt}), {a}", "_gmc": "{a}.view({dt}), {a}",
          "_gm_arrays": "{a}.view({dt}), {a}"}  # a view of a whole argument, as ``memory.gm_bytes``/``gm_view``


def whole_arguments(lines: list[str], env: dict, arg_bytes: list, group: bool) -> list[str]:
    """``lines`` with each view of a global tensor that spans its whole kernel argument (``arg_bytes``: each
    argument's bytes in every launch the function runs, its signature's) taken as the argument itself; a group's
    ``BatchedGM`` views stay."""
    out = []
    for k, line in enumerate(lines):
        m = _ARG_VIEWS.fullmatch(line)
        if m is not None and not (group and m.group(2) in ("_gm_bytes", "_gm")):
            i, dt, size = int(m.group(3)), env.get(m.group(4)), int(m.group(5))
            if i < len(arg_bytes) and isinstance(dt, np.dtype) and arg_bytes[i] == size * dt.itemsize:
                names = m.group(1).split(", ")
                if len(names) == 2 and not _read_elsewhere(names[0], lines, k):
                    line = f"    {names[1]} = a{i}"  # its typed view unread
                else:
                    line = f"    {m.group(1)} = " + _WHOLE[m.group(2)].format(a=f"a{i}", dt=m.group(4))
        out.append(line)
    return _aliases_inlined(out)


_ALIAS = re.compile(r"    (\w+) = (a\d+)")  # a second name of a kernel argument


def _aliases_inlined(lines: list[str]) -> list[str]:
    """``lines`` with each second name of a kernel argument that no other line assigns (``B1 = a0``) replaced by
    the argument's own name."""
    assigned: dict[str, int] = {}
    for line in lines:
        m = BINDS.fullmatch(line)
        for name in m.group(1).rstrip(",").split(", ") if m else ():
            assigned[name] = assigned.get(name, 0) + 1
    for k, line in enumerate(lines):
        m = _ALIAS.fullmatch(line)
        if m is not None and assigned[m.group(1)] == 1 and assigned.get(m.group(2), 0) <= 1:
            name = re.compile(rf"\b{m.group(1)}\b")
            lines = [*lines[:k], "", *(name.sub(m.group(2), other) for other in lines[k + 1:])]
    return [line for line in lines if line]


_GROUP_VIEWS = re.compile(r"    (\w+(?:, \w+)?) = (_gm_bytes|_gm)\((.*)\)")
_PLAIN = {"_gm_bytes": "_gm_array", "_gm": "_gm_arrays"}  # a group's views -> ``memory.gm_bytes`` / ``gm_view``


def plain_group_views(lines: list[str]) -> list[str]:
    """A group's ``lines`` with the views of a global tensor that every other line reads as their arrays (``B1.a``)
    taken as those arrays (``memory.gm_bytes`` or ``gm_view``) rather than as a group's ``BatchedGM``."""
    for i, line in enumerate(lines):
        m = _GROUP_VIEWS.fullmatch(line)
        if m is None:
            continue
        names = m.group(1).split(", ")
        pairs = [(re.compile(rf"\b{n}\b"), re.compile(rf"\b{n}\.a\b")) for n in names]
        if all(len(name.findall(other)) == len(array.findall(other))
               for j, other in enumerate(lines) if j != i for name, array in pairs):
            for n, (_, array) in zip(names, pairs):
                lines = [other if j == i else array.sub(n, other) for j, other in enumerate(lines)]
            lines[i] = f"    {m.group(1)} = {_PLAIN[m.group(2)]}({m.group(3)})"
    return lines
