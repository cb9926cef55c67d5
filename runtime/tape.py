"""A replayed core's data path as a tape: its data statements alone, each with the scalars it was given.

A replayed launch (``replay``) runs the same scalar code as its traced launch: loop counts, queue addresses and
offsets are functions of the launch's signature, not of the data. A core's ``RECORD_AFTER``-th replay (most
programs run only a few times) runs a recording form of its data path (``record_source``), which executes every
statement as the data path would and appends, for every statement that touches data, the statement (compiled as
a function) and the values of the scalars it reads. Later replays of that core run the tape: the data statements
in order, with no scalar code, no loops and no queue bookkeeping. A group of cores (``batched``) records one
tape in its own globals, with the per-core scalars as (K, 1) vectors. A tape that ran ``STRAIGHT_AFTER`` times
is compiled as one straight-line function (``straight_source``), which the next replays call. A kernel whose
cores meet at ``SyncAll`` has a generator as its data path: its tape marks each call (``ROUND_END``), and the tape's
run and its straight-line function are generators that yield there (``sync_all.run_rounds`` advances them).

A statement is scalar when every name it reads is a scalar local, a parameter that is no data (``bid``,
``bnum``, ``ct``, ``sub``) or a global of :data:`SCALAR_GLOBALS` (pure integer helpers, the queue
bookkeeping); every other statement, and every one reading a value a data statement assigned, is a data
statement. A kernel whose control flow (a loop bound, a condition) reads a data value or a global outside
``SCALAR_GLOBALS``, or whose statements use a name both ways, has no tape and replays its data path.
``PYASC_SIM_TAPE=off`` turns tapes off; ``PYASC_SIM_TAPE=always`` records every core at its first replay and
compiles its tape at its first run (with ``PYASC_SIM_REPLAY=verify``: every tape checked against a trace).
"""

from __future__ import annotations

import ast
import keyword
import os
import re
import textwrap

import numpy as np

from .memory import pad_geometry, pad_unit
from .straight_views import (BINDS, GM_VIEW, byte_views_only, gm_elements, gm_rows_per_core, ints_of,
                             strided_gm_rows, values_of, whole_arguments)

TAPE_MODE = os.environ.get("PYASC_SIM_TAPE", "on")
MAX_ENTRIES = 65536  # the data statements a launch's tapes hold at most; past them its cores replay the data path
# the replay of a core that records its tape (a program called this often is likely called again), and the
# runs of a tape after which it becomes a straight-line function; ``PYASC_SIM_TAPE=always``: at once (to check)
RECORD_AFTER = 1 if TAPE_MODE == "always" else 4
STRAIGHT_AFTER = 1 if TAPE_MODE == "always" else 16
MAX_STRAIGHT = 512  # of at most this many data statements (a longer one spends its time in NumPy, not in calls)
MAX_STRAIGHT_CUBE = 8192  # a cube kernel's: its straight function forwards Mmad operands (``cube_forward``)

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


class _Statement:
    """What one statement reads and assigns: names read (an augmented assignment's target too), names assigned,
    the ``Name`` nodes read only for their ``.shape``, and whether it nests a scope or a control transfer."""

    __slots__ = ("loads", "stores", "load_nodes", "shape_nodes", "nested")

    def __init__(self, tree):
        self.loads, self.stores, self.load_nodes, self.shape_nodes, self.nested = [], [], [], set(), False
        for node in ast.walk(tree):
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is ast.Load:
                    self.loads.append(node.id)
                    self.load_nodes.append(node)
                else:
                    self.stores.append(node.id)
            elif kind is ast.AugAssign and type(node.target) is ast.Name:
                self.loads.append(node.target.id)
            elif kind is ast.Attribute and node.attr == "shape" and type(node.value) is ast.Name:
                self.shape_nodes.add(id(node.value))
            elif isinstance(node, _NESTED):
                self.nested = True

    def data_reads(self, data: set[str]) -> bool:
        """Whether it reads a data value (other than a data name's ``.shape``)."""
        return any(n.id in data and id(n) not in self.shape_nodes for n in self.load_nodes)


