"""The front end's layering: no import cycles among its modules, the compiler's packages load none
of it, the package resolves its public names lazily, and every op is one ``OpDef``."""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import math as mathd

import pyasc
from pyasc import ops
from pyasc.opdef import ELEMENTWISE, OpDef
from pyasc.ops_elementwise import FLOATS, unary

PKG = Path(pyasc.__file__).parent


def _module_level_imports() -> dict[str, set[str]]:
    """``pyasc.x -> {pyasc.y, ...}``: the front-end modules each module imports when it is imported."""
    mods = {"pyasc" if p.stem == "__init__" else f"pyasc.{p.stem}": p for p in PKG.glob("*.py")}
    edges = {m: set() for m in mods}
    for m, p in mods.items():
        for node in ast.parse(p.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.level:
                base = "pyasc" + (f".{node.module}" if node.module else "")
                subs = {f"{base}.{a.name}" for a in node.names} & set(mods)
                edges[m] |= subs or ({base} & set(mods))
            elif isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                edges[m] |= set(names) & set(mods)
    return edges


def test_front_end_modules_import_each_other_without_cycles():
    edges = _module_level_imports()
    done, path = set(), []

    def visit(m):
        if m in path:
            pytest.fail("import cycle: " + " -> ".join(path[path.index(m):] + [m]))
        if m in done:
            return
        path.append(m)
        for n in sorted(edges[m]):
            visit(n)
        path.pop()
        done.add(m)

    for m in sorted(edges):
        visit(m)



def _printed(code: str) -> list[str]:
    """The words ``code`` prints, run in a fresh interpreter."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()

@pytest.mark.parametrize("package", ["pyasc.dialects", "pyasc.lowering", "pyasc.runtime"])
def test_the_compiler_loads_no_front_end_module(package):
    code = (f"import sys, {package}; print(' '.join(m for m in sys.modules if m.startswith('pyasc.') and "
            "not m.startswith(('pyasc.dialects', 'pyasc.lowering', 'pyasc.runtime'))))")
    assert _printed(code) == []


def test_parsing_and_printing_ir_loads_no_numpy():
    """pyasc-opt's start-up: NumPy is for the simulator's semantics, math for lowering."""
    code = ("import sys\nfrom pyasc.dialects import get_all_dialects\n"
            "for f in get_all_dialects().values(): f()\n"
            "import pyasc.opt\n"
            "print(' '.join(m for m in ('numpy', 'ml_dtypes', 'xdsl.dialects.math') if m in sys.modules))")
    assert _printed(code) == []


def test_public_names_resolve_lazily():
    code = ("import sys, pyasc; before = [m for m in sys.modules if m.startswith('pyasc.')]; "
            "x = pyasc.randn(2, 3, dtype=pyasc.half); "
            "print(before, pyasc.float is pyasc.float32, pyasc.int is pyasc.int32, pyasc.bool.name, "
            "callable(pyasc.jit), callable(pyasc.tensor), callable(pyasc.device), x.dtype.name)")
    assert _printed(code) == ["[]", "True", "True", "bool", "True", "True", "True", "float16"]
    for name in pyasc.__all__:
        assert getattr(pyasc, name) is not None, name
    assert {"add", "sum", "matmul", "reshape", "clamp", "Tensor", "jit", "amp"} <= set(dir(pyasc))
    with pytest.raises(AttributeError):
        pyasc.no_such_name  # noqa: B018


def test_every_function_of_the_package_is_an_op_of_the_table():
    for name, op in ops.OPS.items():
        assert isinstance(op, OpDef) and op.name == name
        if op.function:
            assert getattr(pyasc, name) is op
        if op.method:
            assert callable(getattr(pyasc.ones(2), name)), name


def test_an_elementwise_op_is_one_definition():
    """What one entry of ``ops_elementwise.OPS`` gives: the function, its IR and its reference."""
    sin = OpDef("sin", unary(mathd.SinOp), np.sin, dtypes=FLOATS, doc="sine")
    assert sin.kind == ELEMENTWISE and sin.__doc__ == "sine"
    f = pyasc.jit(lambda x: sin(x * 2))
    text = str(f.trace(pyasc.ones(4, dtype=pyasc.float16)))
    assert "math.sin" in text and "tensor<4xf16>" in text
    x = np.linspace(-3, 3, 7).astype(np.float32)
    np.testing.assert_allclose(sin.evaluate([pyasc.tensor(x)], {}, sin.types([pyasc.tensor(x)], {})),
                               np.sin(x.astype(np.float64)).astype(np.float32))
    with pytest.raises(pyasc.PyascError, match="pyasc.sin: does not support dtype int32"):
        sin(pyasc.tensor([1, 2]))
