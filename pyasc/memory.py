"""Device memory accounting: a caching allocator per simulated device, memory pools and custom
allocators.

Every tensor on a device counts as allocated HBM (rounded up to 512 B) from the moment it
exists (``zeros``, ``ones``, ``randn``, a launch's results, ...) until it is garbage-collected.
``memory_stats(device=0)`` gives ``allocated``, ``peak_allocated`` and ``reserved`` (2 MiB
segments the cache holds on to; ``memory_release()`` / ``empty_cache()`` return the free ones).
An allocation past the device's HBM capacity raises ``PyascError`` (device out of memory).

::

    pool = pyasc.MemoryPool(2 * 1024**3)      # 2 GiB reserved on the current device
    with pool.allocator():
        temp_buf = pyasc.empty((512, 512), dtype=np.float32)   # placed in the pool
    pool.used, pool.free                       # bytes; a request past ``free`` is a clear OOM

    with pyasc.memory_allocator(my_alloc):     # any object with malloc(nbytes) and free(handle)
        ...
"""

from __future__ import annotations

import threading
import weakref

from pyasc.dialects.target import PRESETS, get_target

from .device import Device, as_device, current_device
from .device import get_target as current_target
from .errors import PyascError, describe

BLOCK = 512
SEGMENT = 2 * 2**20
LEAST_HBM = min(spec.hbm_capacity_bytes for spec in PRESETS.values())  # below it no target's capacity is checked