_ASSIGN = re.compile(r"([A-Za-z_]\w*) (?:[-+*%&|^]|<<|>>|//)?= (?!=)(.*)")
_IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
_KEYWORDS = frozenset(keyword.kwlist)


def _scalar_assignment(text: str, scalars: set[str], data: set[str]) -> str | None:
    """The name a one-line assignment of a scalar expression (of scalar locals and ``SCALAR_GLOBALS`` only)
    assigns, read from its text; None for any other statement, which is parsed."""
    m = _ASSIGN.fullmatch(text)
    if m is None or any(c in text for c in "'\";:"):
        return None
    target = m.group(1)
    if target in data:
        return None
    for name in _IDENT.findall(m.group(2)):
        if name not in scalars and name not in SCALAR_GLOBALS and name not in _KEYWORDS:
            return None
    if not text.startswith(target + " = ") and target not in scalars:  # an augmented assignment reads it
        return None
    return target


def _header_names(text: str) -> tuple[list[str], list[str]]:
    """(names read, names assigned) of a block header (``for``/``if``/``elif``/``else``/``while``)."""
    if any(c in text for c in "'\""):
        probe = _Statement(ast.parse(("if True:\n    pass\n" if text.startswith(("elif", "else")) else "")
                                     + text + "\n    pass"))
        return probe.loads, probe.stores
    head, rest = "", text
    if text.startswith("for "):
        head, _, rest = text[4:].partition(" in ")
    return [n for n in _IDENT.findall(rest) if n not in _KEYWORDS], _IDENT.findall(head)


_SOURCES: dict[str, tuple | None] = {}  # data path source -> its recording form (kernels of many simulators)


def record_source(data_source: str) -> tuple[str, list] | None:
    """The recording form of a data path (``codegen.data_only_source``): the functions ``_tape_<k>`` of its data
    statements and ``_kernel_record(bid, bnum, args, T, ct, sub, _tape)``, which appends ``(k, scalars)`` to
    ``_tape`` for every data statement it runs; and, per ``k``, the statement and the scalars it reads. None
    when the data path has no tape."""
    if data_source not in _SOURCES:
        try:
            made = _record_source(data_source)
        except (_Refused, SyntaxError):
            made = None
        if len(_SOURCES) > 512:
            _SOURCES.clear()
        _SOURCES[data_source] = made
    return _SOURCES[data_source]


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
        if text == "yield":  # a SyncAll (``sync_all``): a mark on the tape, and the recording yields there too
            body.append(f"{indent}_tape.append(ROUND_END); yield")
            continue
        if _BLOCK.match(text):
            loads, stores = _header_names(text)
            if any(n in data for n in loads + stores):
                raise _Refused(f"control flow on a data value: {text}")
            if any(n not in scalars and n not in SCALAR_GLOBALS for n in loads):
                raise _Refused(f"control flow on a value the tape does not keep: {text}")
            scalars.update(stores)
            body.append(line)
            continue
        simple = _scalar_assignment(text, scalars, data)
        if simple is not None:  # most statements: an index or address computed from scalars, without a parse
            scalars.add(simple)
            body.append(line)
            continue
        tree = ast.parse(text)
        st = _Statement(tree)
        if st.nested:
            raise _Refused(f"a statement the tape does not replay: {text}")
        unknown = [n for n in st.loads if n not in scalars and n not in data and n not in SCALAR_GLOBALS]
        if not unknown and not st.data_reads(data):  # scalar: runs when recording only
            if any(n in data for n in st.stores):
                raise _Refused(f"a data name assigned a scalar: {text}")
            scalars.update(st.stores)
            shaped = any(n in data for n in st.loads)  # a data value's .shape: read from ``_d``
            body.append(textwrap.indent(ast.unparse(_ToDict(data).visit(tree)), indent) if shaped else line)
            continue
        if any(n in scalars for n in st.stores):
            raise _Refused(f"a scalar name assigned data: {text}")
        data.update(st.stores)
        free = list(dict.fromkeys(n for n in st.loads if n in scalars))
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


