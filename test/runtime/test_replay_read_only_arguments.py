"""A launch whose argument is a read-only array (an index grid ``max_pool2d`` builds from ``np.broadcast_to``): the
replay that checks a launch's core groups against its cores one by one restores only the arguments a kernel can
write. Repeated eager calls against PyTorch."""

from __future__ import annotations

import numpy as np
import torch

import pyasc
import pyasc.nn.functional as PF


def test_repeated_max_pool_with_indices_on_int32_like_torch():
    x = np.array([[[[6, 7]], [[7, -9]], [[1, 0]]]], np.int32)
    ref, ref_idx = torch.nn.functional.max_pool2d(torch.from_numpy(x).float(), 1, 1, 0, return_indices=True)
    for _ in range(6):  # the first call traces, later ones replay, one of them checking the groups
        out, idx = PF.max_pool2d(pyasc.tensor(x), 1, 1, 0, return_indices=True)
        np.testing.assert_array_equal(out.numpy(), ref.numpy().astype(np.int32))
        np.testing.assert_array_equal(idx.numpy(), ref_idx.numpy())
