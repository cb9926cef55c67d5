"""Transposes into rows narrower than 32 B (``tile-movement``'s narrow tiles: an NCHW image of a few channels made
NHWC): the output rows side by side in one tile row, gathered with a table of runs narrower than 32 B, stored
as one run. Compared element for element with NumPy's transpose."""

from __future__ import annotations

import numpy as np
import pytest

import pyasc


@pytest.mark.parametrize("dtype,channels", [
    (np.float16, 2), (np.float16, 3), (np.float16, 5), (np.float16, 12), (np.float16, 15),
    (np.float32, 3), (np.float32, 6), (np.float32, 7), (np.int32, 3), (np.int32, 5),
])
def test_narrow_rows_transpose_like_numpy(dtype, channels):
    rng = np.random.default_rng(channels)
    n, hw = 1 + channels % 3, 700 + 389 * channels  # the last tile of a core partial
    x = (rng.standard_normal((n, channels, hw)) * 1000).astype(dtype)
    fn = pyasc.jit(lambda t: t.permute(0, 2, 1))
    text = fn.lower(pyasc.tensor(x)).as_text("asctile")
    assert f"gather_offsets cols {channels} " in text and " blocks " in text
    np.testing.assert_array_equal(fn(pyasc.tensor(x)).numpy(), np.transpose(x, (0, 2, 1)))


def test_an_image_made_channels_last():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 37, 53)).astype(np.float16)
    out = pyasc.jit(lambda t: t.permute(0, 2, 3, 1) * 2.0)(pyasc.tensor(x)).numpy()
    np.testing.assert_array_equal(out, np.transpose(x, (0, 2, 3, 1)) * np.float16(2.0))
