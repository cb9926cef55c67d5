"""In-place updates of views while gradients are recorded, as PyTorch rebases a view's history.

``v.add_(1)`` (or ``b[:, 0] += 1``) on a view ``v`` of a tensor ``base`` computes the new value of the view
out of place, and then:

1. the ops recorded so far that read ``v``, or a view of ``base`` that overlaps it, keep a copy of its value
   before the update (``tape.keep_history``);
2. ``base`` takes its new value, recorded as ``where(mask, placed, base)``: ``placed`` holds the view's new
   value at its positions (the value permuted into ``base``'s order and padded), so gradients reach the old
   ``base`` outside the view and the value inside it;
3. ``v`` is recorded as a copy of its new value, and every other view of ``base`` that overlaps it as the
   same positions read again from the new ``base``.

The view's positions in ``base`` must form a box read in some order, its indices evenly spaced along each dim of
``base`` or of ``base`` flattened (slices, integers, transposes, reshapes): other views (diagonals, broadcasts) are
refused with a clear error. Eager views are found through the views the view ops made (``remember_views``), traced
ones through the trace's records (``functionalize``).
"""

from __future__ import annotations

import weakref

import numpy as np
from numpy.lib.array_utils import byte_bounds
from numpy.lib.stride_tricks import as_strided

from ..errors import PyascError
from ..tensor import Tensor
from . import tape

# id of an eager view -> (the view, the tensor it views), both weakly; dead entries are swept when it has grown to
# twice the entries alive at the last sweep (at least 4096)
_parents: dict[int, tuple[weakref.ref, weakref.ref]] = {}
_sweep_at = 4096


def remember_views(base: Tensor, results) -> None:
    """Remember the eager results of a view op on ``base`` whose storage is inside ``base``'s."""
    global _sweep_at
    data = base._data
    for r in results:
        if not isinstance(r, Tensor) or r is base:
            continue
        own = r._data
        if own is None or own.base is None or not own.size or not np.may_share_memory(own, data):
            continue
        if len(_parents) >= _sweep_at:
            for k in [k for k, (v, b) in _parents.items() if v() is None or b() is None]:
                del _parents[k]
            _sweep_at = max(4096, 2 * len(_parents))
        _parents[id(r)] = (weakref.ref(r), weakref.ref(base))


def _parent(t: Tensor) -> Tensor | None:
    entry = _parents.get(id(t))
    if entry is None or entry[0]() is not t:
        return None
    return entry[1]()


def _eager_root(t: Tensor) -> Tensor | None:
    root = _parent(t)
    while root is not None and _parent(root) is not None:
        root = _parent(root)
    return root


def _eager_views(root: Tensor) -> list[Tensor]:
    out = []
    for view_ref, _ in list(_parents.values()):
        v = view_ref()
        if v is not None and v is not root and _eager_root(v) is root:
            out.append(v)
    return out


