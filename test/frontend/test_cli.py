"""The ``pyasc`` command line: dump, run, compile and clean errors for user mistakes."""

import textwrap

import pytest

from pyasc.cli import main, parse_option, parse_shape

from .conftest import requires_backend

PROGRAM = textwrap.dedent("""
    import pyasc

    def quickstart(x, y):
        return pyasc.gelu(x * y + 1.5)

    @pyasc.jit(options={"cores": 4})
    def scaled(x):
        return x * 2.0

    def bad(x):
        return pyasc.gelu(x)

    not_a_function = 3
""")


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(PROGRAM)
    return str(path)


def test_parse_helpers():
    assert parse_shape("4096x1024") == (4096, 1024)
    assert parse_shape("7") == (7,)
    assert parse_shape("scalar") == ()
    assert parse_option("cores=8") == ("cores", 8)
    assert parse_option("sync-style=flags") == ("sync_style", "flags")
    assert parse_option("tile_size=auto") == ("tile_size", None)


def test_dump_traced(program, capsys):
    assert main(["dump", f"{program}:quickstart", "--shape", "8x16", "--dtype", "float16", "--level", "traced"]) == 0
    out = capsys.readouterr().out
    assert "func.func @quickstart(%x: tensor<8x16xf16>, %y: tensor<8x16xf16>)" in out
    assert 'asctensor.gelu' in out and 'asc.loc = "model.py:5"' in out


def test_dump_per_input_shapes_and_dtypes(program, capsys):
    assert main(["dump", f"{program}:quickstart", "--shape", "8x16", "--shape", "16",
                 "--dtype", "float16", "--dtype", "float32", "--level", "traced"]) == 0
    out = capsys.readouterr().out
    assert "%y: tensor<16xf32>" in out and "asctensor.broadcast" in out and "asctensor.cast" in out


def test_dump_jit_function_keeps_and_overrides_options(program, capsys):
    assert main(["dump", f"{program}:scaled", "--shape", "4", "--level", "traced",
                 "--option", "target=ascend910b3"]) == 0
    assert '#asc.target<"ascend910b3">' in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["dump", "{p}:bad", "--shape", "4", "--dtype", "int32"], "pyasc.gelu: does not support dtype int32"),
    (["dump", "{p}:nope", "--shape", "4"], "has no function 'nope'"),
    (["dump", "{p}:not_a_function", "--shape", "4"], "is not a function"),
    (["dump", "missing.py:f", "--shape", "4"], "no such file: missing.py"),
    (["dump", "{p}", "--shape", "4"], "expected path/file.py:function"),
    (["dump", "{p}:quickstart", "--shape", "4xq"], "bad shape '4xq'"),
    (["dump", "{p}:quickstart", "--shape", "4", "--dtype", "float64"], "unknown dtype 'float64'"),
    (["dump", "{p}:quickstart", "--shape", "4", "--option", "cores=0"], "bad --option: option 'cores' must be an integer in 1..65535; got 0"),
    (["dump", "{p}:quickstart", "--shape", "4", "--option", "cores"], "bad option 'cores'"),
    (["dump", "{p}:quickstart", "--shape", "4", "--shape", "4", "--shape", "4"], "takes 2 tensor parameter(s) but 3 --shape"),
    (["dump", "{p}:quickstart"], "give the input shapes with --shape"),
])
def test_user_mistakes_exit_1_without_traceback(program, capsys, argv, message):
    argv = [a.replace("{p}", program) for a in argv]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("pyasc: error: ") and message in err
    assert "Traceback" not in err


def test_load_error_is_reported(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("def f(x):\n    return x +\n")
    assert main(["dump", f"{path}:f", "--shape", "4"]) == 1
    assert "cannot load" in capsys.readouterr().err


@requires_backend
def test_dump_ascendc(program, capsys):
    assert main(["dump", f"{program}:quickstart", "--shape", "64x128", "--dtype", "float16"]) == 0
    assert "ascendc." in capsys.readouterr().out


@requires_backend
def test_run_prints_report(program, capsys):
    assert main(["run", f"{program}:quickstart", "--shape", "64x128", "--dtype", "float16"]) == 0
    out = capsys.readouterr().out
    assert "quickstart: float16[64, 128], float16[64, 128] on ascend910b2" in out
    assert "cycles" in out


@requires_backend
def test_compile_writes_project(program, tmp_path, capsys):
    out = tmp_path / "proj"
    assert main(["compile", f"{program}:quickstart", "--shape", "64x128", "--dtype", "float16",
                 "--out", str(out)]) == 0
    assert (out / "CMakeLists.txt").exists() and (out / "host" / "main.asc").exists()
    assert list((out / "kernel").glob("*.asc"))
    assert "find_package(ASC REQUIRED)" in (out / "CMakeLists.txt").read_text()
    legacy = tmp_path / "legacy"
    assert main(["compile", f"{program}:quickstart", "--shape", "64x128", "--out", str(legacy), "--no-data",
                 "--build-flow", "ascendc_library"]) == 0
    assert (legacy / "host" / "main.cpp").exists() and list((legacy / "kernel").glob("*.cpp"))
    assert main(["compile", f"{program}:quickstart", "--shape", "64x128", "--out", str(tmp_path / "bad"),
                 "--build-flow", "make"]) == 1
    assert "option 'build_flow' must be one of asc, ascendc_library; got 'make'" in capsys.readouterr().err
    assert main(["compile", f"{program}:quickstart", "--shape", "64x128", "--out", str(out)]) == 1
    assert "exists and is not empty" in capsys.readouterr().err
    assert main(["compile", f"{program}:quickstart", "--shape", "64x128", "--out", str(out), "--force",
                 "--data"]) == 0
    assert list((out / "golden").glob("*.bin"))


@requires_backend
def test_profile_prints_kernels_report_and_writes_a_trace(program, tmp_path, capsys):
    trace = tmp_path / "trace.json"
    assert main(["profile", f"{program}:quickstart", "--shape", "64x300", "--dtype", "float16",
                 "--repeat", "2", "--trace", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "quickstart_k0" in out and "calls" in out and "simulated on ascend910b2" in out
    assert "wall time: compile" in out and "(2 run(s))" in out
    import json

    assert json.loads(trace.read_text())


def test_progress_line_only_for_slow_work():
    import io
    import time

    from pyasc.progress import progress, set_enabled

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    set_enabled(True)
    try:
        buf = Terminal()
        with progress("compiling fast", delay=0.5, stream=buf):
            pass
        assert buf.getvalue() == ""
        with progress("compiling slow", delay=0.05, stream=buf):
            time.sleep(0.3)
        text = buf.getvalue()
        assert "pyasc: compiling slow" in text and "compiling slow done in" in text
    finally:
        set_enabled(False)
