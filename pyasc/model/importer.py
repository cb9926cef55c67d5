"""Reading an ONNX model and replaying its graph through the tensor API inside ``pyasc.jit``.

The graph is replayed once per input signature (a batch size, an image size): shapes are then
concrete, so ``Shape`` gives a constant and every computation on constants (the shape subgraphs
an exporter writes around ``Reshape``, weight transposes and casts) folds on the host with the ONNX
reference implementation. What remains are nodes on computed tensors, converted by the operator
table (``onnx_ops.OPS``) into ``asctensor`` IR; initializers become the program's constants. Graph
optimisations on weights (a batch norm folded into the convolution before it, the weight products
that leaves) are passes of the compiler: ``asctensor-fold-batch-norm``, ``asctensor-hoist-constants``.
"""

from __future__ import annotations

import os
import re
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import pyasc
from pyasc.errors import PyascError

from .errors import ModelError, UnsupportedOnnxError
from .onnx_ops import OPS, Node, const_tensor, is_const

# the first bytes of a CANN offline model (ModelFileHeader.magic 0x444F4D49, little-endian)
OM_MAGIC = b"IMOD"

_ONNX_TO_PYASC = {TensorProto.FLOAT: "float", TensorProto.FLOAT16: "float16", TensorProto.DOUBLE: "float",
                  TensorProto.INT64: "int32", TensorProto.INT32: "int32", TensorProto.INT8: "int8",
                  TensorProto.BOOL: "bool"}


@dataclass(frozen=True)
class ValueInfo:
    """A graph input or output: its name, shape (ints, and strings for symbolic dims), dtype."""

    name: str
    shape: tuple
    dtype: str

    @property
    def format(self) -> str:
        return "NCHW" if len(self.shape) == 4 else "ND"

    def as_dict(self) -> dict:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype, "format": self.format}


def read_model(source) -> onnx.ModelProto:
    """The ONNX model at ``source`` (a path, bytes or a ModelProto); ModelError for an OM file or
    anything that is not an ONNX model."""
    if isinstance(source, onnx.ModelProto):
        return source
    if isinstance(source, bytes):
        data, where = source, "the given bytes"
    else:
        path = Path(os.fspath(source))
        if not path.is_file():
            raise ModelError(f"model file '{path}' does not exist")
        data, where = path.read_bytes(), f"'{path}'"
    if data[:4] == OM_MAGIC:
        raise ModelError(f"{where} is a CANN offline model (.om): a device binary produced by ATC whose format "
                         "is not public. pyasc loads the ONNX model it was converted from: pass the .onnx file "
                         "given to ATC (--framework=5 --model=model.onnx)")
    try:
        model = onnx.load_from_string(data)
    except Exception as e:  # noqa: BLE001 - protobuf raises several kinds
        raise ModelError(f"{where} is not an ONNX model ({type(e).__name__}: {e})") from None
    if not model.graph.node:
        raise ModelError(f"{where} is not an ONNX model (it has no graph nodes)")
    return model


def _value_info(vi, float_dtype: str) -> ValueInfo:
    t = vi.type.tensor_type
    shape = tuple(d.dim_param or (d.dim_value if d.HasField("dim_value") else "?") for d in t.shape.dim)
    name = _ONNX_TO_PYASC.get(t.elem_type)
    if name is None:
        raise ModelError(f"input or output '{vi.name}' has the unsupported element type "
                         f"{TensorProto.DataType.Name(t.elem_type)}")
    return ValueInfo(vi.name, shape, float_dtype if name == "float" else name)


def _apply(convert, node, values):
    return convert(node, values)


def _located(file: str, line: int):
    """``_apply`` as if defined at ``file:line``: the IR of a node is tagged with the model file and
    the node's position (``model.onnx:12``), not with the caller's line, so the traced program, and
    its compile-cache key, depend on the model only."""
    return types.FunctionType(_apply.__code__.replace(co_filename=file, co_firstlineno=line), {})


