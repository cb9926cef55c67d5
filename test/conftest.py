"""Suite-wide settings: the simulator's hazard checker turns races and flag errors into failures, and
every simulation a test runs is checked against the documented Ascend C contract: a ``contract``
finding (``pyasc.dialects.ascendc.contract.RULES``) in any run fails the test, whatever hazard policy
the run used. A test that breaks a rule on purpose is marked ``@pytest.mark.contract_findings``."""

import gc

import pytest

import pyasc.runtime as _rt
from pyasc.runtime import simulator as _simulator

_rt.set_hazard_policy("error")


def pytest_configure(config):
    _rt.set_initcheck_default(not config.getoption("--no-initcheck"))
    # One process runs thousands of tests, and the programs of the eager cache (about 2,000 objects each) keep
    # its heap at millions of objects: with Python's default thresholds a full collection (up to seconds) ran
    # every few hundred programs compiled, a tenth of the suite's time. Full collections now run after 1,000
    # collections of the middle generation instead of 10 (a few per process), and leave out what the collection
    # imported and built.
    gc.set_threshold(700, 10, 1000)
    config.addinivalue_line("markers", "contract_findings: the test expects documented-contract findings")


def pytest_collection_finish(session):
    gc.freeze()  # the modules, test items and parameters: alive for the whole session


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
    group = parser.getgroup("asc_tutorials", "the official pyasc tutorials on the kernel DSL")
    group.addoption("--asc-tutorials", default=None, metavar="DIR",
                    help="the official pyasc python/tutorials directory (01_add ... 05_matmul_leakyrelu); "
                         "default: the PYASC_TUTORIALS environment variable; without it the tutorial tests skip")

    group = parser.getgroup("autograd", "gradients against torch.autograd")
    group.addoption("--grad-long", action="store_true", default=False,
                    help="check the gradient of every case in float16 and bfloat16 too (slow)")

    group = parser.getgroup("robustness", "fuzzing and random programs")
    group.addoption("--fuzz-long", action="store_true", default=False,
                    help="fuzz pyasc-opt with 3,000 mutants and every pipeline (slow)")
    group.addoption("--random-long", action="store_true", default=False,
                    help="run 5,000 random programs against NumPy, and 1,000 random cube products with and without "
                         "operand forwarding (slow)")

    group = parser.getgroup("contract", "the documented Ascend C contract")
    group.addoption("--no-initcheck", action="store_true", default=False,
                    help="simulations made without initcheck= do not report reads of never-written local memory "
                         "(on by default, as in the library)")

    group = parser.getgroup("mutation", "mutation test of the hazard and contract checks")
    group.addoption("--mutation-long", action="store_true", default=False,
                    help="simulate every mutant of every class instead of a seeded sample of a few per class "
                         "and program (slow)")

    group = parser.getgroup("models", "ONNX model import against onnxruntime")
    group.addoption("--models", action="store_true", default=False,
                    help="run ResNet-18, MobileNetV2 and the transformer encoder against onnxruntime (slow)")
    group.addoption("--models-full", action="store_true", default=False,
                    help="with --models: 224x224 images and 32 images per check instead of reduced sizes")
