"""The recurrent ONNX operators (``RNN``, ``GRU``, ``LSTM``) against onnxruntime, every output: PyTorch's
``nn.GRU``, ``nn.LSTM`` and ``nn.RNN`` exported (stacked, bidirectional, batch first, initial states), and raw nodes
for the options PyTorch does not export (``linear_before_reset=0``, reverse, peepholes, ``clip``, other
activations); ``layout=1``, which onnxruntime does not run, against ONNX's reference implementation."""

import io
import warnings

import numpy as np
import onnxruntime as ort
import pytest
import torch
from onnx import TensorProto, helper, load_from_string, numpy_helper
from onnx.reference import ReferenceEvaluator

import pyasc

R = np.random.default_rng(5)


class _Outputs(torch.nn.Module):
    """A recurrent module's output and final state(s) as a flat tuple."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x, *state):
        state = state if len(state) < 2 else (state,)     # LSTM's (h0, c0) is one argument
        y, h = self.module(x, *state)
        return (y, *h) if isinstance(h, tuple) else (y, h)


TORCH = {
    "gru_batch_first": (lambda: torch.nn.GRU(6, 8, batch_first=True), [(2, 5, 6)]),
    "gru_stacked_bidirectional": (lambda: torch.nn.GRU(6, 8, num_layers=2, bidirectional=True), [(5, 2, 6)]),
    "lstm_batch_first": (lambda: torch.nn.LSTM(6, 8, batch_first=True), [(2, 5, 6)]),
    "lstm_bidirectional_initial_states": (lambda: torch.nn.LSTM(6, 8, bidirectional=True),
                                          [(5, 3, 6), (2, 3, 8), (2, 3, 8)]),
    "rnn_relu": (lambda: torch.nn.RNN(6, 8, nonlinearity="relu", batch_first=True), [(2, 5, 6)]),
    "rnn_initial_state": (lambda: torch.nn.RNN(6, 8), [(5, 2, 6), (1, 2, 8)]),
}


def _compare(proto: bytes, feeds: dict, reference) -> None:
    want = reference.run(None, feeds)
    got = pyasc.OMModel(proto).infer(list(feeds.values()) if len(feeds) > 1 else next(iter(feeds.values())))
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(TORCH))
def test_exported_torch_modules_against_onnxruntime(name):
    make, shapes = TORCH[name]
    torch.manual_seed(0)
    module = _Outputs(make()).eval()
    args = tuple(torch.from_numpy(R.standard_normal(s).astype(np.float32)) for s in shapes)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, buffer, opset_version=17, dynamo=False)
    proto = buffer.getvalue()
    session = ort.InferenceSession(proto, providers=["CPUExecutionProvider"])
    _compare(proto, {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}, session)


def _raw(op: str, shapes: list, outputs: int, **attrs) -> bytes:
    """One ``op`` node on input X and initializers W, R, B, sequence_lens, initial_h, initial_c, P (None: absent)."""
    names, inits = ["X"], []
    for name, shape in zip(["W", "R", "B", "L", "H0", "C0", "P"], shapes[1:]):
        if shape is None:
            names.append("")
            continue
        value = (np.full(shape, shapes[0][1 if attrs.get("layout") else 0], np.int32) if name == "L"
                 else (R.standard_normal(shape) * 0.5).astype(np.float32))
        inits.append(numpy_helper.from_array(value, name))
        names.append(name)
    outs = ["Y", "Y_h", "Y_c"][:outputs]
    graph = helper.make_graph([helper.make_node(op, names, outs, **attrs)], "g",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(shapes[0]))],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


H = 4
RAW = {
    "gru_reset_after_product_reverse": ("GRU", [(5, 2, 3), (1, 3 * H, 3), (1, 3 * H, H), (1, 6 * H), (2,),
                                                (1, 2, H)], 2, dict(direction="reverse", linear_before_reset=0)),
    "gru_bidirectional_no_bias": ("GRU", [(5, 2, 3), (2, 3 * H, 3), (2, 3 * H, H)], 2,
                                  dict(direction="bidirectional")),
    "lstm_peepholes_clip": ("LSTM", [(5, 2, 3), (1, 4 * H, 3), (1, 4 * H, H), (1, 8 * H), None, (1, 2, H),
                                     (1, 2, H), (1, 3 * H)], 3, dict(clip=0.7)),
    "lstm_other_activations": ("LSTM", [(5, 2, 3), (1, 4 * H, 3), (1, 4 * H, H)], 3,
                               dict(activations=["Sigmoid", "Relu", "Tanh"])),
    "rnn_sigmoid": ("RNN", [(5, 2, 3), (1, H, 3), (1, H, H)], 2, dict(activations=["Sigmoid"])),
    "lstm_batch_major_bidirectional": ("LSTM", [(2, 5, 3), (2, 4 * H, 3), (2, 4 * H, H), (2, 8 * H)], 3,
                                       dict(layout=1, direction="bidirectional")),
}


@pytest.mark.parametrize("name", sorted(RAW))
def test_raw_nodes_against_onnxruntime(name):
    op, shapes, outputs, attrs = RAW[name]
    proto = _raw(op, shapes, outputs, hidden_size=H, **attrs)
    feeds = {"X": R.standard_normal(shapes[0]).astype(np.float32)}
    reference = (ReferenceEvaluator(load_from_string(proto)) if attrs.get("layout")   # onnxruntime: layout 0 only
                 else ort.InferenceSession(proto, providers=["CPUExecutionProvider"]))
    _compare(proto, feeds, reference)


def test_unsupported_options_are_named():
    short = _raw("GRU", [(5, 2, 3), (1, 3 * H, 3), (1, 3 * H, H), None, (2,)], 2, hidden_size=H)
    proto = load_from_string(short)
    lens = next(i for i in proto.graph.initializer if i.name == "L")
    lens.CopyFrom(numpy_helper.from_array(np.array([5, 3], np.int32), "L"))
    with pytest.raises(pyasc.PyascError, match="GRU.*sequence_lens"):
        pyasc.OMModel(proto.SerializeToString()).infer(np.zeros((5, 2, 3), np.float32))
    coupled = _raw("LSTM", [(5, 2, 3), (1, 4 * H, 3), (1, 4 * H, H)], 3, hidden_size=H, input_forget=1)
    with pytest.raises(pyasc.PyascError, match="LSTM.*input_forget"):
        pyasc.OMModel(coupled).infer(np.zeros((5, 2, 3), np.float32))
