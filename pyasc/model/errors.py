"""The errors of model import and inference."""

from __future__ import annotations

from pyasc.errors import PyascError


class ModelError(PyascError):
    """A model file pyasc cannot load or a call of a model it cannot serve."""

    def __init__(self, detail: str, **kw):
        super().__init__("model", detail, **kw)


class UnsupportedOnnxError(ModelError):
    """An ONNX node (op type, attribute or attribute value) the importer does not support."""

    def __init__(self, op_type: str, node_name: str, detail: str, attribute: str | None = None):
        self.op_type = op_type
        self.node_name = node_name
        self.attribute = attribute
        where = f"ONNX node '{node_name}' ({op_type})"
        what = f"attribute '{attribute}' " if attribute else ""
        super().__init__(f"{where}: {what}{detail}")
