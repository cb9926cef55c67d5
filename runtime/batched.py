"""Running a group of cores in one call of a kernel's generated code ("batched" cores).

Cores whose traces were identical in an earlier run of a launch (same ops, costs and UB addresses;
only their GM offsets and data differ) usually stay identical. The kernel's Python is then executed
once for the whole group, in a second globals dictionary where

* ``bid`` and every per-core scalar computed from it or read from data is a ``WeakVec``: a (K, 1)
  array with the promotion rules of the Python number it stands for (NumPy's NEP 50: a Python float
  meeting a float32 is converted to float32). Where Python needs one value (``if``, ``range``, an
  index, ``int()``) it gives the cores' common value, and raises ``Diverged`` when they differ. A
  result on which every core agrees (bit for bit) is a plain Python number again, so the rest of
  the scalar code runs as on one core;
* each ``U_<type>`` is a ``BatchedUB``: slicing it gives the (K, n) view of every core's UB (one UB
  row per core), so every vector op is one NumPy call over the group. The generated code reduces
  and packs along the last axis, so the same statements serve one core and a group;
* each GM view is a ``BatchedGM``: a slice whose bounds differ per core gathers (or scatters) the
  cores' rows, as one strided view when the offsets are evenly spaced;
* ``_fail``, ``_find`` and ``_rule`` raise ``Diverged``: a run that would report something is redone core by
  core, which names the core and the op exactly.

The simulator compares the group's trace with the one it recorded; any difference, or ``Diverged``,
and the launch runs core by core again. Kernels that read a GM buffer they also write, MIX kernels and
kernels with an op whose code is not correct for a group (an ``ascendc`` op class without ``BATCHABLE``,
an upstream op outside :data:`UPSTREAM_BATCHED`) always run core by core.
"""

from __future__ import annotations

import threading

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.gm_access import gm_effects
from pyasc.dialects.traits import BufferEffects, buffer_effects

from .memory import gm_bytes, gm_view, make_pad_zero, pad_geometry, pad_unit, remembered, window
from .scalar_ops import scalar_helpers, sign_extend

# the upstream ops (translated by ``scalar_ops``) whose generated code is correct on a group of cores;
# an ``ascendc`` op says so itself (``AscendCOperation.BATCHABLE``)
UPSTREAM_BATCHED = frozenset({
    "arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
    "arith.shli", "arith.shrsi", "arith.divui", "arith.divsi", "arith.remui", "arith.remsi", "arith.ceildivui",
    "arith.ceildivsi", "arith.floordivsi", "arith.minui", "arith.maxui", "arith.minsi", "arith.maxsi",
    "arith.cmpi", "arith.cmpf", "arith.select", "arith.index_cast", "arith.index_castui", "arith.extsi",
    "arith.extui", "arith.trunci", "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
    "arith.maximumf", "arith.minimumf", "arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf",
    "arith.fptosi", "arith.fptoui", "scf.for", "scf.if", "scf.yield", "func.return",
})


def op_batchable(op) -> bool:
    """Whether the generated code of ``op`` is correct on a group of cores."""
    return _class_facts(type(op))[0]


# op class -> (batchable, its BufferEffects, whether its trace depends on the cores run before)
_FACTS: dict[type, tuple[bool, tuple[BufferEffects, ...], bool]] = {}


def _class_facts(cls: type) -> tuple[bool, tuple[BufferEffects, ...], bool]:
    facts = _FACTS.get(cls)
    if facts is None:
        ours = issubclass(cls, asc.AscendCOperation)
        ok = cls.BATCHABLE if ours else cls.name in UPSTREAM_BATCHED
        facts = _FACTS[cls] = (ok, buffer_effects(cls), ours and cls.ORDERED_TRACE)
    return facts


class Diverged(Exception):
    """The cores of a batched run need different control flow (or something must be reported)."""


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, np.ndarray) else x


