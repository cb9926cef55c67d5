"""The model object of the documentation's inference chapter::

    model = pyasc.OMModel("resnet50.onnx", dtype="float16")
    model.inputs                      # [{'name': 'x', 'shape': ['batch', 3, 224, 224], 'dtype': ..., 'format': 'NCHW'}]
    model.set_dynamic_batch([1, 4, 8])
    y = model.infer(x)                # one array, a list, or a dict by input name
    future = model.infer_async(x, stream=s)
    future.result()

Each input signature (a batch size, an image size) is traced and compiled once, on first use,
through ``pyasc.jit`` (so compiled programs are also served from its disk cache). A folder written by
``pyasc convert`` (``convert.py``) loads its compiled gears instead.
"""

from __future__ import annotations

import numpy as np

import pyasc
from pyasc.errors import describe
from pyasc.interop import is_torch_tensor

from pyasc.jit import TensorSpec

from .convert import is_converted, load_converted
from .errors import ModelError
from .importer import OnnxGraph

_NUMPY = {"float32": np.float32, "float16": np.float16, "int32": np.int32, "int8": np.int8, "bool": np.bool_}


class InferFuture:
    """The pending result of ``infer_async``: ``result()`` waits (runs the stream up to the
    inference), ``done()`` tells whether it has run, ``event`` is recorded after it (its simulated
    time is the completion time)."""

    def __init__(self, outputs, event, single: bool):
        self._outputs = outputs
        self.event = event
        self._single = single

    def done(self) -> bool:
        return self.event.query()

    def result(self):
        self.event.synchronize()
        return self._outputs[0] if self._single else list(self._outputs)

    def __repr__(self) -> str:
        return f"<pyasc.model.InferFuture {'done' if self.done() else 'pending'}>"


