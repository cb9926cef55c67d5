"""The state one simulator run writes (``Machine``): UB, the run's findings, the kernels translated onto
them, the host's intermediate buffers, and the memories and code of groups of cores (``batched``)."""

from __future__ import annotations

import numpy as np

from pyasc.dialects.ascendc import KERNEL_ATTR

from . import batched
from .codegen import CompiledKernel
from .errors import FindingLog
from .kernel_ops_cube import CubeMemories, group_globals as cube_group_globals
from .memory import NUMPY_DTYPES
from .translate import translate_kernel

_CORE_FUNCTIONS = frozenset({"_kernel", "_kernel_data", "_kernel_record"})
ALLOC_BYTES = 1 << 30  # host intermediate buffers a machine keeps from one run to the next, at most


_BYTES = np.dtype(np.uint8)
SMALL_FLATS = 16  # arrays of at most ``SMALL_FLAT_BYTES`` whose flat bytes a machine keeps (``Machine.flat``)
SMALL_FLAT_BYTES = 4096


def flat(value):
    """A launch argument as a kernel takes it: an array as its bytes, flat (a scalar as it is)."""
    if type(value) is not np.ndarray:
        return value
    return (value if value.ndim == 1 else value.reshape(-1)).view(_BYTES)


class RunContext:
    """Mutable state the generated code reports into (the current run's findings)."""

    def __init__(self) -> None:
        self.log = FindingLog()


class Machine:
    """The state one run writes: UB, the run's findings and the kernels translated onto them (each
    kernel's generated code holds its own local memories, L1/L0, and plans); one run at a time."""

    def __init__(self, sim) -> None:
        self.spec = sim.spec
        self.ub = np.zeros(sim.spec.ub_bytes, np.uint8)
        self.ctx = RunContext()
        self.check = sim.race_check
        env = sim._base_env(self.ub)
        self.kernels: dict[str, CompiledKernel] = {
            name: translate_kernel(op, sim.spec, env, self.ctx)
            for name, op in sim.funcs.items() if KERNEL_ATTR in op.attributes}
        self.ub2: np.ndarray | None = None  # one UB row per core of a group (``batched.group_ub``)
        self.group_fns: dict[tuple, dict] = {}  # (kernel, group size) -> the globals of its group code
        self.cube_rows: dict | None = None  # the cube's memories, one row per core of a group
        self.cube_groups: dict[int, CubeMemories] = {}  # group size -> the first rows of ``cube_rows``
        self.allocs: dict = {}  # the host's intermediate buffers by memref.alloc value, kept for the next run
        self.alloc_flats: dict = {}  # the same buffers as flat bytes, the form a kernel takes them in (``flat``)
        self.alloc_bytes = 0
        self.small_flats: dict[int, tuple] = {}  # id of a small array -> (the array, its flat bytes)
        self.warm_runs: dict[int, list] = {}  # ``WarmHost.serial`` -> [what a run adds to the stats, runs here]

    def flat(self, value):
        """``flat(value)``; for a small array (a small call's input, passed again call after call), the one
        made last time. The array is held with it, so its id names it; a few small arrays at most, each
        viewing small memory (a slice of a large array would keep that alive)."""
        held = self.small_flats.get(id(value))
        if held is not None and held[0] is value:
            return held[1]
        f = flat(value)
        if (type(value) is np.ndarray and value.nbytes <= SMALL_FLAT_BYTES
                and (value.base is None or getattr(value.base, "nbytes", SMALL_FLAT_BYTES + 1) <= SMALL_FLAT_BYTES)):
            if len(self.small_flats) >= SMALL_FLATS:
                self.small_flats.clear()
            self.small_flats[id(value)] = (value, f)
        return f

    def alloc(self, value, shape: tuple, dtype: np.dtype) -> np.ndarray:
        """A zeroed host buffer for ``memref.alloc`` ``value``: the one of the previous run, zeroed again (a
        fresh large array costs a page fault per page on first write), while they hold at most
        ``ALLOC_BYTES``."""
        a = self.allocs.get(value)
        if a is not None:
            a.fill(0)
            return a
        a = np.zeros(shape, dtype)
        if self.alloc_bytes + a.nbytes <= ALLOC_BYTES:
            self.allocs[value] = a
            self.alloc_bytes += a.nbytes
        return a

    def alloc_flat(self, value, shape: tuple, dtype: np.dtype) -> tuple:
        """``alloc``'s buffer and its bytes as a kernel argument (``flat``), the latter kept with the buffer."""
        a = self.alloc(value, shape, dtype)
        held = self.alloc_flats.get(value)
        if held is None or held[0] is not a:
            held = (a, flat(a))
            if self.allocs.get(value) is a:
                self.alloc_flats[value] = held
        return held

    def group_fn(self, name: str, k: int, data: bool = False):
        """The kernel's code (its data path alone: ``data``) run by a group of ``k`` cores (``batched``) on the
        group UB of this thread and, for a cube kernel, on cube memories of ``k`` rows."""
        env = self.group_env(name, k)
        fn = "_kernel_data" if data else "_kernel"
        if fn not in env:
            ck = self.kernels[name]
            exec(ck.data_code if data else ck.code, env)
        return env[fn]

    def group_env(self, name: str, k: int) -> dict:
        """The globals of the kernel's code run by a group of ``k`` cores (the same dictionary while the memories it
        is built on stay)."""
        ub2 = batched.group_ub(self.spec.ub_bytes, k)
        if ub2 is not self.ub2:  # another array (a larger one, another thread's): the functions built on the old one go
            self.ub2 = ub2
            self.group_fns.clear()
        ck = self.kernels[name]
        cube = "_CUBE" in ck.env
        if cube and (self.cube_rows is None or self.cube_rows["L1"].shape[0] < k):  # larger rows: every group anew
            self.cube_rows = CubeMemories(self.spec, k).mem
            self.cube_groups.clear()
            self.group_fns.clear()
        env = self.group_fns.get((name, k))
        if env is None:
            env = batched.make_group_env(ck.env, ub2[:k], k, NUMPY_DTYPES)
            for key in [key for key in env if key in _CORE_FUNCTIONS or key.startswith("_tape_")]:
                del env[key]  # one core's functions, on its globals: the group defines its own
            if cube:
                mems = self.cube_groups.get(k)
                if mems is None:
                    mems = self.cube_groups[k] = CubeMemories(self.spec, k, self.cube_rows)
                env.update(cube_group_globals(ck.env, mems))
            self.group_fns[(name, k)] = env
        return env

    def garbage(self, name: str, on: bool) -> None:
        """Whether the cube memories a kernel's cores run on start as garbage (``CubeMemories.poison``)."""
        mems = self.kernels[name].env.get("_CUBE")
        if mems is not None:
            mems.garbage = on
            for group in self.cube_groups.values():
                group.garbage = on
