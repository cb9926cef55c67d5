"""CPU mode: build an emitted project with g++ and run it on the host.

The project's ``include/kernel_operator.h`` declares the Ascend C subset pyasc emits; compiled with
``-DPYASC_CPU -Icpu`` it gets the definitions of ``cpu/pyasc_cpu_impl.h`` (sequential semantics on
host memory, IEEE binary16 ``half`` and ``bfloat16_t``), and ``cpu/pyasc_cpu.cpp`` supplies the
on-chip memories, the block loop behind the launch (a MIX kernel's AIC and AIVs on three threads, linked by
blocking cross-core flags) and CPU stand-ins for AscendCL. The program is
the project's own host program (``host/main.asc`` with the kernels included, or ``host/main.cpp`` and
``kernel/*.cpp`` in the legacy flow): it reads ``input/``, writes ``output/`` and compares with
``golden/`` when present.

- :func:`build_project` compiles a written project into ``build/main_cpu``;
- :func:`run_project` runs it and reads the outputs back;
- :func:`cpu_run` does everything for a module and input arrays, in a temporary folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from .common import EmitError

CPU_DEFINE = "PYASC_CPU"
CXX_FLAGS = ("-std=c++17", "-O1", "-pthread", f"-D{CPU_DEFINE}", "-fno-strict-aliasing")

# compiled objects of the fixed runtime file, per compiler and flags (it never changes within a process)
_RUNTIME_CACHE: dict[tuple, Path] = {}


class CpuRunError(EmitError):
    """The project failed to compile or its program failed (the message holds the diagnostics)."""


@dataclass
class CpuResult:
    """What one CPU run produced: outputs by buffer name, the program's output and verdict."""

    outputs: dict[str, np.ndarray]
    stdout: str
    stderr: str
    returncode: int
    project: Path
    compared: bool = False  # whether goldens were present
    passed: bool | None = None  # PASS / FAIL of the program's own comparison (None without goldens)
    seconds_build: float = 0.0
    seconds_run: float = 0.0
    extra: dict = field(default_factory=dict)


