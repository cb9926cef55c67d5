"""Straight-line forms of the cube's data movement, for a tape's straight-line function (``tape.straight_source``).

On a replay every scalar of a straight tape is the recorded one, so a ``DataCopy`` with ``Nd2NzParams``, an
``InitConstValue`` or a ``Fixpipe`` moves the same bytes on every run. Its form here checks its bounds once, when
the tape is compiled, makes its views of the local memories once (kept in the function's constants) and leaves
copies between those views and views of the global tensors' byte arrays (which a replay passes anew; a group's
cores at uneven GM starts take one view each, in core order). A call whose checks fail here, or a float16 Fixpipe
large enough to convert by bits, keeps its helper, which checks and fails as on a traced run.

Each form takes the call's argument texts, ``value(text)`` (a recorded scalar, a literal or a global of the
kernel), ``gm`` (per typed view of a global tensor: its byte view's name, dtype and size in elements), whether
the tape is a group's and the function's constants, and returns the statements or None.
"""

from __future__ import annotations

import numpy as np

from .cube_mmad import F16, F32, V32
from .kernel_ops_cube import F16_BITS_MIN, core_view

_MAX_FIELD = 32767  # InitConstValue's repeatTimes, blockNum and dstGap


def _const(consts: list, value) -> str:
    consts.append(value)
    return f"_c[{len(consts) - 1}]"


def _ints(value, texts) -> list[int] | None:
    values = [value(x) for x in texts]
    return values if all(type(v) is int for v in values) else None


def _per_core(goff, cores: int) -> list[int] | None:
    """A GM element offset as one int per core of the view (one for an int), or None when it is neither."""
    if type(goff) is int:
        return [goff]
    if isinstance(goff, np.ndarray) and goff.dtype.kind in "iu" and goff.size == cores:
        return goff.view(np.ndarray).reshape(-1).tolist()
    return None


def _views(offsets: list[int], es: int, written_extent: int | None) -> list[tuple[int, int, int, slice]]:
    """(first byte, byte step between cores, cores spanned, the cores' rows it serves) of each view of a global
    tensor that the cores' element ``offsets`` need, as ``batched.gm_cores`` makes them: one strided view when
    the starts are common (read: broadcast; written: by the last core, which writes last) or evenly spaced
    (written: rows that do not overlap), else one per core in core order."""
    starts = [o * es for o in offsets]
    d = starts[1] - starts[0] if len(starts) > 1 else 0
    if d >= 0 and all(b - a == d for a, b in zip(starts, starts[1:])):
        if d == 0:
            return [(starts[0], 0, 1, slice(None) if written_extent is None else slice(-1, None))]
        if written_extent is None or d >= written_extent:
            return [(starts[0], d, len(starts), slice(None))]
    return [(b, 0, 1, slice(c, c + 1)) for c, b in enumerate(starts)]


def _gm_text(buf: str, consts: list, dt, view: tuple, offset: int, shape: tuple, strides: tuple) -> str:
    """The text of a view (``_views``) of a global tensor's byte array ``buf``, ``offset`` bytes on."""
    first, step, rows, _ = view
    return (f"np.ndarray({(rows, *shape)}, {_const(consts, np.dtype(dt))}, {buf}, {first + offset}, "
            f"{(step, *strides)})")


def _buffer(gm: dict, name: str, group: bool):
    entry = gm.get(name)
    if entry is None:
        return None
    b, dt, size = entry
    return (f"{b}.a" if group else b), dt, size


