"""The translator's state and the code-generation helpers every op handler shares.

``KernelTranslator`` turns one kernel into Python source (see ``translate`` for the value model): it
names SSA values, folds constants, keeps the ``OpInfo`` table and asks ``handler_for(op)`` (given to it)
for the code generator of each op. The helpers below build the inline fast paths of the handlers: one
combined bounds and alignment test (the detailed message is built only when it fails), one NumPy call on
views of UB/GM, one trace record. Numbers of the cycle model are folded into the source as literals.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.gm_access import gm_argument
from pyasc.dialects.target import Pipe, TargetSpec
from pyasc.dialects.traits import OnPipe
from pyasc.dialects.types import numpy_dtype

from . import tape
from .contract import check_extents, kernel_findings, make_rule
from .handoff import handoff_findings
from .costs import PIPE_INDEX
from .errors import SimulationError
from .opinfo import WORK, OpInfo

Handler = Callable[["KernelTranslator", Operation], None]


@dataclass
class CompiledKernel:
    """A kernel translated to Python: ``fn(bid, bnum, args, trace_append, ct, sub)`` runs one core (``ct``:
    0 AIC, 1 AIV, and ``sub`` the AIV's index in its AI Core; only MIX kernels look at them)."""

    name: str
    fn: object
    infos: list[OpInfo]
    source: str
    num_args: int
    code: object = None  # the compiled source, also run by a group of cores in other globals (``batched``)
    env: dict | None = None
    _data: tuple | None = field(default=None, repr=False)
    _record: tuple | None = field(default=None, repr=False)

    def _data_path(self) -> tuple:
        """``(code, function)`` of the data path alone (``data_only_source``), compiled when first asked
        for: only warm runs (``runtime/replay``) take it."""
        if self._data is None:
            code = compile(data_only_source(self.source), f"<ascendc kernel @{self.name}, data path>", "exec")
            exec(code, self.env)
            self._data = (code, self.env["_kernel_data"])
        return self._data

    @property
    def data_code(self):
        """The compiled data path, defining ``_kernel_data``."""
        return self._data_path()[0]

    @property
    def data_fn(self):
        return self._data_path()[1]

    @property
    def may_tape(self) -> bool:
        """False once the data path is known to have no tape."""
        return self._record is None or self._record[0] is not None

    @property
    def tape_code(self):
        """``(code, stmts)`` of the data path's tape (``tape.record_source``): the compiled recording form and,
        per data statement, its text and the scalars it reads; None when the data path has no tape."""
        if self._record is None:
            made = tape.record_source(data_only_source(self.source))
            self._record = (None,) if made is None else (
                (compile(made[0], f"<ascendc kernel @{self.name}, tape>", "exec"), made[1]),)
        return self._record[0]

    def tape_program(self, env: dict | None = None) -> tuple:
        """``(record, fns)`` in globals ``env`` (default: the kernel's own, for one core): ``_kernel_record`` and
        the data statements as functions."""
        env = self.env if env is None else env
        if "_kernel_record" not in env:
            env["_tape_snap"], env["ROUND_END"] = tape.snapshot, tape.ROUND_END
            exec(self.tape_code[0], env)
        return env["_kernel_record"], [env[f"_tape_{k}"] for k in range(len(self.tape_code[1]))]

    def straight(self, tapes: list, env: dict | None = None, arg_bytes: list | None = None) -> list[tuple]:
        """``(fn, consts)`` per tape of ``tapes``: the tape as a straight-line function ``fn(args, consts)`` in
        globals ``env``, for arguments of ``arg_bytes`` bytes each (None: any); one compile for them all."""
        env = self.env if env is None else env
        ub = env.get("U_ui8")
        src, consts = tape.straight_source(tapes, self.tape_code[1], getattr(ub, "a", ub), env.get("_pad_copy"),
                                           lambda name, lo, hi: env[name][lo:hi], env.get("_STRAIGHT_FORMS"), env,
                                           arg_bytes)
        if "_CUBE" in env:
            from .cube_forward import forward  # imports the cube's ops, which import this module

            src, consts = forward(src, consts, env, arg_bytes)
        ns: dict = {}
        exec(compile(src, f"<ascendc kernel @{self.name}, straight tapes>", "exec"), env, ns)
        return [(ns[f"_tape_straight_{i}"], c) for i, c in enumerate(consts)]


class KernelTranslator:
    """Translates one kernel function into Python source and compiles it.

    ``env`` is the dictionary of globals shared by the generated code (UB views, helpers, constants);
    the translator adds its own constants and the ``_fail``/``_find``/``_rule`` helpers (``_rule``: a
    finding that names a documented rule, ``contract``). ``handler_for(op)`` is the
    code generator of an op, or None when the simulator does not support it.
    """

    def __init__(self, func_op: func.FuncOp, spec: TargetSpec, env: dict, run_ctx,
                 handler_for: Callable[[Operation], Handler | None]):
        self.func = func_op
        self.kernel = func_op.sym_name.data
        self.spec = spec
        self.env = dict(env)
        self.run_ctx = run_ctx
        self.handler_for = handler_for
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict[SSAValue, str] = {}
        self.consts: dict[SSAValue, int] = {}
        self.gm_roots: dict[SSAValue, tuple[str, str, str, int]] = {}
        self.infos: list[OpInfo] = []
        self.pending = 0
        self._ids = itertools.count()
        self._const_names: dict[tuple, str] = {}
        self.num_queues = 0
        self.checked: set[SSAValue] = set()  # event-id values already range-checked in this scope
        self.no_data = False  # emitting the trace-only copy of a vectorised loop (see ``vectorize``)
        self.skip_in_trace_only: frozenset[str] = frozenset()  # ops the trace-only copy leaves out
        self.sid_memo: dict | None = None  # ops emitted twice (vectorised loops) keep one OpInfo
        self._written: tuple[set, set] | None = None

    # ------------------------------------------------------------------ naming and emission helpers

    def fresh(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self._ids)}"

    def v(self, value: SSAValue) -> str:
        """The Python expression of an SSA value (a variable or a literal)."""
        name = self.names.get(value)
        if name is None:
            name = self.names[value] = self.fresh("v")
        return name

    def bind(self, value: SSAValue, expr: str) -> None:
        self.names[value] = expr

    def const_of(self, value: SSAValue) -> int | None:
        return self.consts.get(value)

    def const(self, obj, prefix: str = "K") -> str:
        """A global name holding ``obj`` (deduplicated by type and value)."""
        key = (type(obj), repr(obj), prefix)
        name = self._const_names.get(key)
        if name is None:
            name = self._const_names[key] = self.fresh(prefix)
            self.env[name] = obj
        return name

    def emit(self, line: str) -> None:
        if self.no_data and ("U_" in line or line.startswith("if ") and "_fail(" in line):
            return  # data work or checks of an op of a vectorised loop (done over all rows at once)
        self.lines.append("    " * self.depth + line)

    def info(self, op: Operation, pipe: int | None = None, kind: int = 0, writes=(), gm: bool = False,
             label: str = "") -> int:
        if self.sid_memo is not None:
            key = (op, pipe, kind, tuple(writes), gm, label)
            sid = self.sid_memo.get(key)
            if sid is None:
                sid = self.sid_memo[key] = len(self.infos)
                self.infos.append(OpInfo(op, self.kernel, pipe, kind, tuple(writes), gm, label))
            return sid
        self.infos.append(OpInfo(op, self.kernel, pipe, kind, tuple(writes), gm, label))
        return len(self.infos) - 1

    def issue(self) -> None:
        """Advance the scalar clock to the op being traced (it counts itself)."""
        if self.pending:
            self.emit(f"s += {self.pending}")
        self.pending = 0

    def flush(self) -> None:
        if self.pending:
            self.emit(f"s += {self.pending}")
        self.pending = 0

    def fail_line(self, sid: int, msg: str) -> None:
        self.emit(f"_fail({sid}, bid, {msg!r})")

    def local_dtype(self, value: SSAValue) -> tuple[str, int, int]:
        """(dtype key, element size, log2 of the size) of a local tensor value."""
        et = str(value.type.element_type)
        es = numpy_dtype(et).itemsize
        return et, es, es.bit_length() - 1

    def _handoff_written(self) -> tuple[set, set]:
        """(kernel arguments a ``Fixpipe`` writes, kernel arguments a vector core's copy to GM writes), from one walk
        of the kernel."""
        if self._written is None:
            cube, vector = set(), set()
            for op in self.func.walk():
                if isinstance(op, asc.FixpipeOp):
                    cube.add(gm_argument(op.dst))
                elif isinstance(op, asc.DataCopyOp | asc.DataCopyPadOp) and isinstance(op.dst.type,
                                                                                       asc.GlobalTensorType):
                    vector.add(gm_argument(op.dst))
            cube.discard(None)
            vector.discard(None)
            self._written = (cube, vector)
        return self._written

    def written_by_cube(self, value: SSAValue) -> bool:
        """Whether the global tensor ``value`` views a kernel argument a ``Fixpipe`` of this kernel writes: in a MIX
        kernel, the workspace the vector cores read back after the cube wrote it, from L2 (see ``costs``)."""
        return gm_argument(value) in self._handoff_written()[0]

    def written_by_vector(self, value: SSAValue) -> bool:
        """Whether the global tensor ``value`` views a kernel argument a vector core's copy to GM of this kernel
        writes: in a MIX kernel, the workspace the cube reads after the vector cores wrote it, from L2 (see
        ``costs``)."""
        return gm_argument(value) in self._handoff_written()[1]

    def gm_root(self, value: SSAValue, op: Operation) -> tuple[str, str, str, int]:
        root = self.gm_roots.get(value)
        if root is None:
            raise SimulationError(
                f"kernel @{self.kernel}: the global tensor used by `{op}` does not derive statically from an "
                f"ascendc.global_tensor op (global tensors through block arguments are not supported)")
        return root

    # ------------------------------------------------------------------ driver

    def translate(self) -> CompiledKernel:
        args = self.func.body.block.args
        arg_names = [f"a{i}" for i in range(len(args))]
        for a, n in zip(args, arg_names):
            self.bind(a, n)
        self.env["_fail"] = self._make_fail()
        self.env["_find"] = self._make_find()
        self.env["_rule"] = make_rule(self.infos, self.run_ctx)
        for rule_id, op, detail in kernel_findings(self.func) + handoff_findings(self.func):
            self.emit(f"_rule({rule_id!r}, {self.info(op)}, bid, {detail!r})")
        self.emit_block(self.func.body.block)
        self.flush()
        if not self.lines or self.lines[-1].strip() != "return s":
            self.emit("return s")
        header = ["def _kernel(bid, bnum, args, T, ct=0, sub=0):", "    s = 0"]
        if "_CUBE" in self.env:  # the cube's memories start each core as garbage (``CubeMemories.poison``)
            header.append("    if not ct: _CUBE.poison()")
        if "_L2V" in self.env and any("_L2V." in x for x in self.lines):  # a vector core's L2 record starts with it
            header.append("    _lm = _L2V.start(bid * 2 + sub)")
        if arg_names:
            header.append(f"    {', '.join(arg_names)}, = args")
        source = "\n".join(header + self.lines) + "\n"
        code = compile(source, f"<ascendc kernel @{self.kernel}>", "exec")
        exec(code, self.env)
        return CompiledKernel(self.kernel, self.env["_kernel"], self.infos, source, len(args), code, self.env)

    def _make_fail(self):
        infos = self.infos

        def _fail(sid: int, bid: int, msg: str):
            raise SimulationError(f"{infos[sid].describe()}, core {bid}: {msg}")

        return _fail

    def _make_find(self):
        infos, ctx = self.infos, self.run_ctx

        def _find(kind: str, sid: int, bid: int, msg: str, rule: str | None = None):
            i = infos[sid]
            ctx.log.add(kind, msg, i.kernel, i.text, bid, loc=i.loc, rule=rule)

        return _find

    def emit_block(self, block: Block) -> None:
        for op in block.ops:
            handler = self.handler_for(op)
            if handler is None:
                raise SimulationError(f"kernel @{self.kernel}: the simulator does not support `{op.name}` ({op})")
            if op.name not in ("scf.yield", "func.return"):
                self.pending += 1
            if self.no_data and op.name in self.skip_in_trace_only:
                continue  # a float scalar only the vectorised data work uses
            handler(self, op)

    def emit_region_block(self, block: Block, pending: int = 0) -> None:
        """A nested block: its own scalar-count bookkeeping, at least one statement."""
        self.depth += 1
        start = len(self.lines)
        self.pending = pending
        saved = set(self.checked)
        self.emit_block(block)
        self.flush()
        self.checked = saved
        if len(self.lines) == start:
            self.emit("pass")
        self.depth -= 1
        self.pending = 0


