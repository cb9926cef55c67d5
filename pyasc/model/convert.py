"""The converted model: what ``pyasc convert model.onnx --output DIR`` writes and ``OMModel(DIR)`` loads.

``DIR/model.json`` names the ONNX file (copied to ``DIR/model.onnx``), the precision and, per gear (an
input signature), the ``ascendc`` module of the compiled program (``gear<i>.mlir``), its constants
(``gear<i>.npz``, the folded weights) and its compile options. ``DIR/project_<i>/`` holds the Ascend C
project of every kernel of that gear. ``OMModel(DIR)`` parses the saved modules instead of compiling.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from .errors import ModelError

MANIFEST = "model.json"
FORMAT = 1


def is_converted(path) -> bool:
    """Whether ``path`` is a folder written by ``convert``."""
    return isinstance(path, str | Path) and (Path(path) / MANIFEST).is_file()


def gear_inputs(model, batch: int | None, hw: tuple[int, int] | None = None) -> list[np.ndarray]:
    """Zero inputs of the model's input shapes, the first dim set to ``batch`` and an image's (height, width)
    to ``hw`` when given."""
    from .model import _NUMPY

    arrays = []
    for info in model.graph.inputs:
        shape = list(info.shape)
        if batch is not None and shape:
            shape[0] = batch
        if hw is not None and len(shape) == 4:
            shape[2:] = hw
        if not all(isinstance(d, int) for d in shape):
            raise ModelError(f"input '{info.name}' has symbolic dims {list(info.shape)}: give the batch sizes "
                             "(--batch) and image size (--hw) to convert for")
        arrays.append(np.zeros(shape, _NUMPY[info.dtype]))
    return arrays


def convert(source, out_dir, dtype: str | None = None, batches=None, hw=None, force: bool = False) -> list[Path]:
    """Compile the ONNX model ``source`` for each batch size of ``batches`` (default: its own batch), at image
    size ``hw`` (height, width) when its inputs leave it open, and write the converted model to ``out_dir``;
    returns the written Ascend C project folders."""
    from .model import OMModel

    out = Path(out_dir)
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ModelError(f"output folder '{out}' exists and is not empty (use --force to overwrite)")
    model = OMModel(source, dtype)
    if batches:
        model.set_dynamic_batch(batches)
    if hw:
        model.set_dynamic_hw([hw])
    signatures = [gear_inputs(model, batch, hw) for batch in batches or [None]]  # checked before writing
    compiled_gears = [model.compile(arrays) for arrays in signatures]
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, out / "model.onnx")
    gears, projects = [], []
    for i, compiled in enumerate(compiled_gears):
        (out / f"gear{i}.mlir").write_text(str(compiled.module))
        np.savez(out / f"gear{i}.npz", *compiled.constants)
        project = out / f"project_{i}"
        compiled.write_project(project, force=True)
        projects.append(project)
        gears.append({"inputs": [[list(s.shape), s.dtype.name] for s in compiled.inputs],
                      "outputs": [[list(s.shape), s.dtype.name] for s in compiled.outputs],
                      "returns_tuple": compiled.returns_tuple, "name": compiled.name,
                      "options": compiled.options.user_options(), "constants": len(compiled.constants)})
    manifest = {"format": FORMAT, "onnx": "model.onnx", "dtype": model.dtype, "batches": batches or None,
                "hw": list(hw) if hw else None, "gears": gears}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return projects


def load_converted(path) -> tuple[Path, str, list | None, tuple | None, dict]:
    """(ONNX file, precision, batch gears, image size, {input signature: compiled program}) of a converted
    model."""
    from pyasc import dtypes as dt
    from pyasc.jit import Compiled, TensorSpec
    from pyasc.lowering.pipeline import CompileOptions
    from pyasc.runtime.simulator import parse_module

    folder = Path(path)
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        if manifest.get("format") != FORMAT:
            raise ModelError(f"'{folder}' was written by another version of pyasc convert")
        programs = {}
        for i, gear in enumerate(manifest["gears"]):
            module = parse_module((folder / f"gear{i}.mlir").read_text())
            with np.load(folder / f"gear{i}.npz") as saved:
                constants = tuple(saved[f"arr_{j}"] for j in range(gear["constants"]))
            specs = [tuple(TensorSpec(tuple(s), dt.get_dtype(d)) for s, d in gear[k]) for k in ("inputs", "outputs")]
            programs[specs[0]] = Compiled(module, gear["name"], CompileOptions.from_dict(gear["options"]),
                                          specs[0], specs[1], gear["returns_tuple"], constants)
    except (OSError, KeyError, ValueError, TypeError) as e:
        raise ModelError(f"'{folder}' is not a complete converted model ({type(e).__name__}: {e})") from None
    hw = tuple(manifest["hw"]) if manifest.get("hw") else None
    return folder / manifest["onnx"], manifest["dtype"], manifest["batches"], hw, programs
