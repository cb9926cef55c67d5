"""Pieces shared by the kernel and host emitters: errors, C++ types, names, an indenting writer."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from pyasc.dialects.ascendc import KERNEL_ATTR, GlobalTensorType, GmAddrType, LocalTensorType
from pyasc.dialects.types import ELEMENTS, kernel_ctype

# dialects above ``ascendc``: a module still holding their ops has not been lowered far enough
HIGH_LEVEL_DIALECTS = ("asctensor", "asctile", "ascbuf")


class EmitError(ValueError):
    """An op or type that has no Ascend C form (the message names it)."""


def op_label(op: Operation) -> str:
    """``'ascendc.add'`` plus its ``asc.loc`` when it carries one, for error messages."""
    loc = op.attributes.get("asc.loc")
    where = f" (at {loc.data})" if loc is not None and hasattr(loc, "data") else ""
    return f"'{op.name}'{where}"


def unsupported(op: Operation, context: str) -> EmitError:
    """The error for an op the emitter cannot print."""
    dialect = op.name.split(".", 1)[0]
    if dialect in HIGH_LEVEL_DIALECTS:
        return EmitError(
            f"{context}: op {op_label(op)} belongs to the '{dialect}' dialect, which is above "
            f"ascendc; lower the module to the ascendc level (e.g. the to-ascendc pipeline) "
            f"before emitting Ascend C"
        )
    return EmitError(f"{context}: no Ascend C form for op {op_label(op)}")


# ----------------------------------------------------------------------------------------------
# types

def scalar_ctype(t: Attribute) -> str:
    """The C++ spelling of a scalar type in a kernel: index -> int64_t, f16 -> half, i32 -> int32_t, ..."""
    try:
        return kernel_ctype(t)
    except ValueError:
        raise EmitError(f"no C++ scalar type for {t}") from None


def ctype(t: Attribute) -> str:
    """The C++ spelling of any type the kernel emitter declares."""
    if isinstance(t, GlobalTensorType):
        return f"AscendC::GlobalTensor<{scalar_ctype(t.element_type)}>"
    if isinstance(t, LocalTensorType):
        return f"AscendC::LocalTensor<{scalar_ctype(t.element_type)}>"
    if isinstance(t, GmAddrType):
        return "GM_ADDR"
    return scalar_ctype(t)


def memref_info(t: Attribute) -> tuple[int, str, int]:
    """(number of elements, element type name, element size in bytes) of a static memref."""
    if not isinstance(t, MemRefType):
        raise EmitError(f"host buffers must be memrefs, got {t}")
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        raise EmitError(f"host buffers need a static shape, got {t}")
    n = 1
    for d in shape:
        n *= d
    et = str(t.element_type)
    if et not in ELEMENTS:
        raise EmitError(f"no host element type for {et} (in {t})")
    return n, et, ELEMENTS[et].nbytes


# ----------------------------------------------------------------------------------------------
# names

CPP_RESERVED = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
    extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
    nullptr operator or or_eq private protected public register reinterpret_cast requires return
    short signed sizeof static static_assert static_cast struct switch template this thread_local
    throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
    xor xor_eq main half bfloat16_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t
    uint64_t size_t AscendC GM_ADDR std stream tiling""".split()
)


def sanitize(name: str) -> str:
    """A C identifier made from an SSA name hint (``x.1`` -> ``x_1``, ``0a`` -> ``v0a``)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not s or s[0].isdigit():
        s = "v" + s
    if s.startswith("__") or re.match(r"_[A-Z]", s):  # reserved for the implementation
        s = "v" + s.lstrip("_")
    if s in CPP_RESERVED:
        s += "_"
    return s


class Namer:
    """Unique C identifiers for SSA values: the name hint when there is one, else ``v0, v1, ...``."""

    def __init__(self, taken: set[str] | None = None):
        self.names: dict[SSAValue, str] = {}
        self.taken: set[str] = set(taken or ())
        self._anon = 0

    def fresh(self, base: str | None) -> str:
        if base is None:
            while f"v{self._anon}" in self.taken:
                self._anon += 1
            name = f"v{self._anon}"
            self._anon += 1
        else:
            base = sanitize(base)
            name, i = base, 1
            while name in self.taken:
                name = f"{base}_{i}"
                i += 1
        self.taken.add(name)
        return name

    def name(self, value: SSAValue) -> str:
        """The identifier of ``value`` (made on first use)."""
        if value not in self.names:
            self.names[value] = self.fresh(value.name_hint)
        return self.names[value]

    def alias(self, value: SSAValue, name: str) -> None:
        self.names[value] = name


class Writer:
    """Lines with consistent indentation."""

    def __init__(self, indent: int = 4):
        self.lines: list[str] = []
        self.level = 0
        self.unit = " " * indent

    def line(self, text: str = "") -> None:
        """One line at the current indentation (preprocessor directives stay in column 0)."""
        self.lines.append(f"{self.unit * self.level}{text}" if text and not text.startswith("#") else text)

    @contextmanager
    def block(self, head: str, tail: str = "}") -> Iterator[None]:
        self.line(f"{head} {{" if head else "{")
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1
            self.line(tail)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


# ----------------------------------------------------------------------------------------------
# module structure


def is_kernel(op: Operation) -> bool:
    return isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    """The ``ascendc`` kernels of a module, in order."""
    return [op for op in module.ops if is_kernel(op)]


def host_funcs(module: ModuleOp) -> list[func.FuncOp]:
    """The non-kernel functions with a body (the host programs)."""
    return [op for op in module.ops if isinstance(op, func.FuncOp) and not is_kernel(op)
            and op.body.blocks]


def host_func(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The host function (the only one, or the one called ``name``)."""
    funcs = host_funcs(module)
    if name is not None:
        for f in funcs:
            if f.sym_name.data == name:
                return f
        raise EmitError(f"no host function @{name} in the module")
    if not funcs:
        raise EmitError("the module has no host function (a func.func without 'ascendc.kernel')")
    if len(funcs) > 1:
        names = ", ".join("@" + f.sym_name.data for f in funcs)
        raise EmitError(f"the module has several host functions ({names}); name the one to emit")
    return funcs[0]


def camel(name: str) -> str:
    """``add_relu`` -> ``AddRelu``."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    s = "".join(p[:1].upper() + p[1:] for p in parts) or "Program"
    return s if not s[0].isdigit() else "P" + s