# ---------------------------------------------------------------------------------------- helpers


# the lines of generated code that only trace or check: a trace record, the scalar clock, a check that
# fails or reports (alone or as the body of a one-line ``if``), a value only a record reads (the bytes a
# DataCopyPad reads, a Gather's extent and lanes, the bytes a GM read misses in L2), the rows a copy to GM
# wrote (recorded while a launch is watched, ``core_order.watch_writes``)
_TRACE_OR_CHECK = re.compile(r"\s*(T\(\(|s \+= |_fail\(|_rule\(|_find\(|if .*: _(fail|rule|find)\(|_(rd|ge|gc|lm) = "
                             r"|if _GMW is not None: )")
_BLOCK_START = re.compile(r"\s*(for|if|elif|else|while|try|except|with|def)\b.*:$")


def data_only_source(source: str) -> str:
    """The kernel's source reduced to its data path, as the function ``_kernel_data``: without trace records,
    the scalar clock and the checks, without the L2 accounting of GM reads, and with queues that only hand
    out addresses (``TQueData``). Run only where a traced run with the same scalars passed every check
    (``runtime/replay``)."""
    lines = source.splitlines()
    kept = [lines[0].replace("def _kernel(", "def _kernel_data(", 1), "    _L2 = None"]
    kept += [x.replace(" = TQueState(", " = TQueData(", 1) for x in lines[1:] if not _TRACE_OR_CHECK.match(x)]
    out = []
    for i, line in enumerate(kept):
        out.append(line)
        if _BLOCK_START.match(line):
            indent = len(line) - len(line.lstrip())
            nxt = kept[i + 1] if i + 1 < len(kept) else ""
            if len(nxt) - len(nxt.lstrip()) <= indent:
                out.append(" " * (indent + 4) + "pass")
    return "\n".join(out) + "\n"


