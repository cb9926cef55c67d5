"""A matmul's bias through the cube's BiasTable: ``linear``, ``a @ b + c`` and ``relu(a @ b + c)`` in float16 and
float32 stay one cube kernel (L1 -> BT ``DataCopy``, ``Mmad`` with a bias), checked against PyTorch in float64; the
emitted kernel against the Ascend C signatures; the hazard checker and the contract on BT."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
import torch

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc  # noqa: E402
from pyasc.runtime import Simulator  # noqa: E402

from .gxx import assert_compiles  # noqa: E402

RNG = np.random.default_rng(11)
EPS = {np.float16: 2 ** -10, np.float32: 2 ** -23}

PROGRAMS = {
    "linear": (lambda x, w, b: pyasc.linear(x, w, b), lambda x, w, b: torch.nn.functional.linear(x, w, b), True),
    "add": (lambda x, w, b: x @ w + b, lambda x, w, b: x @ w + b, False),
    "relu": (lambda x, w, b: pyasc.relu(x @ w + b), lambda x, w, b: torch.relu(x @ w + b), False),
}
SHAPES = [((64, 96), 80), ((130, 70), 45), ((2, 33, 64), 100), ((17, 300), 257), ((5, 40), 24), ((256, 512), 512)]


def _inputs(x_shape, n, dtype, weight_nk):
    k = x_shape[-1]
    x = RNG.standard_normal(x_shape).astype(dtype)
    w = (RNG.standard_normal((n, k) if weight_nk else (k, n)) / np.sqrt(k)).astype(dtype)
    b = RNG.standard_normal(n).astype(dtype)
    return x, w, b


def _compile(fn, arrays, **options):
    return pyasc.jit(fn, options=options or None).lower(*(pyasc.tensor(a) for a in arrays)).compile()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, (*s[0], s[1]))))
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_bias_on_the_cube_matches_torch(program, shape, dtype):
    fn, ref_fn, weight_nk = PROGRAMS[program]
    x, w, b = _inputs(*shape, dtype, weight_nk)
    compiled = _compile(fn, [x, w, b])
    source = compiled.ascendc_source()
    assert "TPosition::C2" in source and "KERNEL_TYPE_MIX" not in source  # a pure cube kernel with a BT row
    out, report = compiled.simulate(*(pyasc.tensor(a) for a in (x, w, b)))
    assert report.findings == [] and len(report.launches) == 1
    ref = ref_fn(*(torch.from_numpy(a.astype(np.float64)) for a in (x, w, b))).numpy()
    k = x.shape[-1]
    tol = (EPS[dtype] + k * 2 ** -24) * (np.abs(ref).max() + 1)
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=0, atol=tol)


def test_bfloat16_bias_stays_a_vector_epilogue():
    """BiasTable takes float16, float32 and int32 from L1 on 910B, not bfloat16: that bias is added by the vector
    cores of a MIX kernel, still within bfloat16's tolerance of PyTorch."""
    x, w, b = (torch.from_numpy(a) for a in _inputs((40, 64), 48, np.float32, False))
    args = [pyasc.tensor(a.numpy()).to(pyasc.bfloat16) for a in (x, w, b)]
    compiled = pyasc.jit(lambda x, w, b: x @ w + b).lower(*args).compile()
    assert "TPosition::C2" not in compiled.ascendc_source()
    out, report = compiled.simulate(*args)
    assert report.findings == []
    xb, wb, bb = (a.to(torch.bfloat16).double() for a in (x, w, b))
    ref = (xb @ wb + bb).numpy()
    got = torch.from_numpy(np.asarray(out.astype(np.float32))).double().numpy()
    np.testing.assert_allclose(got, ref, rtol=0, atol=2 ** -7 * (np.abs(ref).max() + 1))


def test_emitted_bias_kernel_compiles():
    x, w, b = _inputs((40, 64), 48, np.float16, True)
    source = _compile(PROGRAMS["linear"][0], [x, w, b]).ascendc_source()
    for api in ("AscendC::TPosition::C1", "AscendC::TPosition::C2", "AscendC::DataCopyParams{1, ",
                "AscendC::Mmad(", "bias_bt, AscendC::MmadParams{"):
        assert api in source, api
    assert_compiles(source)


@pytest.mark.parametrize("event,ids,space", [("M_MTE1", (2,), "BT"), ("MTE2_MTE1", (4,), "L1"),
                                             ("MTE1_MTE2", (2,), "L1")])
