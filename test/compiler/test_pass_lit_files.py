"""Every registered pass has its own lit file, ``test/lit/transforms/<pass-name>.mlir``, whose RUN
line runs that pass (xDSL's convention)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pyasc.lowering import get_all_passes

TRANSFORMS = Path(__file__).resolve().parents[1] / "lit" / "transforms"


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_pass_has_its_lit_file(name):
    path = TRANSFORMS / f"{name}.mlir"
    assert path.is_file(), f"no lit test for pass '{name}' at {path}"
    runs = [line for line in path.read_text().splitlines() if line.lstrip("/ ").startswith("RUN:")]
    assert runs, f"{path} has no RUN line"
    assert any(re.search(rf"-p\s+'?{re.escape(name)}\b", line) for line in runs), \
        f"{path}: no RUN line runs -p {name}"
