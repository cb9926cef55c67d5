"""``pyasc.nn.functional.pad`` against ``torch.nn.functional.pad``: the element each output position reads (every
mode, every pad from -6 to 6 of sizes 1 to 5), a crop that is a new tensor, several padded dimensions on the
device, and the errors (the differential suite's ``F.pad`` rows check random cases in every dtype)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
import pyasc.nn.functional as F
from pyasc.ops_pad import source_indices

TF = torch.nn.functional


def _torch_indices(size, lo, hi, mode):
    """The input index of each output of torch's pad (the constant: -1), or None where torch refuses."""
    x = torch.arange(size, dtype=torch.float64).reshape(1, 1, size)
    try:
        out = TF.pad(x, (lo, hi), mode=mode, **({"value": -1.0} if mode == "constant" else {}))
    except RuntimeError:
        return None
    return out.reshape(-1).numpy().astype(np.int64)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_each_output_reads_the_element_torch_reads(mode):
    checked = 0
    for size in range(1, 6):
        for lo in range(-6, 7):
            for hi in range(-6, 7):
                kept = size - max(-lo, 0) - max(-hi, 0)
                if mode == "circular" and (kept < max(lo, hi, 0) or kept < 0 or (kept == 0 and lo + hi + size > 0)):
                    continue  # torch reads outside the cropped input here (uninitialised memory); pyasc refuses
                want = _torch_indices(size, lo, hi, mode)
                if want is None:
                    with pytest.raises(pyasc.PyascError, match="pad"):
                        source_indices(size, lo, hi, mode, may_empty=False)
                    continue
                np.testing.assert_array_equal(source_indices(size, lo, hi, mode, may_empty=False), want,
                                              err_msg=f"size {size}, pads ({lo}, {hi})")
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_circular_and_reflected_refusals_match_torch_on_the_device(mode):
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 4) + 1
    for pads in [(4, 0), (5, -1), (-2, -2), (3, 3)]:
        try:
            want = TF.pad(torch.from_numpy(x), pads, mode=mode).numpy()
        except RuntimeError:
            with pytest.raises(pyasc.PyascError, match="pyasc.pad"):
                F.pad(pyasc.tensor(x), pads, mode=mode)
            continue
        np.testing.assert_array_equal(F.pad(pyasc.tensor(x), pads, mode=mode).numpy(), want)


def test_a_crop_is_a_new_tensor():
    x = pyasc.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    y = F.pad(x, (-1, -1))
    y[0, 0] = 100.0
    assert x.numpy()[0, 1] == 1.0
    np.testing.assert_array_equal(F.pad(x, (0, 0, 0, 0)).numpy(), x.numpy())


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_three_padded_dimensions_inside_jit(mode, dtype):
    x = np.random.default_rng(4).standard_normal((2, 3, 5, 6, 7)).astype(dtype)
    pads = (2, 1, 0, 3, 1, -1)
    got = pyasc.jit(lambda t: F.pad(t, pads, mode=mode))(pyasc.tensor(x)).numpy()
    np.testing.assert_array_equal(got, TF.pad(torch.from_numpy(x), pads, mode=mode).numpy())


@pytest.mark.parametrize("call,message", [
    (lambda x: F.pad(x, (1,)), "divisible by 2"),
    (lambda x: F.pad(x, (1, 1.5)), "tuple of ints"),
    (lambda x: F.pad(x, (1, 1, 1, 1, 1, 1)), "pads more dimensions"),
    (lambda x: F.pad(x, (1, 1), mode="edge"), "mode must be one of"),
    (lambda x: F.pad(x, (1, 1), mode="reflect", value=2.0), "does not take a value"),
    (lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"), "needs an input of 3 or 4 dimensions"),
    (lambda x: F.pad(x, (3, 0), mode="reflect"), "less than the size 3"),
    (lambda x: F.pad(x, (-4, 0)), "crops 4 elements"),
    (lambda x: F.pad(x.to(pyasc.float16), (1, 1), value=1e6), "without overflow"),
    (lambda x: F.pad(x.to(pyasc.int32), (1, 1), value=float("nan")), "without overflow"),
])
def test_errors_name_the_op_and_the_line(call, message):
    x = pyasc.tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(pyasc.PyascError, match=message) as info:
        call(x)
    assert "pyasc.pad" in str(info.value) and "test_pad.py" in str(info.value)
