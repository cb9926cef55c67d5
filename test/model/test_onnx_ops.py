"""Every entry of the ONNX operator table, in a small graph, against onnxruntime."""

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import pyasc
from pyasc.dialects.asctensor import KERNEL_ATTR
from pyasc.model.onnx_ops import OPS

R = np.random.default_rng(0)


def _f(*shape, low=-2.0, high=2.0):
    return R.uniform(low, high, shape).astype(np.float32)


def _model(nodes, inputs: dict, inits: dict, opset: int = 17):
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
           for n, a in inputs.items()]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "ops", ins, [out], [numpy_helper.from_array(a, n) for n, a in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _n(op, ins, out="y", **attrs):
    outs = [out] if isinstance(out, str) else out
    return helper.make_node(op, ins, outs, name=f"{op.lower()}_{outs[0]}", **attrs)


def _unary(op, low=-2.0, high=2.0, **attrs):
    return [_n(op, ["x"], **attrs)], {"x": _f(2, 3, 4, 8, low=low, high=high)}, {}


def _binary(op, c):
    return [_n(op, ["x", "c"])], {"x": _f(2, 4, 8, low=0.5)}, {"c": c}


def _to_float(node_op, ins, **attrs):
    return [_n(node_op, ins, "b", **attrs), _n("Cast", ["b"], to=TensorProto.FLOAT)]


CASES = {
    "Conv": ([_n("Conv", ["x", "w", "b"], group=2, dilations=[2, 2], pads=[2, 2, 2, 2], strides=[2, 2])],
             {"x": _f(1, 4, 9, 9)}, {"w": _f(6, 2, 3, 3), "b": _f(6)}),
    "Conv/depthwise": ([_n("Conv", ["x", "w"], group=4, pads=[1, 1, 1, 1])], {"x": _f(2, 4, 6, 6)},
                       {"w": _f(4, 1, 3, 3)}),
    "BatchNormalization": ([_n("BatchNormalization", ["x", "s", "b", "m", "v"], epsilon=1e-3)],
                           {"x": _f(2, 4, 5, 5)}, {"s": _f(4), "b": _f(4), "m": _f(4), "v": _f(4, low=0.5)}),
    "BatchNormalization/after-conv": ([_n("Conv", ["x", "w", "cb"], "c", pads=[1, 1, 1, 1]),
                                       _n("BatchNormalization", ["c", "s", "b", "m", "v"], epsilon=1e-3)],
                                      {"x": _f(2, 4, 6, 6)}, {"w": _f(8, 4, 3, 3), "cb": _f(8), "s": _f(8), "b": _f(8),
                                                              "m": _f(8), "v": _f(8, low=0.5)}),
    "Relu": _unary("Relu"), "Sigmoid": _unary("Sigmoid"), "Tanh": _unary("Tanh"), "Exp": _unary("Exp"),
    "Log": _unary("Log", low=0.1), "Sqrt": _unary("Sqrt", low=0.1), "Reciprocal": _unary("Reciprocal", low=0.5),
    "Erf": _unary("Erf"), "Neg": _unary("Neg"), "Abs": _unary("Abs"),
    "LeakyRelu": _unary("LeakyRelu", alpha=0.2), "HardSigmoid": _unary("HardSigmoid", alpha=0.3, beta=0.4),
    "HardSwish": ([_n("HardSwish", ["x"])], {"x": _f(2, 3, 4, 8, low=-5, high=5)}, {}),
    "Gelu": ([_n("Gelu", ["x"], approximate="tanh")], {"x": _f(2, 3, 8)}, {}, 20),
    "Clip": ([_n("Clip", ["x", "lo", "hi"])], {"x": _f(2, 3, 8)},
             {"lo": np.array(-0.5, np.float32), "hi": np.array(1.0, np.float32)}),
    "Add": _binary("Add", _f(8)), "Sub": _binary("Sub", _f(4, 1)), "Mul": _binary("Mul", _f(2, 4, 8)),
    "Div": _binary("Div", _f(8, low=0.5)), "Pow": _binary("Pow", np.array(2.0, np.float32)),
    "MatMul": ([_n("MatMul", ["x", "w"])], {"x": _f(2, 16, 32)}, {"w": _f(32, 24)}),
    "MatMul/4d": ([_n("MatMul", ["x", "x2"])], {"x": _f(2, 2, 8, 16), "x2": _f(2, 2, 16, 8)}, {}),
    "Gemm": ([_n("Gemm", ["x", "w", "b"], transB=1, alpha=0.5, beta=2.0)], {"x": _f(4, 32)},
             {"w": _f(16, 32), "b": _f(16)}),
    "Reshape": ([_n("Reshape", ["x", "s"])], {"x": _f(2, 4, 6)}, {"s": np.array([0, -1, 3], np.int64)}),
    "Flatten": ([_n("Flatten", ["x"], axis=2)], {"x": _f(2, 3, 4, 5)}, {}),
    "Transpose": ([_n("Transpose", ["x"], perm=[0, 2, 1])], {"x": _f(2, 16, 24)}, {}),
    "Squeeze": ([_n("Squeeze", ["x", "a"])], {"x": _f(2, 1, 8)}, {"a": np.array([1], np.int64)}),
    "Unsqueeze": ([_n("Unsqueeze", ["x", "a"])], {"x": _f(2, 8)}, {"a": np.array([0, 2], np.int64)}),
    "Concat": ([_n("Concat", ["x", "c"], axis=1)], {"x": _f(2, 3, 8)}, {"c": _f(2, 5, 8)}),
    "Split": ([_n("Split", ["x", "s"], ["a", "b"], axis=2), _n("Sub", ["a", "b"])], {"x": _f(2, 3, 16)},
              {"s": np.array([8, 8], np.int64)}),
    "Slice": ([_n("Slice", ["x", "st", "en", "ax", "sp"])], {"x": _f(2, 12, 16)},
              {"st": np.array([1, 0], np.int64), "en": np.array([10, 16], np.int64),
               "ax": np.array([1, 2], np.int64), "sp": np.array([2, 1], np.int64)}),
    "Gather": ([_n("Gather", ["x", "i"], axis=1)], {"x": _f(2, 12, 16)}, {"i": np.array([0, 3, 4, 5, 11], np.int64)}),
    "Gather/embedding": ([_n("Gather", ["t", "ids"])], {"ids": R.integers(0, 50, (2, 8)).astype(np.int64)},
                         {"t": _f(50, 16)}),
    "Softmax": ([_n("Softmax", ["x"], axis=-1)], {"x": _f(2, 4, 16)}, {}),
    "LogSoftmax": ([_n("LogSoftmax", ["x"], axis=-1)], {"x": _f(2, 4, 16)}, {}),
    "LayerNormalization": ([_n("LayerNormalization", ["x", "s", "b"], axis=-1, epsilon=1e-5)], {"x": _f(2, 4, 32)},
                           {"s": _f(32), "b": _f(32)}),
    "ReduceMean": ([_n("ReduceMean", ["x"], axes=[-1], keepdims=1)], {"x": _f(2, 4, 16)}, {}, 17),
    "ReduceSum": ([_n("ReduceSum", ["x", "a"], keepdims=0)], {"x": _f(2, 4, 16)}, {"a": np.array([2], np.int64)}),
    "ReduceMax": ([_n("ReduceMax", ["x"], axes=[2], keepdims=0)], {"x": _f(2, 4, 16)}, {}),
    "GlobalAveragePool": ([_n("GlobalAveragePool", ["x"])], {"x": _f(2, 4, 6, 6)}, {}),
    "AveragePool": ([_n("AveragePool", ["x"], kernel_shape=[2, 2], strides=[2, 2])], {"x": _f(2, 4, 8, 8)}, {}),
    "MaxPool": ([_n("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
                {"x": _f(2, 4, 9, 9)}, {}),
    "MaxPool/same-upper-ceil": ([_n("MaxPool", ["x"], kernel_shape=[3, 2], strides=[2, 2], auto_pad="SAME_UPPER")],
                                {"x": _f(2, 4, 9, 8)}, {}),
    "MaxPool/asymmetric-ceil": ([_n("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 1, 2, 0],
                                    ceil_mode=1)], {"x": _f(2, 4, 10, 9)}, {}),
    "AveragePool/pads": ([_n("AveragePool", ["x"], kernel_shape=[3, 3], strides=[2, 1], pads=[1, 0, 2, 1])],
                         {"x": _f(2, 4, 9, 8)}, {}),
    "AveragePool/pads-counted": ([_n("AveragePool", ["x"], kernel_shape=[3, 2], pads=[1, 1, 1, 0],
                                     count_include_pad=1)], {"x": _f(2, 4, 7, 8)}, {}),
    "AveragePool/same-lower": ([_n("AveragePool", ["x"], kernel_shape=[2, 3], strides=[2, 2], auto_pad="SAME_LOWER")],
                               {"x": _f(1, 3, 7, 8)}, {}),
    "Conv/asymmetric": ([_n("Conv", ["x", "w", "b"], pads=[0, 1, 2, 3], strides=[2, 1])],
                        {"x": _f(1, 4, 9, 9)}, {"w": _f(6, 4, 3, 3), "b": _f(6)}),
    "Conv/same-upper": ([_n("Conv", ["x", "w"], auto_pad="SAME_UPPER", strides=[2, 2])],
                        {"x": _f(2, 3, 10, 11)}, {"w": _f(8, 3, 3, 3)}),
    "Conv/same-lower-grouped": ([_n("Conv", ["x", "w"], auto_pad="SAME_LOWER", strides=[1, 2], group=2)],
                                {"x": _f(1, 4, 8, 7)}, {"w": _f(4, 2, 2, 4)}),
    "Pad": ([_n("Pad", ["x", "p", "v"])], {"x": _f(2, 3, 5, 6)},
            {"p": np.array([0, 1, 2, -1, 0, 0, 1, 3], np.int64), "v": np.array(1.5, np.float32)}),
    "Pad/reflect": ([_n("Pad", ["x", "p"], mode="reflect")], {"x": _f(2, 3, 5, 6)},
                    {"p": np.array([0, 0, 2, 3, 0, 1, 4, 1], np.int64)}),
    "Pad/edge-axes": ([_n("Pad", ["x", "p", "", "a"], mode="edge")], {"x": _f(2, 3, 5, 6)},
                      {"p": np.array([3, 1, 0, 2], np.int64), "a": np.array([-1, 1], np.int64)}, 18),
    "Pad/wrap": ([_n("Pad", ["x", "p"], mode="wrap")], {"x": _f(2, 3, 5, 6)},
                 {"p": np.array([0, 0, 2, 3, 0, 0, 4, -1], np.int64)}, 19),
    "Min": ([_n("Min", ["x", "c", "d"])], {"x": _f(2, 4, 8)}, {"c": _f(8), "d": _f(4, 1)}),
    "Max": ([_n("Max", ["x", "c"])], {"x": _f(2, 4, 8)}, {"c": _f(4, 8)}),
    "Sum": ([_n("Sum", ["x", "c", "x"])], {"x": _f(2, 4, 8)}, {"c": _f(8)}),
    "Mean": ([_n("Mean", ["x", "c"])], {"x": _f(2, 4, 8)}, {"c": _f(1, 8)}),
    "Elu": _unary("Elu", alpha=0.7), "Selu": _unary("Selu"), "Celu": _unary("Celu", alpha=1.5),
    "PRelu": ([_n("PRelu", ["x", "s"])], {"x": _f(2, 3, 4, 5)}, {"s": _f(3, 1, 1)}),
    "Softplus": _unary("Softplus"), "Softsign": _unary("Softsign"), "Mish": (*_unary("Mish"), 18),
    "ThresholdedRelu": _unary("ThresholdedRelu", alpha=0.5), "Shrink": _unary("Shrink", bias=0.25, lambd=0.75),
    "Sign": _unary("Sign"), "Floor": _unary("Floor"), "Ceil": _unary("Ceil"),
    "Round": ([_n("Round", ["x"])], {"x": np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -3.7]], np.float32)}, {}),
    "Sin": _unary("Sin"), "Cos": _unary("Cos"), "Tan": _unary("Tan", low=-1.2),
    "IsNaN": (_to_float("IsNaN", ["x"]), {"x": np.array([1.0, np.nan, -np.inf, 0.0], np.float32)}, {}),
    "IsInf": (_to_float("IsInf", ["x"], detect_negative=0), {"x": np.array([1.0, np.nan, -np.inf, np.inf], np.float32)},
              {}),
    "Mod": ([_n("Mod", ["x", "c"], fmod=1)], {"x": _f(2, 16, low=-9, high=9)}, {"c": _f(16, low=0.5, high=3) *
                                                                                 np.where(np.arange(16) % 2, 1, -1)
                                                                                 .astype(np.float32)}),
    "Mod/int": ([_n("Mod", ["a", "b"], "m"), _n("Cast", ["m"], to=TensorProto.FLOAT)],
                {"a": R.integers(-20, 20, (2, 8)).astype(np.int32)},
                {"b": np.array([3, -3, 5, -7, 2, 4, -1, 6], np.int32)}),
    "And": ([_n("Less", ["x", "c"], "l"), _n("Greater", ["x", "d"], "g"), *_to_float("And", ["l", "g"])],
            {"x": _f(2, 16)}, {"c": _f(16), "d": _f(16)}),
    "Or": ([_n("Less", ["x", "c"], "l"), _n("Greater", ["x", "d"], "g"), *_to_float("Or", ["l", "g"])],
           {"x": _f(2, 16)}, {"c": _f(16), "d": _f(16)}),
    "Xor": ([_n("Less", ["x", "c"], "l"), _n("Greater", ["x", "d"], "g"), *_to_float("Xor", ["l", "g"])],
            {"x": _f(2, 16)}, {"c": _f(16), "d": _f(16)}),
    "LessOrEqual": (_to_float("LessOrEqual", ["x", "c"]), {"x": np.round(_f(2, 16))}, {"c": np.round(_f(16))}),
    "GreaterOrEqual": (_to_float("GreaterOrEqual", ["x", "c"]), {"x": np.round(_f(2, 16))}, {"c": np.round(_f(16))}),
    "Tile": ([_n("Tile", ["x", "r"])], {"x": _f(2, 3, 4)}, {"r": np.array([2, 1, 3], np.int64)}),
    "Trilu": ([_n("Trilu", ["x", "k"], upper=0)], {"x": _f(2, 5, 6)}, {"k": np.array(1, np.int64)}),
    "Trilu/upper": ([_n("Trilu", ["x"])], {"x": _f(5, 6)}, {}),
    "DepthToSpace": ([_n("DepthToSpace", ["x"], blocksize=2)], {"x": _f(2, 8, 3, 4)}, {}),
    "DepthToSpace/crd": ([_n("DepthToSpace", ["x"], blocksize=2, mode="CRD")], {"x": _f(2, 8, 3, 4)}, {}),
    "SpaceToDepth": ([_n("SpaceToDepth", ["x"], blocksize=2)], {"x": _f(2, 3, 4, 6)}, {}),
    "GatherElements": ([_n("GatherElements", ["x", "i"], axis=1)], {"x": _f(3, 5)},
                       {"i": np.array([[0, 4], [-1, 2], [3, 3]], np.int64)}),
    "ReduceMin": ([_n("ReduceMin", ["x", "a"], keepdims=0)], {"x": _f(2, 4, 16)}, {"a": np.array([1, 2], np.int64)}, 18),
    "ReduceProd": ([_n("ReduceProd", ["x", "a"])], {"x": _f(2, 4, 6, low=0.5, high=1.5)},
                   {"a": np.array([2], np.int64)}, 18),
    "ReduceL1": ([_n("ReduceL1", ["x"], keepdims=0)], {"x": _f(2, 4, 16)}, {}, 18),
    "ReduceL2": ([_n("ReduceL2", ["x", "a"])], {"x": _f(2, 4, 16)}, {"a": np.array([-1], np.int64)}, 18),
    "ReduceLogSumExp": ([_n("ReduceLogSumExp", ["x", "a"], keepdims=0)], {"x": _f(2, 4, 16)},
                        {"a": np.array([0, 2], np.int64)}, 18),
    "ReduceSumSquare": ([_n("ReduceSumSquare", ["x", "a"])], {"x": _f(2, 4, 16)}, {"a": np.array([1], np.int64)}, 18),
    "ArgMax": (_to_float("ArgMax", ["x"], axis=1, keepdims=0), {"x": _f(3, 7, 5)}, {}),
    "ArgMin": (_to_float("ArgMin", ["x"], axis=-1, select_last_index=1), {"x": np.round(_f(3, 7, 5))}, {}),
    "CumSum": ([_n("CumSum", ["x", "a"])], {"x": _f(3, 7)}, {"a": np.array(1, np.int64)}),
    "CumSum/exclusive-reverse": ([_n("CumSum", ["x", "a"], exclusive=1, reverse=1)], {"x": _f(3, 7, 2)},
                                 {"a": np.array(-2, np.int64)}),
    "TopK": ([_n("TopK", ["x", "k"], ["v", "i"], axis=1), _n("Cast", ["i"], "fi", to=TensorProto.FLOAT),
              _n("Add", ["v", "fi"])], {"x": R.permutation(60).reshape(3, 20).astype(np.float32)},
             {"k": np.array([4], np.int64)}),
    "TopK/smallest": ([_n("TopK", ["x", "k"], ["y", "i"], axis=0, largest=0)], {"x": _f(9, 5)},
                      {"k": np.array([3], np.int64)}),
    "InstanceNormalization": ([_n("InstanceNormalization", ["x", "s", "b"], epsilon=1e-4)], {"x": _f(2, 3, 5, 6)},
                              {"s": _f(3), "b": _f(3)}),
    "GroupNormalization": ([_n("GroupNormalization", ["x", "s", "b"], num_groups=2)], {"x": _f(2, 6, 4, 5)},
                           {"s": _f(6), "b": _f(6)}, 21),
    "Where": ([_n("Greater", ["x", "z"], "g"), _n("Where", ["g", "x", "c"])], {"x": _f(2, 16)},
              {"z": np.array(0.0, np.float32), "c": _f(16)}),
    "Equal": (_to_float("Equal", ["x", "c"]), {"x": np.round(_f(2, 16))}, {"c": np.round(_f(16))}),
    "Less": (_to_float("Less", ["x", "c"]), {"x": _f(2, 16)}, {"c": _f(16)}),
    "Greater": (_to_float("Greater", ["x", "c"]), {"x": _f(2, 16)}, {"c": _f(16)}),
    "Not": ([_n("Less", ["x", "c"], "l"), *_to_float("Not", ["l"])], {"x": _f(2, 16)}, {"c": _f(16)}),
    "Cast": ([_n("Cast", ["x"], "h", to=TensorProto.FLOAT16), _n("Cast", ["h"], to=TensorProto.FLOAT)],
             {"x": _f(2, 16)}, {}),
    # a shape subgraph: Shape -> Gather -> Unsqueeze -> Concat -> Reshape folds at import
    "Shape": ([_n("Shape", ["x"], "s"), _n("Gather", ["s", "zero"], "n", axis=0), _n("Unsqueeze", ["n", "ax"], "n1"),
               _n("Concat", ["n1", "m1"], "shape", axis=0), _n("Reshape", ["x", "shape"])],
              {"x": _f(2, 3, 8)}, {"zero": np.array(0, np.int64), "ax": np.array([0], np.int64),
                                   "m1": np.array([-1], np.int64)}),
    "ConstantOfShape": ([_n("Shape", ["x"], "s"), helper.make_node(
        "ConstantOfShape", ["s"], ["k"], value=numpy_helper.from_array(np.array([1.5], np.float32))),
        _n("Mul", ["x", "k"])], {"x": _f(2, 8)}, {}),
    "Constant": ([helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(_f(8))), _n("Add", ["x", "k"])],
                 {"x": _f(2, 8)}, {}),
    "Expand": ([_n("Expand", ["x", "s"])], {"x": _f(2, 1, 8)}, {"s": np.array([2, 3, 8], np.int64)}),
    "Identity": ([_n("Identity", ["x"], "i"), _n("Relu", ["i"])], {"x": _f(2, 8)}, {}),
    "Dropout": ([_n("Dropout", ["x"], "d"), _n("Relu", ["d"])], {"x": _f(2, 8)}, {}),
    # the recurrent ops' first output (every output, direction and option: test_onnx_recurrent.py)
    "RNN": ([_n("RNN", ["x", "w", "r", "b"], hidden_size=4)], {"x": _f(5, 2, 3)},
            {"w": _f(1, 4, 3), "r": _f(1, 4, 4), "b": _f(1, 8)}),
    "GRU": ([_n("GRU", ["x", "w", "r", "b"], hidden_size=4, linear_before_reset=1)], {"x": _f(5, 2, 3)},
            {"w": _f(1, 12, 3), "r": _f(1, 12, 4), "b": _f(1, 24)}),
    "LSTM": ([_n("LSTM", ["x", "w", "r", "b"], hidden_size=4)], {"x": _f(5, 2, 3)},
             {"w": _f(1, 16, 3), "r": _f(1, 16, 4), "b": _f(1, 32)}),
    "Asin": _unary("Asin", low=-1.0, high=1.0), "Acos": _unary("Acos", low=-1.0, high=1.0), "Atan": _unary("Atan"),
    "Sinh": _unary("Sinh"), "Cosh": _unary("Cosh"), "Asinh": _unary("Asinh"), "Acosh": _unary("Acosh", low=1.0),
    "Atanh": _unary("Atanh", low=-0.99, high=0.99),
    **{op: ([_n("Cast", ["x"], "i", to=TensorProto.INT32), _n("Cast", ["c"], "j", to=TensorProto.INT32),
             *_to_float(op, ["i", "j"])], {"x": _f(2, 16, low=-50, high=50)}, {"c": _f(16, low=-50, high=50)}, 18)
       for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor")},
    "BitwiseNot": ([_n("Cast", ["x"], "i", to=TensorProto.INT32), *_to_float("BitwiseNot", ["i"])],
                   {"x": _f(2, 16, low=-50, high=50)}, {}, 18),
    "Einsum": ([_n("Einsum", ["x", "c"], equation="bij,jk->bki")], {"x": _f(2, 3, 8)}, {"c": _f(8, 5)}, 12),
    "Hardmax": ([_n("Hardmax", ["x"], axis=1)], {"x": _f(2, 5, 4)}, {}),
    "LpNormalization": ([_n("LpNormalization", ["x"], axis=1, p=1)], {"x": _f(2, 5, 4)}, {}),
    "LpNormalization/p2": ([_n("LpNormalization", ["x"])], {"x": _f(2, 5, 4)}, {}),
    "MeanVarianceNormalization": ([_n("MeanVarianceNormalization", ["x"])], {"x": _f(2, 3, 4, 5)}, {}),
    "GlobalMaxPool": ([_n("GlobalMaxPool", ["x"])], {"x": _f(2, 3, 4, 5)}, {}),
    "Size": ([_n("Size", ["x"], "s"), _n("Cast", ["s"], "f", to=TensorProto.FLOAT), _n("Mul", ["x", "f"])],
             {"x": _f(2, 8)}, {}),
    "EyeLike": ([_n("EyeLike", ["x"], "e", k=1), _n("Add", ["x", "e"])], {"x": _f(4, 6)}, {}),
    "ConvTranspose": ([_n("ConvTranspose", ["x", "w", "b"], strides=[2, 3], pads=[1, 0, 0, 2], output_padding=[1, 2],
                           dilations=[1, 2], group=2)], {"x": _f(2, 4, 5, 6)}, {"w": _f(4, 3, 3, 3), "b": _f(6)}),
    "ConvTranspose/output_shape": ([_n("ConvTranspose", ["x", "w"], strides=[2, 2], output_shape=[10, 12])],
                                   {"x": _f(1, 4, 5, 6)}, {"w": _f(4, 2, 3, 3)}),
    "ConvTranspose/1d": ([_n("ConvTranspose", ["x", "w"], strides=[2], pads=[1, 2])], {"x": _f(2, 4, 7)},
                         {"w": _f(4, 3, 4)}),
    "QuantizeLinear": ([_n("QuantizeLinear", ["x", "s", "z"], "q"), _n("DequantizeLinear", ["q", "s", "z"], "d"),
                        _n("Relu", ["d"])], {"x": _f(2, 4, 8, low=-40, high=40)},
                       {"s": np.array(0.25, np.float32), "z": np.array(3, np.int8)}),
    "QuantizeLinear/ties": ([_n("QuantizeLinear", ["x", "s", "z"], "q"), _n("DequantizeLinear", ["q", "s", "z"])],
                            {"x": np.array([[0.125, 0.375, -0.125, -0.375, 0.625, 31.875, 40.0, -40.0]], np.float32)},
                            {"s": np.array(0.25, np.float32), "z": np.array(0, np.int8)}),
    "QuantizeLinear/uint8": ([_n("QuantizeLinear", ["x", "s", "z"], "q"), _n("DequantizeLinear", ["q", "s", "z"])],
                             {"x": _f(2, 4, 8, low=-5, high=70)},
                             {"s": np.array(0.2, np.float32), "z": np.array(128, np.uint8)}),
    "DequantizeLinear": ([_n("QuantizeLinear", ["x", "s", "z"], "q", axis=1),
                          _n("DequantizeLinear", ["q", "s", "z"], axis=1)], {"x": _f(2, 4, 8, low=-40, high=40)},
                         {"s": np.array([0.1, 0.25, 0.5, 1.0], np.float32),
                          "z": np.array([0, -5, 7, 100], np.int8)}),
    "Resize": ([_n("Resize", ["x", "", "s"], mode="nearest", coordinate_transformation_mode="asymmetric",
                   nearest_mode="floor")], {"x": _f(1, 2, 3, 4)}, {"s": np.array([1, 1, 2, 1.5], np.float32)}),
    "Resize/linear": ([_n("Resize", ["x", "", "", "z"], mode="linear", coordinate_transformation_mode="half_pixel")],
                      {"x": _f(1, 2, 3, 4)}, {"z": np.array([1, 2, 7, 5], np.int64)}),
    "Resize/corners": ([_n("Resize", ["x", "", "s"], mode="linear", coordinate_transformation_mode="align_corners")],
                       {"x": _f(2, 1, 4, 4)}, {"s": np.array([1, 1, 2, 2], np.float32)}),
}


