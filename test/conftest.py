"""Suite-wide settings: the simulator's hazard checker turns races and flag errors into failures."""

import pyasc.runtime as _rt

_rt.set_hazard_policy("error")


def pytest_addoption(parser):
    group = parser.getgroup("torch_diff", "differential suite against PyTorch CPU")
    group.addoption("--diff-long", action="store_true", default=False,
                    help="run three shapes of every shape class for every op and dtype (slow)")
    group.addoption("--diff-observe", action="store_true", default=False,
                    help="ignore the known-failures table: every failing case fails")
    group = parser.getgroup("robustness", "fuzzing and random programs")
    group.addoption("--fuzz-long", action="store_true", default=False,
                    help="fuzz pyasc-opt with 3,000 mutants and every pipeline (slow)")
    group.addoption("--random-long", action="store_true", default=False,
                    help="run 5,000 random programs against NumPy (slow)")
