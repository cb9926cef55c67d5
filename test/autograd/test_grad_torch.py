"""Gradients of every differentiable op against ``torch.autograd`` (float64 reference on the same
inputs rounded to the dtype): ``pyasc.vjp`` inside ``pyasc.jit``, so forward and backward compile as
one program per case.

The default run checks a sample (``DEFAULT``: one case per family of rules in float32, a few in
float16 and bfloat16) so that it stays short; ``--grad-long`` checks every case in every dtype."""

from __future__ import annotations

import os
import tempfile
import zlib

import numpy as np
import pytest
import torch

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-grad-cache-"))

import pyasc  # noqa: E402

from .cases import CASES, TORCH  # noqa: E402

DTYPES = {"float32": pyasc.float32, "float16": pyasc.float16, "bfloat16": pyasc.bfloat16}
# gradients pass through the forward and the backward rounding: a few times the dtype's tolerance
SLACK = {"float32": 8.0, "float16": 4.0, "bfloat16": 2.0}


# the cases of the default run: by id, with their dtypes
DEFAULT = {
    "mul-broadcast-3_1_8x4_1": ("float32",), "div-same-4_8x4_8": ("float32",), "pow-scalar-4_8": ("float32",),
    "gelu-same-4_8": ("float32", "float16"), "where-broadcast-4_8x4_8x8": ("float32",),
    "sum-reduce-3_4_8": ("float32",), "amax-reduce-4_8": ("float32",), "softmax-rowwise-4_8": ("float32", "bfloat16"),
    "layer_norm-rowwise-4_16x16x16": ("float32", "float16"), "matmul-batched-2_4_8x8_16": ("float32",),
    "linear-batched-2_4_8x16_8x16": ("float32", "bfloat16"), "split-view-4_16": ("float32",),
    "conv2d-conv-2_3_6_6x4_3_3_3x4": ("float32", "float16"), "getitem-view-4_6_5": ("float32",),
    "conv2d-strided_grouped-1_2_9_9x4_1_3_3": ("float32", "bfloat16"),
    "topk-select-4_12": ("float32",), "cumsum-scan-4_12": ("float32",),
}


def _params():
    return [pytest.param(c, dname, DEFAULT.get(c.id, ()).count(dname) == 0, id=f"{c.id}-{dname}")
            for dname in DTYPES for c in CASES]


def gradient_mismatches(case, dname: str) -> list[str]:
    """Run one case in pyasc and torch; the description of every input whose gradient disagrees."""
    dtype = DTYPES[dname]
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    arrays = case.arrays(rng)
    ins = [pyasc.tensor(a) if a.dtype == bool else pyasc.tensor(a.astype(np.float32), dtype=dtype) for a in arrays]
    wide = [torch.tensor(np.asarray(t.numpy(), dtype=bool if t.dtype is pyasc.bool_ else np.float64))
            for t in ins]
    diff = [i for i, t in enumerate(ins) if t.dtype.is_floating_point]
    for i in diff:
        wide[i].requires_grad_()
    out = case.fn(TORCH, *wide)
    ct = pyasc.tensor(rng.normal(0.0, 1.0, tuple(out.shape)).astype(np.float32), dtype=dtype)
    out.backward(torch.tensor(np.asarray(ct.numpy(), np.float64)))

    def pullback(*args):
        *xs, c = args
        fixed = {i: x for i, x in enumerate(xs) if i not in diff}

        def f(*primals):
            it = iter(primals)
            return case.fn(pyasc, *(fixed[i] if i in fixed else next(it) for i in range(len(xs))))

        _, back = pyasc.vjp(f, *(xs[i] for i in diff))
        return back(c)

    grads = pyasc.jit(pullback)(*ins, ct)
    rtol, atol = pyasc.tolerance(dtype)
    slack = SLACK[dname]
    bad = []
    for i, g in zip(diff, grads):
        ref = wide[i].grad.numpy()
        got = np.asarray(g.numpy(), dtype=np.float64)
        assert g.dtype is dtype and got.shape == ref.shape, f"input {i}: {g.dtype.name}{list(got.shape)}"
        scale = max(1.0, float(np.abs(ref).max()))
        err = np.abs(got - ref)
        if not (err <= slack * (atol * scale + rtol * np.abs(ref))).all():
            bad.append(f"input {i}: max error {err.max():.3g} (max |grad| {np.abs(ref).max():.3g})")
    return bad


@pytest.mark.parametrize("case,dname,long_only", _params())
def test_gradient_matches_torch(case, dname, long_only, request):
    if long_only and not request.config.getoption("--grad-long"):
        pytest.skip("not in the default sample: --grad-long")
    bad = gradient_mismatches(case, dname)
    assert not bad, f"{case.id} {dname}: " + "; ".join(bad)


def test_every_op_with_a_rule_has_cases_and_the_rest_are_named():
    from pyasc.ops import OPS

    with_rule = {n for n, op in OPS.items()
                 if op.vjp is not None and not getattr(op.vjp, "through_composition", False)}
    assert with_rule <= {c.op for c in CASES}, sorted(with_rule - {c.op for c in CASES})
    without = {n for n, op in OPS.items() if op.vjp is None and op.build is not None and op.kind != "compare"}
    # integer results
    assert without == {"argmax", "argmin", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"}
