"""``asc.runtime.config``: the backend and platform kernels run on.

* ``Backend.Model`` (the default): pyasc's simulator, with the hazard and contract checks;
* ``Backend.NPU``: writes the kernel's Ascend C project (there is no NPU here) and says how to build it;
* ``Backend.CPU``: builds the emitted project with g++ against pyasc's CPU implementation and runs it.
"""

from __future__ import annotations

import os
from enum import Enum


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"
    CPU = "CPU"


class Platform(Enum):
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


class KernelType(Enum):
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


# pyasc's target presets (dialects/target.py) for each platform
_TARGET = {"Ascend910B1": "ascend910b1", "Ascend910B2": "ascend910b2", "Ascend910B2C": "ascend910b2",
           "Ascend910B3": "ascend910b3", "Ascend910B4": "ascend910b4", "Ascend910B4-1": "ascend910b4"}

_state = {"backend": Backend.Model, "platform": Platform.Ascend910B1, "device_id": None,
          "hazards": os.environ.get("PYASC_KERNEL_HAZARDS", "error"),
          "project_dir": os.environ.get("PYASC_KERNEL_PROJECT_DIR", "asc_projects")}


def set_platform(backend: Backend | str = Backend.Model, soc_version: Platform | str | None = None,
                 device_id: int | None = None, check: bool = True) -> None:
    """Choose the backend (``Model``, ``NPU`` or ``CPU``) and the platform (default Ascend910B1)."""
    _state["backend"] = Backend(backend)
    _state["platform"] = Platform(soc_version) if soc_version is not None else Platform.Ascend910B1
    _state["device_id"] = device_id


def backend() -> Backend:
    return _state["backend"]


def platform() -> Platform:
    return _state["platform"]


def target_name(p: Platform | None = None) -> str:
    """pyasc's target of a platform (the Ascend910_93 family is modelled as Ascend910B1)."""
    p = p or _state["platform"]
    return _TARGET.get(p.value, "ascend910b1")


def set_hazard_policy(policy: str) -> None:
    """What a Model run does with hazard findings: "error" (raise, the default), "warn" or "ignore"."""
    if policy not in ("error", "warn", "ignore"):
        raise ValueError(f"hazard policy must be error, warn or ignore, got {policy!r}")
    _state["hazards"] = policy


def hazard_policy() -> str:
    return _state["hazards"]


def set_project_dir(path: str) -> None:
    """Where the NPU backend writes projects (one folder per kernel)."""
    _state["project_dir"] = path


def project_dir() -> str:
    return _state["project_dir"]
