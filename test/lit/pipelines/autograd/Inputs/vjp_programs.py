"""Print the traced asctensor programs of small vector-Jacobian products (``pyasc.vjp`` inside
``pyasc.jit``): the forward followed by the ``asctensor.vjp`` op holding the records of its calls."""

import numpy as np

import pyasc


def pullback(fn):
    def program(*args):
        *xs, ct = args
        _, back = pyasc.vjp(fn, *xs)
        return back(ct)
    program.__name__ = f"vjp_{fn.__name__}"
    return pyasc.jit(program)


def exp_mul(x, y):
    return pyasc.exp(x) * y


def bias_add(x, b):
    return pyasc.tanh(x + b)


def product(a, b):
    return a @ b


def row_softmax(x):
    return pyasc.softmax(x, -1)


f32 = np.float32
programs = []
for fn, args in ((exp_mul, [np.ones((4, 8), f32)] * 3),
                 (bias_add, [np.ones((4, 8), f32), np.ones(8, f32), np.ones((4, 8), f32)]),
                 (product, [np.ones((16, 32), f32), np.ones((32, 8), f32), np.ones((16, 8), f32)]),
                 (row_softmax, [np.ones((4, 8), f32)] * 2)):
    programs.append(pullback(fn).lower(*args).as_text("traced"))
print("\n// -----\n".join(programs))
