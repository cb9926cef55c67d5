"""The op functions ``pyasc.add``, ``pyasc.exp``, ``pyasc.gelu``... (one per op of the table).

Each accepts tensors and Python numbers, follows NumPy broadcasting and PyTorch type
promotion, records IR inside ``pyasc.jit`` and runs eagerly otherwise.
"""

from __future__ import annotations

from .dispatch import apply


def add(x, y):
    """x + y."""
    return apply("add", x, y)


def sub(x, y):
    """x - y."""
    return apply("sub", x, y)


def mul(x, y):
    """x * y."""
    return apply("mul", x, y)


def div(x, y):
    """x / y, true division (integer operands give float32, as in PyTorch)."""
    return apply("div", x, y)


def pow(x, y):  # noqa: A001 - the PyTorch name
    """x ** y (floating point only)."""
    return apply("pow", x, y)


def maximum(x, y):
    """Elementwise maximum, NaN propagating."""
    return apply("maximum", x, y)


def minimum(x, y):
    """Elementwise minimum, NaN propagating."""
    return apply("minimum", x, y)


def neg(x):
    """-x."""
    return apply("neg", x)


def exp(x):
    """e ** x."""
    return apply("exp", x)


def log(x):
    """Natural logarithm."""
    return apply("log", x)


def sqrt(x):
    """Square root."""
    return apply("sqrt", x)


def rsqrt(x):
    """1 / sqrt(x)."""
    return apply("rsqrt", x)


def abs(x):  # noqa: A001 - the PyTorch name
    """Absolute value (floating point only)."""
    return apply("abs", x)


def tanh(x):
    """Hyperbolic tangent."""
    return apply("tanh", x)


def erf(x):
    """Gauss error function."""
    return apply("erf", x)


def relu(x):
    """max(x, 0)."""
    return apply("relu", x)


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return apply("sigmoid", x)


def gelu(x, approximate: str = "none"):
    """GELU as in PyTorch: x * Phi(x) exactly (``"none"``) or with the tanh approximation."""
    return apply("gelu", x, approximate=approximate)


def cast(x, dtype):
    """``x`` converted to ``dtype`` (float to int truncates toward zero)."""
    return apply("cast", x, dtype=dtype)
