"""The simulated memories and the helpers the generated kernel code calls on them.

UB is one preallocated byte array per simulator (cores run one after another, so they can share it);
``ub_views`` gives the typed views of it. A GM buffer is the flat byte view of the NumPy array passed
for a kernel argument; ``gm_view`` gives the typed view an ``ascendc.global_tensor`` declares.
The ``*_msg`` helpers build the detailed error message once a fast inline check has failed.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from pyasc.dialects.types import ELEMENTS

# element type name -> NumPy dtype of the simulated memories (``U_<name>`` views of UB)
NUMPY_DTYPES: dict[str, np.dtype] = {name: e.np_dtype for name, e in ELEMENTS.items()}


def window(a: np.ndarray, start: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """The view of the 1-D array ``a`` from element ``start`` with byte ``strides`` (NumPy checks
    that it stays inside ``a``); built directly, as ``as_strided`` costs microseconds per call."""
    try:
        return np.ndarray(shape, a.dtype, a, start * a.itemsize, strides)
    except (ValueError, BufferError):  # ``a`` not contiguous: no buffer to build on
        return as_strided(a[start:], shape, strides)


def ub_views(ub: np.ndarray) -> dict[str, np.ndarray]:
    """``U_<type>``: UB viewed as each element type the simulator knows."""
    return {f"U_{k}": ub.view(dt) for k, dt in NUMPY_DTYPES.items() if ub.nbytes % dt.itemsize == 0}


def make_view2(ub: np.ndarray):
    """``_V2(dtype, base, coef, n_rows, n)``: rows of ``n`` elements at byte ``base + coef * k`` of UB
    (the row views of a vectorised loop, see ``vectorize``)."""

    def view2(dt, base, coef, rows, n):
        return np.ndarray((rows, n), dt, ub, base, (coef, dt.itemsize))

    return view2


def gm_view(buf: np.ndarray, dtype: np.dtype, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``GlobalTensor<T>::SetGlobalBuffer(buf, size)``: (typed view, byte view), clipped to the buffer."""
    b = gm_bytes(buf, dtype, size)
    return b.view(dtype), b


