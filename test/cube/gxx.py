"""The emitted Ascend C of a compiled program, checked with ``g++ -fsyntax-only`` against the stub headers."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest

import pyasc


def assert_compiles(src: str) -> None:
    """``src`` compiles against lowering/emit/include (skipped without g++)."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    inc = os.path.join(os.path.dirname(pyasc.lowering.__file__), "emit", "include")
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as fh:
        fh.write(src)
    r = subprocess.run([gxx, "-std=c++17", "-fsyntax-only", "-I", inc, fh.name], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
