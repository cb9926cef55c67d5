"""Each ``ascendc`` op class is the one definition of the op: the simulator, the cost model, the batching
check and the emitter all read it (``AscendCOperation`` in ``dialects/ascendc/base.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pyasc.dialects import ascendc as A
from pyasc.dialects.target import Pipe, VectorCost
from pyasc.dialects.traits import BufferEffects, OnPipe
from pyasc.runtime.translate import ascendc_handler

OPS = list(A.AscendC.operations)
HEADER = (Path(A.__file__).resolve().parents[2] / "lowering" / "emit" / "include" / "kernel_operator.h")
VECTOR_FAMILIES = (A.VectorBinaryOp, A.VectorUnaryOp, A.VectorScalarOp)


def test_every_op_is_an_ascendc_operation():
    assert len(OPS) >= 59
    assert all(issubclass(op, A.AscendCOperation) for op in OPS)


@pytest.mark.parametrize("op", [o for o in OPS if o is not A.LaunchOp], ids=lambda o: o.name)
def test_every_kernel_op_is_simulated_and_printed(op):
    assert ascendc_handler(op) is not None, f"{op.name}: no code generator in runtime.translate"
    assert op.CALL or op.print_ascendc is not A.AscendCOperation.print_ascendc, f"{op.name}: no Ascend C form"


@pytest.mark.parametrize("op", [o for o in OPS if o.API], ids=lambda o: o.name)
def test_every_api_is_declared_in_the_header(op):
    assert re.search(rf"\b{op.API}\b", HEADER.read_text()), f"{op.API} is not declared in kernel_operator.h"


def test_effects_are_traits():
    for op in OPS:
        operands = {n for n, _ in op.get_irdl_definition().operands}
        for t in op.traits:
            if isinstance(t, BufferEffects):
                assert set(t.reads + t.writes) <= operands, op.name
    vector = [o for o in OPS if issubclass(o, A.VectorOp)]
    assert vector and all(o.get_trait(OnPipe).pipe == Pipe.V for o in vector)
    assert A.MmadOp.get_trait(OnPipe).pipe == Pipe.M and A.FixpipeOp.get_trait(OnPipe).pipe == Pipe.FIX


def test_cost_classes():
    slow = {o for o in OPS if getattr(o, "COST", None) == VectorCost.TRANSCENDENTAL}
    assert {A.ExpOp, A.LnOp, A.SqrtOp, A.DivOp} <= slow
    assert not slow & {A.AddOp, A.MulOp, A.AbsOp, A.ReluOp, A.RsqrtOp, A.ReciprocalOp, A.AddsOp, A.CastOp}


def test_batchable_ops():
    grouped = {o for o in OPS if o.BATCHABLE}
    assert A.LaunchOp not in grouped
    # a MIX kernel's group runs one core type with one sub-block index; the cross-core flags only record
    assert {A.CoreSectionOp, A.GetSubBlockIdxOp, A.CrossCoreSetFlagOp, A.CrossCoreWaitFlagOp} <= grouped
    cube = {A.DataCopyNd2NzOp, A.InitConstValueOp, A.LoadDataOp, A.LoadDataWithTransposeOp, A.MmadOp, A.FixpipeOp}
    assert cube <= grouped
    assert all(o.BATCHABLE for o in OPS if issubclass(o, A.VectorOp))
    # the HBM bytes of an Nd2Nz depend on the L2 lines the cores before read: traced core by core
    assert {o for o in OPS if o.ORDERED_TRACE} == {A.DataCopyNd2NzOp}


REFERENCE = {
    A.AddOp: np.add, A.SubOp: np.subtract, A.MulOp: np.multiply, A.DivOp: np.divide, A.MaxOp: np.maximum,
    A.MinOp: np.minimum, A.ExpOp: np.exp, A.LnOp: np.log, A.AbsOp: np.abs, A.SqrtOp: np.sqrt,
    A.RsqrtOp: lambda x: 1 / np.sqrt(x), A.ReciprocalOp: lambda x: 1 / x, A.ReluOp: lambda x: np.maximum(x, 0),
    A.AddsOp: np.add, A.MulsOp: np.multiply, A.MaxsOp: np.maximum, A.MinsOp: np.minimum,
}


@pytest.mark.parametrize("op", [o for o in OPS if issubclass(o, VECTOR_FAMILIES)], ids=lambda o: o.name)
def test_every_vector_op_has_numpy_semantics(op):
    family = next(f for f in VECTOR_FAMILIES if issubclass(op, f))
    assert op.numpy_operation is not family.numpy_operation, f"{op.name} has no numpy_operation"


@pytest.mark.parametrize("op", list(REFERENCE), ids=lambda o: o.name)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_numpy_semantics(op, dtype):
    """The hook computes into its ``dst`` view, one row per core for a group of cores (2-D)."""
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2, (3, 64)).astype(dtype)
    b = rng.uniform(0.5, 2, (3, 64)).astype(dtype)
    out = np.empty_like(a)
    if issubclass(op, A.VectorBinaryOp):
        op.numpy_operation(out, a, b)
        want = REFERENCE[op](a, b)
    elif issubclass(op, A.VectorUnaryOp):
        op.numpy_operation(out, a)
        want = REFERENCE[op](a)
    else:
        op.numpy_operation(out, a, dtype(1.5))
        want = REFERENCE[op](a, dtype(1.5))
    np.testing.assert_allclose(out, np.asarray(want, dtype), rtol=2e-3 if dtype == np.float16 else 1e-6)


def test_float16_muls_by_one_is_ieee_multiply_bit_for_bit():
    """float16 ``Muls(x, 1)`` (the copy between queues, simulated as a copy) against NumPy's multiply on random
    bit patterns: signaling NaNs come out quiet with their payload, infinities, zeros of both signs and
    subnormals unchanged."""
    dtype, bits = np.float16, np.uint16
    rng = np.random.default_rng(3)
    x = rng.integers(0, np.iinfo(bits).max, (4, 4096), dtype=np.uint64).astype(bits).view(dtype)
    x.view(bits)[0, :4] = [np.iinfo(bits).max >> 1, (np.iinfo(bits).max >> 1) - 1, 1, 0]  # NaNs, subnormal, 0
    want, got = np.empty_like(x), np.empty_like(x)
    with np.errstate(all="ignore"):
        np.multiply(x, dtype(1), out=want)
    A.MulsOp.numpy_operation(got, x, dtype(1))
    np.testing.assert_array_equal(got.view(bits), want.view(bits))
    with np.errstate(all="ignore"):  # any other factor multiplies (overflowing, and with NaNs)
        A.MulsOp.numpy_operation(got, x, dtype(2))
        np.testing.assert_array_equal(got.view(bits), np.multiply(x, dtype(2)).view(bits))
