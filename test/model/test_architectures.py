"""ResNet-18, MobileNetV2 and a transformer encoder, built in torch with random weights, exported to
ONNX and run through pyasc and onnxruntime: f32 and f16, batch 1 and a dynamic batch.

Slow: run with ``--models`` (reduced: 32x32 images, 8 images per check); ``--models-full`` uses
224x224 images and 32 images per check."""

import numpy as np
import onnxruntime as ort
import pytest
import torch

import pyasc

MODELS = ["resnet18", "mobilenetv2", "transformer"]
# (max error relative to the largest reference logit, minimum top-1 agreement)
TOLERANCE = {"float32": (1e-3, 1.0), "float16": (3e-2, 0.9)}


@pytest.fixture(scope="module", autouse=True)
def _enabled(request):
    if not request.config.getoption("--models"):
        pytest.skip("model architectures run with --models")


@pytest.fixture(scope="module")
def sizes(request):
    full = request.config.getoption("--models-full")
    return {"hw": 224 if full else 32, "images": 32 if full else 8}


@pytest.fixture(scope="module")
def exported(sizes):
    from architectures import build, export

    out = {}
    for name in MODELS:
        model, shape, dtype = build(name)
        if len(shape) == 3:
            shape = (3, sizes["hw"], sizes["hw"])
        out[name] = (export(model, _inputs(shape, dtype, 1)), shape, dtype)
    return out


def _inputs(shape, dtype, n, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.int64:
        return torch.randint(0, 1000, (n, *shape), generator=g)
    return torch.randn(n, *shape, generator=g)


def _compare(out, ref, dtype):
    out = np.asarray(out, dtype=np.float32)
    rel = float(np.abs(out - ref).max() / np.abs(ref).max())
    top1 = float((out.argmax(-1) == ref.argmax(-1)).mean())
    max_rel, min_top1 = TOLERANCE[dtype]
    print(f"max relative error {rel:.2e}, top-1 agreement {top1:.3f}")
    assert rel <= max_rel and top1 >= min_top1, (rel, top1)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", MODELS)
def test_batch_1(exported, name, dtype):
    data, shape, in_dtype = exported[name]
    x = _inputs(shape, in_dtype, 1, seed=1)
    ref = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x.numpy()})[0]
    model = pyasc.OMModel(data, dtype=dtype)
    _compare(model.infer(x).numpy(), ref, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", MODELS)
def test_dynamic_batch(exported, sizes, name, dtype):
    data, shape, in_dtype = exported[name]
    x = _inputs(shape, in_dtype, sizes["images"], seed=2)
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    model = pyasc.OMModel(data, dtype=dtype)
    model.set_dynamic_batch([1, 8])
    outs, refs = [], []
    for i in range(0, len(x), 8):
        outs.append(model.infer(x[i:i + 8]).numpy())
        refs.append(sess.run(None, {"x": x[i:i + 8].numpy()})[0])
    _compare(np.concatenate(outs), np.concatenate(refs), dtype)
