"""Check emitted C++ with ``g++ -std=c++17 -fsyntax-only`` against pyasc's stub headers.

Kernels are checked against ``include/kernel_operator.h``; ``host/main.cpp`` against
``include/acl/acl.h`` with ``-DPYASC_SYNTAX_ONLY``, which turns the ``<<<>>>`` launch (bisheng
syntax) into a plain call of the declared kernel, so the argument list is still checked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
SYNTAX_ONLY_DEFINE = "PYASC_SYNTAX_ONLY"


class SyntaxResult(NamedTuple):
    """``ok`` is True/False after a check and None when it was skipped (no g++)."""

    ok: bool | None
    diagnostics: str

    @property
    def skipped(self) -> bool:
        return self.ok is None


def _is_path(x: str | os.PathLike) -> bool:
    if isinstance(x, os.PathLike):
        return True
    return "\n" not in x and len(x) < 4096 and Path(x).is_file()


def syntax_check(path_or_source: str | os.PathLike, include_dir: str | os.PathLike | None = None, *,
                 defines: Sequence[str] = (), extra_includes: Sequence[str | os.PathLike] = (),
                 compiler: str = "g++", timeout: float = 120.0) -> SyntaxResult:
    """Run ``g++ -std=c++17 -fsyntax-only -I<include_dir>`` on a file or on source text.

    ``include_dir`` defaults to the stub headers shipped with the emitter. ``defines`` are
    passed as ``-D`` (e.g. ``PYASC_SYNTAX_ONLY`` for a host program), ``extra_includes`` as more
    ``-I`` folders. Returns ``(ok, diagnostics)``; ``ok`` is None when g++ is not installed.
    """
    exe = shutil.which(compiler)
    if exe is None:
        return SyntaxResult(None, f"skipped: {compiler} not found on PATH")
    include_dir = INCLUDE_DIR if include_dir is None else include_dir
    flags = ["-std=c++17", "-fsyntax-only", "-x", "c++", f"-I{include_dir}"]  # -x c++: .asc sources too
    flags += [f"-I{d}" for d in extra_includes]
    flags += [f"-D{d}" for d in defines]
    with tempfile.TemporaryDirectory(prefix="pyasc-syntax-") as tmp:
        if _is_path(path_or_source):
            src = Path(path_or_source)
        else:
            src = Path(tmp) / "source.cpp"
            src.write_text(str(path_or_source))
        try:
            proc = subprocess.run([exe, *flags, str(src)], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return SyntaxResult(False, f"{compiler} timed out after {timeout} s on {src}")
    return SyntaxResult(proc.returncode == 0, (proc.stdout + proc.stderr).strip())


def check_project(out_dir: str | os.PathLike) -> dict[str, SyntaxResult]:
    """Syntax-check every kernel and the host program of a project written by ``write_project`` (either
build flow: ``.cpp`` or ``.asc`` sources)."""
    out = Path(out_dir)
    include = out / "include"
    results = {}
    for k in sorted([*(out / "kernel").glob("*.cpp"), *(out / "kernel").glob("*.asc")]):
        results[str(k.relative_to(out))] = syntax_check(k, include)
    for main in (out / "host" / "main.cpp", out / "host" / "main.asc"):
        if main.is_file():
            results[str(main.relative_to(out))] = syntax_check(main, include, defines=[SYNTAX_ONLY_DEFINE])
    return results
