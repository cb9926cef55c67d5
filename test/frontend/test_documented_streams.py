"""The documented stream and transfer forms, as the user documentation writes them; values are
checked against NumPy."""

import numpy as np
import pytest

import pyasc
from pyasc import streams


@pyasc.jit
def model(x):
    return pyasc.exp(x) * 2.0 + x


def _ref(a):
    return np.exp(a) * 2.0 + a


def test_doc_stream_context_then_synchronize():
    input_tensor = pyasc.from_numpy(np.linspace(-1, 1, 4096, dtype=np.float32))
    with pyasc.Stream() as stream:
        result = model(input_tensor)
        stream.synchronize()   # explicit synchronisation
    np.testing.assert_allclose(result.numpy(), _ref(input_tensor.numpy()), rtol=1e-5)


def test_doc_super_resolution_flow():
    def transform(img):
        return pyasc.from_numpy(img.astype(np.float32) / 255.0)

    def super_resolution(lr_img):
        lr_tensor = transform(lr_img)
        with pyasc.Stream() as stream:
            sr_tensor = model(lr_tensor)
            stream.synchronize()
        return sr_tensor.numpy()

    img = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) % 256
    np.testing.assert_allclose(super_resolution(img), _ref(img / 255.0), rtol=1e-5)


def _side_stream_result():
    a = np.linspace(-2, 2, 8192, dtype=np.float32).reshape(8, 1024)
    x = pyasc.from_numpy(a)
    s = pyasc.Stream()
    with pyasc.stream(s):
        y = model(x)
    assert not s.query() and y.producer is not None and y.producer.stream is s
    return s, y, _ref(a)


def test_reading_before_synchronize_waits_for_the_producing_stream():
    s, y, ref = _side_stream_result()
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5)      # no synchronize: numpy() waits
    assert s.query() and y.producer is None


def test_float_and_printing_wait_too():
    s, y, ref = _side_stream_result()
    assert float(y.sum()) == pytest.approx(float(ref.sum(dtype=np.float64)), rel=1e-4)
    s, y, ref = _side_stream_result()
    text = repr(y)
    assert f"{ref[0, 0]:.4f}" in text and "e+2" not in text
    s, y, ref = _side_stream_result()
    one = y[0:1, 0:1]
    assert float(one) == pytest.approx(float(ref[0, 0]), rel=1e-6)


def test_use_on_another_stream_waits_for_the_producer():
    s, y, ref = _side_stream_result()
    other = pyasc.Stream()
    with pyasc.stream(other):
        z = model(y)                # y is still unwritten: other waits for s first
    np.testing.assert_allclose(z.numpy(), _ref(ref), rtol=1e-5)
    assert s.query()
    assert other.clock >= s.clock   # other's launch starts after s's ended


def test_a_failed_launch_never_exposes_its_output(monkeypatch):
    s, y, _ = _side_stream_result()

    def fail(compiled, arrays):
        raise RuntimeError("simulated device fault")

    monkeypatch.setattr(streams, "simulate", fail)
    with pytest.raises(RuntimeError, match="device fault"):
        s.synchronize()
    monkeypatch.undo()
    with pytest.raises(pyasc.PyascError, match="failed: simulated device fault"):
        y.numpy()


def test_doc_events_record_and_synchronize():
    x = pyasc.from_numpy(np.ones(2048, np.float32))
    stream = pyasc.Stream()
    events, results = [], []
    for i in range(3):
        with pyasc.stream(stream):
            results.append(model(x * float(i)))
        evt = pyasc.Event()
        evt.record(stream)
        events.append(evt)
    for evt in events:
        evt.synchronize()
    for i, r in enumerate(results):
        np.testing.assert_allclose(r.numpy(), _ref(np.full(2048, float(i), np.float32)), rtol=1e-5)
    assert events[0].elapsed_time(events[2]) > 0


def test_doc_copy_to_device_between_devices():
    with pyasc.device(0):
        src = pyasc.ones((1024, 1024), dtype=pyasc.float32)
    with pyasc.device(1):
        dst = pyasc.empty((1024, 1024), dtype=pyasc.float32)
        pyasc.copy_to_device(dst, src)  # NPU0 -> NPU1
    assert str(src.device) == "npu:0" and str(dst.device) == "npu:1"
    np.testing.assert_array_equal(np.array(dst), np.ones((1024, 1024), np.float32))


def test_copy_to_device_checks_shapes():
    with pytest.raises(pyasc.PyascError, match=r"copy_to_device: destination shape \(2, 3\) differs"):
        pyasc.copy_to_device(pyasc.zeros(2, 3), pyasc.ones(3, 2))


def test_non_blocking_copy_runs_on_the_stream():
    a = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    src = pyasc.from_numpy(a)
    s = pyasc.Stream()
    with pyasc.stream(s):
        moved = src.to("npu:1", non_blocking=True)
        dst = pyasc.copy_to_device(pyasc.empty(256, 256, device=1), model(src), non_blocking=True)
    assert not s.query() and moved.producer.stream is s and dst.producer.stream is s
    np.testing.assert_array_equal(moved.numpy(), a)             # waits for the copy
    np.testing.assert_allclose(dst.numpy(), _ref(a), rtol=1e-5)
    assert str(moved.device) == "npu:1"
    assert s.clock >= a.nbytes / streams.DEVICE_LINK_BYTES_PER_S
