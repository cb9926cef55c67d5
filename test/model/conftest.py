"""Fixtures of the model tests: a private compile cache and small exported models."""

import os
import sys
import tempfile

import pytest

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-model-test-cache-"))
sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session")
def tiny_cnn_onnx(tmp_path_factory):
    """A small image classifier (conv, batch norm, ReLU, max pool, global average pool, linear)
    exported to ONNX with a dynamic batch, height and width; its path."""
    import torch
    from torch import nn

    from architectures import export, randomize_batch_norm

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
                          nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(16, 10))
    randomize_batch_norm(model).eval()
    path = tmp_path_factory.mktemp("models") / "tiny_cnn.onnx"
    path.write_bytes(export(model, torch.randn(1, 3, 16, 16)))
    return path
