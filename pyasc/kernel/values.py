"""Kernel values: ``GlobalAddress`` (a ``GM_ADDR`` argument plus an element offset),
``GlobalTensor`` and ``LocalTensor``.

A ``GlobalTensor`` is ``ascendc.global_tensor`` over the whole argument buffer, then
``ascendc.subview`` to the address's offset: ``SetGlobalBuffer((__gm__ T*)(x + offset))`` reads the
same memory. ``t[start:]`` is ``ascendc.subview`` (Ascend C ``t[start]``) for both kinds.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from pyasc.dialects import ascendc as A

from .enums import CUBE_POSITIONS, TPosition
from .errors import KernelError, unsupported
from .trace import Scalar, current, static_int, to_index


def emit(api: str, op):
    """Add ``op`` at the insertion point, verified now so that a mistake names the user's line."""
    t = current()
    try:
        op.verify()
    except VerifyException as e:
        op.erase()
        raise KernelError(api, str(e), location=t.loc) from None
    t.add(op)
    return op


def hint(value: SSAValue | None, name: str | None) -> None:
    if value is not None and name and value.name_hint is None:
        try:
            value.name_hint = name
        except Exception:  # noqa: BLE001 - names that are not valid SSA names are just not used
            pass


def scalar_value(x, dtype) -> SSAValue:
    """``x`` (number or Scalar) as an SSA value of ``dtype`` (a tensor's element type)."""
    from .trace import to_float

    t = current()
    if dtype.is_float:
        return to_float(x, dtype.attr)
    if dtype.ir == "i1":
        from .trace import to_i1

        return to_i1(x)
    attr = dtype.attr
    if isinstance(attr, IntegerType) and attr.signedness.data != Signedness.SIGNLESS:
        raise unsupported("scalar", f"scalars of unsigned type {dtype.name}")
    return t.val(arith.IndexCastOp(to_index(x), attr))


def scalar_result(v: SSAValue, dtype, known=None) -> Scalar:
    """A scalar read from memory as a DSL Scalar (integers widened to index)."""
    t = current()
    if dtype.is_float:
        return Scalar(v, "float", known)
    if dtype.ir == "i1":
        return Scalar(v, "bool", known)
    return Scalar(t.val(arith.IndexCastOp(v, IndexType())), "int", known)


class GlobalAddress:
    """A ``GM_ADDR`` kernel argument (``x: asc.GlobalAddress``) plus an element offset (``x + n``)."""

    def __init__(self, arg: SSAValue, dtype, size: int, offset=0, name: str | None = None):
        self.arg, self.dtype, self.size, self.offset, self.name = arg, dtype, size, offset, name

    def __add__(self, off):
        return GlobalAddress(self.arg, self.dtype, self.size, self.offset + off, self.name)

    __radd__ = __add__

    def __repr__(self) -> str:
        return f"GlobalAddress({self.name}, {self.dtype!r})"


class GlobalTensor:
    """``AscendC::GlobalTensor<T>``: typed by ``set_global_buffer``."""

    def __init__(self, _value: SSAValue | None = None, _dtype=None, _root=None):
        self.value = _value
        self.dtype = _dtype
        self.root = _root  # the GlobalAddress it was set on
        self.hint: str | None = None

    def _name(self, name: str) -> None:
        self.hint = name
        hint(self.value, name)

    def set_global_buffer(self, buffer: GlobalAddress, buffer_size=None) -> None:
        if not isinstance(buffer, GlobalAddress):
            raise KernelError("GlobalTensor.set_global_buffer", f"expects a GlobalAddress, got "
                                                                f"{type(buffer).__name__}", location=current().loc)
        t = current()
        g = t.val(A.GlobalTensorOp(buffer.arg, buffer.size, buffer.dtype.attr))
        off = buffer.offset
        if not (isinstance(off, int) and off == 0):
            hint(g, (buffer.name or "arg") + "Base")
            g = t.val(A.SubviewOp(g, to_index(off)))
        self.value, self.dtype, self.root = g, buffer.dtype, buffer
        hint(g, self.hint)

    def _check(self, api: str) -> SSAValue:
        if self.value is None:
            raise KernelError(api, "the GlobalTensor has no buffer yet (call set_global_buffer first)",
                              location=current().loc)
        return self.value

    def __getitem__(self, key):
        v = self._check("GlobalTensor[]")
        start = _start_of(key, "GlobalTensor[]")
        if isinstance(start, int) and start == 0:
            return self
        return GlobalTensor(current().val(A.SubviewOp(v, to_index(start))), self.dtype, self.root)

    def get_value(self, offset):
        v = self._check("GlobalTensor.get_value")
        r = current().val(A.GetValueOp(v, to_index(offset)))
        return scalar_result(r, self.dtype)

    def set_value(self, offset, value):
        raise unsupported("GlobalTensor.set_value", "no ascendc op writes one GM element from the scalar unit")

    def set_l2_cache_hint(self, *args, **kwargs):
        raise unsupported("GlobalTensor.set_l2_cache_hint")