class WeakVec(np.ndarray):
    """One Python number per core, shape (K, 1)."""

    def _one(self):
        v = _common(self.view(np.ndarray))
        if v is None:
            raise Diverged
        return v

    def __bool__(self):
        return bool(self._one())

    def __index__(self):
        v = self._one()
        if not isinstance(v, int):
            raise TypeError("a float cannot be used as an index")
        return v

    def __int__(self):
        return int(self._one())

    def __float__(self):
        return float(self._one())

    def __neg__(self):  # as ``__array_ufunc__`` negates one, without its dispatch
        return _weak_or_common(np.negative(self.view(np.ndarray)))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and len(inputs) == 2 and len(kwargs) == 1 and type(inputs[0]) is np.ndarray:
            out = kwargs.get("out")  # a vector op's ``dst = src <op> scalar``: as below, in one step
            if out is not None and len(out) == 1 and type(out[0]) is np.ndarray and type(inputs[1]) is WeakVec:
                return ufunc(inputs[0], _meeting(inputs[1], inputs[0].dtype), out=out[0])
        if method == "__call__" and not kwargs:  # the common case: per-core numbers and Python numbers
            plain = []
            for x in inputs:
                t = type(x)
                if t is WeakVec:
                    plain.append(x.view(np.ndarray))
                elif t is int or t is float or t is bool:
                    plain.append(x)
                else:
                    break
            else:
                r = ufunc(*plain)
                return _weak_or_common(r) if type(r) is np.ndarray else r
        strong = [np.asarray(x).dtype for x in inputs
                  if isinstance(x, np.generic) or (isinstance(x, np.ndarray) and not isinstance(x, WeakVec))]
        if strong:  # NEP 50: the Python number takes the NumPy operand's type (a float meeting ints: float64)
            target = np.result_type(*strong)
            inputs = [_meeting(x, target) if isinstance(x, WeakVec) else x for x in inputs]
        else:
            inputs = [_plain(x) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(o) for o in kwargs["out"])
        r = getattr(ufunc, method)(*inputs, **kwargs)
        if strong or "out" in kwargs or not isinstance(r, np.ndarray):
            return r
        return _weak_or_common(r)


def _meeting(v: WeakVec, target: np.dtype) -> np.ndarray:
    """The per-core numbers ``v`` as they meet NumPy operands of type ``target`` (NEP 50: in that type, except floats
    meeting integers, which stay float64)."""
    a = v.view(np.ndarray)
    return a if (a.dtype.kind == "f" and target.kind in "iub") else a.astype(target)


def _binary(ufunc, swap: bool = False):
    """A ``WeakVec`` operator that meets a Python number or another ``WeakVec`` with one ufunc call and
    no ``__array_ufunc__`` dispatch (anything else takes NumPy's path)."""

    def op(self, other):
        t = type(other)
        if t is int or t is float or t is bool:
            o = other
        elif t is WeakVec:
            o = other.view(np.ndarray)
        else:
            return ufunc(other, self) if swap else ufunc(self, other)
        a = self.view(np.ndarray)
        return _weak_or_common(ufunc(o, a) if swap else ufunc(a, o))

    return op


for _name, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("floordiv", np.floor_divide),
                      ("mod", np.remainder), ("and", np.bitwise_and), ("or", np.bitwise_or),
                      ("xor", np.bitwise_xor), ("lshift", np.left_shift), ("rshift", np.right_shift)):
    setattr(WeakVec, f"__{_name}__", _binary(_ufunc))
    setattr(WeakVec, f"__r{_name}__", _binary(_ufunc, swap=True))
for _name, _ufunc in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                      ("gt", np.greater), ("ge", np.greater_equal)):
    setattr(WeakVec, f"__{_name}__", _binary(_ufunc))


def _common(a: np.ndarray):
    """The cores' value as a Python number when every core has the same one (bit for bit, so -0.0
    and 0.0 stay apart), else None."""
    raw, w = a.tobytes(), a.itemsize
    if raw != raw[:w] * a.size:
        return None
    return a.flat[0].item()


def _weak_or_common(a: np.ndarray):
    """A per-core number: a plain Python number when the cores agree (the rest of the kernel then runs
    as scalar Python, exactly as on one core), else the (K, 1) ``WeakVec``."""
    v = _common(a)
    if v is not None:
        return v
    return (a if a.ndim == 2 and a.shape[1] == 1 else a.reshape(-1, 1)).view(WeakVec)


