"""``where`` with a constant other value whose bits ``Select`` moves as a float or half NaN or infinity: bfloat16
infinities and values past half's range (as half bits: NaNs and infinities) and int32 values whose bits are float
NaNs (-1). Such a scalar would reach the kernel as a canonical NaN, so it is duplicated into a buffer and selected
from there. Against PyTorch, and the emitted Ascend C carries no NaN literal."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import pyasc

BF16 = [-math.inf, math.inf, -3e38, 2.0 ** 121, 1.5]
I32 = [-1, -8388609, 2147483647, -2147483648, 7]


@pytest.mark.parametrize("other", BF16)
def test_bfloat16_select_keeps_the_scalar(other):
    x = torch.tensor([1.0, -math.inf, math.inf, -2.0, 3e38, float("nan")], dtype=torch.bfloat16)
    fn = pyasc.jit(lambda x: pyasc.where(x > 0, x, other))
    arg = pyasc.from_torch(x) if hasattr(pyasc, "from_torch") else pyasc.tensor(x.float().numpy()).to(pyasc.bfloat16)
    out = torch.from_numpy(fn(arg).to(pyasc.float32).numpy())
    ref = torch.where(x > 0, x, torch.tensor(other, dtype=torch.bfloat16)).float()
    assert torch.equal(out.isnan(), ref.isnan()) and torch.equal(out[~ref.isnan()], ref[~ref.isnan()])
    assert "__builtin_nanf" not in fn.lower(arg).compile().ascendc_source()


@pytest.mark.parametrize("other", I32)
def test_int32_select_keeps_the_scalar(other):
    x = np.array([1, -5, 3, 0, 2147483647, -2147483648], np.int32)
    fn = pyasc.jit(lambda x: pyasc.where(x > 0, x, other))
    out = fn(pyasc.tensor(x)).numpy()
    ref = torch.where(torch.from_numpy(x) > 0, torch.from_numpy(x), torch.tensor(other, dtype=torch.int32)).numpy()
    np.testing.assert_array_equal(out, ref)
    assert "__builtin_nanf" not in fn.lower(pyasc.tensor(x)).compile().ascendc_source()
