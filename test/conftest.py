"""Suite-wide settings: the simulator's hazard checker turns races and flag errors into failures."""

import pyasc.runtime as _rt

_rt.set_hazard_policy("error")
