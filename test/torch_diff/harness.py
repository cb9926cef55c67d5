"""The machinery of the differential suite: shape classes, input values, running one case in a
mode, and comparing a pyasc result with PyTorch CPU's (values, dtype, shape).

A failure is raised as one of the ``DiffFailure`` classes below; its class is the failure
category the known-failures table names (``known_failures.py``).
"""

from __future__ import annotations

import math
import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np
import torch

import pyasc

# ----------------------------------------------------------------------------- failure categories


class DiffFailure(AssertionError):
    """A case where pyasc and PyTorch disagree; ``category`` names the kind."""

    category = "?"


class Missing(DiffFailure):
    category = "missing"        # the op, method, module or keyword does not exist


class Refused(DiffFailure):
    category = "refused"        # a PyascError where PyTorch computes a result


class Crash(DiffFailure):
    category = "crash"          # any other exception (internal errors)


class WrongValue(DiffFailure):
    category = "wrong value"


class WrongDtype(DiffFailure):
    category = "wrong dtype"


class WrongShape(DiffFailure):
    category = "wrong shape"


class OnHost(DiffFailure):
    category = "host"           # a result computed on the host where the op must run on the device


CATEGORIES = {c.category: c for c in (Missing, Refused, Crash, WrongValue, WrongDtype, WrongShape, OnHost)}


def classify(exc: BaseException) -> DiffFailure:
    """The category of an exception pyasc raised while running a case."""
    if isinstance(exc, DiffFailure):
        return exc
    text = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    if isinstance(exc, pyasc.PyascError):  # a compiler bug reported as such is a crash, not a refusal
        return Crash(text) if "internal error in pass" in str(exc) else Refused(text)
    if isinstance(exc, AttributeError) and ("pyasc" in str(exc) or "'Tensor' object" in str(exc)):
        return Missing(text)
    if isinstance(exc, ModuleNotFoundError) and "pyasc" in str(exc):
        return Missing(text)
    if isinstance(exc, TypeError) and ("unexpected keyword argument" in str(exc)
                                       or "unsupported operand type" in str(exc)):
        return Missing(text)
    return Crash(text)


# ----------------------------------------------------------------------------- dtypes

# name -> (pyasc dtype, torch dtype)
DTYPES = {
    "float32": (pyasc.float32, torch.float32),
    "float16": (pyasc.float16, torch.float16),
    "bfloat16": (pyasc.bfloat16, torch.bfloat16),
    "int32": (pyasc.int32, torch.int32),
    "int8": (pyasc.int8, torch.int8),
    "bool": (pyasc.bool, torch.bool),
}
FLOATS = ("float32", "float16", "bfloat16")
NUMERIC = FLOATS + ("int32",)
ALL = NUMERIC + ("int8", "bool")

# pyasc has no 64-bit dtypes: where PyTorch gives int64 / float64 pyasc gives int32 / float32
_TORCH_TO_PYASC = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
                   torch.int32: "int32", torch.int8: "int8", torch.bool: "bool", torch.int64: "int32",
                   torch.float64: "float32", torch.uint8: "int32", torch.int16: "int32"}


def expected_dtype(t: torch.Tensor) -> str:
    return _TORCH_TO_PYASC[t.dtype]


def tolerance(dtype_name: str, acc: int = 1) -> tuple[float, float]:
    """``(rtol, atol)`` for a result of ``dtype_name``: the looser of ``pyasc.tolerance`` and
    ``torch.testing.assert_close``'s default; ``acc`` > 1 (a sum of ``acc`` products) scales atol
    by sqrt(acc), the growth of rounding error in a sum."""
    if dtype_name not in FLOATS:
        return 0.0, 0.0
    r, a = pyasc.tolerance(dtype_name)
    tr, ta = {"float32": (1.3e-6, 1e-5), "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}[dtype_name]
    return max(r, tr), max(a, ta) * math.sqrt(max(acc, 1))


# ----------------------------------------------------------------------------- shape classes

ODD = (9, 15, 21, 25, 27, 33)
PRIME = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31)
CLASSES = ("odd", "prime", "one", "empty", "large")


