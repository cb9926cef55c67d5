"""Run-time state of ``TPipe``, ``TQue`` and ``TBuf`` on one core.

A queue's synchronisation is modelled as flags on synthetic event keys, one pair per buffer slot:
``EnQue`` sets the slot's *ready* key on the producer pipe, ``DeQue`` waits for it on the consumer pipe,
``FreeTensor`` sets the slot's *free* key on the consumer pipe and ``AllocTensor`` waits for it on the
producer pipe (the first ``num`` allocations find every buffer free and do not wait). After each call
``k`` holds the key the call sets or waits on (-1: no wait).
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

    __slots__ = ("qid", "depth", "base", "length", "num", "allocs", "fifo", "state", "k", "fail", "kb")

    def __init__(self, qid: int, fail, depth: int = 0) -> None:
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
        self.fifo.append(slot)
        self.k = self.kb + slot * 2

    def deque(self, sid: int, bid: int) -> int:
        if not self.fifo:
            self.fail(sid, bid, "deadlock: DeQue on an empty queue waits forever")
        slot = self.fifo.popleft()
        self.state[slot] = _TAKEN
        self.k = self.kb + slot * 2
        return self.base + slot * self.length

    def free(self, addr: int, sid: int, bid: int) -> None:
        slot = self._slot(addr, sid, bid)
        st = self.state[slot]
        if st == _FREE or st == _QUEUED:
            what = "already free" if st == _FREE else "still enqueued (DeQue it first)"
            self.fail(sid, bid, f"FreeTensor of buffer {slot}, which is {what}")
        self.state[slot] = _FREE
        self.k = self.kb + slot * 2 + 1


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
    pipe.next = base + num * length
    return pipe.next