def test_missing_bias_flag_is_a_race(event, ids, space):
    """Deleting the flags of the bias row (the block's first Mmad reads BT before the next block's bias is loaded
    over it; the L1 row is copied to BT before the next block's copy overwrites it) leaves a race on that memory.
    Dozens of blocks per AIC, each of one K step, so the unflagged accesses are next to each other."""
    x, w, b = _inputs((4096, 32), 512, np.float16, False)
    compiled = _compile(lambda x, w, b: x @ w + b, [x, w, b], sync_style="flags")
    module = compiled.module.clone()
    flags = [op for op in module.walk() if op.name in ("ascendc.set_flag", "ascendc.wait_flag")
             and op.event.data.value == event and getattr(op.event_id.owner, "value", None) is not None
             and op.event_id.owner.value.value.data in ids]
    assert flags
    for op in flags:
        op.detach()
        op.erase()
    report = Simulator(module, hazards="ignore").run(compiled.name, [x, w, b, np.zeros((4096, 512), np.float16)],
                                                    raise_errors=False)
    races = [f for f in report.findings if f.kind == "race"]
    assert any(f" on {space} [" in f.message for f in races), [f.message for f in report.findings]


def test_misaligned_bias_table_address_is_an_error():
    """BiasTable addresses are 64 B aligned (``DataCopy`` C1 -> C2, ``Mmad`` with a bias): a BT tensor moved to
    byte 32 fails the copy."""
    x, w, b = _inputs((40, 64), 48, np.float32, False)
    compiled = _compile(lambda x, w, b: x @ w + b, [x, w, b])
    module = compiled.module.clone()
    (bt,) = [op for op in module.walk() if op.name == "ascendc.local_tensor" and op.position.data.value == "C2"]
    bt.address = type(bt.address)(32, 64)
    report = Simulator(module).run(compiled.name, [x, w, b, np.zeros((40, 48), np.float32)], raise_errors=False)
    assert any("64 B aligned" in f.message for f in report.findings), [f.message for f in report.findings]


ROW_CASES = {
    # a row the cube cannot read from GM as it is stays a vector epilogue (a MIX kernel), still PyTorch's values
    "slice of a matrix": (lambda a, b, v, c: a @ b + v[1], lambda a, b, v, c: a @ b + v[1], False),
    "splat": (lambda a, b, v, c: a @ b + pyasc.ones(48, dtype=pyasc.float32) * 2.0,
              lambda a, b, v, c: a @ b + 2.0, False),
    "slice in a batched product": (lambda a, b, v, c: pyasc.reshape(a, (2, 20, 64)) @ b + v[2],
                                   lambda a, b, v, c: a.reshape(2, 20, 64) @ b + v[2], False),
    # an argument or a kernel's result: BiasTable, the rest of the epilogue on the vector cores
    "argument twice": (lambda a, b, v, c: (a @ b + c) + c, lambda a, b, v, c: a @ b + 2 * c, True),
    "computed row": (lambda a, b, v, c: a @ b + pyasc.exp(c), lambda a, b, v, c: a @ b + torch.exp(c), True),
    "row of shape [1, N]": (lambda a, b, v, c: a @ b + pyasc.reshape(c, (1, 48)),
                            lambda a, b, v, c: a @ b + c.reshape(1, 48), True),
    "product used twice": (lambda a, b, v, c: (lambda m: (m + c) * m)(a @ b),
                           lambda a, b, v, c: (lambda m: (m + c) * m)(a @ b), False),
}


@pytest.mark.parametrize("case", list(ROW_CASES))
def test_which_rows_go_through_bias_table(case):
    fn, ref_fn, on_cube = ROW_CASES[case]
    a, b = RNG.standard_normal((40, 64)).astype(np.float32), RNG.standard_normal((64, 48)).astype(np.float32)
    v, c = RNG.standard_normal((3, 48)).astype(np.float32), RNG.standard_normal(48).astype(np.float32)
    compiled = _compile(fn, [a, b, v, c])
    assert ("TPosition::C2" in compiled.ascendc_source()) == on_cube
    out, report = compiled.simulate(*(pyasc.tensor(x) for x in (a, b, v, c)))
    assert report.findings == []
    ref = ref_fn(*(torch.from_numpy(x.astype(np.float64)) for x in (a, b, v, c))).numpy()
    np.testing.assert_allclose(np.asarray(out, np.float64).reshape(ref.shape), ref, rtol=0,
                               atol=(EPS[np.float32] + 64 * 2 ** -24) * (np.abs(ref).max() + 1))