def compiler() -> str | None:
    """The C++ compiler used (``$CXX`` or g++), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


def _runtime_object(cxx: str, out_dir: Path, cpu_dir: Path, include_dir: Path) -> Path:
    """``pyasc_cpu.cpp`` compiled once per process (it does not depend on the kernels)."""
    src = (cpu_dir / "pyasc_cpu.cpp").read_bytes() + (cpu_dir / "pyasc_cpu_impl.h").read_bytes() + \
        (cpu_dir / "pyasc_cpu_state.h").read_bytes() + (include_dir / "kernel_operator.h").read_bytes()
    key = (cxx, CXX_FLAGS, hashlib.sha1(src).hexdigest())
    obj = _RUNTIME_CACHE.get(key)
    if obj is not None and obj.is_file():
        return obj
    cache_dir = Path(tempfile.gettempdir()) / f"pyasc-cpu-{os.getuid() if hasattr(os, 'getuid') else 0}"
    cache_dir.mkdir(parents=True, exist_ok=True)
    obj = cache_dir / f"pyasc_cpu-{key[2][:16]}.o"
    if not obj.is_file():
        tmp = out_dir / "pyasc_cpu.o"
        _compile([cxx, *CXX_FLAGS, f"-I{include_dir}", f"-I{cpu_dir}", "-c", str(cpu_dir / "pyasc_cpu.cpp"),
                  "-o", str(tmp)], "cpu/pyasc_cpu.cpp")
        shutil.move(str(tmp), obj)
    _RUNTIME_CACHE[key] = obj
    return obj


def _compile(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CpuRunError(f"CPU build of {what} failed:\n{' '.join(cmd)}\n{proc.stderr.strip()}")


def build_project(project: str | os.PathLike, cxx: str | None = None) -> Path:
    """Compile a project written by ``write_project`` for the CPU; returns ``build/main_cpu``."""
    import time

    out = Path(project)
    cxx = cxx or compiler()
    if cxx is None:
        raise CpuRunError("no C++ compiler found (set CXX or install g++)")
    include, cpu, host = out / "include", out / "cpu", out / "host"
    if not (cpu / "pyasc_cpu.cpp").is_file():
        raise CpuRunError(f"{out} has no cpu/ folder; write it with pyasc's write_project")
    build = out / "build"
    build.mkdir(exist_ok=True)
    flags = [*CXX_FLAGS, f"-I{include}", f"-I{cpu}", f"-I{host}"]
    t0 = time.perf_counter()
    objs = [_runtime_object(cxx, build, cpu, include)]
    if (host / "main.asc").is_file():  # the find_package(ASC) flow: one .asc unit, the kernels included
        sources = [host / "main.asc"]
    else:  # the ascendc_library flow: the kernels and the host program apart
        sources = sorted((out / "kernel").glob("*.cpp")) + [host / "main.cpp"]
    procs = []
    for src in sources:  # compile the translation units in parallel
        obj = build / f"{src.parent.name}_{src.stem}.o"
        cmd = [cxx, *flags, "-x", "c++", "-c", str(src), "-o", str(obj)]
        procs.append((src, cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
        objs.append(obj)
    errors = []
    for src, cmd, p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            errors.append(f"{src.relative_to(out)}:\n{' '.join(cmd)}\n{err.strip()}")
    if errors:
        raise CpuRunError("CPU build failed:\n" + "\n".join(errors))
    exe = build / "main_cpu"
    _compile([cxx, *[str(o) for o in objs], "-o", str(exe)], "the CPU program (link)")
    build_project.last_seconds = time.perf_counter() - t0
    return exe


def run_project(project: str | os.PathLike, exe: str | os.PathLike | None = None, plan=None,
                timeout: float = 300.0) -> CpuResult:
    """Run the CPU build of a project in its folder and read ``output/*.bin`` back."""
    import time

    from .host import element_numpy_dtype

    out = Path(project)
    exe = Path(exe) if exe is not None else out / "build" / "main_cpu"
    t0 = time.perf_counter()
    proc = subprocess.run([str(exe)], cwd=out, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - t0
    outputs = {}
    if plan is not None:
        for b in plan.outputs:
            f = out / "output" / f"{b.name}.bin"
            if f.is_file():
                name = element_numpy_dtype(b.element)
                if name == "bfloat16":
                    import ml_dtypes

                    dt = np.dtype(ml_dtypes.bfloat16)
                else:
                    dt = np.dtype(name)
                outputs[b.name] = np.fromfile(f, dtype=dt)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    compared = "elements differ" in proc.stdout
    passed = (last == "PASS") if compared else None
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not compared):
        raise CpuRunError(f"the CPU program of {out} failed (exit code {proc.returncode}):\n"
                          f"{proc.stdout.strip()}\n{proc.stderr.strip()}".rstrip())
    return CpuResult(outputs, proc.stdout, proc.stderr, proc.returncode, out, compared, passed,
                     getattr(build_project, "last_seconds", 0.0), seconds)


def cpu_run(module: ModuleOp, inputs: dict[str, np.ndarray] | list[np.ndarray], goldens: dict | None = None,
            host: str | None = None, workdir: str | os.PathLike | None = None,
            keep: bool = False) -> CpuResult:
    """Write ``module``'s project with ``inputs``, build it for the CPU, run it, return the outputs.

    ``inputs`` maps input buffer names to arrays, or is a list in the order of the host function's
    inputs. The outputs come back as flat arrays keyed by buffer name (``CpuResult.outputs``).
    ``workdir`` keeps the project there (else a temporary folder, removed unless ``keep``).
    """
    from .host import host_plan
    from .project import write_project

    plan = host_plan(module, host)
    if not isinstance(inputs, dict):
        inputs = list(inputs)
        if len(inputs) != len(plan.inputs):
            raise EmitError(f"@{plan.name} takes {len(plan.inputs)} inputs, got {len(inputs)}")
        inputs = {b.name: a for b, a in zip(plan.inputs, inputs)}
    tmp = None
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="pyasc-cpu-run-")
        out = Path(tmp) / "project"
    else:
        out = Path(workdir)
    try:
        write_project(module, out, inputs=inputs, goldens=goldens, force=True, host=host)
        exe = build_project(out)
        return run_project(out, exe, plan)
    finally:
        if tmp is not None and not keep:
            shutil.rmtree(tmp, ignore_errors=True)





def cpu_run_project(out_dir: str | os.PathLike, compiled, inputs) -> tuple[bool, str]:
    """Build and run a written project on the CPU and compare with the simulator (``pyasc compile
    --cpu-run``): bit-exact for float32 elementwise results, else the golden tolerance. Returns
    (ok, a report line per output)."""
    from .host import TOLERANCE, host_plan

    plan = host_plan(compiled.module, compiled.name)
    exe = build_project(out_dir)
    res = run_project(out_dir, exe, plan)
    sim, _ = compiled.simulate(*inputs)
    sims = sim if compiled.returns_tuple else (sim,)
    ok, lines = True, []
    for b, ref in zip(plan.outputs, sims):
        got = res.outputs.get(b.name)
        ref = np.asarray(ref).reshape(-1)
        if got is None or got.size != ref.size:
            ok = False
            lines.append(f"{b.name}: no output from the CPU run")
            continue
        exact = np.array_equal(got.view(np.uint8), ref.view(np.uint8))
        rtol, atol = TOLERANCE.get(b.element, (0.0, 0.0))
        g64, r64 = got.astype(np.float64), ref.astype(np.float64)
        close = bool(np.all(np.isclose(g64, r64, rtol=rtol, atol=atol, equal_nan=True)))
        with np.errstate(invalid="ignore"):  # equal infinities differ by nothing, not by inf - inf
            diff = np.where(g64 == r64, 0.0, np.abs(g64 - r64))
        err = float(np.nanmax(diff)) if got.size and not np.isnan(diff).all() else 0.0
        verdict = "bit-exact" if exact else ("within tolerance" if close else "MISMATCH")
        ok = ok and (exact or close)
        lines.append(f"{b.name}: CPU run vs simulator: {verdict} ({got.size} x {b.element}, max abs error {err:g})")
    lines.append(f"cpu-run: {'PASS' if ok else 'FAIL'} (build {res.seconds_build:.2f} s, run {res.seconds_run:.2f} s)")
    return ok, "\n".join(lines)
__all__ = ["CpuResult", "CpuRunError", "build_project", "run_project", "cpu_run", "cpu_run_project", "compiler"]
