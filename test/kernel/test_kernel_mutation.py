"""Mutation test of the official-style kernels: removing any one of their SetFlag/WaitFlag pairs (or of
their PipeBarriers on one pipe) is reported.

A kernel is traced once; its flags are grouped into pairs: a WaitFlag and the SetFlag(s) it consumes,
together with the copies of the same source lines (an unrolled loop) and, for flags that rotate over a
loop's iterations, the sets primed before the loop and the waits that drain it; a PipeBarrier on one pipe
is a group of its own (with its copies). Each group is removed from
a copy of the traced kernel, which is then checked twice: statically (``missing-sync``, the analysis
behind ``ascendc-insert-sync``) and dynamically (the simulator's hazard checker on the same inputs). A
pair whose removal neither reports is a miss; every pair must be caught.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from asc_cube_kernels import (
    make_tiling, matmul_cube_bias_kernel, matmul_cube_kernel, matmul_epilogue_kernel, matmul_mix_gm_kernel,
    mix_basic_kernel, mmad_kernel,
)
from asc_kernels import add_flags_kernel, add_relu_queue_kernel, select_cast_kernel, softmax_kernel
import pyasc.kernel.lib.host as host
from pyasc.kernel.jit import sync_findings
from pyasc.kernel.launch import host_arrays, simulate
from pyasc.lowering.analysis.kernel_sync import sync_groups
from pyasc.runtime.errors import SimulationError


def _f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _f16(*shape, seed=0):
    return np.random.default_rng(seed).integers(-4, 4, shape).astype(np.float16)


def _epilogue():
    tiling = make_tiling(256, 256, 128, 2, c_pos=host.TPosition.VECCALC, bias=True, fix=(128, 128, -1))
    return (_f16(256, 128), _f16(128, 256), np.zeros((256, 256), np.float32), _f32(1, 256), 0.125, 0.5, tiling,
            np.zeros(4 * 1024 * 1024, np.uint8))


CASES = {
    "add_flags": (add_flags_kernel, 2, lambda: (_f32(2048), _f32(2048), np.zeros(2048, np.float32), 1024, 256)),
    "add_relu_queue": (add_relu_queue_kernel, 2, lambda: (_f32(2048), _f32(2048), np.zeros(2048, np.float32), 1024,
                                                          256)),
    "softmax": (softmax_kernel, 2, lambda: (_f32(8, 128), np.zeros((8, 128), np.float32), 4, 128)),
    "select_cast": (select_cast_kernel, 1, lambda: (_f32(512), _f32(512, seed=1), np.zeros(512, np.float32),
                                                    np.zeros(512, np.float16), 512)),
    "mmad": (mmad_kernel, 2, lambda: (_f16(64, 64), _f16(64, 48), np.zeros((64, 48), np.float32), 32, 64, 48)),
    "mix_basic": (mix_basic_kernel, 2, lambda: (_f16(64, 64), _f16(64, 64), np.zeros((64, 64), np.float32),
                                                np.zeros((64, 64), np.float32), 32, 64, 64)),
    "matmul_cube_only": (matmul_cube_kernel, 4, lambda: (_f16(96, 80), _f16(80, 200), np.zeros((96, 200), np.float32),
                                                         make_tiling(96, 200, 80, 4), np.zeros(1024, np.uint8))),
    # the bias through BiasTable: its zeroing's MTE2 barrier is a synchronisation too
    "matmul_cube_bias": (matmul_cube_bias_kernel, 4, lambda: (
        _f16(96, 80), _f16(80, 200), np.zeros((96, 200), np.float32), np.ones((1, 200), np.float32),
        make_tiling(96, 200, 80, 4, bias=True), np.zeros(1024, np.uint8))),
    "matmul_epilogue": (matmul_epilogue_kernel, 1, _epilogue),
    "matmul_mix": (matmul_mix_gm_kernel, 2, lambda: (_f16(64, 96), _f16(96, 80), np.zeros((64, 80), np.float32),
                                                     make_tiling(64, 80, 96, 4), np.zeros(1024, np.uint8))),
}


def _without(compiled, pair_index: int):
    """A copy of ``compiled`` whose kernel lacks the flags of pair ``pair_index``."""
    module = compiled.module.clone()
    kernel = next(iter(module.ops))
    pair = sync_groups(kernel)[pair_index]
    for op in pair:
        op.detach()
        op.erase()
    return dataclasses.replace(compiled, module=module, simulator=None, extra={}), kernel, pair


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_flag_pair_removed_is_reported(name):
    jit_fn, cores, make_args = CASES[name]
    args = make_args()
    compiled = jit_fn.compile(cores, *args)
    _, specs, values = jit_fn._bind(args, {})
    pairs = sync_groups(next(iter(compiled.module.ops)))
    assert pairs, f"{name} has no synchronisation"
    baseline = simulate(compiled, host_arrays(compiled, specs, values)[0], "ignore")
    assert baseline.findings == [], str(baseline)
    missed, static, dynamic = [], 0, 0
    for i in range(len(pairs)):
        mutant, kernel, pair = _without(compiled, i)
        found_static = any(f.kind == "missing-sync" for f in sync_findings(kernel))
        try:
            _, specs, values = jit_fn._bind(make_args(), {})
            found_dynamic = bool(simulate(mutant, host_arrays(mutant, specs, values)[0], "ignore").errors)
        except SimulationError:
            found_dynamic = True  # a deadlock or another fatal error of the run
        static += found_static
        dynamic += found_dynamic
        if not (found_static or found_dynamic):
            missed.append(sorted({f"{op.name}@{op.attributes['asc.loc'].data}" for op in pair}))
    print(f"{name}: {len(pairs)} groups, caught statically {static}, by the simulator {dynamic}, missed {len(missed)}")
    assert not missed, f"{name}: removing these pairs went unnoticed: {missed}"