ROUND_END = (-1, ())  # the entry of a ``SyncAll`` call: the core's round ends there


class Tape:
    """A core's tape: ``(k, scalars)`` per data statement run, replayed through the functions ``fns``; a core
    whose kernel calls ``SyncAll`` ends a round at each ``ROUND_END`` entry (``rounds``)."""

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

    def rounds(self, args: list):
        """``run`` as a generator that yields at every ``ROUND_END`` (``sync_all.run_rounds`` advances it)."""
        d = {"args": args, "T": None}
        fns = self.fns
        for k, vals in self.entries:
            if k < 0:
                yield
            else:
                fns[k](d, *vals)


_PAD = re.compile(r"_sp, _gb = _pad_(in|out)\(_fail, \d+, bid, ([^,]+), (\w+), ([^,]+), ([^,]+), ([^,]+), ([^,]+), "
                  r"([^,]+)\)")


_TARGETS = re.compile(r"^[\w, ]+ = ")  # the targets of an assignment statement
_COPY_RESULTS = re.compile(r"\b(_sp|_gb)\b")  # the results of a copy, read by a statement that names them


_UB_SLICE = re.compile(r"\b(U_\w+)\[([^\[\]:]+):([^\[\]:]+)\](\s*=(?!=))?")  # a UB slice, maybe assigned to


def _hoisted_ub_slices(text: str, scope: dict, ub_slice, consts: list) -> str:
    """``text`` with each UB slice whose bounds these scalars fix (``U_f32[v4>>2:(v4>>2)+8]``) read from
    ``consts``, where ``ub_slice(name, lo, hi)`` made it once; one assigned to is written through (``[...]``)."""
    def hoisted(m) -> str:
        bounds = ints_of(m.group(2, 3), scope)
        if bounds is None:
            return m.group(0)
        consts.append(ub_slice(m.group(1), *bounds))
        return f"_c[{len(consts) - 1}]" + ("[...] =" if m.group(4) else "")

    return _UB_SLICE.sub(hoisted, text)


_UB_ELEMENT = re.compile(r"\b(U_\w+)\[([^\[\]:]+)\](?![\[\s]*=(?!=))")  # a UB element read


def _hoisted_ub_elements(text: str, scope: dict, ub_slice, consts: list) -> str:
    """For a group's tape: ``text`` with each UB element read at an offset these scalars fix (``U_f32[_a >> 2]``,
    ``GetValue``) read from a view of every core's element made once (``ub_slice(name, i, i + 1)``)."""
    def hoisted(m) -> str:
        offset = ints_of((m.group(2),), scope)
        if offset is None:
            return m.group(0)
        consts.append(ub_slice(m.group(1), offset[0], offset[0] + 1))
        return f"_c[{len(consts) - 1}]"

    return _UB_ELEMENT.sub(hoisted, text)


_SCALAR_SET = re.compile(r"    (\w+) = (?:-?\d+|_c\[\d+\])")  # a scalar given its recorded value
_NAME = re.compile(r"[A-Za-z_]\w*")
_TRACE = re.compile(r"\bT\b")  # the traced run's ``T`` (the records' list), absent from straight code


def _without_unread_scalars(lines: list[str], scalars: set[str]) -> list[str]:
    """``lines`` without the assignments of recorded values to the scalars ``scalars`` that no other line reads
    (their statements took their values at compile time)."""
    read: set[str] = set()
    for line in lines:
        m = _SCALAR_SET.fullmatch(line)
        if m is None or m.group(1) not in scalars:
            read.update(_NAME.findall(line))
    return [line for line in lines
            if (m := _SCALAR_SET.fullmatch(line)) is None or m.group(1) not in scalars or m.group(1) in read]


