"""Shared fixtures of the front-end tests.

``backend`` marks tests that compile through the whole pipeline and run on the simulator; they
are skipped with the reason when the lowering passes or the simulator are not importable yet.
"""

from __future__ import annotations

import importlib
import os
import tempfile

import pytest

# the tests never read or fill the user's compilation cache (~/.cache/pyasc)
os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc  # noqa: E402

_BACKEND_MODULES = (
    "pyasc.lowering.tile_elementwise",
    "pyasc.lowering.bufferize",
    "pyasc.lowering.plan_memory",
    "pyasc.lowering.insert_sync",
    "pyasc.lowering.to_ascendc",
)


def _backend_missing() -> str | None:
    missing = []
    for name in _BACKEND_MODULES:
        try:
            importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - any failure means the backend is not usable
            missing.append(f"{name} ({type(e).__name__}: {e})")
    try:
        from pyasc.lowering.pipeline import CompileOptions, passes_to

        passes_to("ascendc", CompileOptions())
    except Exception as e:  # noqa: BLE001
        missing.append(f"the ascendc pipeline ({type(e).__name__}: {e})")
    try:
        from pyasc.runtime import Simulator  # noqa: F401
    except Exception as e:  # noqa: BLE001
        missing.append(f"pyasc.runtime.Simulator ({type(e).__name__}: {e})")
    if missing:
        return "compiler back end not available yet: " + "; ".join(missing)
    return None


BACKEND_MISSING = _backend_missing()
requires_backend = pytest.mark.skipif(BACKEND_MISSING is not None, reason=BACKEND_MISSING or "")


@pytest.fixture
def reference_eager():
    """Run eager ops with the NumPy reference instead of compiling them."""
    saved = pyasc.get_eager_backend()
    pyasc.set_eager_backend("reference")
    yield
    pyasc.set_eager_backend(saved)


@pytest.fixture
def simulator_eager():
    saved = pyasc.get_eager_backend()
    pyasc.set_eager_backend("simulator")
    yield
    pyasc.set_eager_backend(saved)


def count_launches(fn, *args):
    """``fn(*args)`` and the number of kernel launches the simulator ran for it."""
    from pyasc.runtime import simulator

    seen = []

    def listen(sim, host, report):
        seen.extend(report.launches)

    simulator.add_listener(listen)
    try:
        out = fn(*args)
    finally:
        simulator.remove_listener(listen)
    return out, len(seen)