def dims(rng, cls: str, n: int, cap: int = 4096) -> tuple[int, ...]:
    """``n`` dimension extents of shape class ``cls``, with at most ``cap`` elements."""
    if cls == "large":
        base = [int(rng.choice((67, 97, 131, 257, 521)))] + [int(rng.choice(PRIME[:6])) for _ in range(n - 1)]
        rng.shuffle(base)
        while math.prod(base) > max(cap, 8192) * 4 and max(base) > 1:
            base[int(np.argmax(base))] //= 2
        return tuple(base)
    pool = ODD if cls == "odd" else PRIME
    out = [int(rng.choice(pool)) for _ in range(n)]
    if cls in ("one", "empty") and n:
        k = int(rng.integers(1, n + 1)) if cls == "one" else 1
        for i in rng.choice(n, size=k, replace=False):
            out[int(i)] = 1 if cls == "one" else 0
    while math.prod(out) > cap and max(out) > 2:
        i = int(np.argmax(out))
        out[i] = max(2, out[i] // 3) | 1
    return tuple(out)


# ----------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Fixed:
    """An input with given values (index tensors, masks): int64/bool for torch, int32/bool for pyasc."""

    values: np.ndarray


@dataclass(frozen=True)
class Like:
    """An input of ``shape`` whose values follow ``domain`` (None: the row's domain) in the case's dtype."""

    shape: tuple
    domain: str | None = None
    dtype: str | None = None


def values(rng, shape, dtype: str, domain: str) -> np.ndarray:
    """Random values (float64/int64/bool NumPy) for one input; rounded to ``dtype`` later."""
    n = math.prod(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int32", "int8"):
        lo = {"pos": 1, "nonzero": 1, "unit": -1}.get(domain, -9)
        a = rng.integers(lo, 2 if domain == "unit" else 10, size=shape)     # unit: products stay small
        if domain == "nonzero":
            a = a * rng.choice((-1, 1), size=shape)
        if domain == "distinct":
            a = (rng.permutation(n) - n // 2).reshape(shape)
        return a
    if domain == "pos":
        return rng.uniform(0.1, 4.0, shape)
    if domain == "unit":
        return rng.uniform(-0.9, 0.9, shape)
    if domain == "nonzero":
        return rng.uniform(0.5, 4.0, shape) * rng.choice((-1.0, 1.0), size=shape)
    if domain == "distinct":    # integers: no ties while exact in the dtype (sort compares stable orders)
        return (rng.permutation(n) - n // 2).astype(np.float64).reshape(shape)
    if domain == "special":     # normal values with NaN and +-inf sprinkled in
        a = rng.standard_normal(shape) * 2.0
        flat = a.reshape(-1)
        for v, i in zip((np.nan, np.inf, -np.inf), rng.permutation(n)[:3]):
            flat[i] = v
        return a
    return rng.standard_normal(shape) * 2.0


def to_torch(a: np.ndarray, dtype: str) -> torch.Tensor:
    return torch.from_numpy(np.asarray(a, dtype=np.float64 if dtype in FLOATS else None)).to(DTYPES[dtype][1])


def to_pyasc(t: torch.Tensor):
    """The same values as a pyasc tensor (int64 indices become int32)."""
    if t.dtype == torch.int64:
        t = t.to(torch.int32)
    return pyasc.tensor(t.clone())


def make_inputs(rng, specs, dtype: str, domain: str):
    """``(torch inputs, pyasc inputs)`` with identical values."""
    ts = []
    for s in specs:
        if isinstance(s, Fixed):
            a = np.asarray(s.values)
            ts.append(torch.from_numpy(a.astype(np.int64) if a.dtype.kind in "iu" else a))
            continue
        like = s if isinstance(s, Like) else Like(tuple(s))
        d = like.dtype or dtype
        ts.append(to_torch(values(rng, like.shape, d, like.domain or domain), d))
    return ts, [to_pyasc(t) for t in ts]


# ----------------------------------------------------------------------------- comparison


def _numpy(x) -> np.ndarray:
    """A C-contiguous copy of the values (bfloat16 widened: torch cannot read ml_dtypes)."""
    a = x.numpy()
    return np.array(a, dtype=np.float64 if str(a.dtype) == "bfloat16" else a.dtype, order="C")


def compare(out, ref, acc: int = 1, check_values: bool = True, path: str = "result") -> None:
    """Raise WrongShape / WrongDtype / WrongValue where ``out`` (pyasc) differs from ``ref`` (torch)."""
    if isinstance(ref, tuple | list):
        if not isinstance(out, tuple | list) or len(out) != len(ref):
            raise WrongShape(f"{path}: expected a sequence of {len(ref)} tensors, got {type(out).__name__}"
                             f"{'' if not isinstance(out, tuple | list) else f' of {len(out)}'}")
        for i, (o, r) in enumerate(zip(out, ref)):
            compare(o, r, acc, check_values, f"{path}[{i}]")
        return
    if not isinstance(ref, torch.Tensor):      # a Python number
        got = out.item() if isinstance(out, pyasc.Tensor) else out
        if not math.isclose(float(got), float(ref), rel_tol=1e-5, abs_tol=1e-6) and not (
                math.isnan(float(got)) and math.isnan(float(ref))):
            raise WrongValue(f"{path}: {got!r} != torch's {ref!r}")
        return
    if not isinstance(out, pyasc.Tensor):
        raise WrongShape(f"{path}: expected a tensor, got {type(out).__name__}")
    if tuple(out.shape) != tuple(ref.shape):
        raise WrongShape(f"{path}: shape {tuple(out.shape)} != torch's {tuple(ref.shape)}")
    want = expected_dtype(ref)
    if out.dtype.name != want:
        raise WrongDtype(f"{path}: dtype {out.dtype.name} != torch's {str(ref.dtype).removeprefix('torch.')}")
    if not check_values:
        return
    got = torch.from_numpy(_numpy(out))
    exp = ref.detach().to(torch.float64 if want in FLOATS else ref.dtype)
    if want in FLOATS:
        got = got.to(torch.float64)
        rtol, atol = tolerance(want, acc)
        try:
            torch.testing.assert_close(got, exp, rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError as e:
            raise WrongValue(f"{path}: " + " ".join(str(e).split())[:400]) from None
    else:
        got = got.to(exp.dtype) if want != "int32" else got.to(torch.int64)
        exp = exp.to(torch.int64) if want == "int32" else exp
        if not torch.equal(got, exp):
            bad = int((got != exp).sum())
            raise WrongValue(f"{path}: {bad} of {exp.numel()} elements differ, e.g. {got.flatten()[:6].tolist()} "
                             f"vs torch's {exp.flatten()[:6].tolist()}")


# ----------------------------------------------------------------------------- running a case


@dataclass
class Case:
    """One (op, dtype, shape, mode) of the differential suite."""

    op: str
    dtype: str
    mode: str                   # "eager" or "jit"
    cls: str                    # shape class
    index: int                  # which shape of the class
    specs: list = field(default_factory=list)
    kw: dict = field(default_factory=dict)
    form: str = ""              # "bcast" or "0d" when the operands' shapes differ

    @property
    def key_cls(self) -> str:
        """The shape class the known-failures table sees: ``odd``, ``odd/bcast``, ``odd/0d`` ..."""
        return f"{self.cls}/{self.form}" if self.form else self.cls

    @property
    def args_text(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.kw.items())

    @property
    def shapes_text(self) -> str:
        parts = []
        for s in self.specs:
            parts.append("x".join(map(str, shape_of(s))) or "0d")
        return "_".join(parts)

    @property
    def id(self) -> str:
        parts = [self.op, self.dtype, self.mode, f"{self.cls}{self.index}", self.shapes_text, self.args_text]
        return "-".join(p for p in parts if p)

    def seed(self) -> int:
        return zlib.crc32(f"{self.op}|{self.dtype}|{self.cls}|{self.index}|{self.shapes_text}".encode())


def shape_of(spec) -> tuple:
    return tuple(spec.values.shape if isinstance(spec, Fixed) else (spec.shape if isinstance(spec, Like) else spec))


def form(specs) -> str:
    """"" when all operands have one shape, "0d" when one is 0-d, else "bcast"."""
    shapes = [shape_of(s) for s in specs]
    if len(set(shapes)) <= 1:
        return ""
    return "0d" if () in shapes else "bcast"


def run(mode: str, fn, inputs):
    """``fn(*inputs)`` eagerly, or traced and compiled by ``pyasc.jit`` and run."""
    if mode == "eager":
        return fn(*inputs)
    return pyasc.jit(lambda *xs: fn(*xs))(*inputs)


def run_counting_launches(mode: str, fn, inputs):
    """``run`` and the number of kernel launches the simulator ran meanwhile."""
    from pyasc.runtime import simulator

    launches = []

    def listen(sim, host, report):
        launches.extend(report.launches)

    simulator.add_listener(listen)
    try:
        return run(mode, fn, inputs), len(launches)
    finally:
        simulator.remove_listener(listen)


def _elements(out) -> int:
    if isinstance(out, tuple | list):
        return sum(_elements(o) for o in out)
    return out.numel() if isinstance(out, pyasc.Tensor) else 1


def check(mode: str, pyasc_fn, torch_fn, torch_inputs, pyasc_inputs, acc: int = 1,
          check_values: bool = True, device: bool = False) -> None:
    """Run torch and pyasc on the same values and compare; raise a DiffFailure on a difference.
    When torch rejects the inputs, pyasc must reject them too (with a PyascError). With ``device``,
    a non-empty result of non-empty inputs must come from kernels run on the (simulated) device."""
    try:
        with warnings.catch_warnings():     # torch's own notes (e.g. var with correction >= n)
            warnings.simplefilter("ignore", UserWarning)
            ref = torch_fn(*torch_inputs)
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        torch_error = f"{type(e).__name__}: {e}".splitlines()[0][:200]
        try:
            out = run(mode, pyasc_fn, pyasc_inputs)
        except pyasc.PyascError:
            return
        except Exception as e2:  # noqa: BLE001 - classified
            raise classify(e2) from None
        raise WrongValue(f"pyasc returned a result where torch raises ({torch_error})")
    try:
        out, launches = run_counting_launches(mode, pyasc_fn, pyasc_inputs)
    except Exception as e:  # noqa: BLE001 - classified
        raise classify(e) from None
    compare(out, ref, acc, check_values)
    if device and launches == 0 and _elements(out) > 0 and all(_elements(p) > 0 for p in pyasc_inputs):
        raise OnHost(f"no kernel ran on the device ({mode})")