def init_const(args: list[str], value, gm: dict, group: bool, consts: list) -> list[str] | None:
    """``_init_const(_fail, sid, bid, L1, dst, rep, blk, gap, value, dt)``: a fill of the runs' view."""
    l1 = value(args[3])
    fields = _ints(value, args[4:8])
    if fields is None or not isinstance(l1, np.ndarray):
        return None
    dst, rep, blk, gap = fields
    if min(rep, blk, gap) < 0 or max(rep, blk, gap) > _MAX_FIELD:
        return None
    if rep == 0 or blk == 0:
        return ["pass"]
    dt = value(args[9])
    span = ((rep - 1) * (blk + gap) + blk) * 32
    if dst < 0 or dst % 32 or dst + span > l1.shape[1]:
        return None
    runs = core_view(l1, dst, (rep, blk * 32 // dt.itemsize), ((blk + gap) * 32, dt.itemsize), dt)
    return [f"{_const(consts, runs)}.fill({_const(consts, np.full(1, value(args[8]), dt)[0])})"]


def nd2nz(args: list[str], value, gm: dict, group: bool, consts: list) -> list[str] | None:
    """``_nd2nz(_fail, sid, bid, L1, dst, g, goff, nd, n, d, src_nd, src_d, c0_stride, n_stride, mat_stride, l2,
    args)`` without L2 accounting: a copy of whole 32 B blocks, then the last partial block and its zero tail."""
    l1, buffer = value(args[3]), _buffer(gm, args[5], group)
    fields = _ints(value, [args[4]] + args[7:15])
    if fields is None or buffer is None or value(args[15]) is not None or not isinstance(l1, np.ndarray):
        return None
    dst, nd, n, d, src_nd, src_d, c0_stride, n_stride, mat_stride = fields
    if nd <= 0 or n <= 0 or d <= 0:
        return ["pass"]
    buf, dt, size = buffer
    es = dt.itemsize
    c0 = 32 // es
    span = ((-(-d // c0) - 1) * c0_stride + (n - 1) * n_stride) * 32 + (nd - 1) * mat_stride * es + 32
    offsets = _per_core(value(args[6]), l1.shape[0])
    if dst < 0 or dst % 32 or dst + span > l1.shape[1] or offsets is None:
        return None
    if min(offsets) < 0 or max(offsets) + (nd - 1) * src_nd + (n - 1) * src_d + d > size:
        return None
    full, rem = d // c0, d % c0
    out = []
    for view in _views(offsets, es, None):
        rows = view[3]
        if full:
            to = core_view(l1, dst, (nd, full, n), (mat_stride * es, c0_stride * 32, n_stride * 32), V32)[rows]
            src = _gm_text(buf, consts, V32, view, 0, (nd, full, n), (src_nd * es, 32, src_d * es))
            out.append(f"np.copyto({_const(consts, to)}, {src})")
        if rem:
            o = core_view(l1, dst + full * c0_stride * 32, (nd, n, c0), (mat_stride * es, n_stride * 32, es), dt)
            src = _gm_text(buf, consts, dt, view, full * c0 * es, (nd, n, rem), (src_nd * es, src_d * es, es))
            out.append(f"{_const(consts, o[rows, :, :, :rem])}[...] = {src}")
            out.append(f"{_const(consts, o[rows, :, :, rem:])}.fill(0)")
    return out


def fixpipe(args: list[str], value, gm: dict, group: bool, consts: list) -> list[str] | None:
    """``_fixpipe(_fail, sid, bid, g, goff, cube, c, n, m, src_stride, dst_stride, relu, acc_dt)``: the pending Mmads
    stored, then copies (with ReLU) of L0C's NZ blocks into GM, converted on the way."""
    cube, buffer = value(args[5]), _buffer(gm, args[3], group)
    fields = _ints(value, args[6:11])
    relu, acc_dt = value(args[11]), value(args[12])
    if fields is None or buffer is None or type(relu) is not bool or not isinstance(acc_dt, np.dtype):
        return None
    c, n, m, src_stride, dst_stride = fields
    if m <= 0 or n <= 0:
        return ["pass"]
    buf, dt, size = buffer
    es = dt.itemsize
    l0c = cube.l0c
    n1 = -(-n // 16)
    nc = n1 * src_stride * 64
    if c < 0 or c + nc > l0c.shape[1] or m > src_stride:
        return None
    offsets = _per_core(value(args[4]), cube.cores)
    if offsets is None or min(offsets) < 0 or max(offsets) + (m - 1) * dst_stride + n > size:
        return None
    nz = l0c[:, c:c + nc].view(acc_dt).reshape(cube.cores, n1, src_stride, 16)
    full, rem = n // 16, n % 16
    parts = []
    for view in _views(offsets, es, ((m - 1) * dst_stride + n) * es):
        rows = view[3]
        if full:
            parts.append((_gm_text(buf, consts, dt, view, 0, (full, m, 16), (16 * es, dst_stride * es, es)),
                          nz[rows, :full, :m]))
        if rem:
            parts.append((_gm_text(buf, consts, dt, view, full * 16 * es, (m, rem), (dst_stride * es, es)),
                          nz[rows, full, :m, :rem]))
    if dt == F16 and acc_dt == F32 and max(cv.size for _, cv in parts) >= F16_BITS_MIN:
        return None  # converted by bits (``kernel_ops_cube._f16_bits``), faster than NumPy's cast at this size
    out = [f"if {args[5]}.pending is not None: _cube_flush({args[5]})"]
    for to, cv in parts:
        if relu:
            out.append(f"np.maximum({_const(consts, cv)}, 0, out={to}, dtype={_const(consts, cv.dtype)}, "
                       f"casting='unsafe')")
        else:
            out.append(f"np.copyto({to}, {_const(consts, cv)}, casting='unsafe')")
    return out


FORMS = {"_nd2nz": nd2nz, "_init_const": init_const, "_fixpipe": fixpipe}