_ON_PIPE: dict[type, OnPipe | None] = {}  # op class -> its OnPipe trait


def pipe_index(op: Operation) -> int:
    """The trace's index of the pipe the op runs on (its ``OnPipe`` trait)."""
    cls = type(op)
    trait = _ON_PIPE[cls] if cls in _ON_PIPE else _ON_PIPE.setdefault(cls, cls.get_trait(OnPipe))
    pipe = None if trait is None else trait.of(op)
    if pipe is None or pipe == Pipe.ALL:
        raise SimulationError(f"`{op.name}` names no single pipe to run on")
    return PIPE_INDEX[pipe.value]


def literal(x: int) -> str:
    return repr(x) if x >= 0 else f"({x})"


def ub_view(dt: str, sh: int, addr: str, n: str) -> str:
    """A UB view of ``n`` elements of ``dt`` at byte address ``addr``."""
    if addr.isdigit():
        i = int(addr) >> sh
        return f"U_{dt}[{i}:{i}+{n}]"
    if sh == 0:
        return f"U_{dt}[{addr}:{addr}+{n}]"
    return f"U_{dt}[{addr}>>{sh}:({addr}>>{sh})+{n}]"


def ub_test(addrs: list[str], nb: str) -> str:
    """A condition that is true when a UB operand is misaligned, negative or past the end of UB."""
    uniq = list(dict.fromkeys(addrs))
    dyn = [a for a in uniq if not a.isdigit()]
    parts = ["True"] if any(a.isdigit() and int(a) % 32 for a in uniq) else []
    if dyn:
        ors = " | ".join(dyn)
        parts.append(f"({ors}) & 31")
        parts.append(f"min({', '.join(dyn)}) < 0" if len(dyn) > 1 else f"{dyn[0]} < 0")
    top = f"max({', '.join(uniq)})" if len(uniq) > 1 else uniq[0]
    parts.append(f"{top} + {nb} > UBN")
    return " or ".join(parts)


