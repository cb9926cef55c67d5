"""``pyasc.shape_inference``: the shape and dtype of every tensor of a model."""

from __future__ import annotations

import onnx
from onnx import TensorProto

from .errors import ModelError
from .importer import read_model


class ShapeReport(dict):
    """Tensor name -> ``{'shape': [...], 'dtype': ...}`` (symbolic dims as strings), printed as a table."""

    def __str__(self) -> str:
        width = max((len(n) for n in self), default=4)
        lines = [f"{'tensor':<{width}}  dtype     shape"]
        lines += [f"{n:<{width}}  {v['dtype']:<8}  {v['shape']}" for n, v in self.items()]
        return "\n".join(lines)


def _entry(vi) -> dict:
    t = vi.type.tensor_type
    shape = [d.dim_param or (d.dim_value if d.HasField("dim_value") else "?") for d in t.shape.dim] \
        if t.HasField("shape") else None
    return {"shape": shape, "dtype": TensorProto.DataType.Name(t.elem_type).lower()}


def shape_inference(model) -> ShapeReport:
    """Every tensor of ``model`` (an OMModel, a path or an ONNX ModelProto) with its shape and dtype,
    in graph order: inputs, intermediate values, outputs, by ONNX's shape inference."""
    proto = getattr(getattr(model, "graph", None), "proto", None) or read_model(model)
    try:
        inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=True)
    except Exception as e:  # noqa: BLE001 - onnx raises its own error kinds
        raise ModelError(f"shape inference failed: {e}") from None
    g = inferred.graph
    report = ShapeReport()
    init = {t.name for t in g.initializer}
    for vi in [*g.input, *g.value_info, *g.output]:
        if vi.name not in init:
            report[vi.name] = _entry(vi)
    return report