def test_every_table_entry_is_tested():
    assert set(OPS) <= {name.split("/")[0] for name in CASES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_against_onnxruntime(name):
    nodes, inputs, inits, *opset = CASES[name]
    proto = _model(nodes, inputs, inits, *opset)
    ref = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, inputs)[0]
    out = pyasc.OMModel(proto).infer(list(inputs.values())).numpy()
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_batch_norm_after_conv_folds_into_it():
    # the importer keeps the graph; asctensor-fold-batch-norm folds the scale into the weight and
    # asctensor-hoist-constants computes it once: no kernel multiplies
    nodes, inputs, inits = CASES["BatchNormalization/after-conv"]
    model = pyasc.OMModel(_model(nodes, inputs, inits))
    assert [n.op_type for n in model.graph.nodes] == ["Conv", "BatchNormalization"]
    lowered = model._fn.lower(*model.prepare_inputs(list(inputs.values())))
    kernels = [op for op in lowered.module("asctensor").ops if KERNEL_ATTR in op.attributes]
    assert kernels and not any("arith.mulf" in str(k) for k in kernels)


@pytest.mark.parametrize("kwargs", [dict(scale_factor=2, mode="nearest"), dict(size=(5, 7), mode="nearest"),
                                    dict(scale_factor=1.5, mode="bilinear", align_corners=False),
                                    dict(size=(6, 9), mode="bilinear", align_corners=True)])
def test_pytorch_interpolate_exports_resize_like_onnxruntime(kwargs):
    import io
    import warnings

    import torch

    class Up(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.interpolate(x, **kwargs)

    x = _f(2, 3, 4, 5)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Up(), (torch.from_numpy(x),), buffer, opset_version=17, dynamo=False)
    proto = buffer.getvalue()
    session = ort.InferenceSession(proto, providers=["CPUExecutionProvider"])
    ref = session.run(None, {session.get_inputs()[0].name: x})[0]
    out = pyasc.OMModel(proto).infer(x).numpy()
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