def core_groups(keys: list) -> list | None:
    """The cores with one trace key ([(key, cores)]) when they form groups few enough to run so (``MIN_GROUP``
    cores a group on average), else None."""
    found: dict = {}
    for bid, key in enumerate(keys):
        found.setdefault(key, []).append(bid)
    return list(found.items()) if len(found) * MIN_GROUP <= len(keys) else None


def weak(a) -> WeakVec:
    """The (K, 1) Python-number vector of an array of per-core values."""
    a = np.asarray(a)
    a = a.astype(np.float64 if a.dtype.kind == "f" else np.int64)
    return a.reshape(-1, 1).view(WeakVec)


def _int(x):
    return _weak_or_common(x.astype(np.int64)) if isinstance(x, np.ndarray) and x.size > 1 else int(x)


def _one_int(x) -> int:
    """``x`` as one int; ``Diverged`` when the cores' values differ."""
    if isinstance(x, np.ndarray) and x.size > 1:
        if np.any(x != x.reshape(-1)[0]):
            raise Diverged
        return int(x.reshape(-1)[0])
    return int(x)


def _float(x):
    return _weak_or_common(x.astype(np.float64)) if isinstance(x, np.ndarray) and x.size > 1 else float(x)


# cores per group, on average, below which a launch runs core by core: a group pays for every per-core number
# (``WeakVec``) it computes, and groups of two or three cores save less than that
MIN_GROUP = 4
# the same for groups that run only the data path of replays: those soon run by their tapes, whose per-core
# numbers are constants, so two cores a group already save
MIN_DATA_GROUP = 2
SMALL_ROW = 1024  # rows up to this many elements (bytes for DataCopyPad) move by one fancy index


def _spacing(starts: list[int]) -> int:
    """The common positive step of the cores' ``starts``, or 0 when they are not evenly spaced."""
    if len(starts) < 2:
        return 0
    d = starts[1] - starts[0]
    return d if d > 0 and all(b - a == d for a, b in zip(starts, starts[1:])) else 0


def _blocks_disjoint(starts: list[int], bc: int, bl: int, gs: int) -> bool:
    """Whether the ``bc`` blocks of ``bl`` bytes, ``gs`` apart, from each of ``starts`` overlap nowhere (the cores'
    rows may interleave)."""
    s = sorted(b + r * gs for b in starts for r in range(bc))
    return all(y - x >= bl for x, y in zip(s, s[1:]))


class BatchedUB:
    """``U_<type>`` of a group: ``[slice]`` is the (K, n) view of every core's UB."""

    __slots__ = ("a",)

    def __init__(self, a: np.ndarray):
        self.a = a  # (K, UB elements)

    def _key(self, i):
        if isinstance(i, slice):
            return (slice(None), i)
        if isinstance(i, np.ndarray) and i.ndim == 2:  # per-core element offsets (Gather)
            return (np.arange(self.a.shape[0])[:, None], _plain(i))
        if isinstance(i, np.ndarray):
            return (slice(None), i)
        i = int(i)
        return (slice(None), slice(i, i + 1))

    def __getitem__(self, i):
        a = self.a
        if isinstance(i, np.ndarray) and i.ndim == 2 and a.flags.c_contiguous:
            # per-core element offsets (Gather, which checks them against UB first): one take from the
            # UBs end to end, several times faster than indexing by (core, offset)
            k, n = a.shape
            return np.take(a.reshape(-1), _plain(i) + np.arange(0, k * n, n)[:, None])
        return a[self._key(i)]

    def __setitem__(self, i, v):
        self.a[self._key(i)] = _plain(v)


