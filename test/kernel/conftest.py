"""Kernel DSL tests: the simulator backend, hazards raise; the shared kernels are importable."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import pyasc.kernel.runtime.config as config  # noqa: E402


@pytest.fixture(autouse=True)
def _model_backend():
    config.set_platform(config.Backend.Model)
    config.set_hazard_policy("error")
    yield
    config.set_platform(config.Backend.Model)
    config.set_hazard_policy("error")