def _memory_positions(root: np.ndarray, view: np.ndarray) -> np.ndarray | None:
    """The flat (C-order) index in ``root`` of each element of ``view``, from their addresses (None: not all of
    ``view`` lies on elements of ``root``)."""
    es = root.itemsize
    if view.itemsize != es or any(s % es for s in root.strides + view.strides):
        return None
    lo, hi = byte_bounds(root)
    vlo, vhi = byte_bounds(view)
    if vlo < lo or vhi > hi:
        return None
    slots = np.full((hi - lo) // es, -1, np.int64)
    start = (root.ctypes.data - lo) // es
    as_strided(slots[start:], root.shape, tuple(s // es * 8 for s in root.strides))[...] = \
        np.arange(root.size).reshape(root.shape)
    pos = as_strided(slots[(view.ctypes.data - lo) // es:], view.shape, tuple(s // es * 8 for s in view.strides))
    pos = np.array(pos)
    return None if (pos < 0).any() else pos


def _traced_positions(rec) -> np.ndarray:
    """The flat index in the root of each element of a recorded traced view (its steps applied to an arange)."""
    from pyasc.dialects import asctensor

    pos = np.arange(int(np.prod(rec.root.shape))).reshape(rec.root.shape)
    for op in rec.steps:
        if isinstance(op, asctensor.SliceOp):
            shape = op.results[0].type.get_shape()
            pos = pos[tuple(slice(o, o + n) for o, n in zip(op.offset_list, shape))]
        elif isinstance(op, asctensor.ReshapeOp):
            pos = pos.reshape(tuple(op.results[0].type.get_shape()))
        elif isinstance(op, asctensor.TransposeOp):
            pos = pos.transpose(tuple(op.perm))
    return pos


def knows(t: Tensor) -> bool:
    """``t`` is a view whose base ``update`` can find."""
    return _root_and_views(t) is not None


def _root_and_views(t: Tensor):
    """(the root ``t`` views, its positions in the root, [(view, its positions)] for the root's other known views),
    or None."""
    if t._trace is not None:
        rec = t._trace.view_records.get(id(t))
        if rec is None:
            return None
        others = [(r.view, _traced_positions(r)) for r in t._trace.view_records.values()
                  if r.root is rec.root and r.view is not t]
        return rec.root, _traced_positions(rec), others
    root = _eager_root(t)
    pos = None if root is None else _memory_positions(root._data, t._data)
    if pos is None:
        return None
    others = []
    for v in _eager_views(root):
        p = None if v is t else _memory_positions(root._data, v._data)
        if p is not None:
            others.append((v, p))
    return root, pos, others


class _Box:
    """How a view's positions ``pos`` fill a box of its root, seen with the root's shape or flat (``shape``): the
    box (from ``lo``, ``size`` indices ``step`` apart per dim of ``shape``), and the view's dims to reverse
    (``flips``) and their order (``order``) that read the box in C order; None from ``find`` if they fill none."""

    def __init__(self, shape, lo, size, step, order, flips):
        self.shape, self.lo, self.size, self.step, self.order, self.flips = shape, lo, size, step, order, flips

    @classmethod
    def find(cls, pos: np.ndarray, root_shape):
        flat = (int(np.prod(root_shape)),)
        box = cls.of(pos, tuple(root_shape)) if root_shape else None
        return box if box is not None or tuple(root_shape) == flat else cls.of(pos, flat)

    @classmethod
    def of(cls, pos: np.ndarray, root_shape):
        if not pos.size:
            return None
        idx = np.unravel_index(pos.ravel(), root_shape)
        lo, size, step = [], [], []
        for i in idx:
            u = np.unique(i)
            lo.append(int(u[0]))
            size.append(len(u))
            step.append(int(u[1] - u[0]) if len(u) > 1 else 1)
            if not np.array_equal(u, u[0] + step[-1] * np.arange(len(u))):
                return None
        if int(np.prod(size)) != pos.size:
            return None
        j = np.ravel_multi_index([(i - low) // st for i, low, st in zip(idx, lo, step)], size).reshape(pos.shape)
        first = (0,) * pos.ndim
        steps = [int(j[first[:d] + (1,) + first[d + 1:]] - j[first]) if pos.shape[d] > 1 else 0
                 for d in range(pos.ndim)]
        flips = tuple(d for d in range(pos.ndim) if steps[d] < 0)
        if flips:
            j = np.flip(j, flips)
        order = sorted(range(pos.ndim), key=lambda d: -abs(steps[d]))
        if not np.array_equal(j.transpose(order).ravel(), np.arange(pos.size)):
            return None
        return cls(root_shape, lo, tuple(size), step, order, flips)

    def read(self, root: Tensor, shape) -> Tensor:
        """The box of ``root`` read as the view (of ``shape``)."""
        seen = root.reshape(*self.shape) if root.shape != self.shape else root
        box = seen[tuple(slice(low, low + (n - 1) * st + 1, st) for low, n, st in zip(self.lo, self.size, self.step))]
        return self.from_box(box, shape)

    def place(self, value: Tensor, root_shape) -> Tensor:
        """A tensor of ``root_shape`` holding the view's ``value`` in the box, zeros elsewhere: along a dim of step
        ``s``, each element followed by ``s - 1`` zeros (a new dim padded, merged back), then the dim padded."""
        from ..ops_pad import pad_dims

        placed = self.to_box(value)
        for d, (n, st) in enumerate(zip(self.size, self.step)):
            if st == 1:
                continue
            shape = placed.shape
            spread = pad_dims(placed.unsqueeze(d + 1), {d + 1: (0, st - 1)}, "constant", 0)
            spread = spread.reshape(*shape[:d], n * st, *shape[d + 1:])
            placed = spread[(slice(None),) * d + (slice(0, (n - 1) * st + 1),)]
        placed = pad_dims(placed, {d: (low, full - low - extent) for d, (low, full, extent) in
                                   enumerate(zip(self.lo, self.shape, placed.shape))}, "constant", 0)
        return placed.reshape(*root_shape) if placed.shape != tuple(root_shape) else placed

    def to_box(self, value: Tensor) -> Tensor:
        """The view's value laid out as the box."""
        if self.flips:
            value = value.flip(self.flips)
        if self.order != sorted(self.order):
            value = value.permute(*self.order)
        return value.reshape(*self.size)

    def from_box(self, box: Tensor, shape) -> Tensor:
        """The box read back as the view (of ``shape``)."""
        read = box.reshape(*[shape[d] for d in self.order])
        if self.order != sorted(self.order):
            inverse = [0] * len(self.order)
            for i, d in enumerate(self.order):
                inverse[d] = i
            read = read.permute(*inverse)
        return read.flip(self.flips) if self.flips else read


def _refuse(op: str, t: Tensor, why: str):
    raise PyascError(op, f"an in-place update of a view while gradients are recorded: {why}; update a clone, "
                     "or the base tensor", shapes=[t.shape])


def update(t: Tensor, op: str, value: Tensor) -> None:
    """``t`` (a view) takes ``value`` in place, recorded for gradients (see the module doc)."""
    found = _root_and_views(t)
    if found is None:
        _refuse(op, t, "its base is not known (a strided slice or a broadcast inside pyasc.jit, or a tensor over "
                       "memory pyasc did not allocate)")
    root, pos, others = found
    if root._requires_grad and root._grad_fn is None:
        raise PyascError(op, "a view of a leaf tensor that requires grad is updated in place: update a clone of "
                         "the leaf, or update it under pyasc.no_grad()", shapes=[t.shape, root.shape])
    box = _Box.find(pos, root.shape)
    if box is None:
        _refuse(op, t, "its elements do not form a box of its base (a diagonal or a broadcast)")
    mask = np.zeros(root.shape, np.bool_)
    mask.reshape(-1)[pos.ravel()] = True
    overlapping = []
    for v, p in others:
        if not mask.reshape(-1)[p.ravel()].any():
            continue
        vbox = _Box.find(p, root.shape)
        if vbox is None:
            _refuse(op, t, f"another view of its base, of shape {v.shape}, overlaps it and is not a box of it")
        overlapping.append((v, vbox))
    value = value.to(t.dtype) if value.dtype is not t.dtype else value
    if value.shape != t.shape:
        value = value.expand(*t.shape)
    new_root = box.place(value, root.shape).where(_mask_tensor(mask), root)
    for v in (t, *(v for v, _ in overlapping)):
        tape.keep_history(v, op)
    root._update(op, new_root)
    t._requires_grad, t._grad_fn = False, None
    tape.record_copy(value, t)
    for v, vbox in overlapping:
        v._requires_grad, v._grad_fn = False, None
        tape.record_copy(vbox.read(root, v.shape), v)


def _mask_tensor(mask: np.ndarray) -> Tensor:
    from .. import dtypes as dt

    return Tensor(mask, dt.bool_)