class BatchedGM:
    """A GM view of a group: a slice with per-core bounds reads or writes one row per core."""

    __slots__ = ("a", "k")

    def __init__(self, a: np.ndarray, k: int):
        self.a, self.k = a, k

    @property
    def shape(self):
        return self.a.shape

    @property
    def dtype(self):
        return self.a.dtype

    def _rows(self, start, n: int):
        """(the cores' rows of ``n`` elements from ``start`` as one strided view, or None when the
        starts are not evenly spaced; whether the rows are disjoint; the starts, as an array and a list)."""
        s = _plain(start).reshape(-1)
        starts = s.tolist()
        d = _spacing(starts)
        if d > 0:
            es = self.a.itemsize
            return window(self.a, starts[0], (self.k, n), (d * es, es)), d >= n, s, starts
        return None, False, s, starts

    def __getitem__(self, i):
        if isinstance(i, slice) and isinstance(i.start, np.ndarray):
            n = int(i.stop - i.start)
            rows, _, s, _ = self._rows(i.start, n)
            if rows is not None:
                return rows
            es = self.a.itemsize  # every window of n elements, the cores' ones picked (one row copy each)
            return window(self.a, 0, (self.a.shape[0] - n + 1, n), (es, es))[s]
        if isinstance(i, np.ndarray):  # GetValue at per-core indices
            return self.a[_plain(i).reshape(-1)].reshape(-1, 1)
        return self.a[i]

    def __setitem__(self, i, v):
        v = _plain(v)
        if not (isinstance(i, slice) and isinstance(i.start, np.ndarray)):
            self.a[i] = v[-1] if isinstance(v, np.ndarray) and v.ndim == 2 else v  # the last core writes last
            return
        n = int(i.stop - i.start)
        rows, disjoint, s, starts = self._rows(i.start, n)
        if rows is not None and disjoint:
            rows[...] = v
            return
        if rows is None and n <= SMALL_ROW and _blocks_disjoint(starts, 1, n, 0):
            self.a[s[:, None] + np.arange(n)] = v
            return
        v = np.broadcast_to(v, (self.k, n))
        for c, b in enumerate(starts):  # overlapping rows: core order decides, as core by core
            self.a[b:b + n] = v[c]


def gm_cores(g, start, shape: tuple, strides: tuple, dt, extent: int | None = None) -> list[tuple]:
    """Views of GM (``g``: a 1-D array, or a group's ``BatchedGM``) from byte ``start`` (an int, or a
    ``WeakVec`` of one start per core) with byte ``strides``, each with a leading core axis, paired with
    the cores' rows it serves. One view serves every core when the start is common (read: broadcast;
    written, ``extent`` bytes per core: the last core's row, which writes last) or when the starts are
    evenly spaced (written: at least ``extent`` apart); else one view per core, in core order."""
    if isinstance(g, BatchedGM):
        g = g.a
    if not isinstance(start, np.ndarray):
        rows = slice(None) if extent is None else slice(-1, None)
        return [(np.ndarray((1, *shape), dt, g, start, (0, *strides)), rows)]
    starts = _plain(start).reshape(-1).tolist()
    d = _spacing(starts)
    if d > 0 and (extent is None or d >= extent):
        return [(np.ndarray((len(starts), *shape), dt, g, starts[0], (d, *strides)), slice(None))]
    grid = _grid(starts) if extent is None else None
    if grid is not None:  # read: one (p, q, *shape) view, for the cores' axis split in two (``split_cores``)
        p, q, d1, d2 = grid
        return [(np.ndarray((p, q, *shape), dt, g, starts[0], (d1, d2, *strides)), slice(None))]
    return [(np.ndarray((1, *shape), dt, g, b, (0, *strides)), slice(c, c + 1)) for c, b in enumerate(starts)]


