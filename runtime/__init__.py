"""The pyasc runtime: a cycle-approximate simulator of the ``ascendc`` level.

``Simulator(module).run(host, arrays)`` or ``simulate(module_or_text, *arrays)`` execute a module's host
function on NumPy arrays and return a ``Report`` (time, cycles, pipe utilisation, findings); fatal
problems raise ``SimulationError``.
"""

from .errors import Finding, HazardError, SimulationError
from .hazards import get_hazard_policy, hazard_policy, set_hazard_policy
from .initcheck import get_initcheck_default, set_initcheck_default
from .report import LaunchReport, Report
from .simulator import Simulator, parse_module, simulate

__all__ = ["Simulator", "simulate", "parse_module", "Report", "LaunchReport", "Finding", "SimulationError",
           "HazardError", "set_hazard_policy", "get_hazard_policy", "hazard_policy",
           "set_initcheck_default", "get_initcheck_default"]