_LITERAL = re.compile(r"    (\w+) = (-?\d+)")  # a scalar bound to an int


def _literals_folded(lines: list[str]) -> list[str]:
    """Straight code ``lines`` with each read of a scalar whose binding before it is an int literal read as that
    int, and those bindings gone; a name bound any other way than as a whole statement is left alone."""
    names = {m.group(1) for line in lines if (m := _LITERAL.fullmatch(line))}
    for line in lines:
        m = BINDS.fullmatch(line)
        if line.startswith("     ") or (m is None and "=" in line and any(
                re.search(rf"(?<![\w.\[]){n}\s*(?:,[\w\s,]*)?=(?!=)", line) for n in names)):
            return lines  # a block, or a name bound inside a statement: as it is
    known: dict[str, str] = {}
    read = None
    out = []
    for line in lines:
        m = BINDS.fullmatch(line)
        if read is not None:
            def fold(text: str) -> str:
                return read.sub(lambda k: known[k.group(0)], text)
            line = f"    {m.group(1)} = {fold(m.group(2))}" if m else fold(line)
        for name in m.group(1).rstrip(",").split(", ") if m else ():
            known.pop(name, None)
        if (lit := _LITERAL.fullmatch(line)) is not None:
            known[lit.group(1)] = f"({lit.group(2)})" if lit.group(2).startswith("-") else lit.group(2)
        else:
            out.append(line)
        read = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, known)) + r")\b") if known else None
    return out


_ROW_VIEW = re.compile(r"\b_V2\((\w+), (\d+), (\d+), (\d+), (\d+)\)")  # a vectorised loop's rows at fixed bytes


def _row_view(m, env: dict, consts: list) -> str:
    """The rows ``_V2(dtype, base, coef, rows, n)`` of ``m`` made once, as an entry of ``consts``."""
    dt = env.get(m.group(1))
    if not isinstance(dt, np.dtype):
        return m.group(0)
    consts.append(env["_V2"](dt, *(int(g) for g in m.group(2, 3, 4, 5))))
    return f"_c[{len(consts) - 1}]"


