"""A replayed core's data path as a tape: its data statements alone, each with the scalars it was given.

A replayed launch (``replay``) runs the same scalar code as its traced launch: loop counts, queue addresses
and offsets are functions of the launch's signature, not of the data. A core's first replay runs a recording
form of its data path (``record_source``), which executes every statement as the data path would and appends,
for every statement that touches data, the statement (compiled as a function) and the values of the scalars
it reads. Later replays of that core run the tape: the data statements in order, with no scalar code, no
loops and no queue bookkeeping. A group of cores (``batched``) records one tape in its own globals, with the
per-core scalars as (K, 1) vectors. A tape that ran ``STRAIGHT_AFTER`` times is compiled as one straight-line
function (``straight_source``), which the next replays call.

A statement is scalar when every name it reads is a scalar local, a parameter that is no data (``bid``,
``bnum``, ``ct``, ``sub``) or a global of :data:`SCALAR_GLOBALS` (pure integer helpers, the queue
bookkeeping); every other statement, and every one reading a value a data statement assigned, is a data
statement. A kernel whose control flow (a loop bound, a condition) reads a data value, or whose statements use
a name both ways, has no tape and replays its data path. ``PYASC_SIM_TAPE=off`` turns tapes off.
"""

from __future__ import annotations

import ast
import os
import re
import textwrap

import numpy as np

TAPE_MODE = os.environ.get("PYASC_SIM_TAPE", "on")
MAX_ENTRIES = 65536  # the data statements a launch's tapes hold at most; past them its cores replay the data path
STRAIGHT_AFTER = 3  # the tapes of a launch replayed this often become one straight-line function
MAX_STRAIGHT = 512  # of at most this many data statements (a longer one spends its time in NumPy, not in calls)

# globals a scalar statement may call or read: the integer helpers of ``scalar_ops``, the queue and buffer
# bookkeeping of the data path (``queues``) with the failure callbacks it is given, the UB size and pure builtins
SCALAR_GLOBALS = frozenset({
    "_u", "_sext", "_divui", "_remui", "_ceildivui", "_divsi", "_remsi", "_ceildivsi", "_floordivsi", "_minui",
    "_maxui", "TQueData", "TPipeState", "TBufState", "_init_buffer", "_fail", "_rule", "UBN", "min", "max", "abs",
    "int", "float", "bool", "len", "range",
    "True", "False", "None",
})
SCALAR_PARAMS = ("bid", "bnum", "ct", "sub")
DATA_PARAMS = ("args", "T")
_HEADER = re.compile(r"def _kernel_data\((.*)\):$")
_BLOCK = re.compile(r"(for|if|elif|else|while)\b.*:$")
_NESTED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.FunctionDef, ast.ClassDef,
           ast.Global, ast.Nonlocal, ast.Return, ast.Yield, ast.Try, ast.With)


class _Refused(Exception):
    """The data path has a form the tape cannot replay."""


class _ToDict(ast.NodeTransformer):
    """Names of data values become entries of the tape's dictionary ``_d``."""

    def __init__(self, data: set[str]):
        self.data = data

    def visit_Name(self, node: ast.Name):
        if node.id not in self.data:
            return node
        key = ast.Constant(node.id)
        return ast.copy_location(ast.Subscript(ast.Name("_d", ast.Load()), key, node.ctx), node)


def _names(tree) -> tuple[list[str], list[str]]:
    """(names read, names assigned) in ``tree``, in order of appearance."""
    loads, stores = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (stores if isinstance(node.ctx, ast.Store) else loads).append(node.id)
            if isinstance(node.ctx, ast.Store) and _is_aug_target(tree, node):
                loads.append(node.id)
    return loads, stores


def _is_aug_target(tree, name: ast.Name) -> bool:
    return any(isinstance(n, ast.AugAssign) and n.target is name for n in ast.walk(tree))


def _shape_reads(tree, data: set[str]) -> set[int]:
    """The ``id`` of every data ``Name`` read only for its ``.shape`` (a GM view's size: fixed by the launch's
    signature)."""
    return {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr == "shape" and isinstance(n.value, ast.Name)
            and n.value.id in data}


def record_source(data_source: str) -> tuple[str, list] | None:
    """The recording form of a data path (``codegen.data_only_source``): the functions ``_tape_<k>`` of its data
    statements and ``_kernel_record(bid, bnum, args, T, ct, sub, _tape)``, which appends ``(k, scalars)`` to
    ``_tape`` for every data statement it runs; and, per ``k``, the statement and the scalars it reads. None
    when the data path has no tape."""
    try:
        return _record_source(data_source)
    except (_Refused, SyntaxError):
        return None


