"""Run-time state of ``TPipe``, ``TQue`` and ``TBuf`` on one core.

A queue's synchronisation is modelled as flags on synthetic event keys, one pair per buffer slot:
``EnQue`` sets the slot's *ready* key on the producer pipe, ``DeQue`` waits for it on the consumer pipe,
``FreeTensor`` sets the slot's *free* key on the consumer pipe and ``AllocTensor`` waits for it on the
producer pipe (the first ``num`` allocations find every buffer free and do not wait). After each call
``k`` holds the key the call sets or waits on (-1: no wait).

The flags behind a queue take event ids from its TPipe's pool (the one ``AllocEventID`` draws from, 8 per
HardEvent on A2): ``EnQue`` takes an id of the queue's forward event (``MTE2_V`` for VECIN) until ``DeQue``
gives it back, ``FreeTensor`` an id of the backward event (``V_MTE2``) until the ``AllocTensor`` that reuses
the buffer. A call that finds none free is a ``tpipe-event-pool-8`` finding.
"""

from __future__ import annotations

from collections import deque

# first synthetic key; real events use ``event_index * 8 + id`` (< 35 * 8)
QUEUE_KEY_BASE = 1 << 20

_FREE, _ALLOC, _QUEUED, _TAKEN = 0, 1, 2, 3


def queue_key(qid: int, slot: int, free: bool) -> int:
    return QUEUE_KEY_BASE + qid * 32 + slot * 2 + (1 if free else 0)


def describe_key(key: int) -> tuple[int, int, str]:
    """(queue id, slot, 'ready' | 'free') of a synthetic queue key."""
    k = key - QUEUE_KEY_BASE
    return k // 32, (k % 32) // 2, "free" if k & 1 else "ready"


class TPipeState:
    """``TPipe``: hands out UB from address 0, each buffer 32 B aligned; per HardEvent (by index) the bit
    mask of the event ids ``AllocEventID`` holds."""

    __slots__ = ("next", "events")

    def __init__(self) -> None:
        self.next = 0
        self.events: dict[int, int] = {}

    def reset(self) -> None:
        """``Reset``: nothing handed out."""
        self.next = 0
        self.events.clear()

    def alloc_event(self, event: int) -> int:
        """``AllocEventID``: the lowest id of ``event`` not held (the pool's size when all are held, as
        the hardware's find-first-zero gives)."""
        used = self.events.get(event, 0)
        eid = 0
        while used >> eid & 1:
            eid += 1
        self.events[event] = used | 1 << eid
        return eid

    def release_event(self, event: int, eid: int) -> bool:
        """``ReleaseEventID``: False when ``eid`` was not held."""
        used = self.events.get(event, 0)
        if eid < 0 or not used >> eid & 1:
            return False
        self.events[event] = used & ~(1 << eid)
        return True


class TBufState:
    """``TBuf``: one buffer; ``Get`` returns all of it."""

    __slots__ = ("base", "length", "num")

    def __init__(self) -> None:
        self.base = -1
        self.length = 0
        self.num = 0


