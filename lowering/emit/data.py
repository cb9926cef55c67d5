"""Input and golden data for an emitted project: random inputs and the simulator's outputs.

The simulator lives in ``pyasc.runtime``; it is imported here only when data files are asked for
(``pyasc-opt -t ascendc-project`` with ``data=true``), so the emitter itself does not depend on it.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from .common import EmitError
from .host import host_plan


def _dtype(element: str):
    from .host import element_numpy_dtype

    name = element_numpy_dtype(element)
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def random_inputs(module: ModuleOp, host: str | None = None, seed: int = 0) -> dict[str, np.ndarray]:
    """Random arrays for the host function's inputs (normal floats, integers in [-100, 100))."""
    plan = host_plan(module, host)
    rng = np.random.default_rng(seed)
    out = {}
    for b in plan.inputs:
        dt = _dtype(b.element)
        if dt.kind in "iub":
            out[b.name] = rng.integers(-100, 100, b.count).astype(dt)
        else:
            out[b.name] = rng.standard_normal(b.count).astype(dt)
    return out


def simulate(module: ModuleOp, inputs: dict[str, np.ndarray], host: str | None = None) -> dict[str, np.ndarray]:
    """The simulator's outputs for ``inputs`` (flat arrays keyed by output buffer name)."""
    try:
        from pyasc.runtime import Simulator
    except ImportError as e:  # pragma: no cover - the runtime ships with pyasc
        raise EmitError(f"the simulator is not available for golden data: {e}") from None
    plan = host_plan(module, host)
    arrays = []
    for b in plan.buffers:
        if b.role == "temp":
            continue
        if b.is_input:
            arrays.append(np.ascontiguousarray(np.asarray(inputs[b.name]).astype(_dtype(b.element)).reshape(-1)))
        else:
            arrays.append(np.zeros(b.count, _dtype(b.element)))
    fn = next(op for op in module.ops if getattr(op, "sym_name", None) is not None
              and op.sym_name.data == plan.name)
    shaped = [a.reshape(arg.type.get_shape()) for a, arg in zip(arrays, fn.body.block.args)]
    Simulator(module).run(plan.name, shaped)
    args = [b for b in plan.buffers if b.role != "temp"]
    return {b.name: a.reshape(-1) for b, a in zip(args, shaped) if b.is_output}


def simulated_data(module: ModuleOp, host: str | None = None, seed: int = 0):
    """``(inputs, goldens)`` for :func:`write_project`: random inputs and their simulated outputs."""
    inputs = random_inputs(module, host, seed)
    return inputs, simulate(module, inputs, host)


__all__ = ["random_inputs", "simulate", "simulated_data"]
