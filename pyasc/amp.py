"""Mixed precision: ``pyasc.amp.autocast``, ``pyasc.precision_scope`` and ``PYASC_MODE``.

* ``with pyasc.amp.autocast(pyasc.float16):`` follows ``torch.autocast("cpu")``: ops that profit
  from lower precision (``LOWER_PRECISION_OPS``: matmul, bmm, linear, addmm, conv2d...) cast their
  floating operands to the autocast dtype; ops that need range or accuracy (``FP32_OPS``: prod and
  the losses) cast them to float32; every other op runs in the promoted dtype of its operands. ``register(name, "lower" | "fp32")`` adds an op to a list.
* ``with pyasc.precision_scope(pyasc.float16):`` is blunter: every op computes in the scope's
  dtype (floating operands are cast to it, so results have it). Integer and bool operands are
  never touched.
* ``PYASC_MODE=FP32|FP16|BF16`` sets a precision scope for the whole process (read when an op
  runs; ``set_mode`` overrides it until the variable changes). Unset, ops follow PyTorch's promotion alone.

The policy changes the dtype an op computes in: an elementwise op's compute dtype
(``operand_dtypes``), the operands of reductions, row-wise composites, matrix products and
convolutions (``target_dtype``, cast before the op). The casts run like any op: eagerly, or as
``asctensor.cast`` inside ``pyasc.jit`` (the jit and eager cache keys include the active policy).
"""

from __future__ import annotations

from contextlib import contextmanager

from . import dtypes as dt
from .environ import getenv
from .errors import PyascError

# PyTorch's CPU autocast lists (torch.autocast("cpu")), restricted to names of tensor-API ops
LOWER_PRECISION_OPS = {"matmul", "bmm", "mm", "linear", "conv1d", "conv2d", "conv3d", "addmm", "baddbmm", "addbmm",
                       "prelu", "scaled_dot_product_attention"}
FP32_OPS = {"prod", "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
            "binary_cross_entropy", "binary_cross_entropy_with_logits"}

_MODES = {"FP32": dt.float32, "FP16": dt.float16, "BF16": dt.bfloat16}

# the active policies, innermost last: ("autocast", dtype) or ("scope", dtype)
_stack: list[tuple[str, dt.DType]] = []
_mode: list[dt.DType | None] = [None]
_active = False


def _refresh() -> None:
    global _active
    _active = bool(_stack) or _mode[0] is not None


_env_seen: list[str | None] = [None]


def _sync_env() -> None:
    """Follow ``PYASC_MODE`` when it changes (read each time an op runs, not only at import)."""
    env = (getenv("PYASC_MODE") or "").strip() or None
    if env == _env_seen[0]:
        return
    if env is not None and env.upper() == "INT8":  # an error at every op, never a warning
        raise PyascError("PYASC_MODE", "INT8 is not a compute precision in pyasc: int8 is a storage dtype "
                         "(quantised data needs a calibration step and explicit casts, e.g. "
                         "x.to(pyasc.int8)); set PYASC_MODE to FP32, FP16 or BF16, or unset it")
    try:
        set_mode(env)
    except PyascError as e:
        raise PyascError("PYASC_MODE", e.detail) from None
    _env_seen[0] = env


def active() -> bool:
    """True while any precision policy is in force (the ops' fast check)."""
    _sync_env()
    return _active


def _float_dtype(op: str, dtype) -> dt.DType:
    try:
        d = dt.get_dtype(dtype)
    except TypeError as e:
        raise PyascError(op, str(e)) from None
    if not d.is_floating_point:
        raise PyascError(op, f"needs a floating point dtype, got {d.name}", dtypes=[d.name])
    return d


def set_mode(mode: str | None) -> None:
    """The process-wide precision: "FP32", "FP16", "BF16", or None/"" for PyTorch's promotion."""
    if mode in (None, "", "NONE", "none", "default"):
        _mode[0] = None
    else:
        key = str(mode).strip().upper()
        if key not in _MODES:
            raise PyascError("set_mode", f"unknown precision mode {mode!r}; modes: FP32, FP16, BF16")
        _mode[0] = _MODES[key]
    _refresh()


def get_mode() -> str | None:
    _sync_env()
    for k, v in _MODES.items():
        if _mode[0] is v:
            return k
    return None


def register(name: str, category: str) -> None:
    """Put op ``name`` on the autocast list ``"lower"`` or ``"fp32"``."""
    if category not in ("lower", "fp32"):
        raise ValueError("category must be 'lower' or 'fp32'")
    (LOWER_PRECISION_OPS if category == "lower" else FP32_OPS).add(name)
    (FP32_OPS if category == "lower" else LOWER_PRECISION_OPS).discard(name)


def autocast(dtype=dt.float16, enabled: bool = True):
    """PyTorch-style autocast to ``dtype`` (float16 or bfloat16) inside the ``with`` block."""
    d = _float_dtype("autocast", dtype)      # checked here: errors name the caller's line
    return _policy("autocast", d) if enabled else _policy(None, d)


def precision_scope(dtype):
    """Every op inside the block computes (and returns) in ``dtype``."""
    return _policy("scope", _float_dtype("precision_scope", dtype))


@contextmanager
def _policy(kind, d):
    if kind is None:
        yield
        return
    _stack.append((kind, d))
    _refresh()
    try:
        yield
    finally:
        _stack.pop()
        _refresh()


def policy() -> tuple[str, dt.DType] | None:
    _sync_env()
    if _stack:
        return _stack[-1]
    if _mode[0] is not None:
        return ("scope", _mode[0])
    return None


def state_key():
    """A hashable description of the active policy (part of the jit cache key)."""
    p = policy()
    if p is None:
        return None
    return (p[0], p[1].name, tuple(sorted(LOWER_PRECISION_OPS)), tuple(sorted(FP32_OPS))) \
        if p[0] == "autocast" else (p[0], p[1].name)


def target_dtype(name: str) -> dt.DType | None:
    """The dtype op ``name``'s floating operands are cast to under the active policy (or None)."""
    p = policy()
    if p is None:
        return None
    kind, d = p
    if kind == "scope":
        return d
    if name in LOWER_PRECISION_OPS:
        return d
    if name in FP32_OPS:
        return dt.float32
    return None


def operand_dtypes(name: str, kinds: list) -> list:
    """The operand dtypes op ``name`` computes from under the active policy: ``kinds`` (dtypes of the
    tensor operands, Python numbers for the others) with the floating dtypes replaced by the
    policy's; casts themselves are never adjusted."""
    d = target_dtype(name) if name != "cast" else None
    if d is None:
        return kinds
    return [d if isinstance(k, dt.DType) and k.is_floating_point else k for k in kinds]