def counts(t: KernelTranslator, op, es: int, copy: bool, sid: int) -> tuple[str, str]:
    """Expressions for the element and byte counts; DataCopy rounds the byte count down to 32 B.

    Constant counts are folded into literals; otherwise ``_n`` and ``_nb`` are emitted.
    """
    c = t.consts.get(op.count)
    if c is not None and c >= 0:
        nb = c * es
        if copy and nb % 32:
            t.emit(f"_find('copy-rounding', {sid}, bid, 'DataCopy of {nb} bytes is not a multiple of 32 B: "
                   f"the hardware moves {nb & ~31}', 'datacopy-count-32b-floor')")
            nb &= ~31
            c = nb // es
        return str(c), str(nb)
    t.emit(f"_n = {t.v(op.count)}")
    t.emit(f"_nb = _n * {es}")
    if copy:
        t.emit("if _nb & 31:")
        t.emit(f"    _find('copy-rounding', {sid}, bid, f'DataCopy of {{_nb}} bytes is not a multiple of 32 B: "
               f"the hardware moves {{_nb & ~31}}', 'datacopy-count-32b-floor')")
        t.emit(f"    _nb &= ~31; _n = _nb // {es}")
    return "_n", "_nb"


def negative_test(n: str) -> str:
    """``n < 0 or `` for a count that is not a literal."""
    return "" if n.isdigit() else f"{n} < 0 or "


