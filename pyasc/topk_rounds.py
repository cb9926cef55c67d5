"""``topk`` inside ``pyasc.jit`` in rounds: float16/bfloat16 with ``k`` above ``asctensor.MAX_TOPK``, and int32
with a small ``k`` (``int_topk_in_rounds``).

One ``asctensor.topk`` selects at most ``MAX_TOPK`` elements (one round per element in a row-wise
kernel). A larger ``k`` runs several of them on a float32 *key* of the input: after each, the
elements chosen so far (those ranking at or before the last one chosen: a larger value, or the
same value at a lower or equal index) become the sentinel ``-inf`` (``+inf`` for the smallest),
and the next round chooses among the others. So that the sentinel ranks below every element not
chosen yet, the key first maps the input's own -inf (+inf) to a float32 value beyond the range of
float16 and bfloat16 (``_BEYOND``), mapped back in the values chosen. float32 inputs have no such
value left, and keep the single-kernel limit. Round r ranks the key with r leading size-1 dims:
the position vectors of the rounds' decompositions then differ in type and are not merged into
one value that a row-wise kernel would have to pass on to the next one.
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import asctensor

from . import dtypes as dt
from .tensor import Tensor

_BEYOND = -float.fromhex("0x1.ffp+127")    # below bfloat16's lowest finite value, above float32's
INT_ROUNDS_MAX_K, INT_ROUNDS_MIN_N = 8, 64   # int32: rounds for k up to this, over dims of at least this
_I32 = np.iinfo(np.int32)


def _slice(t: Tensor, dim: int, start: int, size: int) -> Tensor:
    return t[(slice(None),) * dim + (slice(start, start + size),)]


def topk_in_rounds(topk, cat, x: Tensor, k: int, dim: int, largest: bool):
    """(values, indices) of ``topk(x, k, dim, largest)`` for a traced float16/bfloat16 ``x`` and
    ``k > MAX_TOPK``; ``topk`` and ``cat`` are the ops (see the module docstring)."""
    sign = 1.0 if largest else -1.0
    inf, beyond = sign * float("inf"), sign * _BEYOND
    key = x.to(dt.float32)
    key = key.where(key != -inf, beyond)
    n = x.shape[dim]
    pos = Tensor(np.arange(n, dtype=np.int32).reshape([n if d == dim else 1 for d in range(x.ndim)]), dt.int32)
    values, indices, done = [], [], 0
    while done < k:
        step = min(asctensor.MAX_TOPK, k - done)
        lead = len(values)          # each round ranks a key of its own rank (see below)
        v, i = topk(key.reshape(*(1,) * lead, *key.shape), step, dim=dim + lead, largest=largest)
        v, i = v.reshape(*v.shape[lead:]), i.reshape(*i.shape[lead:])
        values.append(v)
        indices.append(i)
        done += step
        if done < k:
            last_v, last_i = _slice(v, dim, step - 1, 1), _slice(i, dim, step - 1, 1)
            before = (key > last_v) if largest else (key < last_v)
            tie = (key == last_v).to(dt.float32) * (pos <= last_i).to(dt.float32)
            key = key.where(before.to(dt.float32) + tie == 0, -inf)
    v = cat(values, dim=dim)
    return v.where(v != beyond, -inf).to(x.dtype), cat(indices, dim=dim)


def int_topk_in_rounds(cat, x: Tensor, k: int, dim: int, largest: bool):
    """(values, indices) of ``topk(x, k, dim, largest)`` for a traced int32 ``x``, one element per round:
    the best value among the elements not chosen yet (``amax``/``amin``, exact on int32), then the lowest
    position holding it, which is then marked chosen. k rounds of a few passes over the dim, where ranking
    by the stable sort compares every pair of its elements; equal values come out lowest index first, as
    the sort gives them."""
    n = x.shape[dim]
    pos = Tensor(np.arange(n, dtype=np.int32).reshape([n if d == dim else 1 for d in range(x.ndim)]), dt.int32)
    worst = int(_I32.min if largest else _I32.max)
    values, indices, chosen = [], [], None
    for _ in range(k):
        left = x if chosen is None else x.where(chosen == 0, worst)
        v = left.amax(dim, keepdim=True) if largest else left.amin(dim, keepdim=True)
        at = left == v if chosen is None else (left == v) & (chosen == 0)
        i = pos.where(at, n).amin(dim, keepdim=True)
        values.append(v)
        indices.append(i)
        hit = (pos == i).to(dt.int32)
        chosen = hit if chosen is None else chosen + hit
    return cat(values, dim=dim), cat(indices, dim=dim)
