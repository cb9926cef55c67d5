# lit configuration of pyasc's FileCheck regression suite.
# Run with:  PATH=/tmp/venv/bin:$PATH lit -sv test/lit
import os
import shutil

import lit.formats

config.name = "pyasc"
config.test_format = lit.formats.ShTest(execute_external=False)  # lit's internal shell: pipes work
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.test_source_root
config.excludes = ["lit.cfg.py", "lit.local.cfg", "README.md", "Inputs"]

# lit scrubs the environment: forward what the tools need to be found and to import pyasc
config.environment["PATH"] = os.environ.get("PATH", "")
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]

for tool in ("pyasc-opt", "filecheck"):
    if shutil.which(tool, path=config.environment["PATH"]) is None:
        lit_config.fatal(f"{tool} not found on PATH; install pyasc with its dev extras "
                         f"(pip install -e '.[dev]') and put the environment's bin first on PATH")

# custom -> generic -> custom, and custom -> custom: both must print what the CHECK lines expect
config.substitutions.append((
    "PYASC_ROUNDTRIP",
    "pyasc-opt %s --split-input-file --print-op-generic | pyasc-opt --split-input-file | filecheck %s",
))
config.substitutions.append((
    "PYASC_CUSTOM_ROUNDTRIP",
    "pyasc-opt %s --split-input-file | pyasc-opt --split-input-file | filecheck %s",
))

# each RUN line starts a Python process (about 0.5-1 s); a test far above that is hung
# (PYASC_LIT_TIMEOUT raises the limit on a loaded machine)
config.maxIndividualTestTime = int(os.environ.get("PYASC_LIT_TIMEOUT", "60"))
