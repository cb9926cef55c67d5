"""The documented ``register_op`` form: a forward ``(inputs, attrs)`` returning a list and its
``<Name>Grad`` backward taking ``(dy, y)``, checked against PyTorch's relu and its gradient."""

import numpy as np
import pytest
import torch

import pyasc


@pytest.fixture(scope="module")
def relu_pair():
    @pyasc.register_op("CustomRelu", replace=True)
    def relu_forward(inputs, attrs):
        """正向传播实现"""
        x = inputs[0]
        return [pyasc.maximum(x, 0.0)]

    @pyasc.register_op("CustomReluGrad", replace=True)
    def relu_backward(inputs, attrs):
        """反向传播实现"""
        dy, y = inputs
        mask = pyasc.cast(y > 0, dy.dtype)
        return [dy * mask]

    return relu_forward, relu_backward


def _data(shape=(37, 129), seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_doc_forward_returns_a_list(relu_pair):
    relu_forward, _ = relu_pair
    a = _data()
    out = relu_forward([pyasc.from_numpy(a)], None)
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_array_equal(out[0].numpy(), torch.relu(torch.from_numpy(a)).numpy())
    assert pyasc.get_custom_op("CustomRelu") is relu_forward


def test_doc_backward_is_linked_to_the_forward(relu_pair):
    relu_forward, relu_backward = relu_pair
    a = _data(seed=1)
    g = _data(seed=2)
    t = torch.from_numpy(a).requires_grad_()
    torch.relu(t).backward(torch.from_numpy(g))
    (dx,) = relu_forward.vjp([pyasc.from_numpy(a)], None, grad_outputs=[pyasc.from_numpy(g)])
    np.testing.assert_array_equal(dx.numpy(), t.grad.numpy())
    assert relu_forward.backward.grad_op is relu_backward   # the rule is stored on the op


def test_doc_grad_op_called_directly(relu_pair):
    _, relu_backward = relu_pair
    y = np.maximum(_data(seed=3), 0)
    dy = _data(seed=4)
    (dx,) = relu_backward([pyasc.from_numpy(dy), pyasc.from_numpy(y)], {})
    np.testing.assert_array_equal(dx.numpy(), dy * (y > 0))


def test_a_lone_tensor_is_an_error_not_relu_of_row_0(relu_pair):
    relu_forward, _ = relu_pair
    x = pyasc.from_numpy(_data())
    with pytest.raises(pyasc.PyascError, match=r"CustomRelu: takes a list of tensors as inputs.*float32\[37, 129\]"):
        relu_forward(x, None)
    with pytest.raises(pyasc.PyascError, match="attrs must be a dict"):
        relu_forward([x], 3)


def test_list_form_inside_jit_and_with_attrs():
    @pyasc.register_op("ScaledShift", replace=True)
    def scaled_shift(inputs, attrs):
        x, b = inputs
        return [x * attrs["scale"] + b, x - b]

    a, b = _data((8, 64), 5), _data((8, 64), 6)
    f = pyasc.jit(lambda x, y: scaled_shift([x, y], {"scale": 3.0})[0])
    np.testing.assert_allclose(f(pyasc.from_numpy(a), pyasc.from_numpy(b)).numpy(), a * 3.0 + b, rtol=1e-6)
    assert "pyasc.custom_op = \"ScaledShift\"" in str(f.trace(pyasc.from_numpy(a), pyasc.from_numpy(b)))
    with pytest.raises(pyasc.PyascError, match="ScaledShift.*has no backward.*ScaledShiftGrad"):
        scaled_shift.vjp([pyasc.from_numpy(a), pyasc.from_numpy(b)], {"scale": 3.0})


def test_keyword_style_stays_and_the_style_can_be_explicit():
    @pyasc.register_op("kw_relu", replace=True)
    def kw_relu(inputs, scale=1.0):      # not (inputs, attrs): the argument style
        return pyasc.maximum(inputs, 0.0) * scale

    a = _data((4, 8), 7)
    np.testing.assert_array_equal(kw_relu(pyasc.from_numpy(a), scale=2.0).numpy(), np.maximum(a, 0) * 2)

    @pyasc.register_op("listed", replace=True, style="list")
    def listed(xs, options):
        return [xs[0] + 1.0]

    assert listed([pyasc.from_numpy(a)], None)[0].numpy() == pytest.approx(a + 1)
    with pytest.raises(pyasc.PyascError, match="style must be"):
        pyasc.register_op("bad_style", style="dict")(lambda x: x)


def test_forward_must_return_a_list():
    @pyasc.register_op("NotAList", replace=True)
    def not_a_list(inputs, attrs):
        return inputs[0] * 2.0

    with pytest.raises(pyasc.PyascError, match="NotAList: the forward must return a list of tensors"):
        not_a_list([pyasc.ones(4)], None)


def test_a_forward_calling_itself_on_the_same_signature_is_refused_inside_jit():
    @pyasc.register_op("Endless", replace=True)
    def endless(x):
        return pyasc.get_custom_op("Endless")(x) * 2.0

    x = pyasc.ones(8)
    with pytest.raises(pyasc.PyascError, match=r"Endless: the forward of custom op 'Endless' calls 'Endless' itself "
                                               r"on the same shapes and dtypes \(float32\[8\]\).*test_documented"):
        pyasc.jit(lambda x: pyasc.get_custom_op("Endless")(x))(x)


def test_a_forward_calling_itself_on_smaller_shapes_traces_like_numpy():
    @pyasc.register_op("HalvingSum", replace=True)
    def halving_sum(x):
        n = x.shape[0]
        if n == 1:
            return x
        op = pyasc.get_custom_op("HalvingSum")
        return op(x[: n // 2]) + op(x[n // 2:])

    a = np.random.default_rng(0).standard_normal(12).astype(np.float32)
    got = pyasc.jit(lambda x: pyasc.get_custom_op("HalvingSum")(x))(pyasc.tensor(a))
    np.testing.assert_allclose(got.numpy(), a.sum(keepdims=True), rtol=1e-6, atol=1e-6)