class OMModel:
    """A model loaded from its ONNX file, compiled per input signature and run on the simulator."""

    def __init__(self, path, dtype: str | None = None):
        self.path = path
        self._saved: dict = {}  # input signature -> program loaded from a converted model (``convert``)
        batches, hw = None, None
        if is_converted(path):
            path, saved_dtype, batches, hw, self._saved = load_converted(path)
            if dtype is not None and dtype != saved_dtype:
                raise ModelError(f"'{self.path}' was converted in {saved_dtype}; convert it again for {dtype}")
            dtype = saved_dtype
        self.graph = OnnxGraph(path, dtype)
        self.dtype = self.graph.dtype
        graph = self.graph

        def model(*inputs):
            outs = graph.run(inputs)
            return tuple(outs) if len(outs) > 1 else outs[0]

        model.__name__ = model.__qualname__ = self.graph.name
        self._fn = pyasc.jit(model)
        self._batches: list[int] | None = batches
        self._hws: list[tuple[int, int]] | None = [hw] if hw else None

    def __repr__(self) -> str:
        return f"<pyasc.OMModel {self.graph.name} ({self.dtype}), {len(self.graph.nodes)} nodes>"

    @property
    def inputs(self) -> list[dict]:
        return [i.as_dict() for i in self.graph.inputs]

    @property
    def outputs(self) -> list[dict]:
        return [o.as_dict() for o in self.graph.outputs]

    # -- dynamic shapes ---------------------------------------------------------------------
    def set_dynamic_batch(self, batches) -> None:
        """The batch sizes (gears) the model serves; each compiles on its first use."""
        batches = [int(b) for b in batches]
        if not batches or min(batches) < 1:
            raise ModelError(f"set_dynamic_batch needs positive batch sizes, got {batches}")
        self._batches = sorted(set(batches))

    def set_dynamic_hw(self, sizes) -> None:
        """The (height, width) gears of the image inputs; each compiles on its first use."""
        sizes = [tuple(int(v) for v in s) for s in sizes]
        if not sizes or any(len(s) != 2 or min(s) < 1 for s in sizes):
            raise ModelError(f"set_dynamic_hw needs (height, width) pairs, got {sizes}")
        self._hws = sizes

    def _check_gears(self, arrays) -> None:
        for info, a in zip(self.graph.inputs, arrays):
            shape = a.shape
            if len(shape) != len(info.shape):
                raise ModelError(f"input '{info.name}' has rank {len(info.shape)} {list(info.shape)}, got shape "
                                 f"{shape}", shapes=[shape])
            if self._batches is not None and shape[0] not in self._batches:
                raise ModelError(f"batch size {shape[0]} of input '{info.name}' matches no gear of "
                                 f"set_dynamic_batch (gears: {self._batches})", shapes=[shape])
            if self._hws is not None and len(shape) == 4 and tuple(shape[2:]) not in self._hws:
                raise ModelError(f"image size {tuple(shape[2:])} of input '{info.name}' matches no gear of "
                                 f"set_dynamic_hw (gears: {self._hws})", shapes=[shape])
            for i, (want, got) in enumerate(zip(info.shape, shape)):
                dynamic = (i == 0 and self._batches is not None) or (i >= 2 and self._hws is not None)
                if isinstance(want, int) and want != got and not dynamic:
                    raise ModelError(f"input '{info.name}' expects shape {list(info.shape)}, got {shape}",
                                     shapes=[shape])

    # -- inputs -----------------------------------------------------------------------------
    def prepare_inputs(self, x) -> list[pyasc.Tensor]:
        """``x`` (one array, a list or a dict by input name) as the program's input tensors, in the
        model's dtypes; ModelError for a wrong name, count or rank, or a shape matching no gear."""
        names = [i.name for i in self.graph.inputs]
        if isinstance(x, dict):
            missing, extra = set(names) - set(x), set(x) - set(names)
            if missing or extra:
                raise ModelError(f"the inputs are {names}; missing {sorted(missing)}, unknown {sorted(extra)}")
            items = [x[n] for n in names]
        elif isinstance(x, list | tuple):
            items = list(x)
        else:
            items = [x]
        if len(items) != len(names):
            raise ModelError(f"the model takes {len(names)} input(s) {names}, got {len(items)}")
        out = []
        for info, a in zip(self.graph.inputs, items):
            if isinstance(a, pyasc.Tensor):
                a = a.numpy()
            elif is_torch_tensor(a):
                a = a.detach().cpu().numpy()
            elif not isinstance(a, np.ndarray):
                raise ModelError(f"input '{info.name}' must be an array (NumPy, pyasc or torch), got {describe(a)}")
            out.append(pyasc.from_numpy(np.ascontiguousarray(a.astype(_NUMPY[info.dtype], copy=False))))
        self._check_gears(out)
        return out

    # -- compilation and inference ------------------------------------------------------------
    def compile(self, x) -> pyasc.Compiled:
        """The compiled program for the signature of ``x`` (compiled once; disk-cached)."""
        return self.program(self.prepare_inputs(x))

    def program(self, arrays) -> pyasc.Compiled:
        """The program for prepared input tensors (``prepare_inputs``): a converted model's for this signature,
        else the one ``jit`` compiles."""
        saved = self._saved.get(tuple(TensorSpec(tuple(a.shape), a.dtype) for a in arrays))
        return saved if saved is not None else self._fn.compile(*arrays)

    def lower(self, x) -> pyasc.Lowered:
        """The traced program for the signature of ``x`` and its lowerings (``as_text(level)``)."""
        return self._fn.lower(*self.prepare_inputs(x))

    def cache_size(self) -> int:
        """The number of input signatures (gears) compiled so far."""
        return self._fn.cache_size()

    def infer(self, x):
        """Run one inference: the output tensor, or a list of them for several outputs."""
        arrays = self.prepare_inputs(x)
        outs = self.program(arrays)(*arrays)
        return list(outs) if isinstance(outs, tuple) else outs

    def infer_async(self, x, stream=None) -> InferFuture:
        """Queue one inference on ``stream`` (default: the current stream) and return its future."""
        arrays = self.prepare_inputs(x)
        compiled = self.program(arrays)
        s = stream if stream is not None else pyasc.current_stream()
        with pyasc.stream(s):
            outs = compiled(*arrays)
            event = pyasc.Event()
            event.record(s)
        outs = list(outs) if isinstance(outs, tuple) else [outs]
        return InferFuture(outs, event, len(outs) == 1)


def load_model(path, dtype: str | None = None) -> OMModel:
    """``OMModel(path, dtype)``: the documentation's spelling for loading a model."""
    return OMModel(path, dtype)