def _round(nbytes: int) -> int:
    return max(BLOCK, -(-int(nbytes) // BLOCK) * BLOCK)


def fmt_bytes(n: int) -> str:
    for unit, f in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= f:
            return f"{n / f:.2f} {unit}"
    return f"{n} B"


class DeviceAllocator:
    """One device's caching allocator bookkeeping (pyasc has no real device memory to carve)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.allocated = 0
        self.peak = 0
        self.reserved = 0
        self.pool_reserved = 0      # bytes the live MemoryPools of this device hold
        self.pool_used = 0          # of which allocated
        self.num_allocs = 0
        self.num_frees = 0
        self.capacity: int | None = None  # None: the target's HBM capacity
        self._lock = threading.Lock()

    def limit(self) -> int:
        return self.capacity if self.capacity is not None else get_target(current_target()).hbm_capacity_bytes

    def alloc(self, size: int, what: str, in_pool: bool = False) -> None:
        with self._lock:
            allocated = self.allocated + size
            outside = allocated + (0 if in_pool else self.pool_reserved)
            cap = self.capacity
            if cap is None:  # the target's HBM, looked up only when some target's could be exceeded
                cap = LEAST_HBM if allocated + self.pool_reserved + SEGMENT <= LEAST_HBM else self.limit()
            if not in_pool and outside > cap:
                pools = f", {fmt_bytes(self.pool_reserved)} held by memory pools" if self.pool_reserved else ""
                raise PyascError("memory", f"device out of memory: tried to allocate {fmt_bytes(size)} for a "
                                 f"{what} on npu:{self.index}; {fmt_bytes(self.allocated)} already allocated{pools} "
                                 f"of {fmt_bytes(cap)} device capacity "
                                 f"({fmt_bytes(max(cap - outside + size, 0))} free)")
            self.allocated = allocated
            self.num_allocs += 1
            if allocated > self.peak:
                self.peak = allocated
            if in_pool:
                self.pool_used += size
            need = -(-(allocated - self.pool_used) // SEGMENT) * SEGMENT + self.pool_reserved  # ``_needed``
            if need > self.reserved:
                self.reserved = min(need, max(cap, allocated))

    def _needed(self) -> int:
        """Reserved bytes the live allocations and pools need: whole segments outside the pools."""
        return -(-(self.allocated - self.pool_used) // SEGMENT) * SEGMENT + self.pool_reserved

    def free(self, size: int, in_pool: bool = False) -> None:
        with self._lock:
            self.allocated -= size
            self.num_frees += 1
            if in_pool:
                self.pool_used -= size

    def release(self) -> int:
        """Return the free cached segments; the bytes released."""
        with self._lock:
            keep = self._needed()
            released = max(self.reserved - keep, 0)
            self.reserved = keep
        return released


_devices: dict[int, DeviceAllocator] = {}


def device_allocator(device=None) -> DeviceAllocator:
    if type(device) is Device:  # a tensor's device, checked when the tensor was made
        a = _devices.get(device.index)
        if a is not None:
            return a
    index = (current_device() if device is None else as_device(device, "memory_stats")).index
    a = _devices.get(index)
    if a is None:
        with _live_lock:
            a = _devices.setdefault(index, DeviceAllocator(index))
    return a


# ------------------------------------------------------------------------------------ pools and allocators


class MemoryPool:
    """``nbytes`` of device memory set aside for the allocations made inside ``with pool.allocator():``.

    ``used``, ``free``, ``peak`` and ``stats()`` report its use; a request larger than ``free``
    raises a PyascError naming the request and the free bytes."""

    def __init__(self, nbytes: int, device=None):
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
            raise PyascError("MemoryPool", f"size must be a positive number of bytes, got {describe(nbytes)}")
        self.device = current_device() if device is None else as_device(device, "MemoryPool")
        self.capacity = int(nbytes)
        self.used = 0
        self.peak = 0
        self.num_allocs = 0
        dev = device_allocator(self.device)
        with dev._lock:
            held = dev.allocated + dev.pool_reserved
            if held + self.capacity > dev.limit():
                raise PyascError("MemoryPool", f"cannot reserve {fmt_bytes(self.capacity)} on {self.device}: "
                                 f"{fmt_bytes(max(dev.limit() - held, 0))} free")
            dev.pool_reserved += self.capacity
            dev.reserved += self.capacity
        weakref.finalize(self, _unreserve, dev, self.capacity)

    @property
    def free(self) -> int:
        return self.capacity - self.used

    def malloc(self, nbytes: int, what: str = "tensor") -> int:
        size = _round(nbytes)
        if size > self.free:
            raise PyascError("MemoryPool", f"out of memory: tried to allocate {fmt_bytes(size)} for a {what} "
                             f"in a pool of {fmt_bytes(self.capacity)} with {fmt_bytes(self.free)} free "
                             f"({fmt_bytes(self.used)} in use)")
        self.used += size
        self.num_allocs += 1
        self.peak = max(self.peak, self.used)
        return size

    def free_block(self, size: int) -> None:
        self.used -= size

    def allocator(self):
        """``with pool.allocator():`` places the tensors created inside the block in the pool."""
        return memory_allocator(self)

    def stats(self) -> dict[str, int]:
        return {"capacity": self.capacity, "used": self.used, "free": self.free, "peak": self.peak,
                "num_allocs": self.num_allocs}

    def __repr__(self) -> str:
        return (f"<pyasc.MemoryPool {fmt_bytes(self.used)} used of {fmt_bytes(self.capacity)} on "
                f"{self.device}>")


def _unreserve(dev: DeviceAllocator, nbytes: int) -> None:
    with dev._lock:
        dev.pool_reserved -= nbytes
        dev.reserved = max(dev.reserved - nbytes, 0)


class _Current(threading.local):
    def __init__(self):
        self.stack: list = []


_current = _Current()


class memory_allocator:  # noqa: N801 - used like a function
    """Make ``allocator`` place the device allocations from now on (``with`` restores the previous
    one at exit). ``allocator`` is a MemoryPool or any object with ``malloc(nbytes) -> handle`` and
    ``free(handle)``; None restores the device's caching allocator."""

    def __init__(self, allocator):
        if allocator is not None and not isinstance(allocator, MemoryPool) and not (
                callable(getattr(allocator, "malloc", None)) and callable(getattr(allocator, "free", None))):
            raise PyascError("memory_allocator", f"an allocator needs malloc(nbytes) and free(handle) "
                             f"methods, got {describe(allocator)}")
        self.allocator = allocator
        _current.stack.append(allocator)
        self._depth = len(_current.stack)

    def __enter__(self):
        return self.allocator

    def __exit__(self, *exc) -> None:
        del _current.stack[self._depth - 1:]


def current_allocator():
    """The allocator new device tensors come from (None: the device's caching allocator)."""
    return _current.stack[-1] if _current.stack else None


# ------------------------------------------------------------------------------------ tracking tensors

_live: dict[int, tuple] = {}  # id of a counted object -> its entry and a weak reference to it
_live_lock = threading.RLock()


class HoldsMemory:
    """A base of classes whose objects keep the entry of their device memory in a ``_mem`` slot, ``(id of the
    object, device allocator, bytes, allocator, handle)``, and give it back in ``__del__`` (a tensor: cheaper
    than a weak reference and its callback). A copy of such an object (``copy.copy``, pickle) carries the
    entry with another id: it is not counted, and does not give back its original's memory."""

    __slots__ = ()

    def __del__(self) -> None:
        try:
            entry = self._mem
        except AttributeError:  # made without its constructors
            return
        if entry is not None and entry[0] == id(self):
            if entry[3] is None:  # the device's caching allocator: no allocator of the user's to tell
                entry[1].free(entry[2])
            else:
                _free(entry[1:])


def _counted(obj) -> bool:
    """Whether ``obj`` is counted already (its entry lives as long as ``obj``, which the caller holds)."""
    if isinstance(obj, HoldsMemory):
        entry = getattr(obj, "_mem", None)
        return entry is not None and entry[0] == id(obj)
    return id(obj) in _live


def track(obj, nbytes: int, device=None, what: str = "tensor") -> None:
    """Count ``obj`` as device memory until it is garbage-collected (once per object)."""
    if _counted(obj):
        return
    with _live_lock:
        _track(obj, nbytes, device, what)


def _track(obj, nbytes: int, device, what: str) -> None:
    key = id(obj)
    if _counted(obj):
        return
    dev = device_allocator(device)
    size = _round(nbytes)
    alloc = current_allocator()
    handle = None
    in_pool = False
    if alloc is not None:
        in_pool = isinstance(alloc, MemoryPool)
        if in_pool:
            if alloc.device.index != dev.index:
                raise PyascError("MemoryPool", f"the pool lives on {alloc.device}, the tensor on npu:{dev.index}")
            alloc.malloc(size, what)
        else:
            handle = alloc.malloc(size)
    try:
        dev.alloc(size, what, in_pool=in_pool)
    except PyascError:
        _give_back(alloc, size, handle)
        raise
    if isinstance(obj, HoldsMemory):
        obj._mem = (key, dev, size, alloc, handle)
        return
    try:  # kept with the entry; its callback releases the memory when ``obj`` is collected
        ref = weakref.KeyedRef(obj, _collected, key)
    except TypeError:  # not weak-referenceable: a transient allocation
        _live[key] = (dev, size, alloc, handle)
        _release(key)
        return
    _live[key] = (dev, size, alloc, handle, ref)


def _collected(ref) -> None:
    _release(ref.key)


def _give_back(alloc, size: int, handle) -> None:
    if isinstance(alloc, MemoryPool):
        alloc.free_block(size)
    elif alloc is not None:
        alloc.free(handle)


def _release(key: int) -> None:
    entry = _live.pop(key, None)  # one dict operation: atomic, and no other thread tracks this dead object's id
    if entry is not None:
        _free(entry)


def _free(entry: tuple) -> None:
    """Give back the memory of an entry ``(device allocator, bytes, allocator, handle, ...)``."""
    dev, size, alloc, handle = entry[:4]
    if alloc is None:
        dev.free(size)
    else:
        dev.free(size, isinstance(alloc, MemoryPool))
        _give_back(alloc, size, handle)


def track_result(t) -> None:
    """Count a launch's new result tensor as device memory: no other thread holds it yet, so without
    ``track_tensor``'s lock; on the device's caching allocator directly unless an allocator is in force."""
    if _current.stack:
        _track(t, t.numel() * t._dtype.itemsize, t._device, "tensor")
        return
    nbytes = t._dtype.itemsize
    for d in t._shape:
        nbytes *= d
    size = BLOCK if nbytes <= BLOCK else -(-nbytes // BLOCK) * BLOCK
    dev = _devices.get(t._device.index) or device_allocator(t._device)
    dev.alloc(size, "tensor")
    t._mem = (id(t), dev, size, None, None)


def track_tensor(t) -> None:
    """Count a concrete tensor as device memory (every created tensor and every launch result)."""
    entry = t._mem
    if t._trace is None and (entry is None or entry[0] != id(t)):
        with _live_lock:
            _track(t, t.numel() * t._dtype.itemsize, t._device, "tensor")


# ------------------------------------------------------------------------------------ the public calls


def check_fits(shapes, itemsizes, what: str = "the inputs", target: str | None = None) -> None:
    """Raise ``PyascError`` when tensors of ``shapes`` (elements of ``itemsizes`` bytes) cannot fit in
    the device memory of ``target`` (default: the current one), before anything is allocated."""
    spec = get_target(target or current_target())
    total = 0
    for shape, size in zip(shapes, itemsizes):
        n = 1
        for d in shape:
            n *= int(d)
        total += n * size
    alloc = device_allocator()
    cap = alloc.capacity if alloc.capacity is not None else spec.hbm_capacity_bytes
    if total > cap:
        raise PyascError("memory", f"{what} ({', '.join('x'.join(map(str, s)) for s in shapes)}) do not fit in "
                         f"device memory ({total / 2**30:.2f} GiB of {cap / 2**30:.2f} GiB on {spec.name})")


def check_tensor_fits(op: str, shape, itemsize: int, dtype: str = "", device=None, role: str = "") -> None:
    """Raise ``PyascError`` naming ``op`` and the shape when one tensor of ``shape`` (elements of
    ``itemsize`` bytes) is larger than the HBM of the target's chip (on ``device``, default: the current one);
    called before the tensor's data is allocated. ``role`` (such as "result 0") says which tensor of
    ``op`` it is."""
    n = itemsize
    for d in shape:
        n *= int(d)
    device_allocator(None if device is None else as_device(device, op))   # checks the device
    spec = get_target(current_target())
    cap = spec.hbm_capacity_bytes   # the chip's memory; a smaller set_memory_capacity is an allocation error
    if n > cap:
        what = (f"{role}, " if role else "") + (f"a {dtype} tensor" if dtype else "a tensor")
        raise PyascError(op, f"{what} of shape {tuple(int(d) for d in shape)} does not fit in device memory "
                         f"({n / 2**30:.2f} GiB of {cap / 2**30:.2f} GiB on {spec.name})",
                         dtypes=[dtype] if dtype else ())


def memory_stats(device=None) -> dict[str, int]:
    """Device memory counters in bytes of ``device`` (default: the current one): allocated,
    peak_allocated, reserved, capacity and the alloc/free counts."""
    a = device_allocator(device)
    return {"allocated": a.allocated, "peak_allocated": a.peak, "reserved": a.reserved,
            "num_allocs": a.num_allocs, "num_frees": a.num_frees, "capacity": a.limit()}


def memory_allocated(device=None) -> int:
    return device_allocator(device).allocated


def max_memory_allocated(device=None) -> int:
    return device_allocator(device).peak


def memory_reserved(device=None) -> int:
    return device_allocator(device).reserved


def reset_peak_memory_stats(device=None) -> None:
    """Restart ``device``'s peak counter from the memory allocated now."""
    a = device_allocator(device)
    with a._lock:
        a.peak = a.allocated


def memory_release(device=None) -> int:
    """Return the cached free segments of ``device`` (default: every device); the bytes released."""
    if device is None:
        return sum(a.release() for a in list(_devices.values()))
    return device_allocator(device).release()


def empty_cache() -> None:
    """PyTorch's name of ``memory_release``."""
    memory_release()


def set_memory_capacity(nbytes: int | None, device=None) -> None:
    """Pretend the device has ``nbytes`` of memory (None: the target's HBM capacity); for tests."""
    device_allocator(device).capacity = nbytes