def _plain_copy(text: str, scope: dict, ub: np.ndarray, group_copy, consts: list) -> str | None:
    """A ``DataCopyPad`` statement as the copy it makes with these scalars (its traced run checked its bounds), or
    None. On one core (``ub``: UB's bytes) one block is a byte-slice copy and several an assignment between the
    GM blocks' view and the UB blocks' view, made once and appended to ``consts``; a group's (``ub``: its cores'
    UB rows) is ``group_copy``'s (``batched.pad_copy``)."""
    m = _PAD.fullmatch(text)
    if m is None:
        return None
    values = values_of(m.group(2, 4, 5, 6, 7, 8), scope)
    if values is None:
        return None
    u, g, bc, bl, ss, ds = values
    if not all(type(x) is int for x in (u, bl, ss, ds)) or not (type(bc) is int or ub.ndim == 2):
        return None  # a group's block count may differ per core (``batched.pad_copy``)
    if type(bc) is int and (bc <= 0 or bl <= 0):
        return "pass"  # moves nothing
    to_gm = m.group(1) == "out"
    if ub.ndim == 2:
        return None if group_copy is None else group_copy(to_gm, m.group(3), u, g, bc, bl, ss, ds, ub, consts)
    if type(g) is not int:
        return None
    if bc == 1:
        ub_text, gm = f"U_ui8[{u}:{u + bl}]", f"{m.group(3)}[{g}:{g + bl}]"
    else:
        us, gs, _ = pad_geometry(to_gm, bc, bl, ss, ds)
        unit = pad_unit(u, g, bl, us, gs)
        k = unit.itemsize
        consts.append(np.ndarray((bc, bl // k), unit, ub, u, (us, k)))
        ub_text = f"_c[{len(consts) - 1}]" + ("" if to_gm else "[...]")
        gm = f"np.ndarray(({bc}, {bl // k}), np.{unit.name}, {m.group(3)}, {g}, ({gs}, {k}))[...]"
    return f"{gm} = {ub_text}" if to_gm else f"{ub_text} = {gm}"


_CALL = re.compile(r"(?:([\w, ]+) = )?(_\w+)\((.*)\)")  # a helper's call, maybe assigned


def _fixed_form(text: str, scope: dict, env: dict, forms: dict, gm: dict, group: bool, read: set[str],
                consts: list) -> list[str] | None:
    """The statements of ``forms``' form of a helper's call whose results no statement reads, with these scalars
    (see ``cube_straight``), or None. An argument is a recorded scalar, a literal or one of the globals ``env``."""
    m = _CALL.fullmatch(text)
    if m is None or m.group(2) not in forms or read.intersection((m.group(1) or "").replace(" ", "").split(",")):
        return None

    def value(x: str):
        if x in scope:
            return scope[x]
        if x in env:
            return env[x]
        try:
            return ast.literal_eval(x)
        except (ValueError, SyntaxError):
            raise _Refused(x) from None

    held = len(consts)
    try:
        made = forms[m.group(2)](m.group(3).split(", "), value, gm, group, consts)
    except _Refused:
        made = None
    if made is None:
        del consts[held:]
    return made


_PLAN_LOOKUP = re.compile(r"(\w+) = (\w+)\.get\((.*)\)")  # a plan looked up in its table
_IF_NONE = re.compile(r"if (\w+) is None: .*")  # a plan made when the lookup missed


def _plan_held(text: str, scope: dict, env: dict) -> tuple[str, tuple] | None:
    """(the name, the plan) of a lookup in one of the kernel's plan tables (``_CUBE_PLANS``: views of its local
    memories made once per operand addresses) that these scalars key and the table holds, or None."""
    m = _PLAN_LOOKUP.fullmatch(text)
    if m is None or m.group(2) not in env.get("_CUBE_PLANS", ()):
        return None
    key = values_of((m.group(3),), scope)
    try:
        plan = None if key is None else env[m.group(2)].get(key[0])
    except TypeError:  # a key of per-core numbers
        return None
    return None if plan is None else (m.group(1), plan)


def straight_source(tapes: list[Tape], stmts: list, ub: np.ndarray | None = None,
                    group_copy=None, ub_slice=None, forms: dict | None = None,
                    env: dict | None = None, arg_bytes: list | None = None) -> tuple[str, list[tuple]]:
    """Functions ``_tape_straight_<i>(args, _c)``, one per tape, each running its tape as straight-line code:
    every data statement as written, after its scalars (an int as a literal, any other value as an entry of
    ``_c``); and each function's ``_c``. Compiled together: one compile for the cores of a launch. Given ``ub``
    (one core's UB bytes, or a group's (K, UB bytes) rows, with the group's ``group_copy``) a ``DataCopyPad`` whose
    results no statement reads becomes the copy it makes (``_plain_copy``); when several cores of a launch run one by
    one, the views of a kernel argument come from ``_gmc`` (``memory.make_gm_views``), made once for them all. Given
    ``ub_slice(name, lo, hi)`` (the UB view ``U_<type>[lo:hi]`` of the globals the functions run in), a UB slice
    with fixed bounds is made once (``_hoisted_ub_slices``). Given ``forms`` (helper name -> form, see
    ``cube_straight``) and the globals ``env``, a call of such a helper becomes its form's statements, and a plan
    that one of the kernel's plan tables holds for the recorded operands is taken once (``_plan_held``). Given the
    bytes of each kernel argument (``arg_bytes``), a view of a whole argument is the argument."""
    copies = ub is not None and not any(_COPY_RESULTS.search(_TARGETS.sub("", text, count=1)) for text, _ in stmts)
    shared_views = ub is not None and ub.ndim == 1 and len(tapes) > 1  # cores of one launch, run one by one
    group = ub is not None and ub.ndim == 2
    read: set[str] = set()
    if forms:
        for text, _ in stmts:
            read.update(_NAME.findall(_TARGETS.sub("", text, count=1)))
    lines, all_consts = [], []
    for i, t in enumerate(tapes):
        lines.append(f"def _tape_straight_{i}(args, _c):")
        body: list[str] = []
        consts: list = []
        scalars: set[str] = set()
        gm: dict[str, tuple] = {}  # typed view of a global tensor -> (its byte view, dtype, size)
        held: set[str] = set()  # names of plans taken from their tables (``_plan_held``)
        for k, vals in t.entries:
            if k < 0:  # ``ROUND_END``: the function is a generator, as the data path
                body.append("    yield")
                continue
            text, free = stmts[k]
            if env is not None:
                plan = _plan_held(text, dict(zip(free, vals)), env)
                if plan is not None:
                    body.append(f"    {plan[0]} = _c[{len(consts)}]")
                    consts.append(plan[1])
                    held.add(plan[0])
                    continue
                if held and (m := _IF_NONE.fullmatch(text)) is not None and m.group(1) in held:
                    continue  # the plan is there
                if held and (m := _TARGETS.match(text)) is not None:
                    held.difference_update(m.group(0)[:-3].replace(" ", "").split(","))
            if forms:
                view = GM_VIEW.fullmatch(text)
                if view is not None:
                    _, dt, size = view.group(3).split(", ")
                    gm[view.group(1)] = (view.group(2), env[dt], int(size))
                elif (made := _fixed_form(text, dict(zip(free, vals)), env, forms, gm, group, read, consts)):
                    body += ["    " + line for line in made if line != "pass"]  # "pass": a form that moves nothing
                    continue
            plain = _plain_copy(text, dict(zip(free, vals)), ub, group_copy, consts) if copies else None
            if plain is not None:
                body += [] if plain == "pass" else ["    " + plain]  # "pass": the copy moves nothing
                continue
            if shared_views and GM_VIEW.fullmatch(text):
                text = text.replace(" = _gm(", " = _gmc(", 1)
            if ub_slice is not None and "U_" in text:
                text = _hoisted_ub_slices(text, dict(zip(free, vals)), ub_slice, consts)
            if ub is not None and ub.ndim == 2:
                if ":" in text:
                    text = strided_gm_rows(text, dict(zip(free, vals)), ub.shape[0])
                    text = gm_rows_per_core(text, dict(zip(free, vals)), ub.shape[0], consts)
                text = gm_elements(text, dict(zip(free, vals)), ub.shape[0], consts) if "G" in text else text
                if ub_slice is not None and "U_" in text:
                    text = _hoisted_ub_elements(text, dict(zip(free, vals)), ub_slice, consts)
            for name, v in zip(free, vals):
                if type(v) is int:
                    body.append(f"    {name} = {v}")
                else:
                    body.append(f"    {name} = _c[{len(consts)}]")
                    consts.append(v)
            scalars.update(free)
            body.append("    " + text)
        body = _without_unread_scalars(_literals_folded(body), scalars)
        if env is not None and "_V2" in env:
            body = [_ROW_VIEW.sub(lambda m: _row_view(m, env, consts), line) for line in body]
        body = byte_views_only(body, group) if ub is not None else body
        body = whole_arguments(body, env, arg_bytes, group) if arg_bytes and env is not None else body
        # ``T`` only where a line names it (straight code records no trace)
        lines += ["    T = None"] * any(_TRACE.search(line) for line in body) + (body or ["    pass"])
        all_consts.append(tuple(consts))
    return "\n".join(lines) + "\n", all_consts
