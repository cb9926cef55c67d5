"""The explicit-flag programs of the mutation test: (name, function, input shapes and dtypes)."""

from __future__ import annotations

import functools

import numpy as np

import pyasc


def chain_f16(x, y):
    return pyasc.exp(x * y + 1.5) - x


def chain_f32(x, y):
    return pyasc.sqrt(pyasc.abs(x / (y + 2.0))) * x - y


def row_broadcast(x, b):
    return pyasc.relu(x + b) * b


def col_broadcast(x, c):
    return x * c + c


def scalar_ops(x):
    return pyasc.maximum(x * 3.0 + 1.0, x)


def multi_output(x, y):
    return x + y, x * y


def two_outputs_chain(x, y):
    s = x - y
    return pyasc.exp(s), s * s


def casts(x, y):
    return pyasc.cast(x, pyasc.float32) * y


def int32_add(x, y):
    return x + y - x * y


def bf16_add(x, y):
    return pyasc.relu(x + y)


def softmax(x):
    return pyasc.softmax(x, -1)


def layer_norm(x, w):
    return pyasc.layer_norm(x, (x.shape[-1],), w)


def column_sum(x):
    return pyasc.sum(x, 0)


def transpose_scale(x):
    return x.T * 2.0


def concat_rows(x, y):
    return pyasc.cat([x, y], -1) + 1.0


def every_other_column(x):
    return x[:, ::2] - 1.0


def matmul(a, b):
    return a @ b


def matmul_bias_gelu(a, b, bias):
    return pyasc.gelu(a @ b + bias)


F16, F32, BF16, I32 = "float16", "float32", "bfloat16", "int32"

# name -> (function, [(shape, dtype)], ...)
PROGRAMS = {
    "chain_f16": (chain_f16, [((64, 1024), F16), ((64, 1024), F16)]),
    "chain_f32": (chain_f32, [((64, 512), F32), ((64, 512), F32)]),
    "row_broadcast": (row_broadcast, [((64, 512), F16), ((512,), F16)]),
    "col_broadcast": (col_broadcast, [((64, 512), F32), ((64, 1), F32)]),
    "scalar_ops": (scalar_ops, [((32768,), F16)]),
    "multi_output": (multi_output, [((64, 512), F32), ((64, 512), F32)]),
    "two_outputs_chain": (two_outputs_chain, [((64, 512), F16), ((64, 512), F16)]),
    "casts": (casts, [((64, 512), F16), ((64, 512), F32)]),
    "int32_add": (int32_add, [((16384,), I32), ((16384,), I32)]),
    "bf16_add": (bf16_add, [((16384,), BF16), ((16384,), BF16)]),
    "softmax": (softmax, [((64, 256), F32)]),
    "layer_norm": (layer_norm, [((64, 200), F16), ((200,), F16)]),
    "column_sum": (column_sum, [((40, 8192), F32)]),
    "transpose": (transpose_scale, [((256, 320), F32)]),
    "concat": (concat_rows, [((4096, 40), F32), ((4096, 24), F32)]),
    "strided_slice": (every_other_column, [((512, 300), F16)]),
    # cube: two output blocks per AIC and several K stages, so every L1/L0 slot is reused
    "matmul": (matmul, [((1024, 1024), F16), ((1024, 1024), F16)]),
    # float32 B stored K x N (LoadDataWithTranspose): six output blocks per AIC (the slots reused), M, N and
    # K tails (K = 40: one L1 stage, so a deleted copy leaves its rows never written) and an odd number of
    # 8-column blocks
    "matmul_f32": (matmul, [((2010, 40), F32), ((40, 1270), F32)]),
    "matmul_bias_gelu": (matmul_bias_gelu, [((1024, 1024), F16), ((1024, 1024), F16), ((1024,), F16)]),
}


def inputs(specs, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtn in specs:
        d = pyasc.get_dtype(dtn)
        if dtn == I32:
            out.append(rng.integers(-100, 100, shape).astype(np.int32))
        else:
            out.append(rng.standard_normal(shape).astype(np.float32).astype(d.np_dtype))
    return out


@functools.cache
def compile_flags(name: str, buffers: int):
    """The program ``name`` compiled with explicit flags on 2 cores with small tiles (several tiles
    per core, so that every buffer slot is reused), and its input arrays (compiled once per run; the
    callers copy the arrays before simulating)."""
    fn, specs = PROGRAMS[name]
    xs = inputs(specs)
    opts = {"sync_style": "flags", "buffers": buffers, "cores": 2, "tile_size": 1024}
    return pyasc.jit(fn, options=opts).lower(*xs).compile(), xs
