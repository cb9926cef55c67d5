"""Running a traced kernel on the configured backend.

* Model: pyasc's simulator runs the module on the arguments' memory (NumPy arrays and CPU torch
  tensors are shared, so outputs land in place); the report (cycles, findings naming the kernel's
  lines) is kept as ``kernel.last_report``; hazard findings raise ``KernelHazardError`` by default
  (``config.set_hazard_policy`` or the ``hazards=`` jit option);
* NPU: writes the Ascend C project with the inputs and explains how to build and run it;
* CPU: builds the emitted project with g++ and copies its outputs back.
"""

from __future__ import annotations

import logging
import os
import warnings

import numpy as np

from .errors import KernelError
from .jit import ArgSpec, Compiled

log = logging.getLogger("pyasc.kernel")


class KernelHazardError(KernelError):
    """The simulator found hazards (races, unpaired flags, ...) in a kernel; ``report`` has them all."""

    def __init__(self, op, detail, report, **kw):
        super().__init__(op, detail, **kw)
        self.report = report


def _as_array(value, spec: ArgSpec) -> tuple[np.ndarray, object]:
    """A NumPy view of an argument (and the object to copy it back into when it is a copy)."""
    if spec.kind == "struct":
        return spec.value.pack(), None
    if spec.kind == "scalar":
        return np.array([spec.value], spec.dtype.np_dtype), None
    if isinstance(value, np.ndarray):
        return value, None
    t = value.detach()
    if spec.dtype.ir == "bf16":
        import torch

        arr = t.contiguous().view(torch.int16).numpy().view(spec.dtype.np_dtype)
    else:
        arr = t.contiguous().numpy()
    shares = t.is_contiguous() and t.data_ptr() == value.data_ptr()
    return arr, (None if shares else value)


def _copy_back(target, arr: np.ndarray) -> None:
    import torch

    src = torch.from_numpy(np.ascontiguousarray(arr).view(np.int16) if arr.dtype.name == "bfloat16" else arr)
    if target.dtype == torch.bfloat16:
        src = src.view(torch.bfloat16)
    target.copy_(src.reshape(target.shape))


def host_arrays(c: Compiled, specs: list[ArgSpec], values: list) -> tuple[list, list]:
    """The host function's arguments in its order, and (target, array) pairs to copy back."""
    kvals = [(s, v) for s, v in zip(specs, values) if s.kind != "const"]
    arrays, back = [], []
    for i in c.host_order:
        s, v = kvals[i]
        arr, target = _as_array(v, s)
        arrays.append(arr)
        if target is not None:
            back.append((target, arr))
    return arrays, back


def launch(c: Compiled, specs: list[ArgSpec], values: list, opts: dict):
    from .runtime import config

    backend = config.backend()
    arrays, back = host_arrays(c, specs, values)
    if backend == config.Backend.Model:
        report = simulate(c, arrays, opts.get("hazards") or config.hazard_policy())
    elif backend == config.Backend.CPU:
        report = cpu(c, arrays)
    else:
        return write_npu_project(c, arrays)
    for target, arr in back:
        _copy_back(target, arr)
    return report


def simulate(c: Compiled, arrays: list, policy: str = "error"):
    """Run the module on the simulator (arrays in the host function's order, outputs in place)."""
    from pyasc.runtime import Simulator

    if c.simulator is None:
        c.simulator = Simulator(c.module, hazards="ignore")
    report = c.simulator.run(c.host, arrays, raise_errors=True)
    report.findings.extend(c.extra.get("sync_findings", []))
    c.last_report = report
    errors = report.errors
    if errors and policy != "ignore":
        text = "\n".join(str(f) for f in errors)
        if policy == "error":
            raise KernelHazardError(c.kernel, f"the simulator found {len(errors)} hazard(s):\n{text}", report,
                                    location=errors[0].loc or c.kernel)
        warnings.warn(f"asc.{c.kernel}: {len(errors)} hazard(s):\n{text}", RuntimeWarning, stacklevel=4)
    return report


def cpu(c: Compiled, arrays: list, workdir=None):
    """Build the emitted project with g++, run it on ``arrays``, copy its outputs into them."""
    from pyasc.lowering.emit.cpu import cpu_run
    from pyasc.lowering.emit.host import host_plan

    plan = host_plan(c.module, c.host)
    host_args = list(c.module.body.block.ops)[1].body.block.args
    by_value = {a: arr for a, arr in zip(host_args, arrays)}
    inputs = {b.name: by_value[b.value].reshape(-1) for b in plan.inputs}
    res = cpu_run(c.module, inputs, host=c.host, workdir=workdir, keep=workdir is not None)
    for b in plan.outputs:
        out = res.outputs.get(b.name)
        if out is None:
            raise KernelError(c.kernel, f"the CPU run produced no output '{b.name}':\n{res.stdout}\n{res.stderr}")
        dst = by_value[b.value]
        dst.reshape(-1)[...] = out.view(dst.dtype) if out.dtype != dst.dtype else out
    c.last_report = res
    return res


def write_npu_project(c: Compiled, arrays: list, out_dir=None):
    """Write the kernel's Ascend C project (kernel, AscendCL host, CMake, input data) for an NPU."""
    from pyasc.lowering.emit.host import host_plan
    from pyasc.lowering.emit.project import soc_version, write_project

    from .runtime import config

    out = out_dir or os.path.join(config.project_dir(), c.kernel)
    plan = host_plan(c.module, c.host)
    host_args = list(c.module.body.block.ops)[1].body.block.args
    by_value = {a: arr for a, arr in zip(host_args, arrays)}
    inputs = {b.name: by_value[b.value].reshape(-1) for b in plan.inputs}
    write_project(c.module, out, inputs=inputs, force=True, host=c.host)
    msg = (f"asc.{c.kernel}: there is no NPU here; the Ascend C project is in {os.path.abspath(out)}.\n"
           f"  On a machine with CANN and an {soc_version(c.module)} NPU: source <CANN>/set_env.sh, then\n"
           f"  `cd {out} && ./run.sh` builds it (CMake, find_package(ASC)) and runs it\n"
           f"  (`./run.sh cpu` runs it on the CPU with g++). Outputs were not computed.")
    log.warning(msg)
    print(msg)
    return out