class OnnxGraph:
    """An ONNX model ready to replay: its inputs, outputs, constants and nodes."""

    def __init__(self, source, dtype: str | None = None):
        self.proto = read_model(source)
        dtype = dtype or "float32"
        if dtype not in ("float32", "float16"):
            raise ModelError(f"dtype must be 'float32' or 'float16', got {dtype!r}")
        self.dtype = dtype
        self.float_dtype = pyasc.float16 if dtype == "float16" else pyasc.float32
        g = self.proto.graph
        self.name = re.sub(r"[^A-Za-z0-9_]", "_", g.name or "model").strip("_") or "model"
        self.file = os.path.basename(os.fspath(source)) if isinstance(source, str | os.PathLike) \
            else f"{self.name}.onnx"
        self.opsets = {o.domain or "": o.version for o in self.proto.opset_import}
        init_names = {t.name for t in g.initializer}
        self.constants = {t.name: self._const(numpy_helper.to_array(t)) for t in g.initializer}
        self.inputs = [_value_info(v, dtype) for v in g.input if v.name not in init_names]
        self.outputs = [_value_info(v, dtype) for v in g.output]
        self.nodes = list(g.node)
        for n in self.nodes:
            if n.domain not in ("", "ai.onnx"):
                raise UnsupportedOnnxError(n.op_type, n.name, f"the operator domain '{n.domain}' is not supported")

    def _const(self, a: np.ndarray) -> np.ndarray:
        """Float constants in the model's float dtype (ATC's precision mode); int64 stays for folding."""
        if a.dtype.kind == "f":
            return a.astype(self.float_dtype.np_dtype)
        return a

    # -- replay -----------------------------------------------------------------------------
    def run(self, args) -> list:
        """The outputs of the graph on ``args`` (traced tensors in input order)."""
        env: dict = dict(self.constants)
        env.update((i.name, a) for i, a in zip(self.inputs, args))
        for index, node in enumerate(self.nodes):
            values = [env[name] if name else None for name in node.input]
            if all(v is None or is_const(v) for v in values):
                outs = self._fold(node, values)
            else:
                outs = self._convert(node, values, index)
            for name, v in zip(node.output, outs):
                if name:
                    env[name] = v
        return [const_tensor(self._node(self.nodes[-1]), env[o.name]) if is_const(env[o.name]) else env[o.name]
                for o in self.outputs]

    def _node(self, node) -> Node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
        return Node(node.op_type, node.name or f"{node.op_type}:{node.output[0]}", attrs, len(node.output),
                    self.float_dtype)

    def _fold(self, node, values) -> list[np.ndarray]:
        """A node on constants, evaluated on the host by ONNX's reference implementation."""
        feeds = {n: v for n, v in zip(node.input, values) if n}
        try:
            outs = ReferenceEvaluator(node, opsets=self.opsets).run(None, feeds)
        except Exception as e:  # noqa: BLE001 - the reference raises anything
            raise UnsupportedOnnxError(node.op_type, node.name, f"cannot be folded at import: {e}") from None
        return [self._const(np.asarray(o)) for o in outs]

    def _convert(self, node, values, index: int) -> list:
        entry = OPS.get(node.op_type)
        n = self._node(node)
        if entry is None:
            raise UnsupportedOnnxError(node.op_type, n.name, "this ONNX operator is not supported on computed "
                                       f"tensors (supported: {', '.join(sorted(OPS))})")
        for attr in n.attrs:
            if attr not in entry.attrs:
                n.fail("is not supported", attr)
        try:
            out = _located(self.file, index + 1)(entry.convert, n, values)
        except UnsupportedOnnxError:
            raise
        except PyascError as e:
            raise ModelError(f"ONNX node '{n.name}' ({node.op_type}): {e.detail}", shapes=e.shapes,
                             dtypes=e.dtypes) from None
        return list(out) if isinstance(out, list | tuple) else [out]
