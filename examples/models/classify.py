"""Model inference as in the documentation's chapter on models: export a small image classifier
from PyTorch to ONNX, load it with ``pyasc.OMModel``, run it synchronously and asynchronously
with dynamic batch, and check it against onnxruntime.

    python examples/models/classify.py [model.onnx]

With a path, that ONNX model is loaded instead (its first input must be an NCHW image batch).
"""

import sys
import tempfile
from pathlib import Path

import numpy as np

import pyasc


def export_small_classifier(path: Path) -> None:
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
                          nn.Conv2d(16, 32, 3, 1, 1), nn.ReLU6(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(32, 10)).eval()
    torch.onnx.export(model, (torch.randn(1, 3, 32, 32),), str(path), dynamo=False, input_names=["x"],
                      output_names=["logits"], dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}})


def main() -> None:
    if len(sys.argv) > 1:
        path = Path(sys.argv[1])
    else:
        path = Path(tempfile.mkdtemp()) / "classifier.onnx"
        export_small_classifier(path)

    model = pyasc.OMModel(str(path))
    print("Inputs:", model.inputs)
    print("Outputs:", model.outputs)
    print(pyasc.shape_inference(model))
    shape = [d if isinstance(d, int) else 32 for d in model.inputs[0]["shape"][1:]]

    model.set_dynamic_batch([1, 4])
    images = np.random.default_rng(0).standard_normal((4, *shape)).astype(np.float32)

    # synchronous
    output = model.infer(pyasc.from_numpy(images[:1]))
    print("Predicted class:", int(pyasc.to_numpy(output).argmax()))

    # asynchronous: two batches on two streams overlap in simulated time
    streams = [pyasc.Stream(), pyasc.Stream()]
    futures = [model.infer_async(images[2 * i:2 * i + 2].repeat(2, axis=0), stream=s) for i, s in enumerate(streams)]
    outputs = [f.result() for f in futures]
    print("async done at (simulated ms):", [round(f.event._time * 1e3, 3) for f in futures])

    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ref = sess.run(None, {model.inputs[0]["name"]: images[2:4].repeat(2, axis=0)})[0]
    err = np.abs(outputs[1].numpy() - ref).max() / np.abs(ref).max()
    print(f"max relative error against onnxruntime: {err:.2e}")


if __name__ == "__main__":
    main()
