"""The warm pyasc-opt server that lit uses answers exactly as a cold pyasc-opt does: the same
output, diagnostics and exit code, with standard input passed through."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "test" / "lit" / "opt_client.py"
PROGRAM = """func.func @f(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %c = arith.addf %a, %b : tensor<4x64xf32>
  %d = asctensor.sigmoid %c : tensor<4x64xf32>
  func.return %d : tensor<4x64xf32>
}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("opt-server")
    sock = str(folder / "opt.sock")
    proc = subprocess.Popen([sys.executable, "-m", "pyasc.opt_server", sock], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not os.path.exists(sock):
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield sock
    proc.kill()
    proc.wait()


def _cold(args, stdin, cwd):
    opt = shutil.which("pyasc-opt", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    return subprocess.run([opt, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=300)


def _warm(server, args, stdin, cwd):
    env = dict(os.environ, PYASC_OPT_SERVER=server)
    return subprocess.run([sys.executable, "-I", "-S", str(CLIENT), *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize("args, stdin", [
    (["-p", "asctensor-decompose,asctensor-fuse"], PROGRAM),             # the program on standard input
    (["prog.mlir", "-p", "to-tile"], None),                              # a file relative to the cwd
    (["prog.mlir", "-p", "no-such-pass"], None),                         # a diagnostic and exit code 1
    (["-p", "to-tile"], "func.func @g( {"),                              # a parse error
])
def test_warm_server_answers_as_a_cold_pyasc_opt(server, tmp_path, args, stdin):
    (tmp_path / "prog.mlir").write_text(PROGRAM)
    cold, warm = _cold(args, stdin, tmp_path), _warm(server, args, stdin, tmp_path)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert (cold.returncode == 0) == (args[-1] != "no-such-pass" and stdin != "func.func @g( {")
    assert cold.returncode != 0 or "func.func" in cold.stdout


def test_client_without_a_server_runs_pyasc_opt_cold(tmp_path):
    env = dict(os.environ, PYASC_OPT_SERVER=str(tmp_path / "none.sock"))
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
    done = subprocess.run([sys.executable, "-I", "-S", str(CLIENT), "-p", "asctensor-decompose"], input=PROGRAM,
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and "math.exp" in done.stdout


def test_lit_stops_a_hung_test_at_the_suites_time_limit(tmp_path):
    """The suite's per-test limit (``PYASC_LIT_TIMEOUT``) stops a RUN line that never returns, rather than
    holding up ``make test``: lit kills it (through psutil) and reports it as timed out."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "lit.cfg.py").write_text(
        "import os\n"
        f"lit_config.load_config(config, {str(ROOT / 'test' / 'lit' / 'lit.cfg.py')!r})\n"
        "config.name = 'hang'\n"
        "config.test_source_root = config.test_exec_root = os.path.dirname(__file__)\n")
    (suite / "hang.mlir").write_text("// RUN: sleep 120\n")
    lit = shutil.which("lit", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    env = dict(os.environ, PYASC_LIT_TIMEOUT="3", PYASC_LIT_COLD="1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    start = time.monotonic()
    run = subprocess.run([lit, "-q", str(suite)], capture_output=True, text=True, env=env, timeout=100)
    assert time.monotonic() - start < 60, "lit waited for the hung RUN line"
    assert run.returncode != 0
    assert "Timed Out: 1" in run.stdout + run.stderr, run.stdout + run.stderr
