"""The five official pyasc tutorials (``python/tutorials`` of hicann/pyasc) on ``pyasc.kernel``.

The tutorials are not part of this repository: give their directory with ``--asc-tutorials DIR`` or the
``PYASC_TUTORIALS`` environment variable. Each file is ported by rewriting its import lines only (``IMPORTS``,
the official ``asc`` package is ``pyasc.kernel`` here); every other line runs as written. Each tutorial then:

* runs its own ``*_custom`` function on the simulator (``Backend.Model``), which checks itself with torch;
* runs its launch function on inputs of ours, compared with NumPy;
* reports no finding at all (no hazard, no contract warning);
* has its emitted Ascend C pass the syntax check, and its CPU run (``Backend.CPU``) match NumPy too;
* with any one of its flag pairs or single-pipe barriers removed, reports the missing synchronisation.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import pyasc.kernel.runtime.config as config
from pyasc.kernel.jit import sync_findings
from pyasc.lowering.analysis.kernel_sync import sync_groups
from pyasc.lowering.emit.project import write_project
from pyasc.lowering.emit.syntax import check_project, syntax_check

torch = pytest.importorskip("torch")

# the official import line -> ours: the only lines of a tutorial that change
IMPORTS = {
    "import asc": "import pyasc.kernel as asc",
    "import asc.runtime.config as config": "import pyasc.kernel.runtime.config as config",
    "import asc.lib.runtime as rt": "import pyasc.kernel.lib.runtime as rt",
    "import asc.lib.host as host": "import pyasc.kernel.lib.host as host",
}
_ASC_IMPORT = re.compile(r"^\s*(import|from)\s+asc\b")


def port(source: str) -> tuple[str, list[tuple[int, str, str]]]:
    """The tutorial with its ``asc`` imports rewritten, and the (line, old, new) of every change."""
    lines = source.splitlines(keepends=True)
    changes = []
    for i, line in enumerate(lines):
        new = IMPORTS.get(line.strip())
        if new is not None:
            changes.append((i + 1, line.strip(), new))
            lines[i] = line.replace(line.strip(), new)
        elif _ASC_IMPORT.match(line):
            raise AssertionError(f"line {i + 1} imports the asc package in a form the port does not know: {line!r}")
    return "".join(lines), changes


def tutorial_dir(config_) -> Path:
    path = config_.getoption("--asc-tutorials") or os.environ.get("PYASC_TUTORIALS")
    if not path:
        pytest.skip("the official tutorials are not in this repository: pass --asc-tutorials DIR or set "
                    "PYASC_TUTORIALS to hicann/pyasc's python/tutorials")
    if not Path(path).is_dir():
        pytest.skip(f"the tutorial directory {path} does not exist")
    return Path(path)


def load(path: Path, tmp: Path):
    """Import the ported tutorial (from a copy with the same file name, so findings name its lines)."""
    source, changes = port(path.read_text())
    dst = tmp / path.name
    dst.write_text(source)
    name = f"asc_tutorial_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, dst)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(name, None)
    return mod, changes


def _ints(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).integers(-5, 5, shape).astype(np.float16))


def _vadd(mod):
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.random(8 * 2048, dtype=np.float32))
    y = torch.from_numpy(rng.random(8 * 2048, dtype=np.float32))
    return mod.vadd_launch(x, y).numpy(), x.numpy() + y.numpy()


def _matmul_mix(mod):
    m, k, n = 512, 512, 1024
    a, b = _ints((m, k), 2), _ints((k, n), 3)
    c = mod.matmul_launch(a, b, mod.generate_tiling(m, n, k), "cpu")
    return c.numpy(), a.numpy().astype(np.float32) @ b.numpy().astype(np.float32)


def _matmul_cube_only(mod):
    m, k, n = 128, 64, 30720
    a, b = _ints((m, k), 4), _ints((k, n), 5)
    bias = torch.from_numpy(np.random.default_rng(6).integers(-5, 5, (1, n)).astype(np.float32))
    c = mod.matmul_launch(a, b, bias, mod.generate_tiling(m, n, k), "cpu")
    return c.numpy(), a.numpy().astype(np.float32) @ b.numpy().astype(np.float32)  # ENABLE_BIAS = False


def _matmul_leakyrelu(mod):
    m, k, n = 1024, 256, 640
    a, b = _ints((m, k), 7), _ints((k, n), 8)
    bias = np.random.default_rng(9).integers(-5, 5, (1, n)).astype(np.float32)
    alpha = 0.001
    c = mod.matmul_leakyrelu_launch(a, b, torch.from_numpy(bias), alpha, mod.generate_tiling(m, n, k), "cpu")
    mm = a.numpy().astype(np.float32) @ b.numpy().astype(np.float32) + bias
    return c.numpy(), np.where(mm >= 0, mm, mm * np.float32(alpha))


@dataclass(frozen=True)
class Tutorial:
    path: str
    kernel: str  # the @asc.jit kernel's name in the file
    custom: str  # the tutorial's own entry point, which checks its result itself
    with_platform: bool  # whether the entry point takes (backend, platform)
    ours: object  # a run on our inputs: (result, NumPy reference)
    imports: int  # how many import lines the port changes


TUTORIALS = [
    Tutorial("01_add/add.py", "vadd_kernel", "vadd_custom", False, _vadd, 3),
    Tutorial("02_add_framework/add_framework.py", "vadd_kernel", "vadd_custom", False, _vadd, 3),
    Tutorial("03_matmul_mix/matmul_mix.py", "matmul_kernel", "matmul_mix_custom", True, _matmul_mix, 4),
    Tutorial("04_matmul_cube_only/matmul_cube_only.py", "matmul_kernel", "matmul_cube_only_custom", True,
             _matmul_cube_only, 4),
    Tutorial("05_matmul_leakyrelu/matmul_leakyrelu.py", "matmul_leakyrelu_kernel", "matmul_leakyrelu_custom", True,
             _matmul_leakyrelu, 4),
]


def test_port_changes_only_the_import_lines():
    src = "import torch\nimport asc\nimport asc.lib.host as host\nx = asc.add\n"
    out, changes = port(src)
    assert out == "import torch\nimport pyasc.kernel as asc\nimport pyasc.kernel.lib.host as host\nx = asc.add\n"
    assert [c[0] for c in changes] == [2, 3]
    with pytest.raises(AssertionError, match="line 1"):
        port("from asc import jit\n")


@pytest.mark.parametrize("tut", TUTORIALS, ids=lambda t: t.path.split("/")[0])
def test_official_tutorial(tut, request, tmp_path):
    path = tutorial_dir(request.config) / tut.path
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    mod, changes = load(path, tmp_path)
    assert len(changes) == tut.imports, changes
    original, ported = path.read_text().splitlines(), (tmp_path / path.name).read_text().splitlines()
    assert len(original) == len(ported)
    assert [i + 1 for i, (a, b) in enumerate(zip(original, ported)) if a != b] == [c[0] for c in changes]
    kernel = getattr(mod, tut.kernel)

    # the tutorial as written, on the simulator: it asserts its own result
    model = config.Backend.Model
    getattr(mod, tut.custom)(*((model, None) if tut.with_platform else (model,)))
    assert kernel.last_report.findings == [], str(kernel.last_report)

    # our inputs, against NumPy
    got, want = tut.ours(mod)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    report = kernel.last_report
    assert report.findings == [] and report.cycles > 0, str(report)

    # the emitted Ascend C: syntax check of the kernel and the project, then the CPU run
    comp = kernel.last_compiled
    res = syntax_check(comp.kernel_source())
    if res.skipped:
        pytest.skip(f"no C++ compiler for the syntax check: {res.diagnostics}")
    assert res.ok, res.diagnostics
    write_project(comp.module, tmp_path / "project", host=comp.host)
    for name, r in check_project(tmp_path / "project").items():
        assert r.ok, f"{name}: {r.diagnostics}"
    config.set_platform(config.Backend.CPU)
    got_cpu, want = tut.ours(mod)
    np.testing.assert_allclose(got_cpu, want, rtol=1e-6, atol=0)

    # removing any one of its flag pairs or barriers is reported
    groups = sync_groups(next(iter(comp.module.ops)))
    missed = []
    for i in range(len(groups)):
        mutant = comp.module.clone()
        kernel_op = next(iter(mutant.ops))
        removed = sync_groups(kernel_op)[i]
        where = sorted({f"{op.name}@{op.attributes['asc.loc'].data}" for op in removed})
        for op in removed:
            op.detach()
            op.erase()
        if not any(f.kind == "missing-sync" for f in sync_findings(kernel_op)):
            missed.append(where)
    print(f"{tut.path}: {len(groups)} synchronisation groups, {len(groups) - len(missed)} reported when removed")
    assert not missed, f"removing these went unnoticed: {missed}"
