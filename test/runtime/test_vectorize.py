"""Row loops run vectorised (runtime/vectorize.py) give the same bytes, timing, findings and traces."""

from __future__ import annotations

import pytest

import pyasc
from pyasc.runtime import simulator as sim_mod
from pyasc.runtime import vectorize
from pyasc.runtime.simulator import Simulator


def _run(fn, inputs, vectorise: bool, monkeypatch):
    traces = []
    schedule = sim_mod.schedule

    def record(tr, *a, **k):
        traces.append(tuple(tr))
        return schedule(tr, *a, **k)

    with monkeypatch.context() as m:
        m.setattr(sim_mod, "schedule", record)
        if not vectorise:
            m.setattr(vectorize, "plan_loop", lambda t, op: None)
        compiled = pyasc.jit(fn).lower(*inputs).compile()
        sim = Simulator(compiled.module)
        host = sim.host_functions[0]
        arrays = [t.numpy() for t in inputs]
        args = arrays + sim.allocate_outputs(host, len(arrays))
        report = sim.run(host, args)
        source = "".join(sim.kernel_source(k) for k in sim.kernels)
    return args[len(arrays):], report, traces, source


@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
@pytest.mark.parametrize("shape", [(96, 1024), (37, 300), (1000, 64)])
@pytest.mark.parametrize("op", ["softmax", "layer_norm"])
def test_vectorised_rows_identical(op, shape, dtype, monkeypatch):
    pyasc.manual_seed(3)
    x = pyasc.randn(*shape, dtype=dtype)
    if op == "softmax":
        fn, inputs = (lambda x: pyasc.softmax(x, -1)), (x,)
    else:
        n = shape[-1]
        fn = lambda x, w, b: pyasc.layer_norm(x, (n,), w, b)  # noqa: E731
        inputs = (x, pyasc.randn(n, dtype=dtype), pyasc.randn(n, dtype=dtype))
    out0, rep0, tr0, _ = _run(fn, inputs, False, monkeypatch)
    out1, rep1, tr1, src = _run(fn, inputs, True, monkeypatch)
    if shape[0] >= 96:
        assert "_V2(" in src  # several rows per tile: some loop was vectorised
    assert all(a.tobytes() == b.tobytes() for a, b in zip(out0, out1))
    assert tr0 == tr1
    assert rep0.cycles == rep1.cycles
    assert [str(f) for f in rep0.findings] == [str(f) for f in rep1.findings]
