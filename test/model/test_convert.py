"""``pyasc convert model.onnx --output DIR`` and ``pyasc run``, as the issue spells them: the converted folder
loads without compiling and infers as onnxruntime does; ``run`` prints the simulated time per kernel launch."""

import json

import numpy as np
import onnxruntime as ort
import pytest

import pyasc
from pyasc import cli
from pyasc.model import ModelError


def _ort(path, x):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


def _images(n, seed=0):
    return np.random.default_rng(seed).standard_normal((n, 3, 16, 16)).astype(np.float32)


@pytest.fixture(scope="module")
def converted(tiny_cnn_onnx, tmp_path_factory):
    out = tmp_path_factory.mktemp("converted") / "tiny"
    assert cli.main(["convert", str(tiny_cnn_onnx), "--output", str(out), "--batch", "1,4", "--hw", "16x16"]) == 0
    return out


def test_convert_writes_gears_and_projects(converted):
    manifest = json.loads((converted / "model.json").read_text())
    assert manifest["batches"] == [1, 4] and manifest["hw"] == [16, 16] and len(manifest["gears"]) == 2
    for i in range(2):
        assert (converted / f"gear{i}.mlir").read_text().count("ascendc.launch") >= 1
        project = converted / f"project_{i}"
        assert (project / "CMakeLists.txt").is_file()
        assert list(project.rglob("*.asc")) or list(project.rglob("*.cpp"))


def test_converted_model_loads_without_compiling(converted, tiny_cnn_onnx, monkeypatch):
    import pyasc.lowering.pipeline as pipeline

    def no_compile(*args, **kwargs):
        raise AssertionError("the converted model compiled a program")

    monkeypatch.setattr(pipeline, "run_stage", no_compile)
    model = pyasc.OMModel(str(converted))
    for n in (1, 4):
        x = _images(n, seed=n)
        np.testing.assert_allclose(model.infer(x).numpy(), _ort(tiny_cnn_onnx, x), rtol=1e-4, atol=1e-4)
    assert model.cache_size() == 0  # no signature went through jit (neither compiled nor served from its cache)
    with pytest.raises(ModelError, match=r"batch size 2 .*gears: \[1, 4\]"):
        model.infer(_images(2))


def test_converted_model_refuses_another_precision(converted):
    with pytest.raises(ModelError, match="converted in float32"):
        pyasc.OMModel(str(converted), dtype="float16")


def test_convert_needs_sizes_for_open_dims(tiny_cnn_onnx, tmp_path, capsys):
    assert cli.main(["convert", str(tiny_cnn_onnx), "--output", str(tmp_path / "m"), "--batch", "1"]) == 1
    assert "symbolic dims" in capsys.readouterr().err


def test_run_prints_time_per_launch(converted, tiny_cnn_onnx, tmp_path, capsys):
    x = _images(1, seed=3)
    np.save(tmp_path / "x.npy", x)
    for target in (str(converted), str(tiny_cnn_onnx)):
        assert cli.main(["run", target, "--input", str(tmp_path / "x.npy")]) == 0
        out = capsys.readouterr().out
        rows = [line for line in out.splitlines() if line.split() and line.split()[-1].replace(".", "").isdigit()]
        assert any("total" in line for line in rows) and len(rows) >= 2, out
        assert "output 'logits': float32[1, 10]" in out


def test_run_without_input_is_a_clear_error(tiny_cnn_onnx, capsys):
    assert cli.main(["run", str(tiny_cnn_onnx)]) == 1
    assert "--input x.npy" in capsys.readouterr().err
