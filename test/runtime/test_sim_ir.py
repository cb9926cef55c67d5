"""Simulating IR directly: ``pyasc.runtime.simulate`` and ``pyasc run kernel.mlir``; reports name
both ops of a race with their IR and the user's source line."""

from pathlib import Path

import numpy as np
import pytest

import pyasc
from pyasc.cli import main
from pyasc.runtime import HazardError, Simulator, simulate
from mutation import apply, mutations
from sim_irgen import add_flags_ir

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_simulate_allocates_outputs_and_overrides_block_dim():
    x = np.arange(4096, dtype=np.float32)
    text = (FIXTURES / "add_flags.mlir").read_text()
    (xo, yo, z), report = simulate(text, x, x)
    np.testing.assert_array_equal(z, 2 * x)
    assert report.ok and report.launches[0].block_dim == 4
    _, r1 = simulate(text, x, x, block_dim=1)
    assert r1.launches[0].block_dim == 1


@pytest.mark.parametrize("drop,kind", [
    ("wait_flag MTE2_V", "race"),
    ("set_flag V_MTE2, %c1", "deadlock"),
])
def test_wrong_program_gets_report_and_no_results(drop, kind):
    x = np.ones(2048, np.float32)
    outs, report = simulate(add_flags_ir(2048, 2, 256, drop=drop), x, x)
    assert outs is None and not report.ok
    assert any(f.kind == kind for f in report.findings), str(report)
    if kind == "deadlock":
        assert "ascendc.wait_flag V_MTE2" in report.error.message


def test_bad_event_id_and_overflow_get_no_results():
    x = np.ones(1024, np.float32)
    outs, report = simulate(add_flags_ir(1024, 1, 256, event_id="arith.muli %slot, %tile : index"), x, x)
    assert outs is None and "out of range" in report.error.message
    text = add_flags_ir(1024, 1, 256).replace("VECOUT address 4096", "VECOUT address 195584")
    outs, report = simulate(text, x, x)
    assert outs is None and "UB overflow" in report.error.message


def test_race_report_names_both_ops_and_source_lines():
    def f(x, y):
        a = x * y
        return pyasc.exp(a) + a  # line of the ops

    x = np.ones((64, 1024), np.float16)
    c = pyasc.jit(f, options={"sync_style": "flags", "cores": 2, "tile_size": 2048}).lower(x, x).compile()
    (m,) = [m for m in mutations(c.module) if "edge MTE2_V" in m.what]
    sim = Simulator(apply(c.module, m))
    out = [np.zeros((64, 1024), np.float16)]
    with pytest.raises(HazardError) as e:  # the suite's policy: hazards are errors
        sim.run(c.name, [x, x] + out)
    report = e.value.report
    race = [r for r in report.findings_of("race") if "ascendc.mul" in r.op and "RAW" in r.message][0]
    line = f.__code__.co_firstlineno + 1
    assert race.loc == f"test_sim_ir.py:{line}"
    assert "ascendc.data_copy" in race.other and "ascendc.mul" in race.message
    assert f"(test_sim_ir.py:{line})" in race.message and "RAW" in race.message
    assert "ascendc.mul" in str(race) and "ascendc.data_copy" in str(race)


def test_cli_runs_mlir(tmp_path, capsys):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, np.ones(4096, np.float32))
    np.save(b, np.arange(4096, dtype=np.float32))
    rc = main(["run", str(FIXTURES / "add_flags.mlir"), "--inputs", str(a), str(b), "--save", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert rc == 0 and "no findings" in out and "output 0: float32[4096]" in out
    np.testing.assert_array_equal(np.load(tmp_path / "o" / "out0.npy"), np.arange(4096) + 1)


def test_cli_wrong_mlir_reports_without_results(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text(add_flags_ir(2048, 2, 256, drop="set_flag V_MTE2, %c1"))
    a = tmp_path / "a.npy"
    np.save(a, np.ones(2048, np.float32))
    rc = main(["run", str(bad), "--inputs", str(a), str(a)])
    out = capsys.readouterr().out
    assert rc == 1 and "deadlock" in out and "no results" in out and "output 0" not in out
    bad.write_text("builtin.module { func.func @f( }")
    assert main(["run", str(bad)]) == 1
    assert "not a valid module" in capsys.readouterr().err