def vector_cost(t: KernelTranslator, nb: str, per_repeat: float) -> str:
    """The cost of a count-form vector call touching ``nb`` bytes (a literal when ``nb`` is one)."""
    sp = t.spec
    if nb.isdigit():
        rep = -(-int(nb) // sp.repeat_bytes)
        return repr(sp.vector_fixed_cycles * max(1, -(-rep // sp.max_repeats)) + rep * per_repeat)
    rep = f"(({nb} + {sp.repeat_bytes - 1}) // {sp.repeat_bytes})"
    instr = f"(({rep} + {sp.max_repeats - 1}) // {sp.max_repeats} or 1)"
    scale = "" if per_repeat == 1 else f" * {per_repeat}"
    return f"{sp.vector_fixed_cycles} * {instr} + {rep}{scale}"


def record(t: KernelTranslator, sid: int, cost: str, aux: str, regions: list[tuple[str, str]],
           pattern: tuple[str, ...] | None = None) -> None:
    """Append the op's trace record (see ``opinfo``); ``pattern`` says how the op touches one of its regions:
    (region, block bytes, pitch) in blocks, (region, offsets) element by element."""
    t.issue()
    fields = [str(sid), "s", cost, aux] + [x for r in regions for x in r] + list(pattern or ())
    t.emit(f"T(({', '.join(fields)}))")


def fail_if(t: KernelTranslator, cond: str, sid: int, msg: str) -> None:
    t.emit(f"if {cond}: _fail({sid}, bid, {msg})")


def ub_message(addrs: list[str], nb: str) -> str:
    return f"_ub_msg(({', '.join(addrs)},), {nb})"


def vector_prologue(t: KernelTranslator, op, operands: list, writes: tuple[bool, ...]):
    """The common start of a count-form vector op on ``operands`` (the first is the destination): its
    OpInfo, the element type, the UB address expressions, the cycles per repeat of its cost class and
    the element and byte counts, with the UB check emitted."""
    et, es, sh = t.local_dtype(op.dst)
    sid = t.info(op, pipe_index(op), WORK, writes=writes)
    addrs = [t.v(x) for x in operands]
    n, nb = counts(t, op, es, False, sid)
    fail_if(t, negative_test(n) + ub_test(addrs, nb), sid, ub_message(addrs, nb))
    check_extents(t, sid, op.API, [(x, a, nb) for x, a in zip(operands, addrs)])
    per = t.spec.cycles_per_repeat(op.COST, es)
    return sid, et, sh, addrs, per, n, nb
