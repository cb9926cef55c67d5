"""``pyasc run kernel.mlir --inputs a.npy b.npy``: simulate an ``ascendc``-level module from a file.

The host function's arguments are the given arrays followed by its outputs (allocated from their
memref types). The report (time, pipes, hazard findings) is printed; a program with a fatal error or
error findings prints the report, no results, and exits with code 1.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from .errors import SimulationError
from .simulator import Simulator, parse_module


def run_mlir(args) -> int:
    path = args.function
    try:
        text = open(path).read()
    except OSError as e:
        print(f"pyasc: error: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        module = parse_module(text)
        module.verify()
    except Exception as e:  # noqa: BLE001 - parse and verifier diagnostics
        print(f"pyasc: error: {path} is not a valid module:\n{e}", file=sys.stderr)
        return 1
    arrays = []
    for f in getattr(args, "inputs", None) or []:
        try:
            arrays.append(np.load(f))
        except (OSError, ValueError) as e:
            print(f"pyasc: error: cannot load {f}: {e}", file=sys.stderr)
            return 1
    try:
        sim = Simulator(module, hazards="ignore", block_dim=getattr(args, "block_dim", None))
        host = getattr(args, "host", None)
        if host is None:
            hosts = sim.host_functions
            if len(hosts) != 1:
                raise SimulationError(f"the module has {len(hosts)} host functions ({', '.join(hosts)}); "
                                      "choose one with --host")
            host = hosts[0]
        outs = sim.allocate_outputs(host, len(arrays))
        report = sim.run(host, arrays + outs, raise_errors=False)
    except SimulationError as e:
        print(f"pyasc: error: {e}", file=sys.stderr)
        return 1
    print(report)
    if not report.ok:
        why = report.error.kind if report.error is not None else f"{len(report.errors)} error finding(s)"
        print(f"no results: the program is wrong ({why})")
        return 1
    for i, o in enumerate(outs):
        print(f"output {i}: {o.dtype}{list(o.shape)}  min {o.min() if o.size else '-'}  max {o.max() if o.size else '-'}")
    save = getattr(args, "save", None)
    if save:
        os.makedirs(save, exist_ok=True)
        for i, o in enumerate(outs):
            np.save(os.path.join(save, f"out{i}.npy"), o)
        print(f"wrote {len(outs)} output(s) to {save}")
    return 0
