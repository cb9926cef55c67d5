"""The framework classes: ``TPipe``, ``TQue``, ``TQueBind`` and ``TBuf`` (UB only: the simulator's
TPipe hands out Unified Buffer; cube memories use static ``LocalTensor``s)."""

from __future__ import annotations

from pyasc.dialects import ascendc as A

from .enums import TPosition
from .errors import KernelError, unsupported
from .trace import current, static_int
from .values import LocalTensor, ascendc_position, emit, hint


def _aiv(api: str) -> bool:
    """Whether framework ops are traced on this core (they live in UB: AIV only)."""
    t = current()
    t.used.add("tpipe")
    return t.mode == "aiv"


class TPipe:
    """``AscendC::TPipe``: owns the UB of the kernel (one per kernel)."""

    def __init__(self):
        t = current()
        if t.cache.get("tpipe") is not None:
            raise KernelError("TPipe", "TPipe instance is already created (one per kernel)", location=t.loc)
        t.cache["tpipe"] = self
        self.value = emit("TPipe", A.TPipeOp()).result if _aiv("TPipe") else None
        hint(self.value, "pipe")

    def _name(self, name: str) -> None:
        hint(self.value, name)

    def init_buffer(self, que=None, num: int = 0, len: int = 0, *, buf=None):  # noqa: A002 - official names
        """``InitBuffer(que, num, len)`` for a queue, ``InitBuffer(buf, len)`` for a TBuf (``num`` is then
        the length in bytes, as in the official API)."""
        target = que if que is not None else buf
        if isinstance(target, TBuf):
            length = static_int(len or num, "TPipe.init_buffer", "the buffer length")
            count = 1
        elif isinstance(target, TQueBind):
            count = static_int(num, "TPipe.init_buffer", "the buffer count")
            length = static_int(len, "TPipe.init_buffer", "the buffer length")
        else:
            raise KernelError("TPipe.init_buffer", f"expects a TQue or TBuf, got {type(target).__name__}",
                              location=current().loc)
        if self.value is None or target.value is None:
            return
        emit("TPipe.init_buffer", A.InitBufferOp(self.value, target.value, count, length))

    def alloc_event_id(self, *args, **kwargs):
        raise unsupported("TPipe.alloc_event_id", "no ascendc op; use event ids 0..5 directly")

    fetch_event_id = alloc_event_id

    def release_event_id(self, *args, **kwargs):
        raise unsupported("TPipe.release_event_id", "no ascendc op")

    def destroy(self):
        raise unsupported("TPipe.destroy")

    def reset(self):
        raise unsupported("TPipe.reset")


class TQueBind:
    """``AscendC::TQueBind<src, dst, depth>``: ``TQue`` positions of UB, or VECIN -> VECOUT (a tile copied
    in and straight back out of one buffer, with no vector work)."""

    def __init__(self, src=TPosition.VECIN, dst=TPosition.VECIN, depth=0, mask=0):
        src, dst = TPosition(src), TPosition(dst)
        if src != dst and (src, dst) != (TPosition.VECIN, TPosition.VECOUT):
            raise unsupported("TQueBind", f"a queue from {src.name} to {dst.name} (supported: VECIN to VECOUT)")
        self._init(src, depth, "TQueBind", dst)

    def _init(self, pos: TPosition, depth, api: str, dst: TPosition | None = None):
        self.position = pos
        self.dst_position = dst or pos
        self.depth = static_int(depth if depth else 1, api, "the queue depth")
        self.value = None
        if pos not in (TPosition.VECIN, TPosition.VECOUT):
            raise unsupported(api, f"a queue at {pos.name} (the simulator's TPipe hands out UB only; use static "
                                   f"LocalTensors for the cube's memories)")
        if _aiv(api):
            bound = None if dst in (None, pos) else ascendc_position(dst, api)
            self.value = emit(api, A.TQueOp(ascendc_position(pos, api), self.depth, bound)).result

    def _name(self, name: str) -> None:
        hint(self.value, name)

    def alloc_tensor(self, dtype):
        v = None if self.value is None else current().val(A.AllocTensorOp(self.value, dtype.attr))
        return LocalTensor(dtype, self.position, _value=v, _wrap=True)

    def enque(self, tensor, *args) -> None:
        if args:
            raise unsupported("TQue.enque", "the form with user positions")
        if self.value is not None:
            emit("TQue.enque", A.EnQueOp(self.value, tensor.value))

    def deque(self, dtype):
        if not hasattr(dtype, "attr"):
            raise unsupported("TQue.deque(tensor)", "pass the data type: que.deque(dtype)")
        v = None if self.value is None else current().val(A.DeQueOp(self.value, dtype.attr))
        return LocalTensor(dtype, self.dst_position, _value=v, _wrap=True)

    def free_tensor(self, tensor) -> None:
        if self.value is not None:
            emit("TQue.free_tensor", A.FreeTensorOp(self.value, tensor.value))

    def free_all_event(self):
        raise unsupported("TQue.free_all_event")

    def has_idle_buffer(self):
        raise unsupported("TQue.has_idle_buffer")


class TQue(TQueBind):
    """``AscendC::TQue<pos, depth>``: ``depth`` rotating buffers between a producer and a consumer pipe."""

    def __init__(self, pos=TPosition.VECIN, depth=None, mask=0):
        self._init(TPosition(pos), depth, "TQue")


class TBuf:
    """``AscendC::TBuf<pos>``: scratch UB without queue semantics."""

    def __init__(self, pos=TPosition.VECCALC):
        self.position = TPosition(pos)
        self.value = None
        if self.position not in (TPosition.VECCALC, TPosition.VECIN, TPosition.VECOUT):
            raise unsupported("TBuf", f"a TBuf at {self.position.name}")
        if _aiv("TBuf"):
            self.value = emit("TBuf", A.TBufOp(ascendc_position(self.position, "TBuf"))).result

    def _name(self, name: str) -> None:
        hint(self.value, name)

    def get(self, dtype, len=None, shape=None):  # noqa: A002
        # Get<T>(len) starts where Get<T>() does: the length only bounds what the ops may touch
        v = None if self.value is None else current().val(A.TBufGetOp(self.value, dtype.attr))
        return LocalTensor(dtype, self.position, _value=v, _wrap=True)

    def get_with_offset(self, *args, **kwargs):
        raise unsupported("TBuf.get_with_offset")
