"""What the simulator does with its hazard findings: the hazard policy.

The analysis itself (happens-before over flags, barriers, queues and the in-order scalar unit) runs
with the schedule, see ``schedule``. The policy decides what a run with *error* findings (races,
double or unconsumed sets, rounded-down DataCopy; see ``errors.ERROR_KINDS``) does:

* ``"error"``: ``Simulator.run`` raises ``HazardError`` (carrying the report); the test suite runs so;
* ``"warn"`` (default): a ``RuntimeWarning`` with the findings, once per simulator and kind of finding;
* ``"ignore"``: findings are only in the report;
* ``"off"``: the race analysis is not run at all (other checks stay).

Set it with ``set_hazard_policy`` or the environment variable ``PYASC_HAZARDS``.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

POLICIES = ("error", "warn", "ignore", "off")
_policy = os.environ.get("PYASC_HAZARDS", "warn")
if _policy not in POLICIES:
    _policy = "warn"


def set_hazard_policy(policy: str) -> str:
    """Set the policy (``error``, ``warn``, ``ignore`` or ``off``); returns the previous one."""
    global _policy
    if policy not in POLICIES:
        raise ValueError(f"unknown hazard policy '{policy}'; choose one of {', '.join(POLICIES)}")
    old, _policy = _policy, policy
    return old


def get_hazard_policy() -> str:
    return _policy


@contextmanager
def hazard_policy(policy: str):
    """``with hazard_policy("ignore"): ...`` sets the policy for a block."""
    old = set_hazard_policy(policy)
    try:
        yield
    finally:
        set_hazard_policy(old)
