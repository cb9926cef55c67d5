"""A convolution whose weights are an argument lays them out inside its MIX kernel
(``lowering/asctensor_conv_weights.py``, ``tile-conv-prologue``: the rows transposed, gathered by ``Gatherb`` and
transposed back): one launch, against PyTorch, with NaN weights, under ``jit(grad)`` and from the disk cache; weight
shapes the AIVs cannot split stay with their own kernels."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest
import torch
import torch.nn.functional as F

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc

TOLERANCE = {np.float16: 2e-3, np.float32: 2e-6}


def _stem(x, w):
    return pyasc.conv2d(x, w, stride=2, padding=3)


def _reference(x, w):
    return F.conv2d(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(w.astype(np.float32)), stride=2,
                    padding=3).numpy()


def _inputs(dtype, out_channels=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 64, 64), dtype=np.float32).astype(dtype)
    w = rng.standard_normal((out_channels, 3, 7, 7), dtype=np.float32).astype(dtype)
    return x, w


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_stem_lays_out_its_weights_in_one_launch(dtype):
    """float16 weights are laid out by the MIX kernel's AIVs; float32 ones (twice the UB) by a kernel of their own."""
    x, w = _inputs(dtype)
    compiled = pyasc.jit(_stem).lower(pyasc.tensor(x), pyasc.tensor(w)).compile()
    out, report = compiled.simulate(pyasc.tensor(x), pyasc.tensor(w))
    assert len(report.launches) == (1 if dtype == np.float16 else 2)
    assert not report.findings
    ref = _reference(x, w)
    err = np.abs(out.astype(np.float32) - ref).max() / np.abs(ref).max()
    assert err <= TOLERANCE[dtype], err
    # each row of 147 weights comes in with 13 zeros up to its last 32 B (the doc's isPad with rightPadding)
    assert ("DataCopyPadExtParams<half>{true, 0, 13, 0}" in compiled.ascendc_source()) == (dtype == np.float16)


def test_nan_weights_reach_only_their_output_channel():
    x, w = _inputs(np.float16, seed=1)
    w[1, 0, 3, 3] = np.nan  # every output of channel 1 is NaN in PyTorch; no zero column may carry it elsewhere
    out = pyasc.jit(_stem)(pyasc.tensor(x), pyasc.tensor(w)).numpy().astype(np.float32)
    ref = _reference(x, w)
    assert np.array_equal(np.isnan(out), np.isnan(ref))
    fin = np.isfinite(ref)
    assert np.abs(out[fin] - ref[fin]).max() / np.abs(ref[fin]).max() <= TOLERANCE[np.float16]


def test_gradients_under_jit_match_torch():
    x, w = _inputs(np.float32, seed=2)

    def loss(x, w):
        return (_stem(x, w) ** 2).mean()

    gx, gw = pyasc.jit(pyasc.grad(loss, argnums=(0, 1)))(pyasc.tensor(x), pyasc.tensor(w))
    tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(w).requires_grad_()
    (F.conv2d(tx, tw, stride=2, padding=3) ** 2).mean().backward()
    for ours, theirs in ((gx, tx.grad), (gw, tw.grad)):
        ref = theirs.numpy()
        assert np.abs(ours.numpy() - ref).max() / np.abs(ref).max() <= 1e-5


def test_the_lifted_table_comes_back_from_the_disk_cache(tmp_path):
    code = ("import numpy as np, pyasc, torch, torch.nn.functional as F\n"
            "rng = np.random.default_rng(3)\n"
            "x = rng.standard_normal((2, 3, 64, 64), dtype=np.float32).astype(np.float16)\n"
            "w = rng.standard_normal((32, 3, 7, 7), dtype=np.float32).astype(np.float16)\n"
            "out = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3))(pyasc.tensor(x), pyasc.tensor(w))\n"
            "ref = F.conv2d(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(w.astype(np.float32)), "
            "stride=2, padding=3).numpy()\n"
            "print(float(np.abs(out.numpy().astype(np.float32) - ref).max() / np.abs(ref).max()))\n")
    env = {**os.environ, "PYASC_CACHE_DIR": str(tmp_path)}
    errors = [float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True).stdout.split()[-1]) for _ in range(2)]
    assert any(tmp_path.iterdir())  # the second run read the program the first stored
    assert max(errors) <= TOLERANCE[np.float16], errors


@pytest.mark.parametrize("out_channels", [7, 16])
def test_output_channels_the_aivs_cannot_split_keep_their_layout_kernel(out_channels):
    """Each AIV lays out half the rows, transposed in blocks of 16: the rows must be a multiple of 32."""
    x, w = _inputs(np.float16, out_channels=out_channels)
    compiled = pyasc.jit(_stem).lower(pyasc.tensor(x), pyasc.tensor(w)).compile()
    out, report = compiled.simulate(pyasc.tensor(x), pyasc.tensor(w))
    assert len(report.launches) == 2
    ref = _reference(x, w)
    assert np.abs(out.astype(np.float32) - ref).max() / np.abs(ref).max() <= TOLERANCE[np.float16]
