"""The inference chapter of the documentation, call by call, on a small exported CNN; every output
is checked against onnxruntime."""

import numpy as np
import onnxruntime as ort
import pytest
import torch

import pyasc
from pyasc.model import ModelError, UnsupportedOnnxError


def _ort(path, x):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": np.asarray(x, dtype=np.float32)})[0]


def _images(n, hw=(16, 16), seed=0):
    return np.random.default_rng(seed).standard_normal((n, 3, *hw)).astype(np.float32)


@pytest.fixture(scope="module")
def model(tiny_cnn_onnx):
    return pyasc.OMModel(str(tiny_cnn_onnx))


def test_inputs_and_outputs(model):
    # print("Inputs:", model.inputs) / print("Outputs:", model.outputs)
    assert model.inputs == [{"name": "x", "shape": ["batch", 3, "height", "width"], "dtype": "float32",
                             "format": "NCHW"}]
    assert model.outputs == [{"name": "logits", "shape": ["batch", 10], "dtype": "float32", "format": "ND"}]


def test_infer_sync_as_documented(model, tiny_cnn_onnx):
    img = _images(1)
    with pyasc.device(0):
        input_data = pyasc.from_numpy(img)
        output = model.infer(input_data)
        result = pyasc.to_numpy(output)
        pred_class = int(result.argmax())
    ref = _ort(tiny_cnn_onnx, img)
    np.testing.assert_allclose(result, ref, rtol=1e-4, atol=1e-4)
    assert pred_class == int(ref.argmax())


def test_infer_accepts_numpy_torch_list_and_dict(model, tiny_cnn_onnx):
    img = _images(1, seed=1)
    ref = _ort(tiny_cnn_onnx, img)
    for x in (img, torch.from_numpy(img), [img], {"x": img}, pyasc.tensor(img)):
        np.testing.assert_allclose(model.infer(x).numpy(), ref, rtol=1e-4, atol=1e-4)


def test_infer_async_as_documented(model, tiny_cnn_onnx):
    batch = _images(4, seed=2)[:, None]      # four single-image batches
    num_images = len(batch)
    with pyasc.device(0):
        stream = pyasc.Stream()
        events = []
        results = []
        for i in range(num_images):
            input_data = pyasc.from_numpy(batch[i])
            future = model.infer_async(input_data, stream=stream)
            results.append(future)
            evt = pyasc.Event()
            evt.record(stream)
            events.append(evt)
        assert not any(f.done() for f in results)          # queued, not run yet
        for evt in events:
            evt.synchronize()
        outputs = [future.result() for future in results]
    assert all(f.done() for f in results)
    for img, out in zip(batch, outputs):
        np.testing.assert_allclose(out.numpy(), _ort(tiny_cnn_onnx, img), rtol=1e-4, atol=1e-4)
    # in order on one stream: each inference completes after the previous one
    times = [f.event._time for f in results]
    assert times == sorted(times) and times[0] > 0


def test_futures_on_several_streams_overlap(model):
    x = _images(1, seed=3)
    one = model.infer_async(x, stream=pyasc.Stream())
    one.result()
    single = one.event._time
    streams = [pyasc.Stream() for _ in range(3)]
    futures = [model.infer_async(x, stream=s) for s in streams]
    for f in futures:
        f.result()
    # three streams run side by side: all complete at the time one inference takes, not three times it
    assert max(f.event._time for f in futures) == pytest.approx(single)
    same = pyasc.Stream()
    serial = [model.infer_async(x, stream=same) for _ in range(3)]
    serial[-1].result()
    assert serial[-1].event._time == pytest.approx(3 * single)


def test_dynamic_batch_gears(tiny_cnn_onnx):
    model = pyasc.OMModel(str(tiny_cnn_onnx))
    model.set_dynamic_batch([1, 4, 8])     # 支持batch 1/4/8动态切换
    for b in (1, 4):
        x = _images(b, seed=b)
        np.testing.assert_allclose(model.infer(x).numpy(), _ort(tiny_cnn_onnx, x), rtol=1e-4, atol=1e-4)
    assert model.cache_size() == 2                      # one compilation per gear used
    model.infer(_images(4, seed=9))
    assert model.cache_size() == 2
    with pytest.raises(ModelError, match=r"batch size 3 .* no gear .*\[1, 4, 8\]"):
        model.infer(_images(3))


def test_dynamic_hw_gears(tiny_cnn_onnx):
    model = pyasc.OMModel(str(tiny_cnn_onnx))
    model.set_dynamic_hw([[16, 16], [24, 24]])  # 动态分辨率
    x = _images(1, hw=(24, 24), seed=5)
    np.testing.assert_allclose(model.infer(x).numpy(), _ort(tiny_cnn_onnx, x), rtol=1e-4, atol=1e-4)
    with pytest.raises(ModelError, match=r"image size \(20, 20\).*gears"):
        model.infer(_images(1, hw=(20, 20)))