def _start_of(key, api: str):
    if isinstance(key, slice):
        if key.stop is not None or key.step is not None:
            raise KernelError(api, "only `t[start:]` slices are supported (no stop or step)", location=current().loc)
        return 0 if key.start is None else key.start
    return key


_POS = {TPosition.VECIN: A.TPosition.VECIN, TPosition.VECOUT: A.TPosition.VECOUT,
        TPosition.VECCALC: A.TPosition.VECCALC, TPosition.A1: A.TPosition.A1, TPosition.A2: A.TPosition.A2,
        TPosition.B1: A.TPosition.B1, TPosition.B2: A.TPosition.B2, TPosition.CO1: A.TPosition.CO1,
        TPosition.CO2: A.TPosition.CO2, TPosition.GM: A.TPosition.GM}


def ascendc_position(pos, api: str) -> A.TPosition:
    try:
        return _POS[TPosition(pos)]
    except (KeyError, ValueError):
        raise unsupported(api, f"TPosition {TPosition(pos).name} has no ascendc position") from None


def core_of_position(pos) -> str:
    return "aic" if TPosition(pos) in CUBE_POSITIONS else "aiv"


class LocalTensor:
    """``AscendC::LocalTensor<T>``. ``LocalTensor(dtype, pos, addr, tile_size)`` is a static tensor at
    byte ``addr`` of the memory ``pos`` names (UB for VECIN/VECOUT/VECCALC, L1 for A1/B1, L0A/L0B for
    A2/B2, L0C for CO1) with ``tile_size`` elements."""

    def __init__(self, dtype=None, pos=TPosition.VECIN, addr=0, tile_size=0, *, _value=None, _size=None,
                 _wrap: bool = False):
        self.dtype = dtype
        self.position = TPosition(pos)
        self.value: SSAValue | None = _value
        self.size = _size
        if _wrap or _value is not None:
            return
        t = current()
        if tile_size is None or (isinstance(tile_size, int) and tile_size == 0):
            raise unsupported("LocalTensor(dtype)", "an empty LocalTensor has no ascendc op; give pos, addr and "
                                                    "tile_size")
        core = core_of_position(self.position)
        t.used.add("cube" if core == "aic" else "static_ub")
        if core != t.mode:
            return  # the other core type's memory: its ops are dropped on this core
        a = static_int(addr, "LocalTensor", "the address")
        n = static_int(tile_size, "LocalTensor", "the tile size")
        self.size = n
        self.value = emit("LocalTensor", A.LocalTensorOp(ascendc_position(self.position, "LocalTensor"), a, n,
                                                        dtype.attr)).result

    def _name(self, name: str) -> None:
        hint(self.value, name)

    @property
    def core(self) -> str:
        return core_of_position(self.position)

    def __getitem__(self, key):
        start = _start_of(key, "LocalTensor[]")
        if self.value is None or (isinstance(start, int) and start == 0):
            return LocalTensor(self.dtype, self.position, _value=self.value, _size=self.size, _wrap=True)
        v = current().val(A.SubviewOp(self.value, to_index(start)))
        return LocalTensor(self.dtype, self.position, _value=v)

    def get_value(self, index):
        if self.value is None:
            return Scalar(current().index(0), "int") if not self.dtype.is_float else 0.0
        r = current().val(A.GetValueOp(self.value, to_index(index)))
        return scalar_result(r, self.dtype)

    def set_value(self, index, value) -> None:
        if self.value is None:
            return
        from pyasc.dialects.ascendc.reduce import SetValueOp

        emit("LocalTensor.set_value", SetValueOp(self.value, to_index(index), scalar_value(value, self.dtype)))

    def reinterpret_cast(self, dtype):
        if self.value is None:
            return LocalTensor(dtype, self.position, _wrap=True)
        from pyasc.dialects.ascendc.reduce import ReinterpretCastOp

        v = current().val(ReinterpretCastOp(self.value, dtype.attr))
        return LocalTensor(dtype, self.position, _value=v)

    def get_position(self):
        return self.position

    def get_size(self):
        return self.size

    get_length = get_size


__all__ = ["GlobalAddress", "GlobalTensor", "LocalTensor", "emit", "hint"]
