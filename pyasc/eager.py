"""Eager execution: an op on concrete tensors runs as a compiled one-op program.

Every op of the tensor API runs eagerly through this one cache (``OpDef`` builds the program and
its key): the program is traced and compiled through the same path as ``pyasc.jit`` and cached by
op, operand shapes and dtypes, Python scalar operands, attributes, target and precision policy,
so repeating a call compiles nothing; the compiled program also goes to jit's disk cache
(``PYASC_CACHE_DIR``), so a new process running the same op on the same shapes re-parses it
instead of compiling. The cache keeps the ``EAGER_PROGRAMS`` programs used last (``PYASC_EAGER_PROGRAMS``,
default 512): each holds its IR and simulator state, which a long-running process would otherwise accumulate
without bound. The ``"reference"`` backend (``set_eager_backend`` or ``PYASC_EAGER=reference``) evaluates each
op's NumPy reference instead, without compiling.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from contextlib import contextmanager

from . import amp
from .device import default_target
from .errors import PyascError
from .formats import Format
from .jit import Compiled, jit
from .logs import log
from .tensor import Tensor

BACKENDS = ("simulator", "reference")
_backend = os.environ.get("PYASC_EAGER", "simulator")


def _programs_from_environment() -> int:
    raw = os.environ.get("PYASC_EAGER_PROGRAMS", "512")
    n = int(raw) if raw.strip().isdigit() else 0
    if n < 1:
        raise ValueError(f"PYASC_EAGER_PROGRAMS must be a positive integer (programs each eager cache keeps), "
                         f"got {raw!r}")
    return n


EAGER_PROGRAMS = _programs_from_environment()


class _Recent:
    """A mapping that keeps the ``EAGER_PROGRAMS`` entries looked up or stored last (thread-safe)."""

    def __init__(self) -> None:
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def __setitem__(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > EAGER_PROGRAMS:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_cache = _Recent()


def set_eager_backend(name: str) -> None:
    """Choose how eager ops run: ``"simulator"`` (compile and simulate) or ``"reference"``."""
    global _backend
    if name not in BACKENDS:
        raise ValueError(f"unknown eager backend '{name}'; choose one of {BACKENDS}")
    _backend = name


def get_eager_backend() -> str:
    return _backend


def cache_info() -> dict:
    """Number of compiled one-op programs held by the eager cache."""
    return {"programs": len(_cache)}


def clear_cache() -> None:
    _cache.clear()
    _direct.clear()


# (op, per operand: (shape, dtype, device) of a tensor or (type, repr) of a Python number, target) -> the
# compiled program of a call with no attributes and no gradient, which a repeated call runs without the op's checks
_direct = _Recent()
_NUMBERS = (int, float, bool)


def direct_key(op, args: tuple):
    """The key of a call of ``op`` on ``args`` that can run its compiled program directly, else None."""
    if _backend != "simulator" or amp.active():
        return None
    key = [op]
    tensors = 0
    for a in args:
        kind = type(a)
        if kind is Tensor:
            if a._trace is not None or a._requires_grad or a._format is not Format.ND:
                return None
            key.append((a._shape, a._dtype, a._device))
            tensors += 1
        elif kind in _NUMBERS:
            key.append((kind, repr(a)))
        else:
            return None
    if not tensors:
        return None
    key.append(default_target())
    return tuple(key)


def direct_program(key) -> Compiled | None:
    compiled = _direct.get(key)
    if compiled is not None and log.isEnabledFor(logging.DEBUG):
        log.debug("eager %s: cache hit", compiled.name)
    return compiled


def remember_direct(key, compiled: Compiled) -> None:
    """Run later calls with ``key`` (``direct_key``) on ``compiled``: the call with that key just gave it."""
    if key is not None and not compiled.returns_tuple:
        _direct[key] = compiled


def compiled_program(key: tuple, make_program, tensors: list, fallible: bool = False) -> Compiled | None:
    """The program ``make_program()`` returns, compiled for ``tensors`` once per ``key`` (with the target and
    precision policy); ``make_program`` is called on a cache miss only. With ``fallible``, a program the compiler
    cannot lower gives None (and is remembered as such); otherwise the PyascError propagates."""
    full = (*key, default_target(), amp.state_key() if amp.active() else None)
    compiled = _cache.get(full)
    if compiled is None:   # compiled once per signature, through jit's memory and disk caches
        program = make_program()
        log.info("eager %s: cache miss", program.__name__)
        try:
            compiled = jit(program).compile(*tensors)
        except PyascError:
            if not fallible:
                raise
            compiled = False
        _cache[full] = compiled
    elif log.isEnabledFor(logging.DEBUG):  # naming a program the compiler refused means building it again
        log.debug("eager %s: cache hit", compiled.name if compiled else make_program().__name__)
    return compiled or None


@contextmanager
def reference_backend():
    """Run eager ops with their NumPy references inside the ``with`` block."""
    global _backend
    saved, _backend = _backend, "reference"
    try:
        yield
    finally:
        _backend = saved
