"""The tracer: run-time control flow as scf, compile-time unrolling and specialisation, inlining,
source locations and the errors of the DSL."""

import numpy as np
import pytest

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt

SCALE = 3  # a module global: a constant of the kernels that read it


@asc.jit
def fill_kernel(z: asc.GlobalAddress, n: int, mode: asc.ConstExpr[int]):
    """Fills 64 floats per block with a value computed by scalar code on run-time values."""
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z + asc.get_block_idx() * 64)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
    acc = 0
    if mode == 0:
        for i in range(n):  # run-time bound: scf.for carrying acc
            acc = acc + i * SCALE
    elif mode == 1:
        acc = 5
        if asc.get_block_idx() < 1 or n > 100:  # run-time condition: scf.if yielding acc
            acc = acc + n
        else:
            acc = acc * 2
    elif mode == 2:
        for i in range(4):  # compile-time bound: unrolled
            acc = acc + i
        first, second = helper(n)
        acc = acc + first * second
    else:
        for i in asc.range(3):  # always an scf.for
            acc = acc + 1
        acc = acc + 1 if n > 2 else acc  # run-time conditional expression: arith.select
    asc.duplicate(buf, acc, 64)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, buf, 64)


@asc.jit
def helper(n: int):
    return n + 1, 2


def _run(mode, n, blocks=2):
    z = np.zeros(64 * blocks, np.float32)
    fill_kernel[blocks, rt.current_stream()](z, n, mode)
    return z.reshape(blocks, 64)[:, 0], fill_kernel.last_compiled


def test_runtime_for_carries_scalars():
    vals, c = _run(0, 5)
    assert list(vals) == [30.0, 30.0]
    assert "scf.for" in str(c.module) and "scf.yield" in str(c.module)


def test_runtime_if_yields_scalars():
    vals, c = _run(1, 7)
    assert list(vals) == [12.0, 10.0]
    assert "scf.if" in str(c.module)


def test_compile_time_loop_unrolls_and_helpers_inline():
    vals, c = _run(2, 4)
    assert list(vals) == [6 + 5 * 2] * 2
    text = str(c.module)
    assert "scf.for" not in text and "func.call" not in text


def test_asc_range_and_select():
    vals, c = _run(3, 4)
    assert list(vals) == [4.0, 4.0]
    assert "scf.for" in str(c.module) and "arith.select" in str(c.module)


def test_constexpr_specialises_and_caches():
    _, c0 = _run(0, 3)
    _, c0b = _run(0, 9)
    _, c1 = _run(1, 3)
    assert c0 is c0b  # n is a run-time argument: one kernel
    assert c0 is not c1


def test_locations_name_the_kernel_lines():
    _, c = _run(1, 3)
    locs = {op.attributes["asc.loc"].data for op in c.module.walk() if "asc.loc" in op.attributes}
    assert any(loc.startswith("test_kernel_dsl.py:") for loc in locs)


@asc.jit
def sized_kernel(z: asc.GlobalAddress, n: int):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, n)  # the size is a launch value
    asc.duplicate(buf, 1.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, buf, n)


def test_static_values_from_arguments_are_pinned():
    z = np.zeros(128, np.float32)
    sized_kernel[1, rt.current_stream()](z, 64)
    first = sized_kernel.last_compiled
    assert first.pinned and z[:64].all() and not z[64:].any()
    sized_kernel[1, rt.current_stream()](z, 128)
    assert sized_kernel.last_compiled is not first and z.all()


@asc.jit
def bad_address_kernel(z: asc.GlobalAddress):
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, asc.get_block_idx() * 256, 64)
    asc.duplicate(buf, 1.0, 64)


@asc.jit
def add_relu_kernel(z: asc.GlobalAddress):
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
    asc.add_relu(buf, buf, buf, count=64)


def test_errors_name_the_api_and_line():
    z = np.zeros(64, np.float32)
    with pytest.raises(asc.Unsupported, match=r"asc\.add_relu: not supported yet \(no ascendc op.*test_kernel_dsl\.py:"):
        add_relu_kernel[1](z)
    with pytest.raises(asc.KernelError, match=r"asc\.LocalTensor: the address must be known.*test_kernel_dsl\.py:"):
        bad_address_kernel[1](z)
    with pytest.raises(asc.KernelError, match="inside an @asc.jit kernel"):
        asc.get_block_idx()
    with pytest.raises(RuntimeError, match="unknown"):
        asc.jit(lambda x: x, no_such_option=True)
    with pytest.raises(ValueError):
        fill_kernel[0]
    assert helper(1) == (2, 2)  # outside a kernel, a jit function is a plain Python call


def test_unsupported_mask_form_is_named():
    @asc.jit
    def masked(z: asc.GlobalAddress):
        buf = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
        asc.add(buf, buf, buf, mask=64, repeat_times=1, repeat_params=asc.BinaryRepeatParams())

    with pytest.raises(asc.Unsupported, match=r"asc\.add \(mask/repeat form\)"):
        masked[1](np.zeros(64, np.float32))