def test_gears_compile_once_then_come_from_the_disk_cache(tiny_cnn_onnx):
    from pyasc import cache

    x = _images(2, seed=6)
    pyasc.OMModel(str(tiny_cnn_onnx)).compile(x)
    hits = cache.stats()["hits"]
    again = pyasc.OMModel(str(tiny_cnn_onnx))       # a new process would see the same: no recompilation
    np.testing.assert_allclose(again.infer(x).numpy(), _ort(tiny_cnn_onnx, x), rtol=1e-4, atol=1e-4)
    assert cache.stats()["hits"] == hits + 1


def test_float16_precision_mode(tiny_cnn_onnx):
    model_fp16 = pyasc.OMModel(str(tiny_cnn_onnx), dtype="float16")
    assert model_fp16.inputs[0]["dtype"] == "float16"
    x = _images(4, seed=7)
    out = model_fp16.infer(x).numpy()
    assert out.dtype == np.float16
    ref = _ort(tiny_cnn_onnx, x)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-2, atol=2e-2)
    assert (out.argmax(1) == ref.argmax(1)).all()


def test_load_model_and_shape_inference(tiny_cnn_onnx):
    graph = pyasc.load_model(str(tiny_cnn_onnx))
    report = pyasc.shape_inference(graph)
    text = str(report)
    assert report["x"] == {"shape": ["batch", 3, "height", "width"], "dtype": "float"}
    assert report["logits"] == {"shape": ["batch", 10], "dtype": "float"}
    assert len(report) > 5 and "logits" in text
    # every intermediate tensor is listed, with 4-D shapes for the feature maps
    import onnx

    names = {o for n in onnx.load(str(tiny_cnn_onnx)).graph.node for o in n.output}
    assert names <= set(report)


def test_real_om_file_is_explained(tmp_path):
    om = tmp_path / "resnet50.om"
    om.write_bytes(b"IMOD" + b"\0" * 252 + b"\x01" * 64)     # a CANN ModelFileHeader
    with pytest.raises(ModelError, match=r"CANN offline model \(\.om\).*ONNX model it was converted from"):
        pyasc.OMModel(str(om))


def test_not_a_model(tmp_path):
    bad = tmp_path / "x.onnx"
    bad.write_bytes(b"\xff\xfe garbage")
    with pytest.raises(ModelError, match="not an ONNX model"):
        pyasc.OMModel(str(bad))
    with pytest.raises(ModelError, match="does not exist"):
        pyasc.OMModel(str(tmp_path / "missing.onnx"))


def test_wrong_inputs(model):
    with pytest.raises(ModelError, match=r"inputs are \['x'\]"):
        model.infer({"y": _images(1)})
    with pytest.raises(ModelError, match="rank 4"):
        model.infer(np.zeros((3, 16, 16), np.float32))
    with pytest.raises(ModelError, match="must be an array"):
        model.infer("image.jpg")


def test_unsupported_op_and_attribute_are_named():
    from onnx import TensorProto, helper

    def one_node(node):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        return helper.make_model(helper.make_graph([node], "g", [x], [y]),
                                 opset_imports=[helper.make_opsetid("", 17)])

    m = pyasc.OMModel(one_node(helper.make_node("LRN", ["x"], ["y"], name="lrn_1", size=3)))
    with pytest.raises(UnsupportedOnnxError, match=r"ONNX node 'lrn_1' \(LRN\).*not supported"):
        m.infer(_images(1, (8, 8)))
    m = pyasc.OMModel(one_node(helper.make_node("AveragePool", ["x"], ["y"], name="pool_1", kernel_shape=[2, 2],
                                                ceil_mode=1)))
    with pytest.raises(UnsupportedOnnxError, match=r"'pool_1' \(AveragePool\): attribute 'ceil_mode'"):
        m.infer(_images(1, (8, 8)))
    m = pyasc.OMModel(one_node(helper.make_node("Relu", ["x"], ["y"], name="relu_1", frobnicate=1)))
    with pytest.raises(UnsupportedOnnxError, match=r"'relu_1' \(Relu\): attribute 'frobnicate'"):
        m.infer(_images(1, (8, 8)))


def test_profiler_sees_the_model_kernels(model):
    x = _images(1, seed=8)
    with pyasc.profiler() as prof:
        model.infer(x)
    assert {r.kernel for r in prof.records} == set(model.compile(x).kernels)
    assert "main_graph" in str(prof.summary(print_it=False))
