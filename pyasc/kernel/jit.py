"""``@asc.jit``: kernels traced into the ``ascendc`` dialect and launched as ``kernel[block_dim, stream](...)``.

A launch binds the arguments (arrays and tensors become ``GM_ADDR`` buffers, ``int``/``float``/``bool``
scalars and structs become small GM buffers the kernel reads with ``GetValue``, ``asc.ConstExpr``
parameters are compile-time constants), traces the kernel once per signature into an ``ascendc``
module (a ``func.func`` kernel plus a host function with ``ascendc.launch``) and runs it on the
configured backend (``asc.runtime.config``).

Synchronisation: ``@asc.jit(insert_sync=True)`` (the official insert-sync mode) runs the
``ascendc-insert-sync`` pass over the traced kernel, which adds every flag and barrier the kernel's own
ones leave missing. Without it, the same analysis reports the user's synchronisation: a dependency
nothing orders is a ``missing-sync`` finding, a set/wait pair or barrier that orders nothing a
``redundant-sync`` finding (in the Model backend's report, next to the simulator's own hazard checks);
``verify_sync=True`` makes a missing one an error when the kernel is compiled.

The kernel type follows the official rules: a kernel using ``asc.adv.Matmul`` is MIX
(``KERNEL_TYPE_MIX_AIC_1_2``; ``matmul_cube_only=True``: AIC only), one using the cube's basic API
only is AIC only, one using both basic APIs is MIX, anything else runs on the vector cores (AIV).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Region

from pyasc.lowering.kernel_frame import add_kernel_frame
from pyasc.dialects import ascendc as A
from pyasc.dialects.ascendc.mix import AIC_ONLY, AIV_ONLY, KERNEL_TYPE_ATTR, MIX_AIC_1_2, MIX_AIV_1_0
from pyasc.dialects.asctile.mix import CoreKind
from pyasc.dialects.target import TargetAttr

from . import dtypes, interp
from .adv.handoff import finish_core
from .errors import KernelError
from .structs import KernelStruct, Struct
from .trace import Scalar, Tracer, activate
from .values import GlobalAddress

OPTIONS = {
    # the official CodegenOptions, CompileOptions (accepted; those without an effect here are ignored)
    "capture_exceptions": True, "ir_multithreading": True, "debug": False, "strip_loc": False,
    "verify_sync": False, "print_ir_before_all": False, "run_passes": True, "kernel_type": None, "opt_level": 3,
    "auto_sync": True, "auto_sync_log": "", "bisheng_options": None, "always_compile": False,
    "matmul_cube_only": False, "insert_sync": None,
    # pyasc's: what a Model run does with hazard findings (default: asc.runtime.config.hazard_policy())
    "hazards": None,
}


class ConstExpr:
    """``asc.ConstExpr[int]``: a parameter whose value is folded into the kernel when it is compiled."""

    def __class_getitem__(cls, item):
        return _ConstExprAnnotation(item)


@dataclass(frozen=True)
class _ConstExprAnnotation:
    type: object

    def __repr__(self) -> str:
        return f"asc.ConstExpr[{getattr(self.type, '__name__', self.type)}]"


def _is_constexpr(annotation) -> bool:
    if isinstance(annotation, _ConstExprAnnotation):
        return True
    return isinstance(annotation, str) and "ConstExpr" in annotation


@dataclass
class ArgSpec:
    """How one kernel parameter is passed: "gm" (an array), "scalar", "struct" or "const"."""

    name: str
    kind: str
    dtype: object = None
    size: int = 0
    value: object = None  # scalars, structs and constants: the launch value

    def key(self, with_values: bool):
        if self.kind == "const":
            return (self.name, "const", _hashable(self.value))
        if self.kind == "gm":
            return (self.name, "gm", self.dtype.ir, self.size)
        if self.kind == "struct":
            return (self.name, "struct", type(self.value).__name__, self.value.values() if with_values else None)
        return (self.name, "scalar", self.dtype.ir, self.value if with_values else None)


def _hashable(v):
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def classify(name: str, annotation, value) -> ArgSpec:
    if _is_constexpr(annotation):
        return ArgSpec(name, "const", value=value)
    if isinstance(value, np.ndarray):
        return ArgSpec(name, "gm", dtypes.from_numpy(value.dtype), int(value.size))
    if type(value).__module__.startswith("torch") and hasattr(value, "dtype") and hasattr(value, "numel"):
        if str(getattr(value, "device", "cpu")) != "cpu":
            raise KernelError("launch", f"argument '{name}' is a tensor on {value.device}; only CPU tensors can be "
                                        f"copied to the simulated device")
        return ArgSpec(name, "gm", dtypes.from_torch(value.dtype), int(value.numel()))
    if isinstance(value, Struct):
        return ArgSpec(name, "struct", value=value)
    if isinstance(value, bool | np.bool_):
        return ArgSpec(name, "scalar", dtypes.int32, value=int(bool(value)))
    if isinstance(value, int | np.integer):
        return ArgSpec(name, "scalar", dtypes.int32, value=int(value))
    if isinstance(value, float | np.floating):
        return ArgSpec(name, "scalar", dtypes.float32, value=float(value))
    raise KernelError("launch", f"argument '{name}' of type {type(value).__name__} cannot be passed to a kernel "
                                f"(pass a NumPy array, a CPU torch tensor, a number or a struct)")


@dataclass
class Compiled:
    """A traced kernel: its ``ascendc`` module, names and argument specs."""

    module: ModuleOp
    kernel: str
    host: str
    specs: list[ArgSpec]
    host_order: list[int]  # kernel argument index of each host-function argument
    kernel_type: str
    block_dim: int
    pinned: bool
    simulator: object = None
    last_report: object = None
    extra: dict = field(default_factory=dict)

    def kernel_source(self) -> str:
        from pyasc.lowering.emit.kernel import kernel_source

        return kernel_source(self.module)

    def host_source(self) -> str:
        from pyasc.lowering.emit.host import host_source

        return host_source(self.module, self.host)


class JITFunction:
    """A ``@asc.jit`` function: launched with ``f[block_dim, stream](...)``, inlined when another kernel
    calls it, a plain Python call otherwise."""

    def __init__(self, fn, **options):
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise RuntimeError(f"The following option names are unknown: {', '.join(unknown)}")
        params = inspect.signature(fn).parameters
        clash = sorted(set(params) & set(OPTIONS))
        if clash:
            raise RuntimeError(f"The kernel argument names conflict with JIT configuration options: "
                               f"{', '.join(clash)}")
        self.fn = fn
        self.options = {**OPTIONS, **options}
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._cache: dict = {}
        self.last_report = None
        self.last_compiled: Compiled | None = None

    def __repr__(self) -> str:
        return f"<asc.jit {self.fn.__name__}>"

    def __call__(self, *args, **kwargs):
        from .trace import tracing

        if tracing():
            return self.__asc_inline__(*args, **kwargs)
        return self.fn(*args, **kwargs)

    def __asc_inline__(self, *args, **kwargs):
        return interp.inline_call(self.fn, args, kwargs)

    def __getitem__(self, launch):
        if isinstance(launch, tuple):
            core_num = launch[0]
            stream = launch[1] if len(launch) > 1 else None
        elif isinstance(launch, int):
            core_num, stream = launch, None
        else:
            raise TypeError("Parse user launch options failed")
        core_num = int(core_num)
        if core_num <= 0:
            raise ValueError(f"core_num must be positive, got {core_num}")

        def run(*args, **kwargs):
            return self._run(core_num, stream, args, kwargs)

        return run

    # -------------------------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        opts = dict(self.options)
        for k in list(kwargs):
            if k in OPTIONS:
                opts[k] = kwargs.pop(k)
        sig = inspect.signature(self.fn)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise KernelError(self.fn.__name__, f"bad launch arguments: {e}", location=_call_site()) from None
        bound.apply_defaults()
        specs = [classify(n, sig.parameters[n].annotation, v) for n, v in bound.arguments.items()]
        return opts, specs, list(bound.arguments.values())

    def compile(self, core_num: int, *args, **kwargs) -> Compiled:
        """Trace the kernel for these arguments (without running it)."""
        opts, specs, _ = self._bind(args, kwargs)
        return self._compiled(core_num, opts, specs)

    def _compiled(self, core_num: int, opts: dict, specs: list[ArgSpec]) -> Compiled:
        from .runtime import config

        target = config.target_name()
        base = (core_num, target, tuple(sorted((k, _hashable(v)) for k, v in opts.items())))
        entries = self._cache.get((base, tuple(s.key(False) for s in specs)), [])
        if not opts["always_compile"]:
            for c in entries:
                if not c.pinned or all(a.key(True) == b.key(True) for a, b in zip(c.specs, specs)):
                    return c
        c = build(self.fn, core_num, opts, specs, target)
        entries = [e for e in entries if not (e.pinned and all(a.key(True) == b.key(True)
                                                               for a, b in zip(e.specs, specs)))]
        self._cache[(base, tuple(s.key(False) for s in specs))] = entries + [c]
        self.last_compiled = c
        return c

    def _run(self, core_num: int, stream, args, kwargs):
        from .launch import launch

        opts, specs, values = self._bind(args, kwargs)
        c = self._compiled(core_num, opts, specs)
        self.last_compiled = c
        report = launch(c, specs, values, opts)
        self.last_report = report
        return None


def jit(fn=None, **options):
    """``@asc.jit`` or ``@asc.jit(always_compile=True, ...)``."""
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)


def _call_site() -> str:
    from pyasc.errors import user_location

    return user_location()


# ----------------------------------------------------------------------------------------------
# building the module


def _arg_env(block: Block, specs: list[ArgSpec], t: Tracer) -> dict:
    env = {}
    kargs = [s for s in specs if s.kind != "const"]
    for a, s in zip(block.args, kargs):
        a.name_hint = s.name
    it = iter(block.args)
    for s in specs:
        if s.kind == "const":
            env[s.name] = s.value
            continue
        a = next(it)
        if s.kind == "gm":
            env[s.name] = GlobalAddress(a, s.dtype, s.size, 0, s.name)
        elif s.kind == "struct":
            env[s.name] = KernelStruct(type(s.value), a, s.value, s.name)
        else:
            g = t.preamble(A.GlobalTensorOp(a, 1, s.dtype.attr))
            g.name_hint = f"{s.name}Gm"
            raw = t.preamble(A.GetValueOp(g, t.preamble(arith.ConstantOp.from_int_and_width(0, IndexType()))))
            if s.dtype.is_float:
                raw.name_hint = s.name
                env[s.name] = Scalar(raw, "float", s.value)
            else:
                v = t.preamble(arith.IndexCastOp(raw, IndexType()))
                v.name_hint = s.name
                env[s.name] = Scalar(v, "int", s.value)
    return env


def trace_kernel(fn, mode: str, specs: list[ArgSpec], opts: dict, launch: dict, sub_loop: bool = False):
    """Trace ``fn`` for one core type; returns (kernel body block, tracer)."""
    n = sum(1 for s in specs if s.kind != "const")
    block = Block(arg_types=[A.GmAddrType()] * n)
    t = Tracer(mode, fn.__name__, block, opts, launch)
    fdef, fname = interp.function_ast(fn)
    entry_loc = f"{fname}:{fdef.lineno}"  # argument reads and the closing code carry the `def` line
    with activate(t):
        t.loc = entry_loc
        env = _arg_env(block, specs, t)
        if sub_loop:
            # the AIC of a MIX Matmul kernel serves both AIVs of its AI Core: the body once per AIV, with
            # GetBlockIdx() the AIV's index (2 * AI Core + sub)
            body = Block(arg_types=[IndexType()])
            body.args[0].name_hint = "subIdx"
            t.add(scf.ForOp(t.index(0), t.index(2), t.index(1), [], body))
            t.body_block = body
            with t.at_end(body):
                bid = t.val(A.GetBlockIdxOp())
                two = t.index(2)
                t.block_idx = Scalar(t.val(arith.AddiOp(t.val(arith.MuliOp(bid, two)), body.args[0])), "int")
                t.block_idx.value.name_hint = "aivIdx"
                t.cache["aic_sub"] = Scalar(body.args[0], "int")
                interp.run_kernel_body(fn, env)
                t.loc = entry_loc
                t.add(scf.YieldOp())
        else:
            interp.run_kernel_body(fn, env)
        t.loc = entry_loc
        finish_core(t)
        if ({"static_ub", "cube"} & t.used) and "tpipe" not in t.used:
            last = block.last_op
            if not (isinstance(last, A.PipeBarrierOp) and last.pipe.data == A.PipeKind.PIPE_ALL):
                t.add(A.PipeBarrierOp(A.PipeKind.PIPE_ALL))  # the static-tensor style's closing barrier
    return block, t


def _kernel_type(fn, specs, opts, launch):
    kt = opts.get("kernel_type")
    if kt is not None:
        name = getattr(kt, "name", str(kt))
        return {"AIV_ONLY": AIV_ONLY, "AIC_ONLY": AIC_ONLY, "MIX_AIV_1_0": MIX_AIV_1_0,
                "MIX_AIV_HARD_SYNC": MIX_AIV_1_0}.get(name, MIX_AIC_1_2), None
    if opts.get("matmul_cube_only"):
        return AIC_ONLY, None
    aiv = trace_kernel(fn, "aiv", specs, opts, launch)
    used = aiv[1].used
    if not used & {"cube", "matmul", "core_query", "cross_core"}:
        return (MIX_AIV_1_0 if "sync_all" in used else AIV_ONLY), aiv
    if "matmul" in used:
        return MIX_AIC_1_2, aiv
    aic = trace_kernel(fn, "aic", specs, opts, launch)
    used_all = used | aic[1].used
    if "matmul" in used_all or "cross_core" in used_all:
        return MIX_AIC_1_2, aiv
    vector_work = bool(aiv[1].used & {"vector", "tpipe", "static_ub"})
    cube_work = "cube" in aic[1].used
    if cube_work and vector_work:
        return MIX_AIC_1_2, aiv
    if cube_work:
        return AIC_ONLY, None
    return AIV_ONLY, aiv


def _written_args(kernel_block: Block) -> set[int]:
    """Indices of the kernel arguments the kernel writes (DataCopy/DataCopyPad into GM, Fixpipe)."""
    from pyasc.dialects.ascendc.cube import FixpipeOp

    out = set()
    for op in kernel_block.walk():
        dst = None
        if isinstance(op, A.DataCopyOp | A.DataCopyPadOp) and isinstance(op.dst.type, A.GlobalTensorType):
            dst = op.dst
        elif isinstance(op, FixpipeOp):
            dst = op.dst
        while dst is not None and isinstance(dst.owner, A.SubviewOp):
            dst = dst.owner.source
        if dst is not None and isinstance(dst.owner, A.GlobalTensorOp):
            addr = dst.owner.addr
            if addr.owner is kernel_block:
                out.add(addr.index)
    return out


def build(fn, core_num: int, opts: dict, specs: list[ArgSpec], target: str) -> Compiled:
    """Trace ``fn`` into a module: the kernel, and a host function launching it on ``core_num`` blocks."""
    launch = {"block_dim": core_num, "specs": specs}
    kt, aiv = _kernel_type(fn, specs, opts, launch)
    name = fn.__name__
    n = sum(1 for s in specs if s.kind != "const")
    kernel = func.FuncOp(name, ([A.GmAddrType()] * n, []))
    kb = kernel.body.block
    pinned = False
    if kt == MIX_AIC_1_2:
        aiv = aiv or trace_kernel(fn, "aiv", specs, opts, launch)
        aic = trace_kernel(fn, "aic", specs, opts, launch, sub_loop=bool(aiv[1].used & {"matmul"}))
        for core, (blk, t) in ((CoreKind.AIC, aic), (CoreKind.AIV, aiv)):
            pinned |= t.pinned
            body = Block()
            for old, new in zip(blk.args, kb.args):
                old.replace_all_uses_with(new)
            for op in list(blk.ops):
                op.detach()
                body.add_op(op)
            kb.add_op(A.CoreSectionOp(core, Region(body)))
    else:
        blk, t = aiv if kt in (AIV_ONLY, MIX_AIV_1_0) and aiv is not None else trace_kernel(
            fn, "aic" if kt == AIC_ONLY else "aiv", specs, opts, launch)
        pinned = t.pinned
        for old, new in zip(blk.args, kb.args):
            old.replace_all_uses_with(new)
        for op in list(blk.ops):
            op.detach()
            kb.add_op(op)
    for a, s in zip(kb.args, [s for s in specs if s.kind != "const"]):
        a.name_hint = s.name
    kb.add_op(func.ReturnOp())
    add_kernel_frame(kernel)  # InitSocState()/PIPE_ALL of a kernel without a TPipe, as the guide requires
    kernel.attributes[A.KERNEL_ATTR] = UnitAttr()
    kernel.attributes[A.BLOCK_DIM_ATTR] = IntegerAttr(core_num, 64)
    kernel.attributes[KERNEL_TYPE_ATTR] = StringAttr(kt)
    host, order = _host(name, kernel, specs, core_num)
    module = ModuleOp([kernel, host])
    module.attributes["asc.target"] = TargetAttr(target)
    try:
        module.verify()
    except Exception as e:  # noqa: BLE001 - a tracer bug or an op the checks above missed
        raise KernelError(name, f"the traced kernel does not verify: {e}", location=f"{name}") from None
    fixed = fixed_scalars(specs) if pinned else {}
    if opts.get("insert_sync"):
        from pyasc.lowering.analysis.kernel_sync import bodies
        from pyasc.lowering.ascendc_insert_sync import insert_sync

        for body in bodies(kernel):
            insert_sync(body, fixed)
    if opts.get("print_ir_before_all") or opts.get("debug"):
        print(module)
    c = Compiled(module, name, host.sym_name.data, specs, order, kt, core_num, pinned)
    c.extra["sync_findings"] = sync_findings(kernel, fixed)
    missing = [f for f in c.extra["sync_findings"] if f.kind == "missing-sync"]
    if opts.get("verify_sync") and missing:
        text = "\n".join(f"  {f.loc}: {f.message}" for f in missing)
        raise KernelError(name, f"verify_sync: {len(missing)} missing synchronisation(s):\n{text}",
                          location=missing[0].loc or name)
    return c


def fixed_scalars(specs: list[ArgSpec]) -> dict[int, int]:
    """Kernel argument index -> value of the integer scalars, for a kernel traced for those values only."""
    kargs = [s for s in specs if s.kind != "const"]
    return {i: int(s.value) for i, s in enumerate(kargs) if s.kind == "scalar" and not s.dtype.is_float}


def sync_findings(kernel: func.FuncOp, fixed: dict | None = None) -> list:
    """The kernel's synchronisation as findings: ``missing-sync`` (a dependency nothing orders) and
    ``redundant-sync`` (a set/wait pair or barrier that orders no dependency); ``fixed``: the integer
    scalar arguments of a kernel traced for those values only."""
    from pyasc.lowering.analysis.kernel_sync import analyse, bodies, redundant_syncs
    from pyasc.runtime.errors import Finding

    name = kernel.sym_name.data
    out = []
    for body in bodies(kernel):
        for n in analyse(body, args=fixed):
            out.append(Finding("missing-sync", n.describe(), name, _op_text(n.consumer), 0,
                               loc=_loc(n.consumer), other=_op_text(n.producer), other_loc=_loc(n.producer)))
        for r in redundant_syncs(body, fixed):
            out.append(Finding("redundant-sync", r.describe(), name, _op_text(r.ops[-1]), 0, loc=_loc(r.ops[-1]),
                               other=_op_text(r.ops[0]) if len(r.ops) > 1 else None,
                               other_loc=_loc(r.ops[0]) if len(r.ops) > 1 else None))
    return out


def _op_text(op) -> str:
    return getattr(op, "API", None) or op.name


def _loc(op) -> str | None:
    loc = op.attributes.get("asc.loc")
    return loc.data if loc is not None else None


def _host_type(s: ArgSpec) -> MemRefType:
    if s.kind == "gm":
        return MemRefType(s.dtype.attr, [s.size])
    if s.kind == "struct":
        return MemRefType(dtypes.int32.attr, [len(type(s.value).FIELDS)])
    return MemRefType(s.dtype.attr, [1])


def _host(name: str, kernel: func.FuncOp, specs: list[ArgSpec], core_num: int):
    """The host function: inputs first, then the buffers the kernel writes (``ascendc.num_outputs``)."""
    kspecs = [s for s in specs if s.kind != "const"]
    written = _written_args(kernel.body.block)
    order = [i for i in range(len(kspecs)) if i not in written] + sorted(written)
    host = func.FuncOp(f"{name}_launch", ([_host_type(kspecs[i]) for i in order], []))
    hb = host.body.block
    by_kernel = {}
    for a, i in zip(hb.args, order):
        a.name_hint = kspecs[i].name
        by_kernel[i] = a
    hb.add_op(A.LaunchOp(name, core_num, [by_kernel[i] for i in range(len(kspecs))]))
    hb.add_op(func.ReturnOp())
    host.attributes["ascendc.num_outputs"] = IntegerAttr(len(written), 64)
    return host, order
