"""Suite-wide settings: the simulator's hazard checker turns races and flag errors into failures, and
every simulation a test runs is checked against the documented Ascend C contract: a ``contract``
finding (``pyasc.dialects.ascendc.contract.RULES``) in any run fails the test, whatever hazard policy
the run used. A test that breaks a rule on purpose is marked ``@pytest.mark.contract_findings``."""

import pytest

import pyasc.runtime as _rt
from pyasc.runtime import simulator as _simulator

_rt.set_hazard_policy("error")


def pytest_configure(config):
    config.addinivalue_line("markers", "contract_findings: the test expects documented-contract findings")


@pytest.fixture(autouse=True)
def contract_checked(request):
    """Fail the test when any simulation it ran reported a contract finding."""
    found = []

    def listen(sim, host, report):
        found.extend(f for f in report.findings if f.kind == "contract")

    _simulator.add_listener(listen)
    try:
        yield found
    finally:
        _simulator.remove_listener(listen)
    if found and request.node.get_closest_marker("contract_findings") is None:
        pytest.fail("documented-contract findings in the kernels this test simulated:\n"
                    + "\n".join(str(f) for f in found[:10]), pytrace=False)


def pytest_addoption(parser):
    group = parser.getgroup("torch_diff", "differential suite against PyTorch CPU")
    group.addoption("--diff-long", action="store_true", default=False,
                    help="run three shapes of every shape class for every op and dtype (slow)")
    group.addoption("--diff-observe", action="store_true", default=False,
                    help="ignore the known-failures table: every failing case fails")
