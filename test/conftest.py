"""Suite-wide settings: the simulator's hazard checker turns races and flag errors into failures."""

import pyasc.runtime as _rt

_rt.set_hazard_policy("error")


def pytest_addoption(parser):
    group = parser.getgroup("torch_diff", "differential suite against PyTorch CPU")
    group.addoption("--diff-long", action="store_true", default=False,
                    help="run three shapes of every shape class for every op and dtype (slow)")
    group.addoption("--diff-observe", action="store_true", default=False,
                    help="ignore the known-failures table: every failing case fails")
    group = parser.getgroup("models", "ONNX model import against onnxruntime")
    group.addoption("--models", action="store_true", default=False,
                    help="run ResNet-18, MobileNetV2 and the transformer encoder against onnxruntime (slow)")
    group.addoption("--models-full", action="store_true", default=False,
                    help="with --models: 224x224 images and 32 images per check instead of reduced sizes")
