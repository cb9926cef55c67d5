"""The packages import each other without cycles: every module-level import of the whole package
(front end, dialects, lowering, runtime) is walked and any strongly connected group is a failure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"pyasc": ROOT / "pyasc", "pyasc.dialects": ROOT / "dialects", "pyasc.lowering": ROOT / "lowering",
            "pyasc.runtime": ROOT / "runtime"}


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            mods[".".join([pkg, *parts])] = path
    return mods


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """The modules of ``mods`` that ``name`` imports when it is imported (module level, including
    ``if``/``try`` blocks; imports inside functions run later and are left out)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        for n in ast.walk(node) if isinstance(node, ast.If | ast.Try) else [node]:
            if isinstance(n, ast.Import):
                out.update(a.name for a in n.names if a.name in mods)
            elif isinstance(n, ast.ImportFrom):
                base = n.module or ""
                if n.level:
                    parts = package.split(".")[: len(package.split(".")) - n.level + 1]
                    base = ".".join(parts + ([n.module] if n.module else []))
                subs = {f"{base}.{a.name}" for a in n.names if f"{base}.{a.name}" in mods}
                out |= subs
                if base in mods and len(subs) < len(n.names):
                    out.add(base)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return groups


def test_packages_have_no_import_cycle():
    mods = _modules()
    assert {"pyasc.opdef", "pyasc.runtime.simulator", "pyasc.dialects.ascendc.vector"} <= set(mods)
    graph = {m: _imports(m, p, mods) for m, p in mods.items()}
    assert _cycles(graph) == []


def test_the_walk_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", ["pyasc.lowering.bufferize", "pyasc.lowering.to_ascendc"])
def test_the_walk_sees_the_passes(module):
    mods = _modules()
    assert module in mods and _imports(module, mods[module], mods)
