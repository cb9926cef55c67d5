"""The recurrent ONNX operators ``RNN``, ``GRU`` and ``LSTM``, unrolled over the sequence: the input's products with
``W`` for every step at once, then per step the hidden state's product with ``R`` and the gates, as the ONNX
operator definitions give them (gate orders ``zrh`` and ``iofc``, ``linear_before_reset``, peepholes, ``clip``,
``direction`` forward, reverse or bidirectional, ``layout`` 0 or 1). The sequence length is the input's: a
``sequence_lens`` shorter than it is refused by name."""

from __future__ import annotations

import numpy as np

import pyasc

from .onnx_common import Node, _op, is_const, operand

_ACTIVATIONS = {"Sigmoid": pyasc.sigmoid, "Tanh": pyasc.tanh, "Relu": pyasc.relu}
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_DEFAULTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def _activations(node: Node, directions: int) -> list[list]:
    """Per direction, the activation functions the op's equations name f, g (and h for LSTM)."""
    defaults = _DEFAULTS[node.op_type]
    names = node.attr("activations")
    if node.attr("activation_alpha") is not None or node.attr("activation_beta") is not None:
        node.fail("activations with parameters are not supported", "activation_alpha")
    names = [n.decode() if isinstance(n, bytes) else n for n in names] if names else defaults * directions
    if len(names) != len(defaults) * directions:
        node.fail(f"expected {len(defaults) * directions} activations, got {len(names)}", "activations")
    bad = [n for n in names if n not in _ACTIVATIONS]
    if bad:
        node.fail(f"activation {bad[0]} is not supported ({', '.join(sorted(_ACTIVATIONS))})", "activations")
    k = len(defaults)
    return [[_ACTIVATIONS[n] for n in names[d * k:(d + 1) * k]] for d in range(directions)]


def _input(node: Node, inputs, i: int, like):
    v = inputs[i] if len(inputs) > i else None
    return None if v is None else operand(node, v, like)


def _recurrent(node: Node, inputs):
    kind, gates = node.op_type, _GATES[node.op_type]
    x = inputs[0]
    direction = node.attr("direction", "forward")
    directions = 2 if direction == "bidirectional" else 1
    if direction not in ("forward", "reverse", "bidirectional"):
        node.fail(f"value '{direction}' is not supported (forward, reverse, bidirectional)", "direction")
    layout = node.attr("layout", 0)
    if layout not in (0, 1):
        node.fail(f"value {layout} is not supported (0, 1)", "layout")
    if kind == "LSTM" and node.attr("input_forget", 0):
        node.fail("coupled input and forget gates are not supported", "input_forget")
    x = operand(node, x)
    if x.ndim != 3:
        node.fail(f"expects a 3-d input, got shape {x.shape}")
    if layout == 1:
        x = x.transpose(0, 1)                      # [seq, batch, input]
    steps, batch = x.shape[0], x.shape[1]
    w, r = operand(node, inputs[1], x), operand(node, inputs[2], x)
    hidden = node.attr("hidden_size", r.shape[-1])
    if w.shape[0] != directions or w.shape[1] != gates * hidden or r.shape[1:] != (gates * hidden, hidden):
        node.fail(f"weights W {w.shape} and R {r.shape} do not match {directions} direction(s) of {gates} gates of "
                  f"hidden size {hidden}")
    b = _input(node, inputs, 3, x)
    lens = inputs[4] if len(inputs) > 4 else None
    if lens is not None and (not is_const(lens) or np.any(np.asarray(lens) != steps)):
        node.fail(f"sequence_lens other than the input's length {steps} are not supported")
    h0 = _input(node, inputs, 5, x)
    c0 = _input(node, inputs, 6, x) if kind == "LSTM" else None
    peep = _input(node, inputs, 7, x) if kind == "LSTM" else None
    if layout == 1:
        h0 = None if h0 is None else h0.transpose(0, 1)
        c0 = None if c0 is None else c0.transpose(0, 1)
    clip = node.attr("clip")
    acts = _activations(node, directions)
    ys, hs, cs = [], [], []
    for d in range(directions):
        reverse = direction == "reverse" or d == 1
        wb = b[d, :gates * hidden] if b is not None else None
        rb = b[d, gates * hidden:] if b is not None else None
        xw = x @ w[d].transpose(0, 1)             # every step's input products: [seq, batch, gates * hidden]
        if wb is not None:
            xw = xw + wb
        h = h0[d] if h0 is not None else pyasc.zeros_like(xw[0, :, :hidden])
        c = (c0[d] if c0 is not None else pyasc.zeros_like(h)) if kind == "LSTM" else None
        p = peep[d] if peep is not None else None
        out = [None] * steps
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            h, c = _step(node, kind, xw[t], h, c, r[d], rb, p, hidden, clip, acts[d])
            out[t] = h
        ys.append(pyasc.stack(out, 0))
        hs.append(h)
        cs.append(c)
    y = pyasc.stack(ys, 1)                         # [seq, directions, batch, hidden]
    y_h = pyasc.stack(hs, 0)
    y_c = pyasc.stack(cs, 0) if kind == "LSTM" else None
    if layout == 1:
        y, y_h = y.permute(2, 0, 1, 3), y_h.transpose(0, 1)
        y_c = None if y_c is None else y_c.transpose(0, 1)
    outs = [y, y_h] + ([y_c] if kind == "LSTM" else [])
    return outs[:node.n_outputs]


def _step(node, kind, xw, h, c, r, rb, p, hidden, clip, acts):
    """One step: the new hidden state (and cell state for LSTM) from the step's input products ``xw``."""
    def gate(v, i):
        return v[:, i * hidden:(i + 1) * hidden]

    def clipped(v):
        return v if clip is None else pyasc.clamp(v, -clip, clip)

    hr = h @ r.transpose(0, 1)
    hr_b = hr if rb is None else hr + rb
    if kind == "RNN":
        return acts[0](clipped(xw + hr_b)), None
    if kind == "GRU":
        f, g = acts
        z = f(clipped(gate(xw, 0) + gate(hr_b, 0)))
        reset = f(clipped(gate(xw, 1) + gate(hr_b, 1)))
        if node.attr("linear_before_reset", 0):
            candidate = g(clipped(gate(xw, 2) + reset * gate(hr_b, 2)))
        else:
            rh = (reset * h) @ gate(r.transpose(0, 1), 2)
            candidate = g(clipped(gate(xw, 2) + rh + (gate(rb[None, :], 2) if rb is not None else 0.0)))
        return (1.0 - z) * candidate + z * h, None
    f, g, act_h = acts
    pre = xw + hr_b
    i_pre, o_pre, f_pre, c_pre = (gate(pre, k) for k in range(4))
    if p is not None:
        i_pre = i_pre + p[:hidden] * c
        f_pre = f_pre + p[2 * hidden:] * c
    i, fg, cand = f(clipped(i_pre)), f(clipped(f_pre)), g(clipped(c_pre))
    c = fg * c + i * cand
    if p is not None:
        o_pre = o_pre + p[hidden:2 * hidden] * c
    o = f(clipped(o_pre))
    return o * act_h(c), c


RECURRENT_OPS = {
    name: _op(_recurrent, "activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
              "layout", *(("linear_before_reset",) if name == "GRU" else ()),
              *(("input_forget",) if name == "LSTM" else ()))
    for name in ("RNN", "GRU", "LSTM")
}
"""ONNX op type -> conversion, for the recurrent ops."""
