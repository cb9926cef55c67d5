# lit configuration of pyasc's FileCheck regression suite.
# Run with:  PATH=/tmp/venv/bin:$PATH lit -sv test/lit
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time

import lit.formats

config.name = "pyasc"
config.test_format = lit.formats.ShTest(execute_external=False)  # lit's internal shell: pipes work
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.test_source_root
config.excludes = ["lit.cfg.py", "lit.local.cfg", "README.md", "Inputs", "opt_client.py"]

# lit scrubs the environment: forward what the tools need to be found and to import pyasc
config.environment["PATH"] = os.environ.get("PATH", "")
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]

for tool in ("pyasc-opt", "filecheck"):
    if shutil.which(tool, path=config.environment["PATH"]) is None:
        lit_config.fatal(f"{tool} not found on PATH; install pyasc with its dev extras "
                         f"(pip install -e '.[dev]') and put the environment's bin first on PATH")


def start_warm_server():
    """Start ``pyasc.opt_server`` (pyasc imported once, a fork per RUN line) and return its socket, or
    None when it cannot start (the RUN lines then start ``pyasc-opt`` cold)."""
    python = os.path.join(os.path.dirname(shutil.which("pyasc-opt", path=config.environment["PATH"])), "python")
    folder = tempfile.mkdtemp(prefix="pyasc-lit-")
    sock = os.path.join(folder, "opt.sock")
    log = open(os.path.join(folder, "server.log"), "wb")
    server = subprocess.Popen([python, "-m", "pyasc.opt_server", sock], stdin=subprocess.DEVNULL,
                              stdout=log, stderr=log, start_new_session=True, env=dict(os.environ))
    atexit.register(lambda: (server.kill(), shutil.rmtree(folder, ignore_errors=True)))
    deadline = time.monotonic() + 120
    while not os.path.exists(sock):
        if server.poll() is not None or time.monotonic() > deadline:
            lit_config.warning(f"the warm pyasc-opt server did not start (see {log.name}); running cold")
            return None
        time.sleep(0.05)
    return sock


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
# (PYASC_LIT_TIMEOUT raises the limit on a loaded machine). lit stops a test past it through psutil
# (the dev extra); without psutil the limit could not stop anything, so it is an error
config.maxIndividualTestTime = int(os.environ.get("PYASC_LIT_TIMEOUT", "60"))
if config.maxIndividualTestTime > 0 and not lit_config.maxIndividualTestTimeIsSupported[0]:
    lit_config.fatal("the per-test time limit needs psutil: install pyasc with its dev extras "
                     "(pip install -e '.[dev]'), or set PYASC_LIT_TIMEOUT=0")

# last, so that it also rewrites the substitutions above.
# PYASC_LIT_COLD=1 runs every RUN line's pyasc-opt as a fresh process, as a user's shell would
if not os.environ.get("PYASC_LIT_COLD"):
    warm = start_warm_server()
    if warm is not None:
        config.environment["PYASC_OPT_SERVER"] = warm
        client = os.path.join(os.path.dirname(__file__), "opt_client.py")
        # the command word only, not a file name that contains it
        config.substitutions.append((r"(?<![\w/.%-])pyasc-opt(?![\w/.-])", f"{sys.executable} -I -S {client}"))
