"""Model inference: ONNX models imported into ``asctensor`` programs (``pyasc.OMModel``,
``pyasc.load_model``, ``pyasc.shape_inference``); the supported ONNX ops are ``onnx_ops.OPS``."""

from .errors import ModelError, UnsupportedOnnxError
from .model import InferFuture, OMModel, load_model
from .shapes import ShapeReport, shape_inference

__all__ = ["InferFuture", "ModelError", "OMModel", "ShapeReport", "UnsupportedOnnxError", "load_model",
           "shape_inference"]
