"""The linear-time string-literal pattern: same literals as xDSL 0.75's, no exponential backtracking."""

import random
import re
import subprocess
import sys

import pytest
from pyasc.dialects.lexer_fix import STRING_LITERAL

# xDSL 0.75's pattern, the reference for which texts are string literals
UPSTREAM = re.compile(r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
ALPHABET = ['"', "\\", "n", "t", "a", "F", "0", "9", "g", " ", "\n", "\v", "\f", "é", "%"]


def _span(rx, text):
    m = rx.match(text)
    return None if m is None else m.span()


def test_same_matches_as_upstream_on_random_texts():
    rng = random.Random(7)
    texts = ['""', '"a"', '"\\n"', '"\\""', '"\\4F"', '"\\4"', '"a\\"', '"a\nb"', '"\\\\"x"']
    texts += ['"' + "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 14))) for _ in range(20000)]
    accepted = 0
    for t in texts:
        want = _span(UPSTREAM, t)
        assert _span(STRING_LITERAL, t) == want, repr(t)
        accepted += want is not None
    assert accepted > 1000  # both accepting and rejecting texts were compared


def _run_with_timeout(code: str, timeout: float = 60.0) -> str:
    """Run ``code`` in a fresh interpreter (a backtracking regex cannot be interrupted in-process)."""
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {timeout} s: the lexer backtracks")
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_unterminated_string_is_rejected_fast():
    seconds = float(_run_with_timeout(
        "import time\n"
        "from xdsl.parser import Parser\n"
        "from xdsl.utils.exceptions import ParseError\n"
        "from pyasc.dialects import make_context\n"
        "ctx = make_context()\n"
        "Parser(ctx, 'func.func @g() {\\n  func.return\\n}\\n').parse_module()  # loads the dialects\n"
        "text = 'func.func @f() {\\n  \"' + 'a' * 5000 + '\\n}\\n'\n"
        "t0 = time.perf_counter()\n"
        "try:\n"
        "    Parser(ctx, text).parse_module()\n"
        "except ParseError as e:\n"
        "    assert 'closing string literal' in str(e)\n"
        "else:\n"
        "    raise SystemExit('accepted')\n"
        "print(time.perf_counter() - t0)\n"))
    assert seconds < 1.0


def test_pyasc_opt_rejects_an_unterminated_string(tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text('func.func @f(%x: f32) {\n  "func.return %x ' + "x" * 5000 + "\n}\n")
    out = _run_with_timeout(
        "import contextlib, io\n"
        "from pyasc.opt import main\n"
        "err = io.StringIO()\n"
        "with contextlib.redirect_stderr(err):\n"
        "    try:\n"
        f"        main([{str(f)!r}])\n"
        "    except SystemExit as e:\n"
        "        print(e.code)\n"
        "print(err.getvalue())\n")
    code, _, err = out.partition("\n")
    assert code == "1"
    assert "closing string literal" in err and "Traceback" not in err