def gm_bytes(buf: np.ndarray, dtype: np.dtype, size: int) -> np.ndarray:
    """``gm_view``'s byte view alone (the buffer itself when the global tensor spans it)."""
    es = dtype.itemsize
    nb = min(size, buf.nbytes // es) * es
    return buf if nb == buf.nbytes else buf[:nb]


def remembered(cache: dict, key: tuple, buf: np.ndarray, make, *args):
    """``make(*args)`` kept in ``cache`` under ``key`` (which holds ``id(buf)``) while ``buf`` is the array it was
    made of (a launch's GM views, made once for its cores or groups; the launch clears ``cache``)."""
    held = cache.get(key)
    if held is not None and held[0] is buf:
        return held[1]
    made = make(*args)
    cache[key] = (buf, made)
    return made


def make_gm_views():
    """``(gmc, cache)``: ``gmc`` is ``gm_view`` remembered per buffer, dtype and size while ``cache`` holds them (the
    core runs of one replayed launch read their arguments' views once; the launch clears ``cache``)."""
    cache: dict = {}

    def gmc(buf: np.ndarray, dtype: np.dtype, size: int) -> tuple[np.ndarray, np.ndarray]:
        return remembered(cache, (id(buf), dtype, size), buf, gm_view, buf, dtype, size)

    return gmc, cache


def ub_msg(addrs: tuple[int, ...], nbytes: int, src_bytes: int | None = None, *, ub_bytes: int) -> str:
    """Why a local operand is invalid (misaligned, negative or past the end of UB); ``src_bytes`` is the
    extent of the operands after the first when it differs (Cast)."""
    ubn = ub_bytes
    for i, a in enumerate(addrs):
        nb = src_bytes if (src_bytes is not None and i > 0) else nbytes
        if nb < 0:
            return f"negative count ({nb} bytes)"
        if a % 32:
            return f"local address {a} is not 32 B aligned"
        if a < 0:
            return f"local address {a} is negative"
        if a + nb > ubn:
            return f"UB overflow: access [{a}, {a + nb}) goes past the {ubn} B of UB"
    return "invalid local operand"


def copy_msg(u: int, nb: int, g: int, n: int, gl: int, ubn: int) -> str:
    """Why a DataCopy between GM and UB is invalid."""
    if nb < 0:
        return f"negative count ({n} elements)"
    if u % 32 or u < 0 or u + nb > ubn:
        return ub_msg((u,), nb, ub_bytes=ubn)
    return (f"out-of-bounds GM access: elements [{g}, {g + n}) of a global tensor of {gl} elements "
            f"(or of its buffer, if smaller)")


def _check_pad(fail, sid, bid, u, span, gstart, gend, glen, ubn, ss, ds):
    if ss < 0 or ds < 0:
        fail(sid, bid, f"negative DataCopyPad stride ({ss}, {ds})")
    if u % 32 or u < 0 or u + span > ubn:
        fail(sid, bid, ub_msg((u,), span, ub_bytes=ubn))
    if gstart < 0 or gend > glen:
        fail(sid, bid, f"out-of-bounds GM access: bytes [{gstart}, {gend}) of a global tensor of {glen} bytes")


_UNITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def pad_unit(*nbytes: int) -> np.dtype:
    """The widest unsigned integer (of at most 8 bytes) whose size divides each of ``nbytes`` (the block
    length, strides and offsets of a ``DataCopyPad``): the units its blocks move in (by the byte, NumPy
    would loop over every byte)."""
    g = 8
    for v in nbytes:
        g |= v
    return _UNITS[g & -g]


def pad_geometry(to_gm: bool, bc: int, bl: int, ss: int, ds: int) -> tuple[int, int, int]:
    """(UB stride, GM stride, UB span) in bytes of ``DataCopyPad`` blocks: UB blocks are 32 B aligned
    plus the UB-side stride in 32 B units, GM blocks are ``bl`` plus the GM-side stride in bytes."""
    blk = (bl + 31) & ~31
    us, gs = (blk + ss * 32, bl + ds) if to_gm else (blk + ds * 32, bl + ss)
    return us, gs, (bc - 1) * us + blk


def make_pad_zero(ub2: np.ndarray, number=int):
    """``DataCopyPad``'s zero right padding on GM->UB: ``rb`` zero bytes after each of ``bc`` blocks of ``bl`` bytes,
    ``us`` bytes apart from ``u``, in every core's UB (``ub2``: cores x UB bytes); ``number`` makes each count one
    int (a batched run's raises when the cores' differ)."""

    def run(u, bc, bl, rb, us):
        u, bc, bl, us = (number(x) for x in (u, bc, bl, us))
        if bc > 0 and bl > 0:
            ub2[:, (u + bl + np.arange(bc)[:, None] * us + np.arange(rb)).reshape(-1)] = 0
    return run


def make_pad_helpers(ub8: np.ndarray, ubn: int):
    """``DataCopyPad`` in both directions on the byte view ``ub8`` of UB.

    GM->UB: block i of ``bl`` bytes is read at ``g + i * (bl + src_stride)`` (bytes) and written at
    ``u + i * (ceil32(bl) + dst_stride * 32)``. UB->GM: read at ``u + i * (ceil32(bl) + src_stride * 32)``,
    written (valid bytes only) at ``g + i * (bl + dst_stride)``. Returns (UB span, GM bytes).
    """

    def pad(to_gm: bool):
        def run(fail, sid, bid, u, g8, g, bc, bl, ss, ds):
            if bc <= 0 or bl <= 0:
                return 0, 0
            blk = (bl + 31) & ~31  # pad_geometry, inline: this runs for every block copy
            us, gs = (blk + ss * 32, bl + ds) if to_gm else (blk + ds * 32, bl + ss)
            span = (bc - 1) * us + blk
            gend = g + (bc - 1) * gs + bl
            if u % 32 or u < 0 or u + span > ubn or g < 0 or gend > g8.shape[0] or ss < 0 or ds < 0:
                _check_pad(fail, sid, bid, u, span, g, gend, g8.shape[0], ubn, ss, ds)
            if bc == 1:  # one contiguous block: a slice copy, with no views to build
                if to_gm:
                    g8[g:gend] = ub8[u:u + bl]
                else:
                    ub8[u:u + bl] = g8[g:gend]
                return span, bl
            unit = pad_unit(u, g, bl, us, gs)
            k = unit.itemsize
            try:  # both sides as (blocks, units) views, built in one step each
                uv = np.ndarray((bc, bl // k), unit, ub8, u, (us, k))
                gv = np.ndarray((bc, bl // k), unit, g8, g, (gs, k))
            except (ValueError, BufferError):  # ``g8`` not contiguous: no buffer to build on
                uv = window(ub8, u, (bc, bl), (us, 1)).view(unit)
                gv = window(g8, g, (bc, bl), (gs, 1)).view(unit)
            if to_gm:
                gv[...] = uv
            else:
                uv[...] = gv
            return span, bc * bl
        return run

    return pad(False), pad(True)