class TQueState:
    """``TQue``: ``num`` buffers taken round robin, a FIFO of at most ``depth`` enqueued buffers (the
    template argument: EnQue calls in a row without a DeQue), one key per call."""

    __slots__ = ("qid", "depth", "base", "length", "num", "allocs", "fifo", "state", "k", "fail", "kb",
                 "pipe", "events", "rule", "ids")

    def __init__(self, qid: int, fail, depth: int = 0, events: tuple = (), rule=None) -> None:
        self.qid = qid
        self.depth = depth
        self.base = -1
        self.length = 0
        self.num = 0
        self.allocs = 0
        self.fifo: deque[int] = deque()
        self.state: list[int] = []
        self.k = -1
        self.fail = fail
        self.kb = queue_key(qid, 0, False)
        self.pipe: TPipeState | None = None
        self.events = events  # (forward event index, backward event index, its name pair, pool size)
        self.rule = rule
        self.ids: list[list[int]] = []  # per slot: [forward id held, backward id held] (-1: none)

    def _take(self, slot: int, which: int, sid: int, bid: int) -> None:
        """Take an id of the forward (0) or backward (1) event from the pipe's pool for ``slot``."""
        if not self.events or self.pipe is None:
            return
        eid = self.pipe.alloc_event(self.events[which])
        self.ids[slot][which] = eid
        if eid >= self.events[3] and self.rule is not None:
            self.pipe.release_event(self.events[which], eid)
            self.ids[slot][which] = -1
            api = ("EnQue", "FreeTensor")[which]
            self.rule("tpipe-event-pool-8", sid, bid, f"{api} needs an event id of {self.events[2][which]} with all "
                                                       f"{self.events[3]} taken")

    def _give(self, slot: int, which: int) -> None:
        eid = self.ids[slot][which] if self.ids else -1
        if eid >= 0:
            self.pipe.release_event(self.events[which], eid)
            self.ids[slot][which] = -1

    def _slot(self, addr: int, sid: int, bid: int) -> int:
        rel = addr - self.base
        slot = rel // self.length if self.length else -1
        if self.base < 0 or rel % max(self.length, 1) or not 0 <= slot < self.num:
            self.fail(sid, bid, f"tensor at UB address {addr} is not a buffer of this queue")
        return slot

    def alloc(self, sid: int, bid: int) -> int:
        if self.base < 0:
            self.fail(sid, bid, "AllocTensor on a queue that was never given memory by InitBuffer")
        i = self.allocs
        slot = i % self.num
        if self.state[slot] != _FREE:
            self.fail(sid, bid, f"deadlock: AllocTensor needs buffer {slot}, which was never freed "
                                f"(more than {self.num} tensors of this queue alive at once)")
        self.state[slot] = _ALLOC
        self._give(slot, 1)
        self.allocs = i + 1
        self.k = self.kb + slot * 2 + 1 if i >= self.num else -1
        return self.base + slot * self.length

    def enque(self, addr: int, sid: int, bid: int) -> None:
        slot = self._slot(addr, sid, bid)
        if self.state[slot] != _ALLOC:
            self.fail(sid, bid, f"EnQue of buffer {slot}, which is not allocated (or already enqueued)")
        if self.depth and len(self.fifo) >= self.depth:
            self.fail(sid, bid, f"EnQue on a TQue of depth {self.depth} that already holds {len(self.fifo)} "
                                f"tensor(s): DeQue first, or declare the queue deeper")
        self.state[slot] = _QUEUED
        self._take(slot, 0, sid, bid)
        self.fifo.append(slot)
        self.k = self.kb + slot * 2

    def deque(self, sid: int, bid: int) -> int:
        if not self.fifo:
            self.fail(sid, bid, "deadlock: DeQue on an empty queue waits forever")
        slot = self.fifo.popleft()
        self.state[slot] = _TAKEN
        self._give(slot, 0)
        self.k = self.kb + slot * 2
        return self.base + slot * self.length

    def free(self, addr: int, sid: int, bid: int) -> None:
        slot = self._slot(addr, sid, bid)
        st = self.state[slot]
        if st == _FREE or st == _QUEUED:
            what = "already free" if st == _FREE else "still enqueued (DeQue it first)"
            self.fail(sid, bid, f"FreeTensor of buffer {slot}, which is {what}")
        self.state[slot] = _FREE
        self._take(slot, 1, sid, bid)
        self.k = self.kb + slot * 2 + 1


class TQueData:
    """A ``TQue`` on the data path of a replayed launch (``replay``): buffer addresses only; the traced run of
    the launch checked the same calls and modelled their flags."""

    __slots__ = ("base", "length", "num", "allocs", "fifo")

    def __init__(self, *_args) -> None:
        self.base = -1
        self.length = 0
        self.num = 0
        self.allocs = 0
        self.fifo: deque[int] = deque()

    def alloc(self, _sid: int, _bid: int) -> int:
        i = self.allocs
        self.allocs = i + 1
        return self.base + i % self.num * self.length

    def enque(self, addr: int, _sid: int, _bid: int) -> None:
        self.fifo.append(addr)

    def deque(self, _sid: int, _bid: int) -> int:
        return self.fifo.popleft()

    def free(self, _addr: int, _sid: int, _bid: int) -> None:
        pass


def init_buffer(pipe: TPipeState, buf, num: int, length: int, ub_bytes: int) -> int:
    """``pipe.InitBuffer(buf, num, length)``: carve ``num * length`` bytes; returns the new end."""
    base = (pipe.next + 31) & ~31
    buf.base = base
    buf.length = length
    buf.num = num
    if isinstance(buf, TQueState):
        buf.state = [_FREE] * num
        buf.allocs = 0
        buf.fifo.clear()
        buf.pipe = pipe
        buf.ids = [[-1, -1] for _ in range(num)]
    elif isinstance(buf, TQueData):
        buf.allocs = 0
        buf.fifo.clear()
    pipe.next = base + num * length
    return pipe.next