def _record_source(data_source: str) -> tuple[str, list]:
    lines = data_source.splitlines()
    header = _HEADER.match(lines[0])
    if header is None:
        raise _Refused("unexpected header")
    scalars: set[str] = set(SCALAR_PARAMS) | {"s"}
    data: set[str] = set(DATA_PARAMS)
    body = ["    _d = {'args': args, 'T': T}"]
    fns: list[str] = []
    stmts: list[tuple[str, tuple[str, ...]]] = []
    for line in lines[1:]:
        if not line.strip():
            continue
        indent = line[:len(line) - len(line.lstrip())]
        text = line.strip()
        if text == "pass" or text == "return s":
            body.append(line)
            continue
        if _BLOCK.match(text):
            probe = ast.parse(("if True:\n    pass\n" if text.startswith(("elif", "else")) else "")
                              + text + "\n    pass")
            loads, stores = _names(probe)
            if any(n in data for n in loads + stores):
                raise _Refused(f"control flow on a data value: {text}")
            scalars.update(stores)
            body.append(line)
            continue
        tree = ast.parse(text)
        if any(isinstance(n, _NESTED) for n in ast.walk(tree)):
            raise _Refused(f"a statement the tape does not replay: {text}")
        loads, stores = _names(tree)
        shape_only = _shape_reads(tree, data)
        data_reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                      and n.id in data and id(n) not in shape_only]
        unknown = [n for n in loads if n not in scalars and n not in data and n not in SCALAR_GLOBALS]
        if not data_reads and not unknown:  # scalar: runs when recording only
            if any(n in data for n in stores):
                raise _Refused(f"a data name assigned a scalar: {text}")
            scalars.update(stores)
            body.append(textwrap.indent(ast.unparse(_ToDict(data).visit(tree)), indent))
            continue
        if any(n in scalars for n in stores):
            raise _Refused(f"a scalar name assigned data: {text}")
        data.update(stores)
        free = list(dict.fromkeys(n for n in loads if n in scalars))
        k = len(fns)
        stmt = ast.unparse(_ToDict(data).visit(tree))
        fns.append(f"def _tape_{k}(_d{''.join(', ' + n for n in free)}):\n{textwrap.indent(stmt, '    ')}\n")
        vals = "(" + "".join(f"{n}, " for n in free) + ")"
        body.append(f"{indent}_tape_a = {vals}; _tape.append(({k}, _tape_snap(_tape_a))); _tape_{k}(_d, *_tape_a)")
        stmts.append((text, tuple(free)))
    src = "\n".join(fns) + f"\ndef _kernel_record({header.group(1)}, _tape=None):\n" + "\n".join(body) + "\n"
    return src, stmts


_VALUES = (int, float, bool, str, type(None), np.generic, np.dtype)


def snapshot(vals: tuple):
    """``vals`` as a tape keeps them: arrays copied (a group's per-core scalars, which later code may update in
    place); ``_UNKEPT`` for a value of another kind (an object whose state may change)."""
    if all(type(v) in _VALUES for v in vals):
        return vals
    out = []
    for v in vals:
        if isinstance(v, np.ndarray):
            out.append(v.copy())
        elif isinstance(v, _VALUES):
            out.append(v)
        else:
            return _UNKEPT
    return tuple(out)


_UNKEPT = object()


class Tape:
    """A core's tape: ``(k, scalars)`` per data statement run, replayed through the functions ``fns``."""

    __slots__ = ("fns", "entries")

    def __init__(self, fns: list, entries: list):
        self.fns = fns
        self.entries = entries

    def kept(self) -> bool:
        """Whether every entry kept its scalars (``snapshot``)."""
        return all(vals is not _UNKEPT for _, vals in self.entries)

    def run(self, args: list) -> None:
        d = {"args": args, "T": None}
        fns = self.fns
        for k, vals in self.entries:
            fns[k](d, *vals)


def straight_source(tapes: list[Tape], stmts: list) -> tuple[str, tuple]:
    """One function ``_tape_straight(args, _c)`` running ``tapes`` one after another as straight-line code: every
    data statement as written, after its scalars (an int as a literal, any other value as an entry of ``_c``,
    the returned tuple)."""
    lines, consts = ["def _tape_straight(args, _c):", "    T = None"], []
    for t in tapes:
        for k, vals in t.entries:
            text, free = stmts[k]
            for name, v in zip(free, vals):
                if type(v) is int:
                    lines.append(f"    {name} = {v}")
                else:
                    lines.append(f"    {name} = _c[{len(consts)}]")
                    consts.append(v)
            lines.append("    " + text)
    return "\n".join(lines) + "\n", tuple(consts)