def _grid(starts: list[int]) -> tuple[int, int, int, int] | None:
    """(p, q, d1, d2) when the cores' ``starts`` are a p x q grid, ``starts[i * q + j] == starts[0] + i * d1 +
    j * d2`` with p, q > 1 (cores that walk the blocks of a 2-D grid), else None. Steps may be 0 or negative."""
    n = len(starts)
    if n < 4:
        return None
    d2, q = starts[1] - starts[0], 2
    while q < n and starts[q] - starts[q - 1] == d2:
        q += 1
    if q == n or n % q:
        return None
    d1, s0 = starts[q] - starts[0], starts[0]
    if all(starts[i * q + j] == s0 + i * d1 + j * d2 for i in range(n // q) for j in range(q)):
        return n // q, q, d1, d2
    return None


def split_cores(dst: np.ndarray, src: np.ndarray) -> np.ndarray:
    """``dst`` (cores first) with its cores' axis split as ``src``'s first two when ``src`` is a grid view
    of ``gm_cores`` (one more axis than ``dst``), else ``dst`` itself."""
    return dst.reshape(src.shape[:2] + dst.shape[1:]) if src.ndim > dst.ndim else dst


_POOL = threading.local()  # per thread: UB size -> (cores, UB bytes) array shared by every simulator


def group_ub(ub_bytes: int, k: int) -> np.ndarray:
    """A (>= k, ub_bytes) byte array for groups of this thread (grown when a larger group comes)."""
    pool = getattr(_POOL, "arrays", None)
    if pool is None:
        pool = _POOL.arrays = {}
    a = pool.get(ub_bytes)
    if a is None or a.shape[0] < k:
        a = pool[ub_bytes] = np.zeros((k, ub_bytes), np.uint8)
    return a


def make_group_env(base: dict, ub2: np.ndarray, k: int, dtypes: dict) -> dict:
    """The globals of a group run of K cores on the (K, UB bytes) array ``ub2``."""
    env = dict(base)
    ubn = ub2.shape[1]
    for key, dt in dtypes.items():
        if ubn % dt.itemsize == 0:
            env[f"U_{key}"] = BatchedUB(ub2.view(dt))

    def gm(buf, dtype, size):
        g, b = gm_view(buf, dtype, size)
        return BatchedGM(g, k), BatchedGM(b, k)

    views = base.get("_gm_cache")  # the launch's GM views (``memory.make_gm_views``), shared by its units

    def group_bytes(buf, dtype, size):
        return BatchedGM(gm_bytes(buf, dtype, size), k)

    def gm_bytes_of_group(buf, dtype, size):
        if views is None:
            return group_bytes(buf, dtype, size)
        return remembered(views, (id(buf), dtype, size, k), buf, group_bytes, buf, dtype, size)

    def view3(dt, base_, coef, rows, n):
        return np.ndarray((k, rows, n), dt, ub2, base_, (ubn, coef, dt.itemsize))

    def pad(to_gm: bool):
        def run(fail, sid, bid, u, g8w, g, bc, bl, ss, ds):
            if type(bc) is WeakVec:
                return ragged(to_gm, u, g8w, g, bc, bl, ss, ds)
            u, bc, bl, ss, ds = (int(x) for x in (u, bc, bl, ss, ds))
            if bc <= 0 or bl <= 0:
                return 0, 0
            us, gs, span = pad_geometry(to_gm, bc, bl, ss, ds)
            g8 = g8w.a
            starts = _plain(g).reshape(-1).tolist() if isinstance(g, np.ndarray) else None
            lo, hi = (min(starts), max(starts)) if starts else (g, g)
            if u % 32 or u < 0 or u + span > ubn or lo < 0 or hi + (bc - 1) * gs + bl > g8.shape[0] or ss < 0 or ds < 0:
                raise Diverged
            uv = np.ndarray((k, bc, bl), np.uint8, ub2, u, (ubn, us, 1))
            if not isinstance(g, np.ndarray):
                gv = window(g8, g, (bc, bl), (gs, 1))
                unit = pad_unit(u, ubn, g, bl, us, gs)
                if unit.itemsize > 1:
                    uv, gv = uv.view(unit), gv.view(unit)
                if to_gm:
                    gv[...] = uv[-1]
                else:
                    uv[...] = gv
                return span, bc * bl
            extent = (bc - 1) * gs + bl
            d = _spacing(starts)
            if d > 0 and (not to_gm or d >= extent):
                gv = np.ndarray((k, bc, bl), np.uint8, g8, starts[0], (d, gs, 1))
                unit = pad_unit(u, ubn, starts[0], d, bl, us, gs)
                if unit.itemsize > 1:
                    uv, gv = uv.view(unit), gv.view(unit)
                if to_gm:
                    gv[...] = uv
                elif d < gs and bc > 1:  # the cores' blocks interleave in GM: read them block by block
                    uv[...] = np.ascontiguousarray(gv.transpose(1, 0, 2)).transpose(1, 0, 2)
                else:
                    uv[...] = gv
            elif bc * bl <= SMALL_ROW and (not to_gm or _blocks_disjoint(starts, 1, extent, 0)):
                idx = np.array(starts)[:, None, None] + (np.arange(bc) * gs)[:, None] + np.arange(bl)
                if to_gm:
                    g8[idx] = uv
                else:
                    uv[...] = g8[idx]
            else:
                for c in range(k):
                    gv = window(g8, starts[c], (bc, bl), (gs, 1))
                    if to_gm:
                        gv[...] = uv[c]
                    else:
                        uv[c] = gv
            return span, bc * bl
        return run

    def ragged(to_gm: bool, u, g8w, g, bc, bl, ss, ds):
        """A ``DataCopyPad`` whose block count differs per core (the two AIVs of an AI Core splitting rows
        unevenly), core by core: each core's blocks between its UB row and its GM start."""
        u, bl, ss, ds = (int(x) for x in (u, bl, ss, ds))
        g8 = g8w.a
        starts = _plain(g).reshape(-1).tolist() if isinstance(g, np.ndarray) else [g] * k
        spans, moved = [], []
        for c, n in enumerate(_plain(bc).reshape(-1).tolist()):
            n = int(n)
            if n <= 0 or bl <= 0:
                spans.append(0)
                moved.append(0)
                continue
            us, gs, span = pad_geometry(to_gm, n, bl, ss, ds)
            start = starts[c]
            if u % 32 or u < 0 or u + span > ubn or start < 0 or start + (n - 1) * gs + bl > g8.shape[0] or ss < 0 \
                    or ds < 0:
                raise Diverged
            uv = np.ndarray((n, bl), np.uint8, ub2, c * ubn + u, (us, 1))
            gv = window(g8, start, (n, bl), (gs, 1))
            if to_gm:
                gv[...] = uv
            else:
                uv[...] = gv
            spans.append(span)
            moved.append(n * bl)
        return weak(spans), weak(moved)

    def stop(*_args, **_kw):
        raise Diverged

    env.update({"_gm": gm, "_gm_bytes": gm_bytes_of_group, "_gm_array": gm_bytes, "_gm_arrays": gm_view,
                "_V2": view3, "_pad_in": pad(False),
                "_pad_out": pad(True), "_pad_zero": make_pad_zero(ub2, _one_int), "_pad_copy": pad_copy, "_fail": stop, "_find": stop, "_rule": stop})
    env.update(scalar_helpers(_u, _sext, _pick))
    env.update({"_int": _int, "_float": _float, "_GMW": None})  # a group's copies are never watched
    return env


def pad_copy(to_gm: bool, gm: str, u: int, g, bc: int, bl: int, ss: int, ds: int, ub2: np.ndarray,
             consts: list) -> str | None:
    """A group's ``DataCopyPad`` (``make_group_env``) with these scalars as one assignment between views, for a
    straight-line tape (``tape.straight_source``): the UB side a view of the cores' rows ``ub2`` made once and
    appended to ``consts``, the GM side (of the ``BatchedGM`` named ``gm``) built by the code. None unless the
    GM start is common or the cores' starts are evenly spaced (written: no two blocks overlapping; read: not
    interleaved)."""
    k, ubn = ub2.shape
    if isinstance(bc, np.ndarray):
        return _ragged_copy(to_gm, gm, u, g, bc, bl, ss, ds, ub2, consts)
    if type(bc) is not int:
        return None
    us, gs, _ = pad_geometry(to_gm, bc, bl, ss, ds)
    if type(g) is int:
        unit = pad_unit(u, ubn, g, bl, us, gs)
        n, e = bl // unit.itemsize, unit.itemsize
        gv = f"np.ndarray(({bc}, {n}), np.{unit.name}, {gm}.a, {g}, ({gs}, {e}))"
        uv = np.ndarray((bc, n), unit, ub2, (k - 1) * ubn + u, (us, e)) if to_gm else \
            np.ndarray((k, bc, n), unit, ub2, u, (ubn, us, e))  # the last core writes last; a read reaches all
    elif isinstance(g, np.ndarray) and g.size == k and g.dtype.kind == "i":
        starts = _plain(g).reshape(-1).tolist()
        d = _spacing(starts)
        if d <= 0 or (to_gm and not _blocks_disjoint(starts, bc, bl, gs)) or (not to_gm and d < gs and bc > 1):
            return _per_core_copy(to_gm, gm, u, starts, bc, bl, us, gs, ub2, consts)
        unit = pad_unit(u, ubn, starts[0], d, bl, us, gs)
        n, e = bl // unit.itemsize, unit.itemsize
        gv = f"np.ndarray(({k}, {bc}, {n}), np.{unit.name}, {gm}.a, {starts[0]}, ({d}, {gs}, {e}))"
        uv = np.ndarray((k, bc, n), unit, ub2, u, (ubn, us, e))
    else:
        return None
    consts.append(uv)
    c = f"_c[{len(consts) - 1}]"
    return f"{gv}[...] = {c}" if to_gm else f"{c}[...] = {gv}"


def _ragged_copy(to_gm: bool, gm: str, u: int, g, bc: np.ndarray, bl: int, ss: int, ds: int, ub2: np.ndarray,
                 consts: list) -> str | None:
    """``pad_copy`` of cores whose block counts ``bc`` differ (``make_group_env``'s ragged copies): one view
    assignment per core that moves blocks, in core order, each core's UB blocks a view made once."""
    k, ubn = ub2.shape
    counts = _plain(bc).reshape(-1).tolist()
    starts = _plain(g).reshape(-1).tolist() if isinstance(g, np.ndarray) else [g] * k
    if len(counts) != k or len(starts) != k or not all(type(x) is int for x in (*counts, *starts)) or bl <= 0:
        return None
    us, gs, _ = pad_geometry(to_gm, 1, bl, ss, ds)
    unit = pad_unit(u, ubn, bl, us, gs, *starts)
    n, e = bl // unit.itemsize, unit.itemsize
    copies = []
    for c, (rows, start) in enumerate(zip(counts, starts)):
        if rows > 0:
            consts.append(np.ndarray((rows, n), unit, ub2, c * ubn + u, (us, e)))
            uv = f"_c[{len(consts) - 1}]"
            gv = f"np.ndarray(({rows}, {n}), np.{unit.name}, {gm}.a, {start}, ({gs}, {e}))"
            copies.append(f"{gv}[...] = {uv}" if to_gm else f"{uv}[...] = {gv}")
    return "; ".join(copies) or "pass"


def _per_core_copy(to_gm: bool, gm: str, u: int, starts: list, bc: int, bl: int, us: int, gs: int, ub2: np.ndarray,
                   consts: list) -> str:
    """``pad_copy`` of cores whose GM starts are not evenly spaced: small blocks by one fancy index into GM (an
    index array made once; written only where the cores' blocks do not overlap), else one view assignment per
    core, in core order (overlapping writes end as core by core)."""
    ubn = ub2.shape[1]
    unit = pad_unit(u, ubn, bl, us, gs, *starts)
    n, e = bl // unit.itemsize, unit.itemsize
    consts.append(np.ndarray((len(starts), bc, n), unit, ub2, u, (ubn, us, e)))
    c = f"_c[{len(consts) - 1}]"
    if bc * bl <= SMALL_ROW and (not to_gm or _blocks_disjoint(starts, bc, bl, gs)):
        consts.append((np.array(starts) // e)[:, None, None] + (np.arange(bc) * (gs // e))[:, None] + np.arange(n))
        flat = f"np.ndarray(({gm}.a.nbytes // {e},), np.{unit.name}, {gm}.a)[_c[{len(consts) - 1}]]"
        return f"{flat} = {c}" if to_gm else f"{c}[...] = {flat}"
    views = [f"np.ndarray(({bc}, {n}), np.{unit.name}, {gm}.a, {b}, ({gs}, {e}))" for b in starts]
    return "; ".join(f"{v}[...] = {c}[{i}]" if to_gm else f"{c}[{i}] = {v}" for i, v in enumerate(views))


def _u(x, w):
    if isinstance(x, np.ndarray) and w >= 64 and (_plain(x) < 0).any():
        raise Diverged  # the unsigned 64-bit view of a negative value is not an int64
    return x if isinstance(x, np.ndarray) and w >= 64 else x & ((1 << w) - 1)


def _sext(x, w):
    if not isinstance(x, np.ndarray):
        return sign_extend(x, w)
    if w >= 64:
        return x
    m = _plain(x) & ((1 << w) - 1)
    return _weak_or_common(np.where(m >> (w - 1), m - (1 << w), m))


def _pick(c, a, b):
    if isinstance(c, np.ndarray):
        return _weak_or_common(np.where(_plain(c), _plain(a), _plain(b)))
    return a if c else b


def batchable(kernel) -> bool:
    """Whether a group of cores may run ``kernel`` together: only batchable ops (``op_batchable``), and no
    GM buffer both read and written (by the ops' ``BufferEffects``; a group that diverges is then simply
    run again core by core)."""
    effects = _gm_effects(kernel.body.walk())
    return effects is not None and not (effects[0] & effects[1])


def _gm_effects(ops) -> tuple[set, set] | None:
    """The kernel arguments ``ops`` read and write as global tensors (by their ``BufferEffects``); None when an op
    is not batchable or a global tensor's argument is unknown."""
    reads, writes = set(), set()
    for op in ops:
        if not _class_facts(type(op))[0]:
            return None
        r, w, known = gm_effects(op)
        if not known:
            return None
        reads |= r
        writes |= w
    return reads, writes


def _section_effects(kernel) -> tuple:
    """The GM effects (``_gm_effects``) of the AIC's and of the AIVs' code of a MIX ``kernel``."""
    sections = {c: [] for c in asc.CoreKind}
    for op in kernel.body.walk():
        if isinstance(op, asc.CoreSectionOp):
            sections[op.core.data].extend(op.body.walk())
    inside = {id(op) for ops in sections.values() for op in ops}
    both = [op for op in kernel.body.walk() if id(op) not in inside]  # run by either core type
    return _gm_effects(sections[asc.CoreKind.AIC] + both), _gm_effects(sections[asc.CoreKind.AIV] + both)


def mix_batchable(kernel) -> bool:
    """Whether the AI Cores of a MIX ``kernel`` may run their data paths in groups: every AIC of a group, then
    their first AIVs, then their second ones (the AIVs first where they lay out the AICs' input,
    ``aiv_feeds_aic``). Each core type's section alone is ``batchable``, no core type writes a buffer it reads,
    the two write different buffers and only one of them reads what the other writes; what that one reads is its
    own AI Core's (which ``replay.verify_data_groups`` checks once against the AI Cores run one by one)."""
    cube, vector = _section_effects(kernel)
    if cube is None or vector is None:
        return False
    (c_reads, c_writes), (v_reads, v_writes) = cube, vector
    if c_reads & c_writes or v_reads & v_writes or v_writes & c_writes:
        return False
    return not (v_writes & c_reads and c_writes & v_reads)


def aiv_feeds_aic(kernel) -> bool:
    """Whether the AIVs of a MIX ``kernel`` write a GM buffer its AIC reads (they lay out its input): each AI Core's
    data path then runs its AIVs before its AIC. Unknown effects count as not."""
    cube, vector = _section_effects(kernel)
    return cube is not None and vector is not None and bool(vector[1] & cube[0])


def ordered_trace(kernel) -> bool:
    """Whether a core's trace of ``kernel`` depends on the cores run before it (an op with
    ``ORDERED_TRACE``): a group of its cores then runs only the data path together (``replay``)."""
    return any(_class_facts(type(op))[2] for op in kernel.body.walk())
